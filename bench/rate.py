"""Rating throughput (local pool and Dask) and the score model's fit, per source.

Rates the two tournament sets (TAAI 2011, TCGA 2016: 2,000 puzzles of 25x25) and
survey-free (but knotty and faase, tens of seconds each) into a fresh SQLite corpus with
each executor, and prints puzzles per second: the local pool with 1 and 2 workers, Dask
on a LocalCluster of 2 single-threaded worker processes, and Dask on a cluster started as
separate processes (``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1).
Each is the best of ``--repeat`` runs, the executors alternating so that noise from the
rest of the machine hits them alike; wall time includes starting the workers (not the
Dask cluster itself). Then prints the held-out Spearman rho per source of the shipped
reference model (from its fit, bench/fit_model.py) and of the same model on this run's
measurements, and the grade histogram.

    .venv/bin/python bench/rate.py [--limit N] [--repeat N] [--executors local1,...]

``--resume N`` measures something else: what ``nonoforge rate --db`` costs on a corpus
of N tournament puzzles (10,000 by default) that is already rated, and on the same
corpus with 1 % of its ratings removed (a resume after a kill at 99 %). The corpus is
built once (the first ten tournament sets in sorted order, a seeded shuffle; 50 puzzles
rated for real and their ratings given, scored by the shipped model, to the others:
what is timed never solves them) and copied for each run; ``rate --db`` runs as a user
runs it, a process of its own, ``--code DIR`` the checkout whose code it runs (to
compare with another branch). It prints wall time and CPU seconds of that process and
its workers, best of ``--repeat`` runs.

    .venv/bin/python bench/rate.py --resume 10000 [--code ../main] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from nonoforge.db import Corpus
from nonoforge.formats import read_file
from nonoforge.formats.tournament import read_with_solutions
from nonoforge.pipeline import jobs
from nonoforge.pipeline.difficulty import spearman
from nonoforge.pipeline.rate import DaskExecutor, LocalExecutor, RateOptions, sample_of
from nonoforge.results import Rating

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "corpora"
DASK = Path(sys.executable).parent / "dask"
EXECUTORS = ("local1", "local2", "dask-local", "dask-procs")


def corpus(limit: int | None) -> dict[str, list]:
    out: dict[str, list] = {"tournament": [], "survey": []}
    for name in ("taai2011.txt", "tcga2016.txt"):
        out["tournament"] += read_with_solutions(SHARED / "tournament" / "question" / name)[:limit]
    for f in sorted((SHARED / "survey-free").glob("*.non")):
        if f.stem not in ("knotty", "faase"):  # tens of seconds each: they would be the run
            out["survey"] += read_file(f)
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: Dask settings for a cluster that rates (docs/difficulty.md): the housekeeping every Dask
#: process does by the clock (a 20 ms event-loop tick, a 10 ms statistical profiler on the
#: workers, a 0.5 s system monitor) costs about 10 % of a core for an idle cluster of two
#: workers, so it grows with wall time, not work: on a loaded machine a rating run's
#: wall time triples and so does that cost. These make it about a quarter of that.
LEAN = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
}


def _env_name(key: str) -> str:
    return "DASK_" + "__".join(key.upper().replace("-", "_").split("."))


class Cluster:
    """A Dask cluster for one executor kind; ``address`` to connect to; ``close()``.

    ``lean``: started with :data:`LEAN` (else Dask's defaults)."""

    def __init__(self, kind: str, lean: bool = True) -> None:
        import dask

        self.procs: list[subprocess.Popen[bytes]] = []
        self.local = None
        settings = LEAN if lean else {}
        if kind == "dask-local":
            from dask.distributed import LocalCluster

            with dask.config.set(settings):  # the nannies pass it on to their workers
                self.local = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                          dashboard_address=None)
            self.address = self.local.scheduler_address
            return
        port = _free_port()
        self.address = f"tcp://127.0.0.1:{port}"
        env = {**os.environ, "PYTHONPATH": str(ROOT),
               **{_env_name(k): str(v) for k, v in settings.items()}}

        def quiet(argv: list[str]) -> subprocess.Popen[bytes]:
            return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    env=env)

        self.procs.append(quiet([str(DASK), "scheduler", "--host", "127.0.0.1", "--port",
                                 str(port), "--no-dashboard"]))
        for _ in range(2):
            self.procs.append(quiet([str(DASK), "worker", self.address, "--nthreads", "1",
                                     "--nworkers", "1", "--no-dashboard", "--host",
                                     "127.0.0.1"]))
        from dask.distributed import Client

        deadline = time.monotonic() + 60
        while True:
            try:
                with Client(self.address, timeout="5s") as c:
                    c.wait_for_workers(2, timeout=60)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def close(self) -> None:
        if self.local is not None:
            self.local.close()
        for p in reversed(self.procs):
            p.terminate()
        for p in self.procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()


