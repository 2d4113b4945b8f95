"""The main job on bundled inputs: images and archive in, a graded book out.

Into a fresh SQLite corpus: puzzles generated from the bundled images, the bundled archive
of redistributable puzzles ingested, everything rated and graded, a collection built and
exported as a PDF book, a playable HTML page, a folder of ``.non`` files and one ROFL file.
"""

from __future__ import annotations

import os
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


def run_demo(
    out: str | os.PathLike[str], say: Say = print, workers: int | None = None
) -> dict[str, Any]:
    """Run the whole pipeline into ``out`` (replacing its corpus); where everything went."""
    from nonoforge.db import Corpus
    from nonoforge.images import generate
    from nonoforge.images.output import write_generated
    from nonoforge.pipeline import jobs
    from nonoforge.pipeline.export import ExportOptions
    from nonoforge.pipeline.rate import RateOptions
    from nonoforge.scraper.ingest import ingest_path

    t0 = time.perf_counter()
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    db_path = root / "corpus.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db_path}{suffix}").unlink(missing_ok=True)
    made = root / "generated"
    report: dict[str, Any] = {"corpus": str(db_path), "generated": str(made)}
    with Corpus.open(str(db_path)) as corpus:
        say(f"generating puzzles from {len(list(IMAGES.glob('*.png')))} bundled images ...")
        puzzles = []
        for image in sorted(IMAGES.glob("*.png")):
            for size, colors in SHAPES:
                g = generate(str(image), size=size, colors=colors, seed=0)
                stem = f"{image.stem}-{size[0]}x{size[1]}-{colors}c"
                write_generated(g, made, stem)
                meta = Meta(
                    title=f"{image.stem.title()} ({'colour' if colors > 1 else 'B&W'})",
                    author="nonoforge demo, from a Twemoji image",
                    licence="CC-BY-4.0 (image: Twemoji, Twitter Inc. and contributors)",
                    source="generated", source_id=stem,
                )
                if g.accepted:
                    puzzles.append(g.puzzle.replace(meta=meta))
        corpus.add(puzzles)
        report["generated_count"] = len(puzzles)
        say(f"  {len(puzzles)} accepted (unique by line logic), files in {made}")

        say(f"ingesting the bundled archive {PUZZLES} ...")
        summary = ingest_path(corpus, str(PUZZLES))
        report["ingested"] = summary.as_dict()
        say(f"  {summary.line()}")

        say("rating every puzzle (verdict, technique, effort, time, score, grade) ...")
        ex = jobs.make_executor("local", workers, None)
        rated = jobs.rate_corpus(corpus, executor=ex, opts=RateOptions(runs=3))
        s = rated.to_dict()
        report["rating"] = s
        say(f"  rated {s['rated']}: verdicts {dict(s['verdicts'])}, grades {dict(s['grades'])}")

        say("building the graded collection 'demo' and exporting it ...")
        chosen = jobs.build_collection(corpus, "demo", Filters(), count=30)
        again = ExportOptions(overwrite=True)  # a rerun replaces the demo's own exports
        pdf = jobs.export_collection(corpus, "demo", str(root / "demo.pdf"), opts=again)
        folder = jobs.export_collection(corpus, "demo", str(root / "demo"), opts=again)
        rofl = jobs.export_collection(corpus, "demo", str(root / "demo.rofl"), opts=again)
        html = jobs.export_collection(corpus, "demo", str(root / "demo.html"), opts=again)
        report["html"] = html.path
        report["collection"] = [c.puzzle.key for c in chosen]
        report["pdf"], report["folder"], report["rofl"] = pdf.path, folder.path, rofl.path
    report["time_s"] = round(time.perf_counter() - t0, 1)
    say(f"done in {report['time_s']} s:")
    for label in ("corpus", "pdf", "html", "folder", "rofl", "generated"):
        say(f"  {label:<9} {report[label]}")
    return report
