"""Aiming a generated puzzle at a grade (:mod:`nonoforge.pipeline.aim`) as the library
calls it: one :class:`~nonoforge.images.generate.GenerateOptions` for every knob.

``nonoforge generate --grade`` is tested through the CLI in ``tests/test_images_cli.py``."""

from __future__ import annotations

import pytest

from nonoforge.errors import UsageError
from nonoforge.examples import example_path
from nonoforge.images.generate import GenerateOptions, generate
from nonoforge.images.quantise import QuantiseOptions
from nonoforge.pipeline.aim import aim, generate_for_grade

PEAR = str(example_path("pear"))


def test_without_a_grade_aim_is_generate() -> None:
    """``aim(image, None, options)`` (what ``nonoforge generate`` calls without
    ``--grade``) makes the puzzle ``generate`` makes, and adds no grade fields."""
    opts = GenerateOptions(QuantiseOptions(size=(10, 10), colors=2, seed=1))
    made = aim(PEAR, None, opts, title="Pear")
    alone = generate(PEAR, opts, title="Pear")
    assert made.generated.puzzle == alone.puzzle and made.grade is None
    assert made.fields() == {} and made.notes() == [None, None]


def test_a_grade_is_aimed_within_the_options_size() -> None:
    """The options' size is the largest grid; the puzzle's fields say what was asked."""
    lines: list[str] = []
    opts = GenerateOptions(QuantiseOptions(size=(10, 10)))
    made = aim(PEAR, 1, opts, progress=lines.append)
    p = made.generated.puzzle
    assert max(p.width, p.height) <= 10 and lines[0] == "preparing the picture"
    f = made.fields()
    assert f["grade_wanted"] == 1 and f["grade_by"] == "time" and f["grade"] == made.grade


@pytest.mark.parametrize(("grade", "by", "opts", "says"), [
    (9, "time", GenerateOptions(), "grade must be 1..5"),
    (2, "speed", GenerateOptions(), "--grade-by must be one of"),
    (2, "time", GenerateOptions(QuantiseOptions(width=20)), "not a width"),
])
def test_bad_aims_are_refused_in_one_line_before_any_work(
        grade: int, by: str, opts: GenerateOptions, says: str) -> None:
    with pytest.raises(UsageError, match=says) as err:
        generate_for_grade("no-such-picture.png", grade, opts, by=by)
    assert "\n" not in str(err.value)
