"""What a solve can conclude, as a type every layer above the solver imports downward.

A verdict used to be a bare string passed from the solver through ratings, the corpus,
exports and JSON (issue 40: "a typed spine"). :class:`Verdict` is a :class:`str` enum, so
each member *is* its old string: JSON output, database values and comparisons with the
strings stored before it existed are unchanged (``Verdict.UNIQUE == "unique"``), and code
that still writes the literal keeps working. This module imports nothing of ours, like
:mod:`nonoforge.puzzle`, so the solver, the pipeline and the CLI can all build on it.

>>> Verdict("found") is Verdict.FOUND, f"{Verdict.UNIQUE}", Verdict.MULTIPLE == "multiple"
(True, 'unique', True)
>>> Verdict.UNSOLVED.cut_short, Verdict.FOUND.cut_short, Verdict.NONE.proven
(True, False, True)
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from typing import Any


class Verdict(enum.StrEnum):
    """The outcome of a solve: what it proved, found, or why it stopped first.

    Every solution a solve returns reproduces the clues, whatever the verdict; the verdict
    says what is known *beyond* those solutions.
    """

    UNIQUE = "unique"
    """Proven: exactly one picture satisfies the clues (and givens), and it is returned --
    logic forced every cell, or a search that looked for a second one was exhausted."""
    MULTIPLE = "multiple"
    """Proven: at least two different pictures satisfy the clues; two are returned."""
    NONE = "none"
    """Proven: no picture satisfies the clues."""
    FOUND = "found"
    """One solution was asked for (``max_solutions=1``) and one was found before logic
    alone had forced every cell (by search, or a probe that ran into it); whether it is the
    only one was not checked. (Before this member existed such a solve
    said ``unsolved``; stored rows may still hold that.)"""
    TIMEOUT = "timeout"
    """The wall clock ran out first: nothing is proven, ``solutions`` holds what was found
    by then. The only verdict that can differ between two runs of the same solve."""
    BUDGET = "budget"
    """The deterministic work budget (or the search's node budget) ran out first: nothing
    is proven, ``solutions`` holds what was found; the same on every run and machine."""
    UNSOLVED = "unsolved"
    """A limited strategy (``line``, ``probe``) used up what it may do with cells still
    undecided: nothing is proven (a stored result from before :attr:`FOUND` existed may
    also mean "one solution found, uniqueness not checked")."""

    @property
    def proven(self) -> bool:
        """Whether the verdict is a proof about the puzzle (unique, multiple or none)."""
        return self in _PROVEN

    @property
    def cut_short(self) -> bool:
        """Whether the solve stopped before answering what it was asked (a clock, a
        budget or a strategy's limit): its ``state`` shows how far logic got."""
        return self in _CUT_SHORT


_PROVEN = frozenset({Verdict.UNIQUE, Verdict.MULTIPLE, Verdict.NONE})
_CUT_SHORT = frozenset({Verdict.TIMEOUT, Verdict.BUDGET, Verdict.UNSOLVED})


class Mishap(enum.StrEnum):
    """A rating's status that is not a solver verdict: the rating itself went wrong.

    A rating (:class:`Rating`) ends with a :class:`Verdict` or with one of these; the two
    enums share no value, so a stored status string names exactly one member of either
    (:func:`status_of`).
    """

    TIMEOUT_WALL = "timeout_wall"
    """The wall-clock safety net fired before the work budget did: the effort depends on
    the machine and its load, so the rating gets no score or grade (kept apart from
    :attr:`Verdict.BUDGET`, which is deterministic)."""
    ERROR = "error"
    """The puzzle could not be rated (the solver refused it, its worker died): the
    reason is :attr:`Rating.error`."""


#: What a rating's ``status`` holds: the solve's verdict, or why the rating itself failed.
Status = Verdict | Mishap


def status_of(value: str) -> Status:
    """The member a status string names, a :class:`Verdict` or a :class:`Mishap`.

    >>> status_of("unique"), status_of("timeout_wall")
    (<Verdict.UNIQUE: 'unique'>, <Mishap.TIMEOUT_WALL: 'timeout_wall'>)
    >>> status_of("late")
    Traceback (most recent call last):
    ...
    ValueError: 'late' is not a rating status
    """
    if value in Verdict._value2member_map_:
        return Verdict(value)
    if value in Mishap._value2member_map_:
        return Mishap(value)
    raise ValueError(f"{value!r} is not a rating status")


#: The statuses whose rating gets a grade (the time grade and the human grade alike).
GRADED: frozenset[Status] = frozenset({Verdict.UNIQUE, Verdict.MULTIPLE})


class Effort(Mapping[str, int]):
    """The solver's effort counts for one solve: a read-only mapping of name to count.

    The counts are deterministic (the same puzzle and budget give the same counts on any
    machine); ``work`` is the one a budget is measured in. The solver adds counts over
    versions (``sum_lines`` ...), so the names are open: every count given is kept, in
    the order given, and :meth:`to_json` gives them back as they came, which keeps JSON
    output and stored rows unchanged. Equal to any mapping with the same counts.

    >>> e = Effort({"line_solves": 12, "work": 300})
    >>> e.work, e["line_solves"], e.get("nodes", 0), len(e)
    (300, 12, 0, 2)
    >>> e
    Effort({'line_solves': 12, 'work': 300})
    >>> eval(repr(e)) == e == {"line_solves": 12, "work": 300}
    True
    """

    __slots__ = ("_counts",)
    _counts: dict[str, int]

    def __init__(self, counts: Mapping[str, int] | None = None) -> None:
        got = dict(counts or {})
        for k, v in got.items():
            if not isinstance(k, str) or isinstance(v, bool) or not isinstance(v, int):
                raise ValueError(f"an effort count is a name and a whole number, not "
                                 f"{k!r}: {v!r}")
        if "error" in got:  # where the corpus keeps a failed rating's reason
            raise ValueError("'error' is no effort count: it is a failed rating's reason")
        object.__setattr__(self, "_counts", got)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("an Effort is read-only")

    def __getitem__(self, name: str) -> int:
        return self._counts[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._counts)

    def __len__(self) -> int:
        return len(self._counts)

    def __hash__(self) -> int:
        return hash(tuple(self._counts.items()))

    def __repr__(self) -> str:
        return f"Effort({self._counts!r})"

    def __reduce__(self) -> tuple[type[Effort], tuple[dict[str, int]]]:
        return Effort, (self._counts,)  # ratings travel between processes

    @property
    def work(self) -> int:
        """The work units spent (what a budget limits); 0 when not counted."""
        return self._counts.get("work", 0)

    def to_json(self) -> dict[str, int]:
        """The counts as a plain dict, in their order (what JSON and the corpus hold)."""
        return dict(self._counts)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Effort:
        """The counts of a stored or printed effort; a value that is no count is refused
        (``ValueError``). A rating's failure reason, which the corpus keeps in the same
        column, is :meth:`Rating.from_json`'s to take out first."""
        return cls(data)


#: The fields :meth:`Rating.to_json` always gives (the corpus's columns, ``rate --json``'s
#: core); the others only when known.
_ALWAYS = ("key", "status", "technique", "effort", "time_s", "times", "score", "grade",
           "human", "human_score", "human_grade")
#: The context a rating may carry, given by :meth:`Rating.to_json` only when not None.
_KNOWN = ("title", "width", "height", "colors", "cpu_s", "cpu_times", "error",
          "solver_version", "rated_at", "repeats")


@dataclass(frozen=True, repr=False)
class Rating:
    """One puzzle's rating: the solve's verdict, technique and effort, its measured time,
    the score and grade a model gives it, and the human features when they exist.

    A rating is made by :func:`nonoforge.pipeline.rate.rate_one`, scored by
    :meth:`scored`, stored in the corpus (one row of its results table a solver
    version) and printed by ``rate --json``. Its dict face, :meth:`to_json`, is the row
    those always held, key for key and in the same order, so that JSON output and the
    database are unchanged; :meth:`from_json` reads it back (a stored row, a printed
    entry). The fields after ``human_grade`` are context: what the puzzle is (``title``,
    size, colours), the CPU times, a failure's reason, which solver and when; each is
    None where its source does not know it (a stored row has no title, a fresh one no
    ``rated_at``).

    >>> r = Rating("k1", Verdict.UNIQUE, "line", Effort({"work": 40}), 0.002, (0.002,))
    >>> r.graded, r.scored(score=0.001, grade=1).grade
    (True, 1)
    >>> Rating.from_json(r.to_json()) == r and eval(repr(r)) == r
    True
    """

    key: str
    #: None only for a stored row saved without one (the corpus's column allows it)
    status: Status | None
    technique: str | None = None
    effort: Effort = field(default_factory=Effort)
    #: the median wall time of the timed runs (seconds; None: a stored row without one)
    time_s: float | None = 0.0
    times: tuple[float, ...] = ()
    #: seconds the model predicts (None: no model, or a status that gets no score)
    score: float | None = None
    grade: int | None = None
    #: the human-like step solver's features (:data:`nonoforge.pipeline.rate.HUMAN_KEYS`)
    human: Mapping[str, Any] | None = field(default=None, hash=False)
    human_score: float | None = None
    human_grade: int | None = None
    title: str | None = None
    width: int | None = None
    height: int | None = None
    colors: int | None = None
    #: the fastest run's CPU time of this thread, and every run's (not stored)
    cpu_s: float | None = None
    cpu_times: tuple[float, ...] | None = None
    #: why the puzzle could not be rated (status :attr:`Mishap.ERROR`)
    error: str | None = None
    solver_version: str | None = None
    #: when the corpus saved it (ISO 8601, as the corpus gives it)
    rated_at: str | None = None
    #: timed runs still to add (a process pool spreads a slow puzzle's repeats)
    repeats: int | None = None

    def __repr__(self) -> str:
        """The constructor call that makes this rating again: the key and status, then
        every other field that differs from its default, by name."""
        status = ("None" if self.status is None
                  else f"{type(self.status).__name__}.{self.status.name}")
        parts = [repr(self.key), status]
        for f in fields(self)[2:]:
            value = getattr(self, f.name)
            default = f.default_factory() if f.default_factory is not MISSING else f.default
            if value != default:
                parts.append(f"{f.name}={value!r}")
        return f"Rating({', '.join(parts)})"

    @property
    def graded(self) -> bool:
        """Whether the status is one that gets a grade (:data:`GRADED`)."""
        return self.status in GRADED

    def scored(self, score: float | None, grade: int | None) -> Rating:
        """This rating with a model's score and grade (both None: none)."""
        return replace(self, score=score, grade=grade)

    def to_json(self) -> dict[str, Any]:
        """The rating as the plain dict JSON output and the corpus hold.

        The fields of :data:`_ALWAYS` always, the context only when known; ``status`` is
        its string, ``effort`` the counts with a failure's reason under ``"error"`` (where
        the corpus keeps it), ``times`` a list.
        """
        effort: dict[str, Any] = self.effort.to_json()
        if self.error is not None:
            effort["error"] = self.error
        out: dict[str, Any] = {
            "key": self.key, "status": None if self.status is None else str(self.status),
            "technique": self.technique,
            "effort": effort, "time_s": self.time_s, "times": list(self.times),
            "score": self.score, "grade": self.grade,
            "human": None if self.human is None else dict(self.human),
            "human_score": self.human_score, "human_grade": self.human_grade,
        }
        for name in _KNOWN:
            value = getattr(self, name)
            if value is not None:
                out[name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Rating:
        """A rating from its dict face: :meth:`to_json`'s, a stored row
        (:meth:`nonoforge.db.Corpus.results`), a ``rate --json`` entry.

        Missing fields take their defaults; other keys are ignored. A reason kept in the
        effort (``effort["error"]``, as the corpus stores it) becomes :attr:`error`. A
        status no enum knows is refused (``ValueError``).
        """
        counts = dict(data.get("effort") or {})
        error = data.get("error")
        if "error" in counts:
            reason = counts.pop("error")
            error = error if error is not None else str(reason)
        times = data.get("times")
        cpu_times = data.get("cpu_times")
        human = data.get("human")
        status = data.get("status")
        time_s = data.get("time_s", 0.0)
        return cls(
            key=str(data["key"]), status=None if status is None else status_of(str(status)),
            technique=data.get("technique"), effort=Effort.from_json(counts),
            time_s=None if time_s is None else float(time_s),
            times=tuple(float(t) for t in times or ()),
            score=data.get("score"), grade=data.get("grade"),
            human=None if human is None else dict(human),
            human_score=data.get("human_score"), human_grade=data.get("human_grade"),
            title=data.get("title"), width=data.get("width"), height=data.get("height"),
            colors=data.get("colors"), cpu_s=data.get("cpu_s"),
            cpu_times=None if cpu_times is None else tuple(float(t) for t in cpu_times),
            error=error, solver_version=data.get("solver_version"),
            rated_at=data.get("rated_at"), repeats=data.get("repeats"),
        )
