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

    /work/venv/bin/python bench/rate.py [--limit N] [--repeat N] [--executors local1,...]
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


class Cluster:
    """A Dask cluster for one executor kind; ``address`` to connect to; ``close()``."""

    def __init__(self, kind: str) -> None:
        self.procs: list[subprocess.Popen] = []
        self.local = None
        if kind == "dask-local":
            from dask.distributed import LocalCluster

            self.local = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=None)
            self.address = self.local.scheduler_address
            return
        port = _free_port()
        self.address = f"tcp://127.0.0.1:{port}"
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
        self.procs.append(subprocess.Popen(
            [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port),
             "--no-dashboard"], **quiet))
        for _ in range(2):
            self.procs.append(subprocess.Popen(
                [str(DASK), "worker", self.address, "--nthreads", "1", "--nworkers", "1",
                 "--no-dashboard", "--host", "127.0.0.1"], **quiet))
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


class _Joining(LocalExecutor):
    """The local pool, closed by joining its workers: reaped, their CPU time is counted."""

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


def _cpu() -> float:
    """CPU seconds of this process and of every child it has reaped."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def rate_once(kind: str, puzzles: list, opts: RateOptions) -> tuple[float, float, dict, list]:
    """(wall s, CPU s of every process involved, summary, result rows) of one rating run.

    The CPU figure counts this process and its children, reaped after the run: pool
    workers, Dask's workers, nannies and scheduler (a LocalCluster's scheduler runs in this
    process), start-up and shut-down included. Unlike wall time it hardly depends on what
    else the machine runs, so it compares executors fairly on a shared machine.
    """
    import multiprocessing

    cpu0 = _cpu()
    try:
        return _rate_once(kind, puzzles, opts, cpu0)
    finally:
        deadline = time.monotonic() + 30
        while multiprocessing.active_children() and time.monotonic() < deadline:
            time.sleep(0.1)  # reap the pool's workers, so that their CPU is counted


def _rate_once(kind: str, puzzles: list, opts: RateOptions, cpu0: float) -> tuple:
    cluster = Cluster(kind) if kind.startswith("dask") else None
    try:
        with tempfile.TemporaryDirectory() as d, Corpus.open(os.path.join(d, "c.db")) as c:
            c.add(puzzles)
            t0 = time.perf_counter()
            ex = (_Joining(int(kind[-1])) if cluster is None
                  else DaskExecutor(cluster.address))
            try:
                s = jobs.rate_corpus(c, executor=ex, opts=opts)
            finally:
                ex.close()
            dt = time.perf_counter() - t0
            chunks = getattr(ex, "chunks", None)
            summary = s.to_dict()
            summary["chunks"] = chunks
            rows = c.results(jobs.solver_version())
    finally:
        if cluster is not None:
            cluster.close()
    return dt, _cpu() - cpu0, summary, rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--limit", type=int, default=None,
                    help="first N puzzles of each tournament set (default: all 1000)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per executor (best kept)")
    ap.add_argument("--executors", default=",".join(EXECUTORS),
                    help=f"comma-separated, of {', '.join(EXECUTORS)}")
    args = ap.parse_args()
    if not SHARED.exists():
        print(f"{SHARED} is absent", file=sys.stderr)
        return 2
    sources = corpus(args.limit)
    source = {p.key: s for s, ps in sources.items() for p in ps}
    puzzles = [p for ps in sources.values() for p in ps]
    kinds = [k for k in args.executors.split(",") if k]
    opts = RateOptions()
    print(f"{len(puzzles)} puzzles ({args.limit or 'all'} per tournament set + survey-free), "
          f"work budget {opts.budget:,}, 3 timed runs each; machine: {os.cpu_count()} cores "
          "shared with other engineers' jobs, so wall figures are noisy")
    speed = dict.fromkeys(kinds, 0.0)
    per_cpu = dict.fromkeys(kinds, 0.0)
    summary: dict = {}
    rows: list = []
    for run in range(1, max(1, args.repeat) + 1):
        for kind in kinds:
            dt, cpu, summary, rows = rate_once(kind, puzzles, opts)
            speed[kind] = max(speed[kind], len(puzzles) / dt)
            per_cpu[kind] = max(per_cpu[kind], len(puzzles) / cpu)
            extra = f", {summary['chunks']} chunks" if summary.get("chunks") else ""
            print(f"run {run}, {kind}: {dt:.1f} s wall, {len(puzzles) / dt:.2f} puzzles/s; "
                  f"{cpu:.1f} CPU s in all its processes, {len(puzzles) / cpu:.2f} puzzles "
                  f"per CPU s{extra}", flush=True)
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
            rho = spearman([model.score(sample_of(r).features) for r in rs],
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
