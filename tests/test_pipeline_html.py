"""The playable page in a real browser: Debian's Chromium, headless, driven by Selenium.

The page is solved by clicking its cells as a player would; the test reads the solved
state from the page, and checks from Chromium's own network log that the page asked for
nothing but itself. After each load it waits for that document's ``data-restored`` (the page has
read IndexedDB): Chromium sometimes gives a new document a localStorage that reads as empty and
drops its writes, so localStorage alone cannot keep the promise that progress survives a reload;
localStorage and IndexedDB together do (docs/export.md), and that is what is checked.
Skips (saying why) where Chromium or its driver is not installed; ``make test`` installs them
where apt is available.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from nonoforge.formats import read_file
from nonoforge.pipeline.html import decode, encode, page, seed_of
from nonoforge.pipeline.item import ExportItem
from nonoforge.puzzle import Grid, Meta, Palette, Puzzle

DATA = Path(__file__).parent / "data"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1000,900"]


def items() -> list[ExportItem]:
    dancer = read_file(DATA / "dancer.non")[0]
    pal = Palette.of(("white", "#ffffff"), ("red", "#d03030"), ("navy", "#102060"))
    flag = Puzzle.from_grid(Grid(np.array([[1, 1, 2], [2, 0, 1], [1, 2, 2]])), palette=pal,
                            meta=Meta(title="<b>Flag</b> & \u0424\u043b\u0430\u0433"))
    out = []
    for n, p in enumerate([dancer, flag], start=1):
        out.append(ExportItem(p, n, {"grade": n}, p.goal, "unique"))
    return out


def test_solutions_are_encoded_and_titles_are_text() -> None:
    its = items()
    html = page(its, "Test <book>")
    g = its[0].answer
    assert decode(encode(g, 7), 7) == g.cells.ravel().tolist()
    data = json.loads(html.split('id="nf-data">')[1].split("</script>")[0])
    p = data["puzzles"][0]
    assert decode(p["sol"], seed_of(p["key"])) == g.cells.ravel().tolist()
    assert p["sol"] != encode(g, 0)
    assert "<b>Flag" not in html and "Test <book>" not in html  # escaped everywhere
    assert "http://" not in html.replace("http-equiv", "") and "https://" not in html


def test_the_page_says_difficulty_in_the_books_words() -> None:
    its = items()
    data = json.loads(page(its).split('id="nf-data">')[1].split("</script>")[0])
    assert [p["difficulty"] for p in data["puzzles"]] == [it.difficulty for it in its]
    assert all(p["difficulty"] and "grade" in p["difficulty"] for p in data["puzzles"])


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM or not DRIVER:
        pytest.skip("Chromium and chromedriver not installed (make test installs them with apt)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed")
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="nonoforge-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in [*FLAGS, f"--user-data-dir={profile}"]:
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def requests_made(driver) -> list[tuple[str, str]]:
    """(url, document that asked) of every request Chromium logged since the last call."""
    out = []
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg["method"] == "Network.requestWillBeSent":
            out.append((msg["params"]["request"]["url"], msg["params"].get("documentURL", "")))
    return out


def cell(driver, i: int):
    return driver.find_element("css selector", f'#board td.cell[data-i="{i}"]')


def solved(driver) -> bool:
    return driver.find_element("id", "board").get_attribute("data-solved") == "yes"


def restored(driver, how: str = "yes") -> None:
    """Wait until this document has read the progress kept in IndexedDB (play.js ``restore``);
    how="local": until it gave up on IndexedDB and keeps progress in localStorage only.

    Callers remove the board's ``data-restored`` from the old document before navigating, so the
    attribute found here was set by the new one: no sleep, no retry of the assertion after."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 30).until(
        lambda d: d.find_element("id", "board").get_attribute("data-restored") == how)


def reload(driver, url: str | None = None) -> None:
    """Reload (or go to url) and wait for the new document's restore."""
    driver.execute_script("var b = document.getElementById('board');"
                          "if (b) b.removeAttribute('data-restored');")
    if url is None:
        driver.refresh()
    else:
        driver.get(url)
    restored(driver)


def other_page(tmp_path: Path) -> str:
    """A page of the same origin (file://) as the book: it shares its localStorage and IndexedDB."""
    other = tmp_path / "other.html"
    other.write_text("<!DOCTYPE html><title>other</title><p>another page", encoding="utf-8")
    return other.as_uri()


def clear_local(driver) -> None:
    """Empty localStorage from the browser's side (DevTools): a page's own localStorage.clear()
    may be dropped, by the very Chromium behaviour the book page guards against."""
    driver.execute_cdp_cmd("Storage.clearDataForOrigin",
                           {"origin": "file://", "storageTypes": "local_storage"})


def clean_start(driver, tmp_path: Path) -> None:
    """Forget all progress: localStorage and the page's IndexedDB (which outlives a test, as the
    browser does). Done from another page, so no book page holds the database open."""
    driver.get(other_page(tmp_path))
    clear_local(driver)
    assert driver.execute_async_script(
        "var done = arguments[0], rq = indexedDB.deleteDatabase('nonoforge');"
        "rq.onsuccess = function () { done('deleted'); };"
        "rq.onblocked = function () { done('blocked by a connection left open'); };"
        "rq.onerror = function () { done('failed'); };") == "deleted"


# Holds a read-write transaction on the page's store open (asking for a record again and again)
# until the test sets window.release: a book page loaded meanwhile cannot read IndexedDB, so its
# restore waits. That is a real sequence (a second tab writing), not a hook in the page.
HOLD = """
var done = arguments[0];
var rq = indexedDB.open('nonoforge', 1);
rq.onupgradeneeded = function () { rq.result.createObjectStore('progress'); };
rq.onsuccess = function () {
  var db = rq.result, os = db.transaction('progress', 'readwrite').objectStore('progress');
  db.onversionchange = function () { db.close(); };
  os.transaction.oncomplete = function () { db.close(); };
  (function spin(first) {
    if (!first && window.release) return;
    os.get('nothing').onsuccess = function () { if (first) done('held'); spin(false); };
  })(true);
};
rq.onerror = function () { done('failed'); };
"""


