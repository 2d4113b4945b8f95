"""nonoforge.util: text made safe to store, to print and to write as XML; small helpers."""

from __future__ import annotations

import unicodedata
import xml.etree.ElementTree as ET

import pytest
from conftest import ROOT, fresh_python
from hypothesis import given
from hypothesis import strategies as st

from nonoforge.util import REPLACEMENT, first_line, safe_text, terminal_text, xml_text

# Any code point, lone surrogates included (what surrogateescape decoding can produce).
anything = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=60)


def _c0_c1(ch: str) -> bool:
    return ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F


@given(anything, st.integers(min_value=1, max_value=80))
def test_safe_text_encodes_has_no_controls_and_fits(s: str, limit: int) -> None:
    out = safe_text(s, limit)
    out.encode("utf-8")  # no lone surrogate left
    assert len(out) <= limit
    assert not any(_c0_c1(ch) and ch not in "\t\n" for ch in out)
    assert "\r" not in out


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs")), max_size=60))
def test_safe_text_keeps_ordinary_text(s: str) -> None:
    assert safe_text(s, limit=100) == s


def test_safe_text_decisions() -> None:
    assert safe_text("a\tb\nc") == "a\tb\nc"
    assert safe_text("a\r\nb\rc") == "a\nb\nc"
    r = REPLACEMENT
    assert safe_text("nul\x00 del\x7f csi\x9b") == f"nul{r} del{r} csi{r}"
    assert safe_text("x" * 1000) == "x" * 1000
    assert safe_text("x" * 1001) == "x" * 999 + "…"
    assert safe_text("  spaced  ") == "  spaced  "
    with pytest.raises(ValueError):
        safe_text("a", limit=0)


def test_safe_text_on_bytes_decoded_with_surrogateescape() -> None:
    # A Latin-1 title read as UTF-8 with surrogateescape, as a lenient reader would.
    raw = "Café".encode("latin-1").decode("utf-8", "surrogateescape")
    assert safe_text(raw) == f"Caf{REPLACEMENT}"


@given(anything)
def test_terminal_text_has_no_controls(s: str) -> None:
    out = terminal_text(s)
    out.encode("utf-8")
    assert not any(_c0_c1(ch) for ch in out)
    assert not any(unicodedata.category(ch) == "Cs" for ch in out)
    assert not any(ch in "\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
                   for ch in out)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp", "Cf")),
               max_size=60))
def test_terminal_text_leaves_printable_text_alone(s: str) -> None:
    assert terminal_text(s) == s


def test_terminal_text_escapes() -> None:
    assert terminal_text("\x1b[2J") == "\\x1b[2J"
    assert terminal_text("a\tb\nc\rd") == "a\\tb\\nc\\rd"
    assert terminal_text("\u202egnp.exe") == "\\u202egnp.exe"
    assert terminal_text("\udcff") == "\\udcff"


def _xml_allowed(ch: str) -> bool:
    c = ord(ch)
    return (
        ch in "\t\n\r"
        or 0x20 <= c <= 0xD7FF
        or 0xE000 <= c <= 0xFFFD
        or 0x10000 <= c <= 0x10FFFF
    )


@given(anything)
def test_xml_text_parses_as_text_and_attribute_and_round_trips(s: str) -> None:
    out = xml_text(s)
    out.encode("utf-8")
    kept = "".join(ch for ch in s if _xml_allowed(ch))
    element = ET.fromstring(f"<t>{out}</t>")
    assert (element.text or "") == kept
    attribute = ET.fromstring(f"<t a=\"{out}\" b='{out}'/>")
    # A parser normalises tab and line feed to spaces in attribute values (XML 1.0 §3.3.3).
    normalised = kept.replace("\t", " ").replace("\n", " ")
    assert attribute.get("a") == attribute.get("b") == normalised


def test_xml_text_escapes() -> None:
    assert xml_text("<a href='x'>&amp;</a>") == "&lt;a href=&#39;x&#39;&gt;&amp;amp;&lt;/a&gt;"
    assert xml_text("a\x00b\x1fc\ufffe") == "abc"
    assert xml_text("a\rb") == "a&#13;b"


def test_first_line() -> None:
    assert first_line(ValueError("line one\nline two")) == "line one"
    assert first_line(ValueError("\n\n  second  \n")) == "second"
    assert first_line(RuntimeError()) == "RuntimeError"
    assert first_line("") == ""


def test_quick_exit_freezes_the_objects_before_the_last_sweep() -> None:
    """A worker loaded with the solver spent 0.2-0.3 s of CPU at exit sweeping its objects;
    quick_exit's hook freezes them first (atexit hooks run last-registered first, so the
    one registered before it sees the result); asked twice, it registers once."""

    code = ("import atexit, gc\n"
            "atexit.register(lambda: print(gc.get_freeze_count() > 0))\n"
            "from nonoforge.util import quick_exit\n"
            "quick_exit()\n"
            "quick_exit()\n")
    assert fresh_python(code).stdout.strip() == "True"


def test_scipy_is_kept_out_only_while_loading_and_only_when_alone() -> None:
    """Inside ``without_scipy`` SciPy does not import (numba loads without it); after it,
    it imports as usual; with SciPy already imported, or another thread running, nothing
    is kept out. A fresh interpreter, as this one has SciPy."""
    code = (
        "import sys, threading\n"
        "from nonoforge.util import without_scipy\n"
        "with without_scipy() as kept_out:\n"
        "    try:\n        import scipy\n        inside = 'imported'\n"
        "    except ImportError:\n        inside = 'refused'\n"
        "import scipy\n"
        "with without_scipy() as again:\n    pass\n"
        "print(kept_out, inside, scipy.__name__, again)\n"
        "del sys.modules['scipy']\n"
        "t = threading.Thread(target=threading.Event().wait, args=(5,), daemon=True)\n"
        "t.start()\n"
        "with without_scipy() as threaded:\n    pass\n"
        "print(threaded)\n"
    )
    r = fresh_python(code, cwd=ROOT, timeout=120)
    assert r.stdout.split("\n")[:2] == ["True refused scipy False", "False"]
