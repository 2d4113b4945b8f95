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
from pathlib import Path

import numpy as np
import pytest

from nonoforge.formats import read_file
from nonoforge.pipeline.export import Item
from nonoforge.pipeline.html import decode, encode, page, seed_of
from nonoforge.puzzle import Grid, Meta, Palette, Puzzle

DATA = Path(__file__).parent / "data"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1000,900"]


def items() -> list[Item]:
    dancer = read_file(DATA / "dancer.non")[0]
    pal = Palette.of(("white", "#ffffff"), ("red", "#d03030"), ("navy", "#102060"))
    flag = Puzzle.from_grid(Grid(np.array([[1, 1, 2], [2, 0, 1], [1, 2, 2]])), palette=pal,
                            meta=Meta(title="<b>Flag</b> & \u0424\u043b\u0430\u0433"))
    out = []
    for n, p in enumerate([dancer, flag], start=1):
        out.append(Item(p, n, {"grade": n}, p.goal, "unique"))
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
    opts.set_capability("goog:loggingPrefs", {"performance": "ALL"})
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


def restored(driver) -> None:
    """Wait until this document has read the progress kept in IndexedDB (play.js ``restore``).

    Callers remove the board's ``data-restored`` from the old document before navigating, so the
    attribute found here was set by the new one: no sleep, no retry of the assertion after."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 30).until(
        lambda d: d.find_element("id", "board").get_attribute("data-restored") == "yes")


def reload(driver, url: str | None = None) -> None:
    """Reload (or go to url) and wait for the new document's restore."""
    driver.execute_script("var b = document.getElementById('board');"
                          "if (b) b.removeAttribute('data-restored');")
    if url is None:
        driver.refresh()
    else:
        driver.get(url)
    restored(driver)


def test_a_player_solves_a_puzzle_by_clicking_and_nothing_is_fetched(browser, tmp_path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    its = items()
    path = tmp_path / "book.html"
    path.write_text(page(its, "Browser test"), encoding="utf-8")
    browser.get(path.as_uri())
    browser.execute_script("localStorage.clear()")
    requests_made(browser)  # drop what came before (the browser's own new-tab page)
    reload(browser, path.as_uri())
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
    other = tmp_path / "other.html"
    other.write_text("<!DOCTYPE html><title>other</title><p>another page", encoding="utf-8")
    browser.get(other.as_uri())
    browser.execute_script("localStorage.clear()")
    reload(browser, path.as_uri())
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
    ours = [url for url, doc in seen if doc == path.as_uri()]
    assert ours and set(ours) == {path.as_uri()}, seen  # the page itself, nothing else
    assert not [url for url, _ in seen if url.split(":")[0] in ("http", "https", "ws", "wss")]
