"""The studio in a real browser: Debian's Chromium, headless, driven by Selenium, against
``nonoforge studio`` started as a user starts it (a subprocess on a free port).

A designer's session: a blank grid, cells painted until the verdict turns multiple and the
cells where two solutions differ are marked, the top suggestion applied, unique again, and
a suggested given applied instead;
a picture made harder on purpose; saved to the corpus under a hostile title, found again
by filter (the title shown as text), downloaded as a file; a bundled picture uploaded and
made into a puzzle, then cropped by a rectangle dragged on it and drawn as an outline;
strokes faster than the checks never show an older grid's verdict. Chromium's network log
shows the page asked nothing of any other host. With ``NONOFORGE_STUDIO_SHOTS=DIR`` the
screenshots docs/studio.md shows are written there (``make`` does not; see the doc).
Skips, saying why, where Chromium or its driver is not installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from nonoforge.examples import example_path

pytest.importorskip("starlette", reason="the studio's extra (nonoforge[studio]) not installed")
pytest.importorskip("uvicorn", reason="the studio's extra (nonoforge[studio]) not installed")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,860", "--force-device-scale-factor=1"]
HOSTILE = 'Pattern <img src=x onerror="alert(1)"> & "co"'

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory):
    """``nonoforge studio`` on a fresh corpus and a free port; yields its URL."""
    from nonoforge.db import Corpus
    from nonoforge.examples import list_examples
    from nonoforge.formats import read_file

    db = tmp_path_factory.mktemp("studio") / "corpus.db"
    with Corpus.open(db) as corpus:  # the bundled example puzzles, to browse beside ours
        corpus.add(p for e in list_examples() if e.kind == "puzzle" for p in read_file(e.path))
    proc = subprocess.Popen(
        [sys.executable, "-m", "nonoforge", "studio", "--db", str(db), "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("nonoforge studio: http://127.0.0.1:"), line + (
            proc.stderr.read() if proc.stderr else "")
        yield line.split()[2]
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory):
    if not CHROMIUM or not DRIVER:
        pytest.skip("Chromium and chromedriver not installed (make test installs them with apt)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed")
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="nonoforge-chromium-")
    downloads = tmp_path_factory.mktemp("downloads")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in [*FLAGS, f"--user-data-dir={profile}"]:
        opts.add_argument(flag)
    opts.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                           "download.prompt_for_download": False})
    opts.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    driver.downloads = downloads
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def wait(driver, until, what: str, timeout: float = 60):
    """Wait for a condition of the page (a generous guard against a hang, not a timing)."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(lambda d: until(d), message=what)


def board_says(driver, name: str) -> str:
    return driver.find_element("id", "board").get_attribute(f"data-{name}") or ""


def click_cell(driver, row: int, column: int) -> None:
    """Click a cell where a person would: its centre on the canvas."""
    from selenium.webdriver.common.action_chains import ActionChains

    board = driver.find_element("id", "board")
    left, top, cs = (float(board_says(driver, k)) for k in ("left", "top", "cs"))
    rect = driver.execute_script("return arguments[0].getBoundingClientRect().toJSON()", board)
    x = left + (column + 0.5) * cs - rect["width"] / 2
    y = top + (row + 0.5) * cs - rect["height"] / 2
    ActionChains(driver).move_to_element_with_offset(board, int(x), int(y)).click().perform()


def shot(driver, name: str) -> None:
    where = os.environ.get("NONOFORGE_STUDIO_SHOTS")
    if where:
        driver.save_screenshot(str(Path(where) / f"studio-{name}.png"))


def verdict_is(driver, verdict: str) -> bool:
    card = driver.find_element("id", "verdict-card").get_attribute("data-verdict")
    return card == verdict and board_says(driver, "verdict") == verdict