def hold_restore(driver, tmp_path: Path, clear: bool = True) -> str:
    """Empty localStorage (as Chromium's unconnected one reads), open another tab that holds
    IndexedDB; back to the book's tab. Returns the holder's window handle."""
    book = driver.current_window_handle
    driver.switch_to.new_window("tab")
    driver.get(other_page(tmp_path))
    if clear:
        clear_local(driver)
    assert driver.execute_async_script(HOLD) == "held"
    holder = driver.current_window_handle
    driver.switch_to.window(book)
    return holder


def release_restore(driver, holder: str) -> None:
    book = driver.current_window_handle
    driver.switch_to.window(holder)
    driver.execute_script("window.release = true")
    driver.switch_to.window(book)
    restored(driver)
    drop_holder(driver, holder)


def drop_holder(driver, holder: str) -> None:
    """Close the holder tab if still open (it lets go when its page goes); back to another tab."""
    if holder not in driver.window_handles:
        return
    back = driver.current_window_handle
    driver.switch_to.window(holder)
    driver.close()
    driver.switch_to.window(back if back != holder else driver.window_handles[0])


@contextmanager
def held_restore(driver, tmp_path: Path, clear: bool = True):
    """hold_restore for a with-block: a failed assertion inside cannot leave the holder spinning
    (the next test's clean_start would wait on it)."""
    holder = hold_restore(driver, tmp_path, clear)
    try:
        yield holder
    finally:
        drop_holder(driver, holder)


def filled(driver, i: int) -> bool:
    return "f" in cell(driver, i).get_attribute("class").split()


