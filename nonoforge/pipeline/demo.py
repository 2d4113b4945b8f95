"""The main job on bundled inputs: images and archive in, a graded book out.

Into a fresh SQLite corpus: puzzles generated from the bundled images, the bundled archive
of redistributable puzzles ingested, everything rated and graded, a collection built and
exported as a PDF book, a playable HTML page, a folder of ``.non`` files and one ROFL file.

It is what a newcomer runs first, so it says what it does as it goes (issue 38): a line
before each step, one per puzzle generated and per file exported, how far the rating is,
and that a quiet step (a first run compiling, workers starting, a busy machine) is still
going on: on a terminal a status line with its seconds, elsewhere a line now and then.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nonoforge.examples import IMAGES, PUZZLES
from nonoforge.pipeline.collection import Filters
from nonoforge.puzzle import Meta

Say = Callable[[str], None]

#: (size, colours) of the puzzles made from each bundled image.
SHAPES = (((20, 20), 1), ((16, 16), 4))
#: How long a step may say nothing before a "still ..." line, in seconds; each further one
#: waits twice as long, up to :data:`MOST_QUIET` (a display matter: it decides nothing).
TICK = 5.0
MOST_QUIET = 30.0


class _Narrator:
    """Says the demo's lines, and tells from a thread that a quiet step goes on.

    With ``status`` (a terminal's transient line, replaced as it goes) that line shows the
    step and its seconds, refreshed every second: never silent, and no wall of lines while
    a first run compiles for minutes. Without it (a log, a pipe), a "still STEP (N s)"
    line comes after :data:`TICK` quiet seconds, then after twice as long each time, up to
    :data:`MOST_QUIET`. Use as a context manager.
    """

    def __init__(self, say: Say, tick: float = TICK, status: Say | None = None) -> None:
        self._say, self._status, self.tick = say, status, tick
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.step = "starting"
        self._since = self._last = self._shown = time.perf_counter()
        self._wait = tick
        self._thread = threading.Thread(target=self._watch, name="demo-progress", daemon=True)

    def __enter__(self) -> _Narrator:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def say(self, line: str) -> None:
        with self._lock:
            self._last, self._wait = time.perf_counter(), self.tick
            self._say(line)

    def doing(self, step: str, line: str | None = None) -> None:
        """Now at ``step`` (what a "still ..." line names), saying ``line`` if given."""
        with self._lock:
            self.step, self._since = step, time.perf_counter()
            self._shown = 0.0  # the status line shows the new step at once
        if line is not None:
            self.say(line)

    def _watch(self) -> None:
        refresh = min(1.0, self.tick)
        while not self._stop.wait(refresh / 4):
            with self._lock:
                now = time.perf_counter()
                try:
                    if self._status is not None:
                        if now - self._shown >= refresh:
                            self._shown = now
                            self._status(f"{self.step} ({now - self._since:.0f} s)")
                    elif now - self._last >= self._wait:
                        self._last, self._wait = now, min(2 * self._wait, MOST_QUIET)
                        self._say(f"  ... still {self.step} ({now - self._since:.0f} s)")
                except (OSError, ValueError):  # stderr gone: the demo itself goes on
                    return


class _RateProgress:
    """The rating step's events as lines: how many on how many workers, then how far."""

    def __init__(self, tell: _Narrator, executor: Any) -> None:
        self.tell, self.executor = tell, executor
        self.total = self.done = 0

    def __call__(self, event: dict[str, Any]) -> None:
        if event["event"] == "start":
            self.total = int(event["total"])
            # the pool started for this work (never more than the puzzles), or this process
            size = getattr(self.executor, "size", 0) or 0
            where = f"{size} worker process(es)" if size > 1 else "this process"
            self.tell.doing("starting the worker processes" if size > 1 else "rating",
                            f"  {self.total} puzzle(s) to rate on {where} ...")
            return
        self.done += 1
        if self.done == 1:
            self.tell.doing("rating")
        if self.done < self.total and (self.done == 1 or self.done % 10 == 0):
            self.tell.say(f"  rated {self.done} of {self.total}")  # the summary says the end


def run_demo(
    out: str | os.PathLike[str], say: Say = print, workers: int | None = None,
    status: Say | None = None,
) -> dict[str, Any]:
    """Run the whole pipeline into ``out`` (replacing its corpus); where everything went.

    ``say`` gets the progress lines; ``status``, if given, sets a transient line (a
    terminal's) to the step at hand and its seconds, refreshed every second."""
    with _Narrator(say, status=status) as tell:
        return _run(Path(out), tell, workers)


def _run(root: Path, tell: _Narrator, workers: int | None) -> dict[str, Any]:
    t0 = time.perf_counter()
    tell.doing("loading nonoforge", f"demo into {root}: a fresh corpus, puzzles from images "
               "and an archive, rated, graded and exported as a book ...")
    from nonoforge.db import Corpus
    from nonoforge.formats.rofl.kernels import small_job
    from nonoforge.images import generate
    from nonoforge.images.generate import GenerateOptions
    from nonoforge.images.output import write_generated
    from nonoforge.images.quantise import QuantiseOptions
    from nonoforge.pipeline import jobs
    from nonoforge.pipeline.export import ExportOptions
    from nonoforge.pipeline.rate import RateOptions
    from nonoforge.scraper.ingest import ingest_path

    root.mkdir(parents=True, exist_ok=True)
    db_path = root / "corpus.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db_path}{suffix}").unlink(missing_ok=True)
    made = root / "generated"
    report: dict[str, Any] = {"corpus": str(db_path), "generated": str(made)}
    images = sorted(IMAGES.glob("*.png"))
    # A small job for the ROFL coder (the corpus stores puzzles in it): each puzzle is coded
    # a handful of times, so it stays plain Python. Left to count its calls, it compiled its
    # kernels on a first run in the middle of the exports (2.3 s of CPU, the folder and
    # ROFL exports waiting 2-4 s on a busy machine); on later runs, loading them saved nothing.
    with Corpus.open(str(db_path)) as corpus, \
            small_job(len(images) * len(SHAPES) + len(list(PUZZLES.iterdir()))):
        tell.say(f"generating {len(images) * len(SHAPES)} puzzles from {len(images)} bundled "
                 "images, each proven unique by line logic ...")
        puzzles = []
        for image in images:
            for size, colors in SHAPES:
                t = time.perf_counter()
                kind = "B&W" if colors == 1 else f"{colors} colours at most"
                tell.doing(f"generating {image.stem} {size[0]}x{size[1]} {kind}")
                picture = QuantiseOptions(size=size, colors=colors)
                g = generate(str(image), GenerateOptions(picture))
                stem = f"{image.stem}-{size[0]}x{size[1]}-{colors}c"
                write_generated(g, made, stem)
                p = g.puzzle
                shown = "B&W" if colors == 1 else f"{p.ncolors} colour(s)"
                verdict = "accepted" if g.accepted else "not accepted"
                tell.say(f"  {image.stem} {p.width}x{p.height} {shown}: {verdict}, "
                         f"{g.edits} edit(s) ({time.perf_counter() - t:.1f} s)")
                meta = Meta(
                    title=f"{image.stem.title()} ({'colour' if colors > 1 else 'B&W'})",
                    author="nonoforge demo, from a Twemoji image",
                    licence="CC-BY-4.0 (image: Twemoji, Twitter Inc. and contributors)",
                    source="generated", source_id=stem,
                )
                if g.accepted:
                    puzzles.append(p.replace(meta=meta))
        corpus.add(puzzles)
        report["generated_count"] = len(puzzles)
        tell.say(f"  {len(puzzles)} accepted (unique by line logic), files in {made}")

        tell.doing("ingesting", f"ingesting the bundled archive {PUZZLES} ...")
        summary = ingest_path(corpus, str(PUZZLES))
        report["ingested"] = summary.as_dict()
        tell.say(f"  {summary.line()}")

        tell.doing("reading the corpus",
                   "rating every puzzle (verdict, technique, effort, time, score, grade) ...")
        ex = jobs.make_executor("local", workers, None)
        progress = _RateProgress(tell, ex)
        rated = jobs.rate_corpus(corpus, executor=ex, opts=RateOptions(runs=3),
                                 progress=progress)
        s = rated.to_dict()
        report["rating"] = s
        verdicts = ", ".join(f"{k} {n}" for k, n in s["verdicts"].items())  # str: the value
        grades = ", ".join(f"{k} {n}" for k, n in sorted(s["grades"].items(), key=str))
        tell.say(f"  rated {s['rated']}: verdicts {verdicts}; grades {grades}")

        tell.doing("building the collection",
                   "building the graded collection 'demo' and exporting it ...")
        chosen = jobs.build_collection(corpus, "demo", Filters(), count=30)
        report["collection"] = [c.puzzle.key for c in chosen]
        tell.say(f"  'demo': {len(chosen)} puzzles, easy to hard")
        again = ExportOptions(overwrite=True)  # a rerun replaces the demo's own exports
        for label, name in (("pdf", "demo.pdf"), ("folder", "demo"), ("rofl", "demo.rofl"),
                            ("html", "demo.html")):
            t = time.perf_counter()
            tell.doing(f"writing {name}")
            done = jobs.export_collection(corpus, "demo", str(root / name), opts=again)
            report[label] = done.path
            tell.say(f"  {done.path} ({done.kind}, {time.perf_counter() - t:.1f} s)")
    report["time_s"] = round(time.perf_counter() - t0, 1)
    tell.say(f"done in {report['time_s']} s:")
    for label in ("corpus", "pdf", "html", "folder", "rofl", "generated"):
        tell.say(f"  {label:<9} {report[label]}")
    return report