def _tree_cpu() -> tuple[dict[int, float], float]:
    """CPU seconds of this process and each live descendant (by pid), and of the reaped."""
    import psutil

    me = psutil.Process()
    live: dict[int, float] = {}
    for p in [me, *me.children(recursive=True)]:
        try:
            t = p.cpu_times()
        except psutil.Error:
            continue
        live[p.pid] = t.user + t.system
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return live, kids.ru_utime + kids.ru_stime


def _cpu_since(before: tuple[dict[int, float], float]) -> float:
    """CPU seconds spent since ``before`` (:func:`_tree_cpu`) by this process, its live
    descendants (a process born since counts from zero) and the children reaped since."""
    live0, reaped0 = before
    live1, reaped1 = _tree_cpu()
    return sum(t - live0.get(pid, 0.0) for pid, t in live1.items()) + reaped1 - reaped0


def rate_once(kind: str, puzzles: list, opts: RateOptions, lean: bool = True) -> dict:
    """One rating run of ``puzzles`` into a fresh corpus with one executor.

    Returns ``wall`` and ``cpu`` (seconds) of the run, from creating the executor to closing
    it, ``cluster_cpu`` (starting a Dask cluster, which a user does once, not per run),
    ``summary`` and ``rows``. The CPU figure counts every process involved: this one (the
    client; a LocalCluster's scheduler), the pool's workers (joined, so reaped) or the
    cluster's scheduler, nannies and workers (alive: read from /proc), their start-up and
    warm-up included. Unlike wall time it hardly depends on what else the machine runs,
    so it compares executors fairly on a shared machine.
    """
    before = _tree_cpu()
    cluster = Cluster(kind, lean) if kind.startswith("dask") else None
    try:
        with tempfile.TemporaryDirectory() as d, Corpus.open(os.path.join(d, "c.db")) as c:
            c.add(puzzles)
            cluster_cpu = _cpu_since(before)
            before = _tree_cpu()
            t0 = time.perf_counter()
            # the local pool's close joins its workers: reaped, their CPU time is counted
            ex = (LocalExecutor(int(kind[-1])) if cluster is None
                  else DaskExecutor(cluster.address))
            try:
                s = jobs.rate_corpus(c, executor=ex, opts=opts)
            finally:
                ex.close()
            wall = time.perf_counter() - t0
            cpu = _cpu_since(before)
            summary = s.to_dict()
            summary["chunks"] = getattr(ex, "chunks", None)
            rows = c.results(jobs.solver_version())
    finally:
        if cluster is not None:
            cluster.close()
    return {"wall": wall, "cpu": cpu, "cluster_cpu": cluster_cpu if cluster else 0.0,
            "summary": summary, "rows": rows}