def errors(driver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def kept(driver, n: int) -> dict | None:
    """Puzzle n's record in this tab's localStorage, read by DevTools (DOMStorage), not by the
    page's own script."""
    name = driver.execute_script(
        "var b = JSON.parse(document.getElementById('nf-data').textContent);"
        "return 'nonoforge:' + b.id + ':' + b.puzzles[arguments[0]].key;", n)
    return next((json.loads(v) for k, v in local_entries(driver) if k == name), None)


def local_entries(driver) -> list[list[str]]:
    """Every (key, value) of this tab's localStorage, read by DevTools (DOMStorage)."""
    driver.execute_cdp_cmd("DOMStorage.enable", {})
    return driver.execute_cdp_cmd("DOMStorage.getDOMStorageItems", {
        "storageId": {"securityOrigin": "file://", "isLocalStorage": True}})["entries"]


def kept_filled(driver, n: int) -> list[int]:
    """The cells filled in puzzle n's record in this tab's localStorage."""
    rec = kept(driver, n)
    return [i for i, v in enumerate(rec["c"].split(",")) if int(v) > 0] if rec else []


def book_page(driver, tmp_path: Path, title: str) -> tuple[list[ExportItem], str]:
    """The test book written as a page, and a clean start for it (no kept progress in either
    store, the browser's error log read): its items and its URL."""
    its = items()
    path = tmp_path / "book.html"
    path.write_text(page(its, title), encoding="utf-8")
    clean_start(driver, tmp_path)
    errors(driver)  # drop what came before
    return its, path.as_uri()


def pick(driver, n: int) -> None:
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", "pick")).select_by_index(n)


def test_a_player_solves_a_puzzle_by_clicking_and_nothing_is_fetched(browser, tmp_path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    its, url = book_page(browser, tmp_path, "Browser test")
    requests_made(browser)  # drop what came before (the browser's own new-tab page)
    reload(browser, url)
    assert browser.find_element("id", "title").text == "Demo Puzzle from Front Page" or \
        browser.find_element("id", "title").text
    dancer = its[0].answer.cells.ravel().tolist()
    assert not solved(browser)
    # a wrong cell first: "check" shows it, undo takes it back, redo and undo again
    wrong = dancer.index(0)
    cell(browser, wrong).click()
    browser.find_element("id", "check").click()
    assert "1 mistake" in browser.find_element("id", "status").text
    assert "wrong" in cell(browser, wrong).get_attribute("class")
    browser.find_element("id", "undo").click()
    browser.find_element("id", "redo").click()
    browser.find_element("id", "undo").click()
    # right-click marks a cell empty
    ActionChains(browser).context_click(cell(browser, wrong)).perform()
    assert "x" in cell(browser, wrong).get_attribute("class").split()
    # a drag fills a run of cells in one step: one undo takes it all back
    w = its[0].puzzle.width
    run = [2 * w, 2 * w + 1, 2 * w + 2]
    chain = ActionChains(browser).click_and_hold(cell(browser, run[0]))
    for i in run[1:]:
        chain = chain.move_to_element(cell(browser, i))
    chain.release().perform()
    assert all("f" in cell(browser, i).get_attribute("class").split() for i in run)
    browser.find_element("id", "undo").click()
    assert not any("f" in cell(browser, i).get_attribute("class").split() for i in run)
    # "m" switches to marking, and back
    board = browser.find_element("id", "board")
    board.send_keys("m")
    assert "mark" in browser.find_element("id", "mode").text
    board.send_keys("m")
    assert "fill" in browser.find_element("id", "mode").text
    # fill every cell of the picture but the last by clicking; the last with the keyboard
    filled = [i for i, v in enumerate(dancer) if v]
    for i in filled[:-1]:
        cell(browser, i).click()
    assert not solved(browser)
    done = browser.find_elements("css selector", "#board td.done")
    assert done  # some satisfied clues are already crossed out
    cell(browser, filled[-2]).click()  # unfill, moving the cursor there
    board.send_keys(" ")  # fill it again from the keyboard
    last = filled[-1]
    here = filled[-2]
    keys = (Keys.ARROW_DOWN * ((last // w) - (here // w))
            + (Keys.ARROW_RIGHT if last % w > here % w else Keys.ARROW_LEFT) * abs(
                last % w - here % w))
    board.send_keys(keys + " ")
    assert solved(browser)
    assert "Solved" in browser.find_element("id", "status").text
    h = its[0].puzzle.height
    assert len(browser.find_elements("css selector", "#board td.done")) == w + h
    # progress survives a reload, solved mark in the picker
    reload(browser)
    assert solved(browser)
    assert "\u2713" in browser.find_element("css selector", "#pick option").text
    # ... even where localStorage lost it, as Chromium's can: it sometimes gives a new document
    # a localStorage not connected to its store (reads empty, drops that document's writes;
    # docs/export.md). Another page of the same origin empties it; IndexedDB still has it.
    browser.get(other_page(tmp_path))
    clear_local(browser)
    reload(browser, url)
    assert solved(browser)
    assert "\u2713" in browser.find_element("css selector", "#pick option").text
    # the colour puzzle: pick each colour from the palette, then click its cells
    browser.find_element("id", "next").click()
    assert "<b>Flag</b>" in browser.find_element("id", "title").text  # shown as text
    flag = its[1].answer.cells.ravel().tolist()
    buttons = browser.find_elements("css selector", "#palette button")
    assert len(buttons) == 2
    for colour, button in enumerate(buttons, start=1):
        button.click()
        for i, v in enumerate(flag):
            if v == colour:
                cell(browser, i).click()
    assert solved(browser)
    time.sleep(0.2)
    seen = requests_made(browser)
    ours = [asked for asked, doc in seen if doc == url]
    assert ours and set(ours) == {url}, seen  # the page itself, nothing else
    assert not [asked for asked, _ in seen
                if asked.split(":")[0] in ("http", "https", "ws", "wss")]


def test_moves_and_picks_before_restore_keep_the_progress_restore_finds(browser, tmp_path) -> None:
    """A player may pick a puzzle, move, or be mid-drag before the page has read IndexedDB; with
    a localStorage that reads empty the board they see then is empty. What restore finds must
    neither be overwritten by that board nor lose their moves."""
    from selenium.webdriver.common.action_chains import ActionChains

    its, url = book_page(browser, tmp_path, "Restore test")
    dancer_title = "Dancer"
    reload(browser, url)
    pick(browser, 1)  # the 3x3 flag: one cell kept
    cell(browser, 0).click()
    browser.find_element("id", "prev").click()  # dancer is the puzzle to open next time
    # picked before restore, and a move: the kept cell 0 is shown, and cell 4 is kept too
    with held_restore(browser, tmp_path) as holder:
        browser.get(url)
        assert browser.find_element("id", "board").get_attribute("data-restored") is None
        assert browser.find_element("id", "title").text == dancer_title
        pick(browser, 1)
        assert not filled(browser, 0)  # the empty board localStorage gave
        cell(browser, 4).click()
        release_restore(browser, holder)
    assert filled(browser, 0) and filled(browser, 4)
    browser.find_element("id", "undo").click()  # the move made before restore, on top of it
    assert filled(browser, 0) and not filled(browser, 4)
    browser.find_element("id", "redo").click()
    reload(browser)
    assert "Flag" in browser.find_element("id", "title").text
    assert filled(browser, 0) and filled(browser, 4)
    # a drag begun before restore, ended after it, on the dancer while the flag is the last one
    # opened: the player stays on the dancer, the drag is one move, undo takes it back
    with held_restore(browser, tmp_path) as holder:
        browser.get(url)
        assert browser.find_element("id", "title").text == dancer_title
        w = its[0].puzzle.width
        run = [w, w + 1, w + 2]
        ActionChains(browser).click_and_hold(cell(browser, run[0])).move_to_element(
            cell(browser, run[1])).perform()
        release_restore(browser, holder)
    ActionChains(browser).move_to_element(cell(browser, run[2])).release().perform()
    assert browser.find_element("id", "title").text == dancer_title
    assert all(filled(browser, i) for i in run)
    browser.find_element("id", "undo").click()
    assert not any(filled(browser, i) for i in run)
    browser.find_element("id", "redo").click()
    reload(browser)
    assert browser.find_element("id", "title").text == dancer_title
    assert all(filled(browser, i) for i in run)
    pick(browser, 1)
    assert filled(browser, 0) and filled(browser, 4)
    assert errors(browser) == []


def test_moves_on_a_puzzle_left_before_restore_are_kept(browser, tmp_path) -> None:
    """A move made before restore, then another puzzle picked, still before restore: restore
    redoes the move on the record it found for that puzzle and keeps it."""
    _, url = book_page(browser, tmp_path, "Left test")
    reload(browser, url)
    cell(browser, 5).click()  # a record of the dancer for restore to find
    with held_restore(browser, tmp_path) as holder:
        browser.get(url)
        cell(browser, 0).click()
        pick(browser, 1)
        release_restore(browser, holder)
    assert kept_filled(browser, 0) == [0, 5]
    pick(browser, 0)
    assert filled(browser, 0) and filled(browser, 5)
    reload(browser)
    assert filled(browser, 0) and filled(browser, 5)
    assert errors(browser) == []


def test_a_puzzle_never_played_is_not_written(browser, tmp_path) -> None:
    """A page shown and left without a move writes nothing (docs/export.md: an idle tab)."""
    _, url = book_page(browser, tmp_path, "Idle test")
    reload(browser, url)
    browser.find_element("id", "next").click()  # a pick is kept ...
    browser.find_element("id", "prev").click()  # ... and so is the pick back, not the boards
    browser.get(other_page(tmp_path))  # the page is left: pagehide saves what changed
    assert [k for k, _ in local_entries(browser) if not k.endswith(":last")] == []


def pointer(driver, kind: str, i: int, pointer_id: int) -> None:
    """Dispatch a touch pointer event of kind at cell i (Selenium cannot hold two fingers)."""
    driver.execute_script(
        "var el = document.querySelector('#board td.cell[data-i=\"' + arguments[1] + '\"]');"
        "var r = el.getBoundingClientRect();"
        "el.dispatchEvent(new PointerEvent(arguments[0], {bubbles: true, cancelable: true,"
        " pointerId: arguments[2], pointerType: 'touch', clientX: r.x + 3, clientY: r.y + 3}));",
        kind, i, pointer_id)


def test_a_drag_that_never_ends_normally_does_not_stop_saving(browser, tmp_path) -> None:
    """Restore waits for a drag under way; a second finger's touch or a cancelled pointer ends
    that drag (its cells are one move), and the page saves from then on."""
    its, url = book_page(browser, tmp_path, "Pointer test")
    reload(browser, url)
    with held_restore(browser, tmp_path) as holder:
        browser.get(url)
        pointer(browser, "pointerdown", 0, 1)
        release_restore(browser, holder)
    pointer(browser, "pointerdown", 1, 2)  # a second finger, the first never lifted
    pointer(browser, "pointerup", 1, 2)
    cell(browser, 10).click()
    assert kept_filled(browser, 0) == [0, 1, 10]
    browser.find_element("id", "undo").click()
    browser.find_element("id", "undo").click()
    assert filled(browser, 0) and not filled(browser, 1)  # the first finger's drag: its own move
    with held_restore(browser, tmp_path, clear=False) as holder:
        browser.get(url)
        pointer(browser, "pointerdown", 20, 1)
        release_restore(browser, holder)
    pointer(browser, "pointercancel", 20, 1)  # the browser took the touch over (a scroll)
    cell(browser, 30).click()
    assert kept_filled(browser, 0) == [0, 20, 30]
    assert errors(browser) == []


# Keeps a connection to the page's database that will not close and asks to delete the database:
# the delete waits for that connection (blocked), and every open after it waits for the delete,
# as when another tab's upgrade or delete is stuck. window.gone resolves when it is deleted.
BLOCK = """
var done = arguments[0], rq = indexedDB.open('nonoforge', 1);
rq.onupgradeneeded = function () { rq.result.createObjectStore('progress'); };
rq.onsuccess = function () {
  window.conn = rq.result;
  var del = indexedDB.deleteDatabase('nonoforge');
  window.gone = new Promise(function (ok) { del.onsuccess = ok; });
  del.onblocked = function () { done('blocked'); };
};
rq.onerror = function () { done('failed'); };
"""


def test_a_page_whose_indexeddb_never_answers_keeps_progress_locally(browser, tmp_path) -> None:
    """IndexedDB's open may never answer (blocked behind another tab's delete or upgrade): the
    page stops waiting (data-restored="local") and keeps progress in localStorage; when the open
    answers late, it writes nothing there and logs no error."""
    _, url = book_page(browser, tmp_path, "Blocked test")
    book = browser.current_window_handle
    browser.switch_to.new_window("tab")
    blocker = browser.current_window_handle
    try:
        browser.get(other_page(tmp_path))
        assert browser.execute_async_script(BLOCK) == "blocked"
        browser.switch_to.window(book)
        browser.get(url)
        restored(browser, "local")
        cell(browser, 3).click()
        assert kept_filled(browser, 0) == [3]
        browser.switch_to.window(blocker)
        assert browser.execute_async_script(
            "var done = arguments[0]; window.conn.close();"
            "window.gone.then(function () { done('deleted'); });") == "deleted"
        browser.switch_to.window(book)
        cell(browser, 4).click()
        assert kept_filled(browser, 0) == [3, 4]
        name = browser.execute_script(
            "var b = JSON.parse(document.getElementById('nf-data').textContent);"
            "return 'nonoforge:' + b.id + ':' + b.puzzles[0].key;")
        assert errors(browser) == []
        browser.get(other_page(tmp_path))
        assert browser.execute_async_script(  # nothing of the page's in IndexedDB
            "var k = arguments[0], done = arguments[1], rq = indexedDB.open('nonoforge', 1);"
            "rq.onupgradeneeded = function () { rq.result.createObjectStore('progress'); };"
            "rq.onblocked = rq.onerror = function () { done('not opened'); };"
            "rq.onsuccess = function () { var db = rq.result;"
            " var g = db.transaction('progress').objectStore('progress').get(k);"
            " g.onsuccess = function () { db.close(); done(g.result === undefined); }; };",
            name) is True
    finally:
        drop_holder(browser, blocker)


def test_two_tabs_see_each_others_progress(browser, tmp_path) -> None:
    """A tab opened earlier shows what another tab kept since, and closing it keeps that.

    Tabs hear of each other through localStorage, so this needs both tabs' localStorage connected
    (docs/export.md): shown by tab B, loaded while restore is held, drawing the flag with A's
    move before reading IndexedDB. Tab A's record is first read from its localStorage by
    DevTools, so a page that does not write localStorage fails; where Chromium gave A or B an
    unconnected localStorage after that, the test skips and says so (the page then sees the other
    tab's progress on its next load)."""
    from selenium.webdriver.support.ui import WebDriverWait

    its, url = book_page(browser, tmp_path, "Tabs test")
    reload(browser, url)
    a = browser.current_window_handle
    pick(browser, 1)
    cell(browser, 0).click()
    browser.find_element("id", "prev").click()  # A shows the dancer; it has read the flag's record
    # A wrote its move to localStorage (DevTools reads this document's store: a page whose
    # localStorage writes did nothing fails here, not in the skip below)
    assert kept_filled(browser, 1) == [0]
    with held_restore(browser, tmp_path, clear=False) as holder:
        browser.switch_to.new_window("tab")
        browser.get(url)
        b = browser.current_window_handle
        pick(browser, 1)
        if not filled(browser, 0):
            pytest.skip("Chromium gave tab A or B a localStorage not connected to its store")
        release_restore(browser, holder)
    cell(browser, 4).click()
    browser.switch_to.window(a)
    flag_kept = ("var b = JSON.parse(document.getElementById('nf-data').textContent);"
                 "var v = JSON.parse(localStorage.getItem('nonoforge:' + b.id + ':' +"
                 " b.puzzles[1].key)); return v ? v.c : '';")
    WebDriverWait(browser, 30).until(lambda d: d.execute_script(flag_kept).split(",")[4] != "0")
    pick(browser, 1)  # the old tab shows the other's move, not what it read before
    assert filled(browser, 0) and filled(browser, 4)
    browser.switch_to.window(b)
    cell(browser, 8).click()
    browser.switch_to.window(a)  # a move made there while this one shows the same puzzle
    WebDriverWait(browser, 30).until(lambda d: filled(d, 8))
    browser.close()  # leaving the old tab keeps the newest board, not its own
    browser.switch_to.window(b)
    reload(browser)
    assert filled(browser, 0) and filled(browser, 4) and filled(browser, 8)
    assert errors(browser) == []


# -- givens ---------------------------------------------------------------------------------


def given_items() -> list[ExportItem]:
    """Two 2x2 blocks on a diagonal (the other diagonal has the same clues: the given filled
    top-left cell and the given crossed top-right one make it unique), and the colour flag with a
    red cell and a crossed one given."""
    switch = Puzzle.from_grid(Grid.from_rows(["##..", "##..", "..##", "..##"]),
                              meta=Meta(title="Switch")).replace(givens=[(0, 0, 1), (0, 3, 0)])
    pal = Palette.of(("white", "#ffffff"), ("red", "#d03030"), ("navy", "#102060"))
    flag = Puzzle.from_grid(Grid(np.array([[1, 1, 2], [2, 0, 1], [1, 2, 2]])), palette=pal,
                            meta=Meta(title="Flag")).replace(givens=[(0, 0, 1), (1, 1, 0)])
    return [ExportItem(p, n, {"grade": n}, p.goal, "unique")
            for n, p in enumerate([switch, flag], start=1)]


def test_givens_are_in_the_page_data_and_its_help() -> None:
    html = page(given_items(), "Givens")
    data = json.loads(html.split('id="nf-data">')[1].split("</script>")[0])
    assert [p["givens"] for p in data["puzzles"]] == [[[0, 0, 1], [0, 3, 0]],
                                                      [[0, 0, 1], [1, 1, 0]]]
    assert "are given" in html and "are given" not in page(items(), "None")
    assert [p["givens"] for p in json.loads(page(items(), "None").split(
        'id="nf-data">')[1].split("</script>")[0])["puzzles"]] == [[], []]


def classes(driver, i: int) -> list[str]:
    return cell(driver, i).get_attribute("class").split()


def test_given_cells_start_solved_and_stay_locked(browser, tmp_path) -> None:
    """Given cells are drawn solved and marked as given; no click, drag, key, undo or Clear
    changes them; they count towards the solved state and survive reloads and Clear."""
    from selenium.webdriver.common.action_chains import ActionChains

    its = given_items()
    path = tmp_path / "givens.html"
    path.write_text(page(its, "Givens"), encoding="utf-8")
    clean_start(browser, tmp_path)
    errors(browser)
    reload(browser, path.as_uri())
    assert "2 cells given" in browser.find_element("id", "info").text
    assert {"given", "f"} <= set(classes(browser, 0)) and {"given", "x"} <= set(classes(browser, 3))
    assert not [c for i in (1, 2, 4, 5) for c in classes(browser, i) if c in ("given", "f", "x")]
    board = browser.find_element("id", "board")
    # clicks, a right-click and keys on given cells change nothing, and make no move to undo
    cell(browser, 0).click()
    ActionChains(browser).context_click(cell(browser, 0)).perform()
    cell(browser, 3).click()
    board.send_keys(" ")
    board.send_keys("x")
    board.send_keys("\ue017")  # Delete, on the crossed given cell 3 (the cursor is there)
    browser.find_element("id", "undo").click()
    assert "f" in classes(browser, 0) and "x" in classes(browser, 3)
    assert kept(browser, 0) is None  # nothing was played: nothing written
    # a drag begun on the given cell fills the others it crosses, one move, and undo takes it
    # back; the given cell stays
    ActionChains(browser).click_and_hold(cell(browser, 0)).move_to_element(
        cell(browser, 1)).move_to_element(cell(browser, 2)).release().perform()
    assert all("f" in classes(browser, i) for i in (0, 1, 2))
    browser.find_element("id", "undo").click()
    assert "f" in classes(browser, 0) and not {"f", "x"} & set(classes(browser, 1) + classes(
        browser, 2))
    # Check finds no mistake in the givens; solving the rest solves the puzzle
    browser.find_element("id", "check").click()
    assert "No mistakes" in browser.find_element("id", "status").text
    for i in (1, 4, 5, 10, 11, 14, 15):
        cell(browser, i).click()
    assert solved(browser)
    assert kept(browser, 0)["c"].split(",")[:4] == ["1", "1", "0", "-1"]
    reload(browser)
    assert solved(browser) and "given" in classes(browser, 0) and "x" in classes(browser, 3)
    # Clear empties the board but the givens, and that is what is kept
    browser.find_element("id", "reset").click()
    assert not solved(browser)
    assert "f" in classes(browser, 0) and "x" in classes(browser, 3)
    assert [i for i in range(16) if "f" in classes(browser, i)] == [0]
    reload(browser)
    assert [i for i in range(16) if "f" in classes(browser, i)] == [0]
    assert "x" in classes(browser, 3)
    # the colour puzzle: the given is drawn in its colour; the rest solved from the palette
    browser.find_element("id", "next").click()
    bg = cell(browser, 0).value_of_css_property("background-color")
    assert bg.replace(" ", "") in ("rgb(208,48,48)", "rgba(208,48,48,1)")
    assert {"given", "x"} <= set(classes(browser, 4))
    flag = its[1].answer.cells.ravel().tolist()
    for colour, button in enumerate(browser.find_elements("css selector", "#palette button"),
                                    start=1):
        button.click()
        for i, v in enumerate(flag):
            if v == colour and i != 0:
                cell(browser, i).click()
    assert solved(browser)
    assert errors(browser) == []


# --- hints: the next step, in the page's own JavaScript (play.js), offline ---


def hint(driver) -> tuple[str, dict[int, int]]:
    """Press Hint: the sentence shown and the cells it marks (index -> value: a colour, -1 for
    empty, 0 for "clear it")."""
    driver.find_element("id", "hint").click()
    return driver.find_element("id", "status").text, marked(driver)


def marked(driver) -> dict[int, int]:
    """The cells the hint shown marks, read in one call: index -> the value it says."""
    return {int(i): int(v) for i, v in driver.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('#board td.cell.hint'),"
        " function (el) { return [el.dataset.i, el.dataset.hint]; });")}


def follow(driver, cells: dict[int, int], colour: bool) -> None:
    """Do what a hint says, as a player: click to fill (the colour picked first), right-click
    to mark empty."""
    from selenium.webdriver.common.action_chains import ActionChains

    for i, v in sorted(cells.items()):
        if v < 0:
            ActionChains(driver).context_click(cell(driver, i)).perform()
            continue
        if colour:
            driver.find_elements("css selector", "#palette button")[v - 1].click()
        cell(driver, i).click()


def page_state(driver, puzzle: Puzzle) -> np.ndarray:
    """The black-and-white board as the step solver's masks: 2 filled, 1 empty, 3 unknown."""
    st = np.full((puzzle.height, puzzle.width), 3, dtype=np.uint64)
    for i, cls in driver.execute_script(
            "return Array.prototype.map.call(document.querySelectorAll('#board td.cell'),"
            " function (el) { return [+el.dataset.i, el.className.split(' ')]; });"):
        st[divmod(i, puzzle.width)] = 2 if "f" in cls else 1 if "x" in cls else 3
    return st


@pytest.mark.slow  # a player's clicks, about 90 cells, each a browser round trip
def test_hints_alone_solve_a_puzzle_and_say_what_the_step_solver_says(browser, tmp_path) -> None:
    """A player who only follows hints solves the puzzle; each hint (the line framed, its cells
    marked, the sentence) is the step nonoforge.solver.human takes from the same grid."""
    from nonoforge.solver.human import next_step

    its, url = book_page(browser, tmp_path, "Hints")
    requests_made(browser)
    reload(browser, url)
    dancer = its[0].puzzle
    for _ in range(dancer.width * dancer.height):
        if solved(browser):
            break
        want = next_step(dancer, page_state(browser, dancer)).steps[0]
        said, cells = hint(browser)
        assert said == "Hint \u2014 " + want.sentence
        assert cells == {c.row * dancer.width + c.col: 1 if c.after == 2 else -1
                         for c in want.cells}
        framed = browser.find_elements("css selector", "#board td.cell.hline")
        assert len(framed) == (dancer.width if want.kind.value == "row" else dancer.height)
        clue = ("rc" if want.kind.value == "row" else "cc") + str(want.index)
        assert "hclue" in browser.find_element("id", clue).get_attribute("class")
        follow(browser, cells, colour=False)
        assert not browser.find_elements("css selector", "#board .hline, #board .hclue")
    assert solved(browser)
    grid = page_state(browser, dancer)
    assert ((grid == 2) == (its[0].answer.cells == 1)).all()  # the solution, every cell decided
    hint(browser)
    assert browser.find_element("id", "status").text == "Solved already."
    # the colour puzzle, the same way
    browser.find_element("id", "next").click()
    for _ in range(10):
        if solved(browser):
            break
        said, cells = hint(browser)
        assert said.startswith("Hint \u2014 ") and cells
        follow(browser, cells, colour=True)
    assert solved(browser)
    flag = its[1].answer.cells.ravel().tolist()
    assert all(("f" in classes(browser, i)) == (v > 0) for i, v in enumerate(flag))
    assert errors(browser) == []
    time.sleep(0.2)
    assert {asked for asked, doc in requests_made(browser) if doc == url} <= {url}


def test_trial_hints_name_the_cell_and_the_line_where_the_trial_fails(browser, tmp_path) -> None:
    """A puzzle line deduction cannot finish: hints followed until it is solved, each the step
    nonoforge.solver.human takes from the page's grid, the two-line and contradiction ones
    included (the assumed cell marked with what it is, the failing line framed)."""
    from nonoforge.solver.human import Technique, next_step

    p = Puzzle.from_grid(Grid.from_rows(["#..##", "..#.#", ".###.", "..#.#", "##..."]))
    path = tmp_path / "trial.html"
    path.write_text(page([ExportItem(p, 1, {"grade": 1}, p.goal, "unique")], "Trials"),
                    encoding="utf-8")
    clean_start(browser, tmp_path)
    errors(browser)
    reload(browser, path.as_uri())
    seen = set()
    for _ in range(p.width * p.height):
        if solved(browser):
            break
        want = next_step(p, page_state(browser, p)).steps[0]
        said, cells = hint(browser)
        assert said == "Hint \u2014 " + want.sentence
        assert cells == {c.row * p.width + c.col: 1 if c.after == 2 else -1 for c in want.cells}
        clue = ("rc" if want.kind.value == "row" else "cc") + str(want.index)
        assert "hclue" in browser.find_element("id", clue).get_attribute("class")
        if want.technique in (Technique.TWO_LINE, Technique.CONTRADICTION):
            seen.add(want.technique)
            assert len(cells) == 1 and "if" in said
        follow(browser, cells, colour=False)
    assert solved(browser) and seen == {Technique.TWO_LINE, Technique.CONTRADICTION}
    assert errors(browser) == []


def test_a_wrong_cell_is_reported_before_any_hint(browser, tmp_path) -> None:
    its, url = book_page(browser, tmp_path, "Wrong")
    reload(browser, url)
    dancer = its[0].answer.cells.ravel().tolist()
    w = its[0].puzzle.width
    # a filled cell that should be empty, after one that is right: the wrong one is named
    right, wrong = dancer.index(1), dancer.index(0)
    cell(browser, right).click()
    cell(browser, wrong).click()
    said, cells = hint(browser)
    assert said == (f"A cell is wrong: row {wrong // w + 1}, column {wrong % w + 1} (marked in "
                    "red). Clear it first.")
    assert cells == {wrong: 0} and "wrong" in classes(browser, wrong)
    assert not browser.find_elements("css selector", "#board .hline")
    # two mistakes (a cell of the picture marked empty too): counted, the first named
    from selenium.webdriver.common.action_chains import ActionChains

    crossed = len(dancer) - 1 - dancer[::-1].index(1)
    ActionChains(browser).context_click(cell(browser, crossed)).perform()
    said, cells = hint(browser)
    assert said.startswith(f"2 cells are wrong; the first is row {wrong // w + 1}, ")
    # cleared as told, the hint is gone, and the next one names the other
    cell(browser, wrong).click()
    assert not browser.find_elements("css selector", "#board td.hint")
    said, cells = hint(browser)
    assert said.startswith(f"A cell is wrong: row {crossed // w + 1}, ") and cells == {crossed: 0}
    ActionChains(browser).context_click(cell(browser, crossed)).perform()  # uncrossed: no mistake
    assert not browser.find_elements("css selector", "#board td.hint")
    browser.find_element("id", "board").send_keys("h")  # the key asks too
    said, cells = browser.find_element("id", "status").text, marked(browser)
    assert said.startswith("Hint \u2014 ") and cells
    assert all(dancer[i] == max(v, 0) for i, v in cells.items())  # the hint is right
    assert errors(browser) == []


def random_lines(rng, count: int) -> list[tuple[list[int], list[tuple[int, int]]]]:
    """Lines of 0 to 14 cells, 1 to 3 colours: the clue of a random picture and masks that are
    part of it (each cell its own colour and some others, or nothing known), and now and then
    masks that no placement fits."""
    out = []
    for _ in range(count):
        n, ncol = rng.randint(0, 14), rng.choice([1, 1, 2, 3])
        full = (1 << (ncol + 1)) - 1
        line = [rng.randint(1, ncol) if rng.random() < 0.55 else 0 for _ in range(n)]
        blocks: list[tuple[int, int]] = []
        for k, v in enumerate(line):
            if v and k and line[k - 1] == v:
                blocks[-1] = (blocks[-1][0] + 1, v)
            elif v:
                blocks.append((1, v))
        known = rng.random()
        masks = []
        for v in line:
            if rng.random() < 0.1:
                masks.append(rng.randint(1, full))  # maybe against the picture
            elif rng.random() < known:
                masks.append(1 << v)
            else:
                masks.append(full if rng.random() < 0.6 else (1 << v) | rng.randint(0, full))
        out.append((masks, blocks))
    return out


def test_the_pages_rungs_agree_with_the_step_solvers_on_random_lines(browser, tmp_path) -> None:
    """play.js's ladder run in Chromium against nonoforge.solver.human's on the same lines,
    every rung: the same masks, or both None (nothing fits). Python's rungs are sound (their
    tests check them against line logic), so the page's are too."""
    import random

    from nonoforge.solver.human import LINE_RUNGS, line_logic, rung

    its, url = book_page(browser, tmp_path, "Lines")
    reload(browser, url)
    lines = random_lines(random.Random(36), 3000)
    got = browser.execute_script(
        "var ts = arguments[1];"
        "return arguments[0].map(function (l) {"
        "  return ts.map(function (t) { return window.nonoforge.rung(t, l[0], l[1]); }); });",
        [[m, [list(b) for b in bl]] for m, bl in lines], [t.value for t in LINE_RUNGS])
    fits = 0
    for (masks, blocks), theirs in zip(lines, got, strict=True):
        fits += line_logic(masks, blocks) is not None
        for t, js in zip(LINE_RUNGS, theirs, strict=True):
            assert js == rung(t, masks, blocks), (t, masks, blocks)
    assert 1000 < fits < 3000  # both kinds of line were tried


def test_the_hint_walks_the_ladder_the_page_carries(browser, tmp_path) -> None:
    """The page's line rungs come from the ladder it embeds (nonoforge.techniques): a rung
    registered there is in the page, play.js finds nothing with one it has no code for, and
    the hint is still the step nonoforge.solver.human takes."""
    import numpy as np

    from nonoforge import techniques
    from nonoforge.solver.human import next_step
    from nonoforge.solving import start_state

    techniques.register(techniques.Rung("toy_first", techniques.Ladder.HUMAN, -10,
                                        "overlap", "toy", "a rung with no code", 1.0))
    try:
        its, url = book_page(browser, tmp_path, "Toy rung")
    finally:
        techniques.unregister("toy_first")
    reload(browser, url)
    probe = "return window.nonoforge.rung(arguments[0], [3, 2, 3, 3, 3], [[2, 1]]);"
    assert browser.execute_script(probe, "glue") is not None  # a filled cell to pin
    assert browser.execute_script(probe, "toy_first") is None
    ladder = json.loads(browser.execute_script(
        "return document.getElementById('nf-data').textContent;"))["ladder"]
    assert ladder[0]["name"] == "toy_first"
    dancer = its[0].puzzle
    want = next_step(dancer, np.asarray(start_state(dancer))).steps[0]
    said, cells = hint(browser)
    assert said == "Hint \u2014 " + want.sentence
    assert cells == {c.row * dancer.width + c.col: 1 if c.after == 2 else -1 for c in want.cells}
    assert errors(browser) == []


WALK = """
return arguments[0].map(function (q) {
  var p = {w: q.w, h: q.h, bw: q.n === 1, rows: q.rows, cols: q.cols,
           colors: q.names.map(function () { return '#000000'; }), names: q.names};
  var cells = new Int8Array(q.w * q.h), told = [], carried = 0;
  for (;;) {
    var st = window.nonoforge.nextStep(p, cells, q.grid);
    var end = st.wrong ? 'wrong' : st.solved ? 'solved' : st.stuck ? 'stuck' : null;
    if (end) return {end: end, told: told, carried: carried};
    if (st.sentence.indexOf('crossing lines') >= 0) carried++;
    st.cells.forEach(function (d) { told.push(d); cells[d[0]] = d[1]; });
  }
});
"""


def test_hints_from_the_page_only_decide_what_the_picture_has(browser, tmp_path) -> None:
    """Hints followed from an empty board, on random pictures of 1 to 3 colours (often with
    several solutions): every cell a hint decides is the picture's (line logic decides only
    what every solution shares), so a hint never names a cell wrong that it decided itself;
    colour puzzles also take the path that carries colours ruled out to the crossing lines."""
    import random

    its, url = book_page(browser, tmp_path, "Walk")
    reload(browser, url)
    rng = random.Random(36)
    puzzles = []
    for _ in range(400):
        w, h, n = rng.randint(1, 7), rng.randint(1, 7), rng.randint(1, 3)
        grid = [rng.randint(1, n) if rng.random() < 0.5 else 0 for _ in range(w * h)]
        rows = [grid[r * w:(r + 1) * w] for r in range(h)]
        cols = [grid[c::w] for c in range(w)]
        puzzles.append({"w": w, "h": h, "n": n, "grid": grid, "names": ["white", "red", "blue",
                        "green"][:n + 1], "rows": [clue(x) for x in rows],
                        "cols": [clue(x) for x in cols]})
    walks = browser.execute_script(WALK, puzzles)
    ends = [w["end"] for w in walks]
    assert "wrong" not in ends and ends.count("solved") > 300
    assert sum(w["carried"] for w in walks) > 0
    for q, walk in zip(puzzles, walks, strict=True):
        assert all(max(v, 0) == q["grid"][i] for i, v in walk["told"]), q


def clue(line: list[int]) -> list[list[int]]:
    """A line's clue as the page holds it: [length, colour] per block."""
    out: list[list[int]] = []
    for k, v in enumerate(line):
        if v and k and line[k - 1] == v:
            out[-1][0] += 1
        elif v:
            out.append([1, v])
    return out


# -- links and sizing ---------------------------------------------------------------------------


def sized_items() -> list[ExportItem]:
    """The test book and a large real puzzle (webpbn #529, 45x45, clues of up to 12 numbers)."""
    swing = read_file(Path(__file__).parent.parent / "nonoforge" / "examples" / "puzzles"
                      / "swing.non")[0]
    return [*items(), ExportItem(swing, 3, {"grade": 4}, swing.goal, "unique")]


def test_every_puzzle_has_a_link_with_its_title_and_difficulty() -> None:
    its = sized_items()
    html = page(its, "Links")
    for n, it in enumerate(its, start=1):
        assert f'<a href="#{n}">' in html
        line = html.split(f'<a href="#{n}">')[1].split("</li>")[0]
        assert it.difficulty and it.difficulty in line


def board_metrics(driver) -> dict:
    return driver.execute_script("""
        var b = document.getElementById('board'), r = b.getBoundingClientRect();
        var clue = b.querySelector('td.rc span');
        return {cell: b.querySelector('td.cell').getBoundingClientRect().width,
                font: parseFloat(getComputedStyle(clue).fontSize),
                width: r.width, right: r.right, inner: document.documentElement.clientWidth,
                title: document.getElementById('title').textContent, hash: location.hash};""")


def test_a_link_opens_its_puzzle_and_each_puzzle_is_sized_to_the_window(browser, tmp_path) -> None:
    """#n opens puzzle n (over the one last played), the address follows the puzzle shown,
    and each puzzle gets the cell the window allows: a 45x45 puzzle's clues stay readable
    (they were 7 px: issue 37) and it fits the window's width; a small one is drawn larger."""
    its = sized_items()
    path = tmp_path / "book.html"
    path.write_text(page(its, "Links"), encoding="utf-8")
    clean_start(browser, tmp_path)
    browser.set_window_size(1280, 1000)
    reload(browser, path.as_uri() + "#3")
    big = board_metrics(browser)
    assert big["title"] == its[2].title and big["hash"] == "#3"
    assert big["font"] >= 10 and big["cell"] >= 18
    assert big["right"] <= big["inner"] + 1  # fits the width: no sideways scrolling
    pick(browser, 0)
    small = board_metrics(browser)
    assert small["hash"] == "#1" and small["title"] == its[0].title
    assert small["cell"] > big["cell"] * 1.5
    browser.execute_script("location.hash = '#2'")  # a link followed within the page
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 10).until(lambda d: board_metrics(d)["title"] == its[1].title)
    browser.set_window_size(1000, 900)  # a narrower window: the puzzle shrinks with it,
    browser.execute_script("location.hash = '#3'")  # down to readable clues (then it scrolls)
    WebDriverWait(browser, 10).until(lambda d: board_metrics(d)["title"] == its[2].title)
    narrow = board_metrics(browser)
    assert narrow["cell"] <= big["cell"] and narrow["font"] >= 10
    assert errors(browser) == []
    browser.set_window_size(1000, 900)
