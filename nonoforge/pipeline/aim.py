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
saying how close it got. Colours and the repair mode stay as the user chose them: every
knob travels in one :class:`~nonoforge.images.generate.GenerateOptions`, whose grid size
is the largest tried.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from nonoforge.errors import UsageError
from nonoforge.images.generate import Generated, GenerateOptions, generate
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
    image: Any, grade: int, options: GenerateOptions | None = None, *, by: str = "time",
    title: str | None = None, progress: Callable[[str], None] | None = None,
) -> tuple[Generated, int | None, str | None]:
    """``(puzzle, its grade, note)``: the puzzle of ``image`` nearest to ``grade``.

    ``options`` are :func:`~nonoforge.images.generate.generate`'s; their ``size`` is the
    largest grid (default 45x45; a ``width`` is refused: the aim chooses the grid).
    ``title`` and ``progress`` go to ``generate`` as they are. The note says how close it
    got when no accepted size lands in the grade (None when one does).
    """
    opts = options or GenerateOptions()
    if not 1 <= grade <= 5:
        raise UsageError(f"grade must be 1..5, got {grade}")
    if by not in GRADE_BY:
        raise UsageError(f"--grade-by must be one of {', '.join(GRADE_BY)}, got {by!r}")
    if opts.quantise.width is not None:
        raise UsageError("a grade is aimed at with a size (the largest grid), not a width")
    model = shipped_model()  # before any work: a missing model is said at once
    most_w, most_h = opts.quantise.size or (45, 45)
    top = max(most_w, most_h)
    sides = [s for s in SIDES if s < top] + [top]
    best: tuple[int, Generated, int | None] | None = None
    fallback: Generated | None = None
    for side in sides:
        box = (max(2, round(side * most_w / top)), max(2, round(side * most_h / top)))
        at = replace(opts, quantise=replace(opts.quantise, size=box))
        g = generate(image, at, title=title, progress=progress)
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
    (``--grade-by human``) what the hardening did, and what was asked: the grade wanted
    (None: no aim, the puzzle at the options' size) and by which grade."""

    generated: Generated
    grade: int | None
    note: str | None
    hardened: Any = None  # a pipeline.harden.Hardened
    wanted: int | None = None
    by: str = "time"

    def notes(self) -> list[str | None]:
        """The lines ``generate`` tells: the grade not reached, and what hardening did."""
        done = None if self.hardened is None else f"made harder: {self.hardened.line()}"
        return [self.note, done]

    def fields(self) -> dict[str, Any]:
        """The JSON fields ``generate --grade`` adds to a puzzle's row (none without an
        aim)."""
        if self.wanted is None:
            return {}
        out: dict[str, Any] = {"grade": self.grade, "grade_wanted": self.wanted,
                               "grade_by": self.by, "grade_note": self.note}
        if self.hardened is not None:
            out["harden"] = self.hardened.summary()
        return out


def aim(
    image: Any, grade: int | None, options: GenerateOptions | None = None, *,
    by: str = "time", title: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> Aimed:
    """The puzzle of ``image`` made with ``options`` and aimed at ``grade``: by size
    (:func:`generate_for_grade`), then, by the human grade, made harder on purpose when it
    is still below it (:func:`~nonoforge.pipeline.harden.harden_generated`). With
    ``grade`` None it is the one puzzle :func:`~nonoforge.images.generate.generate` makes
    at the options' size -- what ``nonoforge generate`` calls, with or without
    ``--grade``. ``title`` and ``progress`` go to ``generate``."""
    if grade is None:
        return Aimed(generate(image, options, title=title, progress=progress), None, None,
                     by=by)
    g, got, note = generate_for_grade(image, grade, options, by=by, title=title,
                                      progress=progress)
    if by != "human" or got is None or got >= grade or not g.accepted:
        return Aimed(g, got, note, wanted=grade, by=by)
    from nonoforge.pipeline.harden import HardenOptions, harden_generated

    g, h = harden_generated(g, HardenOptions(grade=grade))
    note = None if h.grade_after == grade else (
        f"human grade {grade} not reached: grade {h.grade_after} at "
        f"{g.puzzle.width}x{g.puzzle.height} after making it harder ({h.note})")
    return Aimed(g, h.grade_after, note, h, grade, by)