def test_a_designers_session(studio: str, browser) -> None:
    d = browser
    d.get(studio)
    wait(d, lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "1",
         "the page starts")
    # a blank 10x10 grid: unique (nothing to paint)
    for field, value in (("new-w", "10"), ("new-h", "10")):
        el = d.find_element("id", field)
        el.clear()
        el.send_keys(value)
    d.find_element("id", "new-blank").click()
    wait(d, lambda d: verdict_is(d, "unique"), "a blank grid is unique")
    # paint until the verdict turns multiple: one cell is unique, a diagonal pair is not
    click_cell(d, 2, 2)
    wait(d, lambda d: verdict_is(d, "unique"), "one cell is unique")
    click_cell(d, 3, 3)
    wait(d, lambda d: verdict_is(d, "multiple"), "a diagonal pair has two solutions")
    assert int(board_says(d, "differ")) == 4  # the 2x2 where the two pictures differ
    assert int(board_says(d, "undecided")) == 4
    assert d.find_element("id", "verdict").text == "Multiple"
    first = wait(d, lambda d: d.find_elements("css selector", "#suggestions li"),
                 "suggestions are listed")[0]
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(d).move_to_element(first).perform()  # shown on the grid while hovered
    shot(d, "multiple")
    first.find_element("css selector", "button.apply").click()
    wait(d, lambda d: verdict_is(d, "unique"), "the top suggestion makes it unique")
    assert board_says(d, "differ") == "0"
    # strokes faster than the checks: only the last grid's verdict is ever shown
    d.find_element("id", "undo").click()
    d.find_element("id", "redo").click()
    d.find_element("id", "undo").click()
    wait(d, lambda d: d.execute_script("return state.shownSeq === state.seq"),
         "the newest grid is checked")
    assert verdict_is(d, "multiple")
    d.find_element("id", "redo").click()
    wait(d, lambda d: verdict_is(d, "unique"), "redo fixes it")
    # undo and redo go through the same check; so does generate's repair
    d.find_element("id", "undo").click()
    wait(d, lambda d: verdict_is(d, "multiple"), "undo brings the ambiguity back")
    # a given (a cell revealed to the solver) is suggested beside the paint changes
    given = wait(d, lambda d: d.find_elements("css selector",
                                              '#suggestions li[data-kind="given"]'),
                 "a given is suggested")[0]
    given.find_element("css selector", "button.apply").click()
    wait(d, lambda d: verdict_is(d, "unique") and board_says(d, "givens") == "1",
         "the given makes it unique, the picture unchanged")
    d.find_element("id", "undo").click()
    wait(d, lambda d: verdict_is(d, "multiple") and board_says(d, "givens") == "0",
         "undo takes the given back")
    d.find_element("id", "repair").click()
    wait(d, lambda d: verdict_is(d, "unique"), "the fewest-edits repair fixes it")
    d.find_element("id", "undo").click()
    wait(d, lambda d: verdict_is(d, "multiple"), "the repair is undone as one change")
    d.find_element("id", "redo").click()
    wait(d, lambda d: verdict_is(d, "unique"), "redo fixes it again")
    title = d.find_element("id", "doc-title")
    title.clear()
    title.send_keys("Diagonal")
    d.find_element("id", "save").click()
    wait(d, lambda d: "saved to the corpus" in d.find_element("id", "saved-note").text,
         "the save is confirmed")
    # a bundled picture made into a puzzle, side by side with its source and sheet
    d.find_element("id", "tab-picture").click()
    for field, value in (("pic-w", "20"), ("pic-h", "20"), ("pic-colours", "3")):
        el = d.find_element("id", field)
        el.clear()
        el.send_keys(value)
    d.find_element("id", "picture-file").send_keys(str(example_path("house")))  # an upload
    wait(d, lambda d: d.find_element("id", "pic-card").get_attribute("data-verdict")
         not in ("", "checking"), "the picture is made into a puzzle", timeout=240)
    assert d.find_element("id", "pic-verdict").text.startswith("Unique")
    assert d.find_element("id", "pic-sheet").get_attribute("src").startswith("data:image/png")
    shot(d, "picture")
    d.find_element("id", "pic-edit").click()
    wait(d, lambda d: verdict_is(d, "unique"), "the generated puzzle opens in the editor")
    d.find_element("id", "grade").click()
    wait(d, lambda d: "of 5" in d.find_element("id", "fact-grade").text, "it is graded")
    # made harder on purpose: the target is preset one above the grade; the edits come
    # back as one undoable change, and the check calls the result unique
    assert d.find_element("id", "grade-now").text == d.find_element("id", "fact-grade").text[:6]
    d.find_element("id", "harder").click()
    wait(d, lambda d: "→" in d.find_element("id", "grade-note").text, "it is made harder",
         timeout=240)
    wait(d, lambda d: verdict_is(d, "unique") and "of 5" in d.find_element(
        "id", "grade-now").text, "the harder picture is unique, its grade shown")
    # saved under a hostile title
    title = d.find_element("id", "doc-title")
    title.clear()
    title.send_keys(HOSTILE)
    d.find_element("id", "save").click()
    wait(d, lambda d: "saved to the corpus" in d.find_element("id", "saved-note").text
         and "Diagonal" not in d.find_element("id", "doc-title").get_attribute("value"),
         "the save is confirmed")
    shot(d, "editor")
    # download it as a .non file
    select = d.find_element("id", "format-select")
    select.find_element("css selector", 'option[value="non"]').click()
    d.find_element("id", "download").click()
    got = wait(d, lambda d: [p for p in Path(d.downloads).glob("*.non")], "the download lands")
    text = got[0].read_text(encoding="utf-8")
    assert "width 19" in text and "height 20" in text
    # the corpus: the examples and ours, with thumbnails
    d.find_element("id", "tab-corpus").click()
    wait(d, lambda d: len(d.find_elements("css selector", ".card")) >= 12, "the corpus pages")
    shot(d, "corpus")
    # found again by filter; its title is text, not markup
    d.find_element("id", "f-text").send_keys("PATTERN")
    d.find_element("id", "f-source").send_keys("nonoforge studio")
    d.find_element("id", "f-size").send_keys("15x15..30x30")
    d.find_element("id", "f-apply").click()
    wait(d, lambda d: len(d.find_elements("css selector", ".card")) == 1, "the filter finds it")
    card = d.find_element("css selector", ".card")
    assert card.find_element("css selector", ".t").text == HOSTILE
    assert not d.find_elements("css selector", ".card img")  # no element made of the title
    # put into a collection and exported as a book, downloaded
    card.find_element("css selector", "input.pick").click()
    wait(d, lambda d: d.find_element("id", "sel-count").text == "1 selected", "it is selected")
    d.find_element("id", "sel-export").click()
    book = wait(d, lambda d: [p for p in Path(d.downloads).glob("*.pdf")], "the book lands")
    assert book[0].name == "studio-selection.pdf"
    assert book[0].read_bytes().startswith(b"%PDF-")
    # and played in the playable page, in a tab of its own
    studio_tab = d.current_window_handle
    card.find_element("css selector", "a.play").click()
    wait(d, lambda d: len(d.window_handles) == 2, "the playable page opens")
    d.switch_to.window([h for h in d.window_handles if h != studio_tab][0])
    wait(d, lambda d: d.find_elements("css selector", "#board td.cell"), "its grid is drawn")
    assert HOSTILE in d.title  # the title, as text
    d.close()
    d.switch_to.window(studio_tab)
    # the picture resized: kept where it fits, checked again
    d.find_element("id", "tab-editor").click()
    for field, value in (("new-w", "25"), ("new-h", "22")):
        el = d.find_element("id", field)
        el.clear()
        el.send_keys(value)
    d.find_element("id", "resize").click()
    wait(d, lambda d: d.find_element("id", "doc-dims").text.startswith("25 × 22")
         and d.execute_script("return state.shownSeq === state.seq"), "the resized grid")
    # a rectangle dragged on the source crops the picture, and it is made again
    from selenium.webdriver.common.action_chains import ActionChains

    d.find_element("id", "tab-picture").click()
    src = d.find_element("id", "pic-source")
    made = d.find_element("id", "pic-sheet").get_attribute("src")
    w, h = src.size["width"], src.size["height"]
    ActionChains(d).move_to_element_with_offset(src, int(-0.4 * w), int(-0.45 * h)) \
        .click_and_hold().move_by_offset(int(0.45 * w), int(0.5 * h)).release().perform()
    assert d.execute_script("return picture.box !== null")
    assert d.find_element("id", "crop-box").is_displayed()
    wait(d, lambda d: d.find_element("id", "pic-sheet").get_attribute("src") != made
         and d.find_element("id", "pic-card").get_attribute("data-verdict")
         not in ("", "checking"), "the cropped picture is made into a puzzle", timeout=240)
    # in black and white, drawn as an outline
    colours = d.find_element("id", "pic-colours")
    colours.clear()
    colours.send_keys("1")
    assert d.find_element("id", "pic-style").is_enabled()
    d.find_element("css selector", '#pic-style option[value="outline"]').click()
    wait(d, lambda d: d.find_element("id", "pic-style-out").text == "outline"
         and d.find_element("id", "pic-card").get_attribute("data-verdict")
         not in ("", "checking"), "the crop is drawn as an outline", timeout=240)
    shot(d, "crop")
    # nothing was asked of another host
    origin = urlsplit(studio).netloc
    for entry in d.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg["method"] == "Network.requestWillBeSent":
            url = msg["params"]["request"]["url"]
            if not msg["params"].get("documentURL", "").startswith(studio):
                continue  # the browser's own pages (its new tab), not the studio's
            assert url.startswith(("data:", "blob:")) or urlsplit(url).netloc == origin, url
    severe = [e for e in d.get_log("browser") if e["level"] == "SEVERE"]
    assert severe == [], severe
