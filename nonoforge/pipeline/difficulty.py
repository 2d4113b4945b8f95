"""The difficulty score and grades: deterministic, yet calibrated in seconds.

A puzzle's measured solve time is noisy and machine-dependent; its effort counts (line
solves, probes, search nodes, SAT conflicts) are exact. So we fit, once per solver version,
a *monotone* model from effort (and size, colours) to measured time: predicted seconds are
a non-negative combination of the counts, so more work never scores easier. The score of a
puzzle is its predicted time, a pure function of its effort. Its grade 1..5 cuts the
*grading effort* -- the score times a factor for the search the puzzle needs (the share of
the grid only guessing reaches, how many guesses, how deep: :func:`search_factor`) -- at
fixed cut-points (:data:`GRADE_CUTS`): needing one shallow guess no longer outranks every
puzzle solved line by line, and a puzzle without a proven unique solution never grades 5.
See docs/difficulty.md.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nonoforge.errors import UsageError
from nonoforge.solving import TECHNIQUES
from nonoforge.techniques import human_weights

#: The technique ladder, easiest first (the solver's ``TECHNIQUES``).
LADDER = TECHNIQUES
GRADES = 5
HELD_OUT_SHARE = 0.2


def rung(technique: str | None) -> int:
    """The position of a technique on the ladder (unknown or missing: the top)."""
    try:
        return LADDER.index(technique or "search")
    except ValueError:
        return len(LADDER) - 1


def features(effort: Mapping[str, Any], width: int, height: int, colors: int) -> dict[str, float]:
    """The numbers the model weighs: every effort count, plus cells and cells x colours."""
    out = {f"effort.{k}": float(v) for k, v in effort.items() if isinstance(v, int | float)}
    out["cells"] = float(width * height)
    out["cell_colors"] = float(width * height * colors)
    return out


@dataclass
class Sample:
    """One rated puzzle as the fit sees it."""

    key: str
    technique: str
    features: dict[str, float]
    time_s: float
    #: where the puzzle comes from (the reference fit balances and reports by source)
    source: str = ""


@dataclass
class Model:
    """A fitted difficulty model: weights in seconds per unit of each feature."""

    solver_version: str
    names: list[str]
    weights: list[float]
    intercept: float
    #: the grading effort's cut-points (:data:`GRADE_CUTS` unless a model says otherwise)
    cuts: list[float] = field(default_factory=lambda: list(GRADE_CUTS))
    fit: dict[str, Any] = field(default_factory=dict)

    def score(self, feats: Mapping[str, float]) -> float:
        """Predicted solve time in seconds: never decreases when any count grows."""
        pairs = zip(self.names, self.weights, strict=True)
        return float(self.intercept + sum(w * feats.get(n, 0.0) for n, w in pairs))

    def grade(
        self, technique: str, score: float, feats: Mapping[str, float] | None = None,
        unique: bool = True,
    ) -> int:
        """1 (easiest) .. 5: how many of the cut-points the grading effort
        (:func:`grading_effort`) passes; a puzzle not proven ``unique`` at most
        ``GRADES - 1`` (4), so that grade 5 never means "has several solutions"."""
        value = grading_effort(technique, score, feats or {})
        g = 1 + sum(1 for c in self.cuts if value > c)
        return g if unique else min(g, GRADES - 1)

    def to_dict(self) -> dict[str, Any]:
        return {
            "solver_version": self.solver_version,
            "names": self.names,
            "weights": self.weights,
            "intercept": self.intercept,
            "grading": GRADING,
            "cuts": list(self.cuts),
            "fit": self.fit,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Model:
        """A model as stored; one stored under an older grading rule (its ``thresholds``
        cut ``(rung, score)``) keeps its weights and grades by today's rule."""
        current = d.get("grading") == GRADING and "cuts" in d
        return cls(
            solver_version=str(d["solver_version"]),
            names=list(d["names"]),
            weights=[float(w) for w in d["weights"]],
            intercept=float(d["intercept"]),
            cuts=[float(c) for c in d["cuts"]] if current else list(GRADE_CUTS),
            fit=dict(d.get("fit", {})),
        )


