"""Aim a generated puzzle at a difficulty grade: ``nonoforge generate --grade N``.

``--grade-by time`` (the default) aims the time grade; ``--grade-by human`` the human grade
(the human-like path's effort, :func:`~nonoforge.pipeline.difficulty.human_score`): the
size is aimed the same way, and when the puzzle picked is still below the grade,
:func:`~nonoforge.pipeline.harden.harden_generated` makes it harder on purpose with a few
edits, keeping it unique and like its picture (:func:`aim` does both).

Time grades (1 easiest .. 5) come from the difficulty model shipped with nonoforge
(``pipeline/models.json``, see :mod:`nonoforge.pipeline.difficulty`): a score predicted
from the solver's deterministic effort and the hardest technique, so a puzzle's grade is
the same on every machine. Larger grids of the same picture are harder, so
:func:`generate_for_grade` tries growing sizes (10, 15, ... up to the ``size`` asked for,
keeping its aspect) and keeps the first accepted puzzle in the grade, or the closest one,
saying how close it got. Colours and the repair mode stay as the user chose them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nonoforge.errors import UsageError
from nonoforge.images.generate import Generated, generate
from nonoforge.pipeline.difficulty import Model

#: Longest sides tried, smallest first.
SIDES = (10, 15, 20, 25, 30, 35, 40, 45)


def shipped_model() -> Model:
    """The difficulty model shipped for this solver version (a one-line error if none)."""
    from nonoforge.pipeline.rate import bundled_model
    from nonoforge.solver.core import SOLVER_VERSION

    model = bundled_model(SOLVER_VERSION)
    if model is None:
        raise UsageError(f"no difficulty model is shipped for solver {SOLVER_VERSION}")
    return model


#: What ``--grade-by`` takes.
GRADE_BY = ("time", "human")


def grade_of(generated: Generated, model: Model, by: str = "time") -> int | None:
    """``model``'s grade of a generated puzzle, or with ``by="human"`` its human grade (None
    when it cannot be graded)."""
    from nonoforge.pipeline.rate import RateOptions, rate_puzzle, score_rows

    row = rate_puzzle(generated.puzzle, RateOptions(runs=1))
    if by == "human":
        return row["human_grade"]
    score_rows([row], model)
    return row["grade"]


def generate_for_grade(
    image: Any, grade: int, *, size: tuple[int, int] | None = None, by: str = "time",
    **options: Any,
) -> tuple[Generated, int | None, str | None]:
    """``(puzzle, its grade, note)``: the puzzle of ``image`` nearest to ``grade``.

    ``size`` is the largest grid (default 45x45); ``options`` go to
    :func:`~nonoforge.images.generate.generate`. The note says how close it got when no
    accepted size lands in the grade (None when one does).
    """
    if not 1 <= grade <= 5:
        raise UsageError(f"grade must be 1..5, got {grade}")
    if by not in GRADE_BY:
        raise UsageError(f"--grade-by must be one of {', '.join(GRADE_BY)}, got {by!r}")
    model = shipped_model()  # before any work: a missing model is said at once
    most_w, most_h = size or (45, 45)
    top = max(most_w, most_h)
    sides = [s for s in SIDES if s < top] + [top]
    best: tuple[int, Generated, int | None] | None = None
    fallback: Generated | None = None
    for side in sides:
        box = (max(2, round(side * most_w / top)), max(2, round(side * most_h / top)))
        g = generate(image, size=box, **options)
        fallback = fallback or g
        if not g.accepted:
            continue
        got = grade_of(g, model, by)
        if got is None:
            continue
        if best is None or abs(got - grade) <= best[0]:  # a tie: the larger grid is closer
            best = (abs(got - grade), g, got)
        if got >= grade:  # larger grids only get harder
            break
    if best is None:
        assert fallback is not None
        return fallback, None, f"no accepted size could be graded (grade {grade} asked for)"
    _, g, got = best
    what = "human grade" if by == "human" else "grade"
    note = None if got == grade else (
        f"{what} {grade} not reached: the closest is {what} {got} at "
        f"{g.puzzle.width}x{g.puzzle.height}"
    )
    return g, got, note


@dataclass(frozen=True)
class Aimed:
    """What :func:`aim` made: the puzzle, its grade, a note when the grade was not reached,
    and (``--grade-by human``) what the hardening did."""

    generated: Generated
    grade: int | None
    note: str | None
    hardened: Any = None  # a pipeline.harden.Hardened

    def notes(self) -> list[str | None]:
        """The lines ``generate`` tells: the grade not reached, and what hardening did."""
        done = None if self.hardened is None else f"made harder: {self.hardened.line()}"
        return [self.note, done]

    def fields(self, wanted: int, by: str) -> dict[str, Any]:
        """The JSON fields ``generate --grade`` adds to a puzzle's row."""
        out: dict[str, Any] = {"grade": self.grade, "grade_wanted": wanted,
                               "grade_by": by, "grade_note": self.note}
        if self.hardened is not None:
            out["harden"] = self.hardened.summary()
        return out


def aim(image: Any, grade: int, *, by: str = "time", size: tuple[int, int] | None = None,
        **options: Any) -> Aimed:
    """The puzzle of ``image`` aimed at ``grade``: by size (:func:`generate_for_grade`),
    then, by the human grade, made harder on purpose when it is still below it
    (:func:`~nonoforge.pipeline.harden.harden_generated`)."""
    g, got, note = generate_for_grade(image, grade, size=size, by=by, **options)
    if by != "human" or got is None or got >= grade or not g.accepted:
        return Aimed(g, got, note)
    from nonoforge.pipeline.harden import HardenOptions, harden_generated

    g, h = harden_generated(g, HardenOptions(grade=grade))
    note = None if h.grade_after == grade else (
        f"human grade {grade} not reached: grade {h.grade_after} at "
        f"{g.puzzle.width}x{g.puzzle.height} after making it harder ({h.note})")
    return Aimed(g, h.grade_after, note, h)
