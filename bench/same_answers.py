"""Every answer of the solver on a fixed set of solves, written out to compare two versions.

A restructure of the engine must answer exactly as before: verdict, technique, every effort
count, the solutions, the root state (and the recorded root sweeps). This writes one JSON
line per solve, from the code in ``--root`` (default: this checkout), and compares two such
files:

    .venv/bin/python bench/same_answers.py --out /tmp/after.jsonl
    .venv/bin/python bench/same_answers.py --root ../old-checkout --out /tmp/before.jsonl
    .venv/bin/python bench/same_answers.py --compare /tmp/before.jsonl /tmp/after.jsonl

With ``--plain`` every solve the plain-Python copy of the engine takes
(:mod:`nonoforge.solver.plain`: small puzzles, no recorded sweeps) is answered by it, the
rest by the engine, so comparing that file with one written without ``--plain`` checks
the two paths against each other on the same solves (it prints how many the plain path
answered).

The solves: the first ``--limit`` puzzles of three tournament sets (``max_solutions=2``
with strategies ``auto`` and ``probe``, and ``max_solutions=1``), the survey-free,
mikix-db and jwilk-nin corpora and tests/data (every strategy but ``sat``, one and two
solutions, and once recording the root sweeps), each to a work budget, never a timeout, so
the clock decides nothing. Only ``time_s`` is left out.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
SHARED = HERE.parent / "shared" / "corpora"
TOURNAMENT_SETS = ("taai2011", "tcga2016", "taai2018")
BUDGET = 1_000_000


def _puzzles() -> Iterator[tuple[str, object]]:
    """``(name, puzzle)`` of the corpora and tests/data (not the tournament sets)."""
    from nonoforge.errors import NonoforgeError
    from nonoforge.formats import read_file

    paths = sorted((SHARED / "survey-free").glob("*.non"))
    paths += sorted(p for p in (SHARED / "mikix-db" / "db").rglob("*") if p.is_file())
    paths += sorted((SHARED / "jwilk-nin").glob("*.nin"))
    paths += sorted(p for p in (HERE / "tests" / "data").rglob("*")
                    if p.is_file() and p.suffix not in (".md", ".db", ".html", ".txt"))
    for path in paths:
        try:
            puzzles = read_file(path)
        except NonoforgeError:
            continue
        for i, p in enumerate(puzzles):
            yield f"{path.relative_to(path.parents[1])}#{i}", p


def _tournament(limit: int) -> Iterator[tuple[str, object]]:
    from nonoforge.formats.tournament import read_with_solutions

    for name in TOURNAMENT_SETS:
        q = SHARED / "tournament" / "question" / f"{name}.txt"
        s = SHARED / "tournament" / "solution" / f"{name}.txt"
        for i, p in enumerate(read_with_solutions(q, s)[:limit], start=1):
            yield f"{name}${i}", p


def _answer(res) -> dict:  # noqa: ANN001
    return {
        "status": str(res.status), "technique": res.technique, "effort": dict(res.effort),
        "solutions": [g.cells.tolist() for g in res.solutions],
        "state": res.state.tolist(),
        "steps": [s.tolist() for s in (res.steps or [])],
    }


def _plain_or_engine(p, budget: int, max_solutions: int, strategy: str,  # noqa: ANN001
                     record_steps: bool = False):  # noqa: ANN202
    """The plain-Python path's answer where it gives one, else the engine's; and which."""
    from nonoforge.solver import core, solve

    if not record_steps:
        loaded = core.engine_loaded
        core.engine_loaded = lambda: False  # the engine is loaded for the others
        try:
            res = core._plain(p, max_solutions, strategy, None, budget, None,
                              time.monotonic(), None)
        finally:
            core.engine_loaded = loaded
        if res is not None:
            return res, True
    return solve(p, budget=budget, max_solutions=max_solutions, strategy=strategy,
                 record_steps=record_steps), False


def write(out: Path, limit: int, plain: bool = False) -> None:
    from nonoforge.solver import solve, warmup

    warmup()
    t0 = time.process_time()
    n = by_plain = 0
    with out.open("w") as f:
        def one(name: str, p, **kw) -> None:  # noqa: ANN001
            nonlocal n, by_plain
            if plain:
                res, answered = _plain_or_engine(p, BUDGET, **kw)
                by_plain += answered
            else:
                res = solve(p, budget=BUDGET, **kw)
            key = f"{name} " + " ".join(f"{k}={v}" for k, v in sorted(kw.items()))
            f.write(json.dumps({"key": key, **_answer(res)}) + "\n")
            n += 1

        for name, p in _tournament(limit):
            one(name, p, max_solutions=2, strategy="auto")
            one(name, p, max_solutions=2, strategy="probe")
            one(name, p, max_solutions=1, strategy="search")
        for name, p in _puzzles():
            for strategy in ("line", "probe", "search", "auto"):
                for ms in (1, 2):
                    one(name, p, max_solutions=ms, strategy=strategy)
            one(name, p, max_solutions=2, strategy="search", record_steps=True)
    print(f"{n} solves in {time.process_time() - t0:.1f} CPU s -> {out}"
          + (f" ({by_plain} answered by the plain-Python path)" if plain else ""))


def compare(a: Path, b: Path) -> int:
    ra = [json.loads(x) for x in a.read_text().splitlines()]
    rb = [json.loads(x) for x in b.read_text().splitlines()]
    if [r["key"] for r in ra] != [r["key"] for r in rb]:
        print("the two files hold different solves")
        return 1
    diff = [x["key"] for x, y in zip(ra, rb, strict=True) if x != y]
    for key in diff[:20]:
        print("differs:", key)
    statuses: dict[str, int] = {}
    for r in ra:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    print(f"{len(ra)} solves compared (status, technique, every effort count, solutions, "
          f"root state, steps); {len(diff)} differ; verdicts {statuses}")
    return 1 if diff else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=HERE, help="the checkout whose code solves")
    ap.add_argument("--out", type=Path, help="write the answers here")
    ap.add_argument("--limit", type=int, default=100, help="puzzles of each tournament set")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"))
    ap.add_argument("--plain", action="store_true", help="answer with the plain-Python "
                    "copy of the engine wherever it answers (compare with a file without)")
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare)
    if args.out is None:
        ap.error("give --out or --compare")
    sys.path.insert(0, str(args.root.resolve()))
    import nonoforge

    print(f"code from {Path(nonoforge.__file__).parent}", file=sys.stderr)
    write(args.out, args.limit, args.plain)
    return 0


if __name__ == "__main__":
    sys.exit(main())