def held_out(key: str) -> bool:
    """Whether a puzzle belongs to the held-out share: decided by its key, so stable."""
    h = int.from_bytes(hashlib.sha256(("holdout:" + key).encode()).digest()[:4], "big")
    return h / 2**32 < HELD_OUT_SHARE


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rank correlation (average ranks for ties); NaN for fewer than 3 points."""
    if len(a) != len(b) or len(a) < 3:
        return math.nan
    ra, rb = _ranks(np.asarray(a, float)), _ranks(np.asarray(b, float))
    if ra.std() == 0 or rb.std() == 0:
        return math.nan
    return float(np.corrcoef(ra, rb)[0, 1])


def _ranks(x: np.ndarray) -> np.ndarray:
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x), float)
    ranks[order] = np.arange(len(x), dtype=float)
    # average the ranks of ties
    _, inv, counts = np.unique(x, return_inverse=True, return_counts=True)
    sums = np.zeros(len(counts))
    np.add.at(sums, inv, ranks)
    return sums[inv] / counts[inv]


def fit(samples: Sequence[Sample], solver_version: str, balance: bool = False) -> Model:
    """Fit the monotone model and report Spearman ρ of score against time on held-out puzzles.

    Non-negative least squares on relative error (each row divided by its measured time),
    so that a 1 ms puzzle counts as much as a 10 s one: ranks are what grades use.

    A corpus's own fit (``balance`` False) trains on 80 % and reports ρ on the held-out
    20 % (:func:`held_out`). The reference fit (``balance`` True) gives every source the
    same weight in the fit and in the grade cut-points, however many puzzles it brings
    (2,000 tournament puzzles must not drown Wilk's 151 tests), trains on every puzzle, and
    reports ρ by :data:`FOLDS`-fold cross-validation (each puzzle scored by the model fitted
    without its fold), overall and per source: every puzzle is held out once, so even a
    source of 12 puzzles gets a meaningful figure.
    """
    if len(samples) < 5:
        raise UsageError(f"a difficulty fit needs at least 5 rated puzzles, got {len(samples)}")
    names = sorted({n for s in samples for n in s.features})
    if balance:
        model = _fit_on(samples, names, solver_version, True)
        oof: dict[str, float] = {}
        for k in range(FOLDS):
            rest = [s for s in samples if _fold(s.key) != k]
            part = _fit_on(rest, names, solver_version, True)
            oof.update({s.key: part.score(s.features) for s in samples if _fold(s.key) == k})

        def cv_rho(rows: Sequence[Sample]) -> float:
            return spearman([oof[s.key] for s in rows], [s.time_s for s in rows])

        model.fit = {
            "n_train": len(samples),
            "n_held_out": len(samples),
            "held_out": f"{FOLDS}-fold cross-validation",
            "spearman_train": _rho(model, samples),
            "spearman_held_out": cv_rho(samples),
            "sources": {
                src: {"n": len(rows), "n_held_out": len(rows), "spearman_held_out": cv_rho(rows)}
                for src in sorted({s.source for s in samples})
                for rows in [[s for s in samples if s.source == src]]
            },
        }
    else:
        train = [s for s in samples if not held_out(s.key)] or list(samples)
        test = [s for s in samples if held_out(s.key)]
        model = _fit_on(train, names, solver_version, False)
        model.fit = {
            "n_train": len(train),
            "n_held_out": len(test),
            "spearman_train": _rho(model, train),
            "spearman_held_out": _rho(model, test),
        }
    return model


#: Folds of the reference fit's cross-validation.
FOLDS = 5


def _fold(key: str) -> int:
    return int.from_bytes(hashlib.sha256(("fold:" + key).encode()).digest()[:4], "big") % FOLDS


def _rho(model: Model, rows: Sequence[Sample]) -> float:
    return spearman([model.score(s.features) for s in rows], [s.time_s for s in rows])


def _fit_on(train: Sequence[Sample], names: list[str], version: str, balance: bool) -> Model:
    """The non-negative least-squares weights on ``train`` (relative error)."""
    from scipy.optimize import nnls

    m = np.array([[s.features.get(n, 0.0) for n in names] for s in train], float)
    a = np.hstack([np.ones((len(train), 1)), m])
    floor = 1e-5  # 10 µs: times below the clock's resolution must not dominate
    t = np.array([max(s.time_s, floor) for s in train])
    w = np.sqrt(_weights(train) if balance else np.ones(len(train)))
    scale = np.maximum(a.max(axis=0), 1e-12)  # condition the columns
    coef, _ = nnls(a / scale / t[:, None] * w[:, None], w, maxiter=50 * a.shape[1])
    coef = coef / scale
    return Model(version, names, [float(x) for x in coef[1:]], float(coef[0]))


def _weights(samples: Sequence[Sample]) -> np.ndarray:
    """Weights that give every source the same total (mean weight 1)."""
    counts: dict[str, int] = {}
    for s in samples:
        counts[s.source] = counts.get(s.source, 0) + 1
    w = np.array([1.0 / counts[s.source] for s in samples])
    return w * len(samples) / w.sum()


# -- the grade (issue 37) ------------------------------------------------------------------

#: The grading rule's version, stored with every model (``grading``). A model stored under
#: another rule (1: the ``(rung, score)`` quintiles before issue 37, no ``grading`` key)
#: keeps its fitted weights and grades by this rule's :data:`GRADE_CUTS`. Bump it when
#: :func:`search_factor` or the cut-points change meaning.
GRADING = 2

#: The grading effort's cut-points, in seconds of predicted solve time times the search
#: factor: grade g+1 when the grading effort passes the g-th. Fixed, so a grade is a
#: property of the puzzle (the same alone or in any corpus) and a refit of the weights
#: keeps the bands, the score being calibrated in seconds. The bands widen upward (each
#: cut 1.7 to 7 times the one below), since search multiplies the effort. On puzzles
#: solved line by line (factor 1): up to about 16x16 is grade 1, 20x20 to 30x30 grade 2,
#: 35x35 to 60x60 grade 3, larger grade 4; grade 5 takes search. Chosen on the reference
#: set and the 6,723 distinct webpbn puzzles (docs/difficulty.md has the histograms).
GRADE_CUTS: tuple[float, ...] = (0.00027, 0.00045, 0.0012, 0.008)

#: Search depth at which the search factor doubles (a depth of 4 nested guesses).
DEPTH_SCALE = 4.0


def search_factor(technique: str | None, feats: Mapping[str, float]) -> float:
    """How many times its predicted time a puzzle grades for the search it needs.

    1 for a puzzle solved line by line. Otherwise the product of

    - ``1 + share x log2(1 + guesses)``: *guesses* are the trial assumptions followed to a
      contradiction (refuted probes), search nodes, backtracks and SAT conflicts -- the
      size of the search, on a log scale, since the first guesses are the big step for a
      solver as for a person; *share* is the part of the grid those guesses decide
      (cells decided after a probe's contradiction over the cells; all of it once the
      solver branches), so a guess that settles two cells of a 20x20 weighs little, one
      the rest of the grid hangs on weighs in full;
    - ``1 + depth / DEPTH_SCALE``: how many guesses were nested at once.

    A small puzzle with one shallow guess gets about 1.5, a 25x25 that needs search 10 to
    50, so the search a puzzle needs moves it up in proportion, not to the top.

    >>> search_factor("line", {"effort.probe_contradictions": 5.0})
    1.0
    >>> search_factor("probe", {"cells": 400.0, "effort.cells_by_probe": 200.0,
    ...                         "effort.probe_contradictions": 1.0})
    1.5
    >>> search_factor("search", {"cells": 625.0, "effort.nodes": 3.0, "effort.max_depth": 4.0,
    ...                          "effort.probe_contradictions": 12.0})
    10.0
    """
    if rung(technique) < rung("probe"):
        return 1.0

    def count(name: str) -> float:
        return max(float(feats.get("effort." + name, 0.0)), 0.0)

    guesses = sum(count(n) for n in
                  ("probe_contradictions", "nodes", "backtracks", "sat_conflicts"))
    cells = max(float(feats.get("cells", 0.0)), 1.0)
    share = 1.0 if count("nodes") > 0 else min(1.0, count("cells_by_probe") / cells)
    return (1.0 + share * math.log2(1.0 + guesses)) * (1.0 + count("max_depth") / DEPTH_SCALE)


def grading_effort(technique: str | None, score: float, feats: Mapping[str, float]) -> float:
    """What the grade cuts: the predicted seconds times :func:`search_factor`."""
    return score * search_factor(technique, feats)


# -- the human-effort score (issue 36) ------------------------------------------------------


class _HumanWeights(Mapping[str, float]):
    """The human ladder's weights (:func:`nonoforge.techniques.human_weights`), read
    afresh on every look-up."""

    def __getitem__(self, name: str) -> float:
        return human_weights()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(human_weights())

    def __len__(self) -> int:
        return len(human_weights())


#: What one step of each rung of the human ladder (:mod:`nonoforge.solver.human`) weighs,
#: read from each rung's ``weight`` in :mod:`nonoforge.techniques` (where the reasons
#: are): the overlap a beginner sees at a glance is 1, complete line deduction 4, a
#: contradiction 8. A live view, so a rung registered later weighs too. Unknown rungs
#: weigh as a contradiction.
HUMAN_WEIGHTS: Mapping[str, float] = _HumanWeights()
#: What each cell a path leaves undecided (it stalled, or the probe budget ran out) adds to
#: the score: more than any ladder step could cost, since the rest needs reasoning beyond
#: the ladder (deep probing or search) that people find hardest of all.
HUMAN_STALL_PENALTY = 16.0
#: The human-effort score's grade cut-points (grade g+1 when the score passes the g-th):
#: fixed, so a human grade is a property of the puzzle as the time grade is, never of the
#: corpus it sits in. Geometric (each grade about 3 times the effort of the one below),
#: from the lowest quintile of the bundled examples' scores (about 350); a stalled path
#: (the tournament sets: hopeless by hand) lands in 4 or 5. Provisional until data from
#: people solving puzzles calibrates them (docs/difficulty.md).
HUMAN_CUTS: tuple[float, ...] = (300.0, 1000.0, 3000.0, 10000.0)


def human_score(summary: Mapping[str, Any], undecided: int = 0) -> float:
    """The human-effort score of a human path's summary (:meth:`HumanPath.summary`):
    weighted steps, scaled up for few footholds and a low bottleneck, plus
    :data:`HUMAN_STALL_PENALTY` per ``undecided`` cell the path left. Deterministic, and
    never lower when a step is added, a foothold lost or the bottleneck narrows.

    >>> human_score({"per_technique": {"simple_boxes": 4, "glue": 2}, "footholds": 3,
    ...              "bottleneck": 1})
    18.75
    """
    per = summary.get("per_technique") or {}
    weighted = sum(HUMAN_WEIGHTS.get(t, HUMAN_WEIGHTS["contradiction"]) * n
                   for t, n in per.items())
    footholds = int(summary.get("footholds") or 0)
    bottleneck = int(summary.get("bottleneck") or 0)
    # 0 footholds -> x3 (nothing to start from), 1 -> x2, 3 -> x1.5, many -> x1;
    # bottleneck 0 (only a contradiction went on) -> x1.5, 1 -> x1.25, many -> x1
    scale = (1 + 2 / (1 + footholds)) * (1 + 0.5 / (1 + bottleneck))
    return round(weighted * scale + HUMAN_STALL_PENALTY * undecided, 3)


def human_grade(score: float) -> int:
    """1 (easiest) .. 5: how many of :data:`HUMAN_CUTS` the human-effort score passes.

    >>> human_grade(10.0), human_grade(2000.0), human_grade(20000.0)
    (1, 3, 5)
    """
    return 1 + sum(1 for c in HUMAN_CUTS if score > c)