def rated_corpus(path: Path, n: int, seed: int = 38) -> int:
    """A corpus of ``n`` tournament puzzles, every one with a rating of this solver version
    (see the module's ``--resume``); returns how many puzzles it holds."""
    import random

    from nonoforge.pipeline.rate import bundled_model, rate_puzzle, score_rows

    sets = sorted((SHARED / "tournament" / "question").glob("*.txt"))[:10]
    puzzles = [p for f in sets for p in read_with_solutions(f)]
    random.Random(seed).shuffle(puzzles)
    puzzles = list({p.key: p for p in puzzles}.values())[:n]
    version = jobs.solver_version()
    model = bundled_model(version)
    opts = RateOptions(runs=1)
    real = [rate_puzzle(p, opts) for p in puzzles[:50]]
    rows = []
    for i, p in enumerate(puzzles):
        r = real[i % len(real)]
        rows.append({**r, "key": p.key, "width": p.width, "height": p.height,
                     "colors": p.ncolors})
    if model is not None:
        score_rows(rows, model)
    with Corpus.open(str(path)) as c:
        c.add(puzzles)
        c.save_results(rows, version)
    return len(puzzles)


def _child_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def time_rate_db(db: Path, code: Path, workers: int) -> tuple[float, float, str]:
    """``nonoforge rate --db DB`` in a process of its own, run from ``code``: wall s, CPU s
    of it and its workers, and the summary's first line."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    cpu0, t0 = _child_cpu(), time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "nonoforge", "rate", "--db", str(db), "--workers",
         str(workers)], env=env, capture_output=True, text=True, cwd=str(code), check=False,
    )
    wall, cpu = time.perf_counter() - t0, _child_cpu() - cpu0
    if done.returncode != 0:
        raise SystemExit(f"rate --db failed ({done.returncode}): {done.stderr[-500:]}")
    return wall, cpu, done.stdout.splitlines()[0] if done.stdout else ""


def resume(n: int, code: Path, workers: int, repeat: int) -> int:
    """The ``--resume`` mode: rate --db on an all-rated corpus, and on one 99 % rated."""
    import shutil
    import sqlite3

    with tempfile.TemporaryDirectory(prefix="nonoforge-bench-") as tmp:
        base = Path(tmp) / "rated.db"
        t0 = time.perf_counter()
        size = rated_corpus(base, n)
        print(f"corpus: {size} tournament puzzles, all rated ({time.perf_counter() - t0:.1f} s "
              f"to build); rate --db from {code}, --workers {workers}; "
              f"load average {os.getloadavg()[0]:.1f}", flush=True)
        for label, drop in (("all rated", 0), ("99 % rated", size // 100)):
            best: tuple[float, float, str] | None = None
            for _ in range(max(1, repeat)):
                db = Path(tmp) / "run.db"
                for suffix in ("", "-wal", "-shm"):
                    Path(str(db) + suffix).unlink(missing_ok=True)
                with sqlite3.connect(base) as con:  # a consistent copy, WAL folded in
                    con.execute("VACUUM INTO ?", (str(db),))
                if drop:
                    with sqlite3.connect(db) as con:
                        con.execute("DELETE FROM results WHERE id IN (SELECT id FROM results "
                                    "ORDER BY id DESC LIMIT ?)", (drop,))
                r = time_rate_db(db, code, workers)
                best = r if best is None or r[1] < best[1] else best
            assert best is not None
            wall, cpu, line = best
            print(f"rate --db, {label}: {wall:.2f} s wall, {cpu:.2f} CPU s "
                  f"(with its workers); {line}", flush=True)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--limit", type=int, default=None,
                    help="first N puzzles of each tournament set (default: all 1000)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per executor (best kept)")
    ap.add_argument("--executors", default=",".join(EXECUTORS),
                    help=f"comma-separated, of {', '.join(EXECUTORS)}")
    ap.add_argument("--dask-defaults", action="store_true",
                    help="start the Dask clusters with Dask's default settings, not LEAN")
    ap.add_argument("--resume", type=int, nargs="?", const=10_000, default=None,
                    metavar="N", help="time rate --db on an all-rated corpus of N puzzles "
                    "(10,000) and 99 %% rated; see above")
    ap.add_argument("--code", type=Path, default=ROOT,
                    help="--resume: the checkout whose code rate --db runs (default: this)")
    ap.add_argument("--workers", type=int, default=2, help="--resume: rate --db --workers")
    args = ap.parse_args()
    if not SHARED.exists():
        print(f"{SHARED} is absent", file=sys.stderr)
        return 2
    if args.resume is not None:
        return resume(args.resume, args.code.resolve(), args.workers, args.repeat)
    sources = corpus(args.limit)
    source = {p.key: s for s, ps in sources.items() for p in ps}
    puzzles = [p for ps in sources.values() for p in ps]
    kinds = [k for k in args.executors.split(",") if k]
    opts = RateOptions()
    print(f"{len(puzzles)} puzzles ({args.limit or 'all'} per tournament set + survey-free), "
          f"work budget {opts.budget:,}, {max(1, args.repeat)} timed run(s) per executor; "
          f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
    speed = dict.fromkeys(kinds, 0.0)
    per_cpu = dict.fromkeys(kinds, 0.0)
    summary: dict = {}
    rows: list = []
    for run in range(1, max(1, args.repeat) + 1):
        for kind in kinds:
            r = rate_once(kind, puzzles, opts, not args.dask_defaults)
            dt, cpu, summary, rows = r["wall"], r["cpu"], r["summary"], r["rows"]
            speed[kind] = max(speed[kind], len(puzzles) / dt)
            per_cpu[kind] = max(per_cpu[kind], len(puzzles) / cpu)
            extra = f", {summary['chunks']} chunks" if summary.get("chunks") else ""
            if r["cluster_cpu"]:
                extra += f" (starting the cluster: {r['cluster_cpu']:.1f} CPU s more)"
            print(f"run {run}, {kind}: {dt:.1f} s wall, {len(puzzles) / dt:.2f} puzzles/s; "
                  f"{cpu:.1f} CPU s in all its processes, {len(puzzles) / cpu:.2f} puzzles "
                  f"per CPU s{extra}; load {os.getloadavg()[0]:.1f}", flush=True)
    print("best wall: " + ", ".join(f"{k} {v:.2f} puzzles/s" for k, v in speed.items()))
    print("best per CPU second: " + ", ".join(f"{k} {v:.2f}" for k, v in per_cpu.items()))
    if "local1" in speed and "local2" in speed:
        print(f"local pool speed-up with 2 workers: {speed['local2'] / speed['local1']:.2f}x")
    for k in ("dask-local", "dask-procs"):
        if k in speed and "local2" in speed:
            print(f"{k} against the local pool of 2: wall {speed[k] / speed['local2']:.1%}, "
                  f"per CPU second {per_cpu[k] / per_cpu['local2']:.1%} (target: within 15 %)")
    fit = summary["model_fit"]
    print(f"score model: {fit.get('kind')} for solver {fit.get('solver_version')}; its fit: "
          f"held-out rho {fit.get('spearman_held_out', float('nan')):.3f} "
          f"({fit.get('held_out', 'held-out share')})")
    for src, f in (fit.get("sources") or {}).items():
        print(f"  reference fit, {src}: rho {f['spearman_held_out']:.3f} over {f['n']}")
    from nonoforge.pipeline.rate import bundled_model

    model = bundled_model(jobs.solver_version())
    if model is not None:
        for src in sources:
            rs = [r for r in rows if source.get(r["key"]) == src
                  and r["status"] in ("unique", "multiple")]
            rho = spearman([model.score(sample_of(Rating.from_json(r)).features) for r in rs],
                           [r["time_s"] for r in rs])
            print(f"  this run, {src}: rho of score against measured time {rho:.3f} "
                  f"over {len(rs)} puzzles")
    print(f"verdicts: {summary['verdicts']}")
    print(f"techniques: {summary['techniques']}")
    print("grades: " + ", ".join(f"{g}: {n}" for g, n in sorted(summary["grades"].items())))
    print(f"time: average {summary['time_avg_s']:.4f} s, median {summary['time_median_s']:.4f} s,"
          f" max {summary['time_max_s']:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
