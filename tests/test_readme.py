"""The README's tour is a script: every example, exactly as printed, runs in order in an
empty folder, as a newcomer would type it (issue 38: 7 of its 13 examples failed on a fresh
clone). The examples are parsed out of README.md itself, so the tour cannot drift from what
is tested; the one that needs the network runs against the local test server."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sitefixtures import SiteServer, webpbn_xml

from nonoforge.examples import example_path
from nonoforge.formats import read_file

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DATA = Path(__file__).resolve().parent / "data"
#: What marks a row of the tour whose example needs the network.
NETWORK = "needs the network"
#: Characters a shell would treat specially: the tour has none, so splitting an example
#: with shlex runs exactly what a shell would.
SHELL = set("*?[]|&;<>$`'\"\\(){}~!#")


@dataclass(frozen=True)
class Example:
    command: str  # as printed
    network: bool

    @property
    def args(self) -> list[str]:
        return shlex.split(self.command)[1:]  # after "nonoforge"

    @property
    def name(self) -> str:
        """The subcommand: ``convert``, ``db import``, ``ingest webpbn``..."""
        words = self.args
        return " ".join(words[:2]) if words[0] in ("db", "collection", "ingest") else words[0]


def tour() -> list[Example]:
    """The examples of the README's tour table, in order."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## A short tour", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    examples = []
    for row in rows:
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]]
        code = re.fullmatch(r"`([^`]+)`", cells[-1])
        assert code, f"the last cell of a tour row is one example in backticks: {row}"
        examples.append(Example(code.group(1), NETWORK in row))
    return examples


def test_the_tour_is_parsed_as_printed() -> None:
    examples = tour()
    assert len(examples) >= 15
    for e in examples:
        assert e.command.startswith("nonoforge "), e.command
        assert not SHELL & set(e.command), f"no shell syntax in the tour: {e.command}"
    assert [e.name for e in examples if e.network] == ["ingest webpbn"]
    # one corpus: no example names another one
    assert not [e.command for e in examples if "--db" in e.args]


# -- what each example must show besides exit 0 ---------------------------------------------


def _made(*names: str) -> Callable[[Path, str, str], None]:
    def check(cwd: Path, out: str, err: str) -> None:
        for n in names:
            assert (cwd / n).exists(), f"{n} was not made"

    return check


def _says(where: str, *texts: str) -> Callable[[Path, str, str], None]:
    def check(cwd: Path, out: str, err: str) -> None:
        got = out if where == "out" else err
        for t in texts:
            assert t in got, f"{t!r} not in {where}: {got[-2000:]}"

    return check


def _info(cwd: Path, out: str, err: str) -> None:
    (row,) = json.loads(out)
    assert (row["width"], row["height"], row["title"]) == (5, 10, "Demo Puzzle from Front Page")


def _koala(cwd: Path, out: str, err: str) -> None:
    (p,) = read_file(cwd / "out" / "koala.non")
    assert max(p.width, p.height) == 20 and min(p.width, p.height) < 20  # aspect kept
    assert 1 < p.ncolors <= 4 and p.goal is not None
    assert f"{p.width}x{p.height}" in README.read_text(encoding="utf-8")  # "comes out WxH"


def _pdf(name: str) -> Callable[[Path, str, str], None]:
    def check(cwd: Path, out: str, err: str) -> None:
        assert (cwd / name).read_bytes().startswith(b"%PDF-")

    return check


CHECKS: dict[str, Callable[[Path, str, str], None]] = {
    "examples": _says("out", "example:dancer", "example:koala"),
    "show": _says("out", "#"),
    "convert": _made("dancer.xml"),
    "info": _info,
    "formats": _says("out", "xml", "non"),
    "solve": _says("out", "Old Stone Face", "unique"),
    "explain": _says("out", "[simple_boxes] Row", "Solved.", "footholds"),
    "generate": _koala,
    "render": _made("sheets/cat-sheet.png", "sheets/cat-solve.gif"),
    "db import": _says("err", "5 new"),
    "ingest webpbn": _says("out", "webpbn: 4 item(s)", "duplicate 2", "missing 2",
                           "failed 0"),
    "rate": _says("out", "rated ", "grades"),
    "db stats": _says("out", "5 puzzle(s)", "fetch log webpbn"),
    "db query": _says("out", "Demo Puzzle from Front Page"),
    "db export": _made("easy.rofl"),
    "collection build": _says("err", "collection 'starter'"),
    "collection export": _pdf("starter.pdf"),
    "demo": _made("nonoforge-demo/demo.pdf", "nonoforge-demo/demo.html"),
    "studio": _says("out", "Example: nonoforge studio"),
}


@pytest.fixture
def webpbn() -> Iterator[SiteServer]:
    """webpbn as the network example meets it: #1 is webpbn's own XML export of Dancer,
    #436 Petro (from the bundled file), the others missing (404)."""
    with SiteServer() as site:
        site.page("/XMLpuz.cgi?id=1", (DATA / "dancer.xml").read_bytes(),
                  **{"Content-Type": "text/xml"})
        (petro,) = read_file(example_path("petro"))
        site.page("/XMLpuz.cgi?id=436", webpbn_xml(petro, 436), **{"Content-Type": "text/xml"})
        yield site


@pytest.mark.slow
def test_every_example_of_the_tour_runs_in_order(tmp_path: Path, webpbn: SiteServer) -> None:
    cwd = tmp_path / "tour"
    cwd.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("NONOFORGE_")}
    env.update(XDG_CACHE_HOME=str(tmp_path / "cache"), NONOFORGE_WEBPBN_URL=webpbn.url,
               NONOFORGE_NONOGRAMS_URL=webpbn.url, COLUMNS="100")
    examples = tour()
    assert set(CHECKS) == {e.name for e in examples}, "a check for each example, and no more"
    for e in examples:
        res = subprocess.run(
            [sys.executable, "-m", "nonoforge", *e.args], cwd=cwd, env=env,
            capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL,
        )
        shown = f"{e.command}\n--- stdout\n{res.stdout[-3000:]}\n--- stderr\n{res.stderr[-3000:]}"
        assert res.returncode == 0, shown
        assert "Traceback" not in res.stderr and "internal error" not in res.stderr, shown
        CHECKS[e.name](cwd, res.stdout, res.stderr)
    # one corpus all along (the demo keeps its own in its folder)
    assert sorted(p.name for p in cwd.glob("*.db")) == ["nonoforge.db"]
    assert len(webpbn.hits("/XMLpuz.cgi?id=1")) == 1  # the network example did go out
