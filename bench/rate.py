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

        self.procs: list[subprocess.Popen] = []
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
            ex = (_Joining(int(kind[-1])) if cluster is None
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--limit", type=int, default=None,
                    help="first N puzzles of each tournament set (default: all 1000)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per executor (best kept)")
    ap.add_argument("--executors", default=",".join(EXECUTORS),
                    help=f"comma-separated, of {', '.join(EXECUTORS)}")
    ap.add_argument("--dask-defaults", action="store_true",
                    help="start the Dask clusters with Dask's default settings, not LEAN")
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
