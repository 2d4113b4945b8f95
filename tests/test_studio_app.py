"""The studio's web layer (nonoforge/studio/app.py) through Starlette's test client: the
safety rules (Host, token, Origin, bounded bodies, one-line JSON errors) and each route."""

from __future__ import annotations

import io
import json
import struct
import zlib
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the studio's extra (nonoforge[studio]) not installed")

from PIL import Image
from starlette.testclient import TestClient

from nonoforge.studio.app import MAX_UPLOAD, Settings, hosts_for, make_app

DATA = Path(__file__).parent / "data"
BW = [{"name": "white", "hex": "#ffffff"}, {"name": "black", "hex": "#000000"}]
SWITCH = {"palette": BW, "cells": [[0, 0, 0], [0, 1, 0], [0, 0, 1]]}


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(db=str(tmp_path / "corpus.db"), hosts=frozenset({"testserver"}))


@pytest.fixture
def client(settings: Settings):
    with TestClient(make_app(settings)) as c:
        yield c


@pytest.fixture
def headers(settings: Settings) -> dict[str, str]:
    return {"X-Studio-Token": settings.token, "Origin": "http://testserver"}


def one_line_error(r, status: int) -> str:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    assert "\n" not in r.text and "Traceback" not in r.text
    return r.json()["error"]


def test_the_page_carries_the_token_and_nothing_from_other_hosts(client, settings) -> None:
    r = client.get("/")
    assert r.status_code == 200 and settings.token in r.text
    assert "http://" not in r.text and "https://" not in r.text and "//" not in r.text.replace(
        "<!--", "")
    csp = r.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp
    for asset in ("/static/studio.js", "/static/studio.css"):
        body = client.get(asset).text
        assert "http://" not in body and "https://" not in body


def test_another_host_name_is_refused(client, headers) -> None:
    # a DNS-rebinding page reaches 127.0.0.1 under its own name
    assert "host" in one_line_error(client.get("/", headers={"Host": "evil.example"}), 421)
    r = client.post("/api/check", json=SWITCH, headers={**headers, "Host": "evil.example:80"})
    one_line_error(r, 421)


def test_hosts_for_loopback_and_others() -> None:
    assert hosts_for("127.0.0.1", 8000) >= {"127.0.0.1:8000", "localhost:8000"}
    assert hosts_for("192.168.1.5", 80) == frozenset({"192.168.1.5:80"})
    assert "[::1]:9" in hosts_for("::1", 9)
    import socket

    every = hosts_for("0.0.0.0", 7)  # every interface: this machine's names too
    assert {"127.0.0.1:7", "localhost:7", f"{socket.gethostname()}:7"} <= every
    assert "evil.example:7" not in every


@pytest.mark.parametrize("drop", ["X-Studio-Token", "Origin"])
def test_changes_need_the_token_and_the_pages_origin(client, headers, drop) -> None:
    bad = {k: v for k, v in headers.items() if k != drop}
    one_line_error(client.post("/api/check", json=SWITCH, headers=bad), 403)
    wrong = {**headers, drop: "http://evil.example" if drop == "Origin" else "guess"}
    one_line_error(client.post("/api/save", json={"document": SWITCH}, headers=wrong), 403)


def test_a_check_answers_with_its_sequence_number(client, headers) -> None:
    r = client.post("/api/check", json={"seq": 41, **SWITCH}, headers=headers)
    out = r.json()
    assert out["seq"] == 41 and out["verdict"] == "multiple"
    thorough = client.post("/api/check", json={"seq": 42, "thorough": True, **SWITCH},
                           headers=headers).json()
    assert {**thorough, "seq": 41} == out
    assert out["differ"] == [[1, 1], [1, 2], [2, 1], [2, 2]]
    assert out["suggestions"][0]["unique"]


@pytest.mark.parametrize("body, status, says", [
    (b"{not json", 400, "not JSON"),
    (json.dumps({"palette": BW, "cells": [[0, 5]]}).encode(), 422, "colour indices"),
    (json.dumps([]).encode(), 422, "JSON object"),
])
def test_bad_input_is_one_json_line(client, headers, body, status, says) -> None:
    r = client.post("/api/check", content=body, headers=headers)
    assert says in one_line_error(r, status)


def test_unknown_routes_and_methods_are_json_too(client, headers) -> None:
    one_line_error(client.get("/api/nothing"), 404)
    one_line_error(client.get("/api/check"), 405)
    one_line_error(client.get("/static/../app.py"), 404)


def test_uploads_are_bounded_by_bytes(client, headers) -> None:
    r = client.post("/api/open?name=big.non", content=b"x" * (MAX_UPLOAD + 1), headers=headers)
    assert "limit" in one_line_error(r, 413)


def bomb_png(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width x height`` (its one row of data is tiny): decoding
    it would take gigabytes; the check reads the header and refuses first."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", zlib.compress(b"\x00" * 16)) + chunk(b"IEND", b""))


def test_a_picture_is_bounded_by_its_decoded_cost(client, headers) -> None:
    r = client.post("/api/picture?name=bomb.png", content=bomb_png(30000, 30000),
                    headers=headers)
    assert "decompression bomb" in one_line_error(r, 422)
    r = client.post("/api/picture?name=junk.png", content=b"not an image", headers=headers)
    assert "not an image" in one_line_error(r, 422)


def test_a_picture_becomes_a_puzzle(client, headers) -> None:
    im = Image.new("RGB", (40, 40), "white")
    for x in range(8, 32):
        for y in range(10, 30):
            if (x - 20) ** 2 + (y - 20) ** 2 < 100:
                im.putpixel((x, y), (0, 0, 0))
    buf = io.BytesIO()
    im.save(buf, format="PNG")
    r = client.post("/api/picture?name=disc.png&width=10&height=10", content=buf.getvalue(),
                    headers=headers)
    out = r.json()
    assert r.status_code == 200, out
    assert out["summary"]["status"] == "unique" and out["sheet"].startswith("data:image/png")
    assert out["provenance"]["settings"]["size"] == "10x10"
    assert len(out["provenance"]["image_sha256"]) == 64


def test_a_rectangle_drawn_on_the_source_crops_it_before_generating(client, headers) -> None:
    im = Image.new("RGB", (80, 40), "white")  # a disc on the left half, a bar on the right
    for x in range(80):
        for y in range(40):
            if (x - 20) ** 2 + (y - 20) ** 2 < 150 or (x >= 50 and 15 <= y < 25):
                im.putpixel((x, y), (0, 0, 0))
    buf = io.BytesIO()
    im.save(buf, format="PNG")
    png = buf.getvalue()
    url = "/api/picture?name=two.png&width=10&height=10&crop=0"
    whole = client.post(url, content=png, headers=headers).json()["document"]
    assert (whole["width"], whole["height"]) == (10, 5)  # the 2:1 picture
    out = client.post(url + "&box=0,0,0.5,1", content=png, headers=headers).json()
    doc = out["document"]
    assert (doc["width"], doc["height"]) == (10, 10)  # its left half, square
    cells = doc["cells"]
    assert cells[5][5] == 1 and cells[0][0] == 0  # the disc, centred, corners empty
    assert out["provenance"]["settings"]["box"] == "0.0000,0.0000,0.5000,1.0000"
    for bad in ("0.5,0,0.2,1", "0,0,1", "a,b,c,d", "0,0,2,1"):
        err = one_line_error(client.post(url + f"&box={bad}", content=png, headers=headers),
                             422)
        assert "left,top,right,bottom" in err
    err = one_line_error(client.post(url + "&box=0,0,0.01,0.01", content=png,
                                     headers=headers), 422)
    assert "larger rectangle" in err


def test_a_black_and_white_picture_is_drawn_in_the_style_chosen(client, headers) -> None:
    url = "/api/picture?example=koala&width=20&height=20&colours=1"
    out = client.post(url + "&style=outline", headers=headers).json()
    assert out["summary"]["style"] == "outline" and out["summary"]["status"] == "unique"
    assert out["provenance"]["settings"]["style"] == "outline"
    plain = client.post(url, headers=headers).json()
    assert plain["summary"]["style"] == "silhouette"
    assert plain["document"]["cells"] != out["document"]["cells"]
    err = one_line_error(client.post(url + "&style=cubist", headers=headers), 422)
    assert "style must be one of" in err
    err = one_line_error(client.post(url.replace("colours=1", "colours=3") + "&style=tones",
                                     headers=headers), 422)
    assert "black and white" in err


def test_examples_are_named_never_paths(client, headers) -> None:
    names = {e["name"] for e in client.get("/api/examples").json()["examples"]}
    assert {"dancer", "koala"} <= names
    assert client.get("/api/example-image/koala").headers["content-type"] == "image/png"
    one_line_error(client.get("/api/example-image/dancer"), 404)  # a puzzle, not a picture
    for name in ("../../../etc/passwd", "/etc/passwd", "%2e%2e%2fcli.py"):
        r = client.post(f"/api/open?example={name}", headers=headers)
        assert r.status_code in (404, 422) and "no bundled example" in r.json()["error"]
    r = client.post("/api/open?example=dancer", headers=headers)
    assert r.json()["document"]["title"] == "Demo Puzzle from Front Page"


def test_open_save_browse_download(client, headers) -> None:
    r = client.post("/api/open?name=dancer.cwc", content=(DATA / "dancer.cwc").read_bytes(),
                    headers=headers)
    doc = r.json()["document"]
    doc["title"] = "<script>alert(1)</script>"
    saved = client.post("/api/save", json={"document": doc, "provenance": {"origin": "file"}},
                        headers=headers).json()
    assert saved["new"] == 1
    page = client.get("/api/corpus?size=5x10").json()
    assert [i["key"] for i in page["items"]] == [saved["key"]]
    assert page["items"][0]["title"] == "<script>alert(1)</script>"  # data; the page shows text
    assert client.get("/api/corpus?size=6x6..9x9").json()["items"] == []
    one_line_error(client.get("/api/corpus?size=huge"), 422)
    one_line_error(client.get("/api/corpus?per_page=100000"), 400)
    play = client.get(f"/play/{saved['key']}")
    assert play.status_code == 200 and "<script>alert(1)" not in play.text
    assert "script-src 'unsafe-inline'" in play.headers["content-security-policy"]
    assert "connect-src" not in play.headers["content-security-policy"]  # one policy only
    one_line_error(client.get("/play/nope"), 422)
    opened = client.get(f"/api/corpus/{saved['key']}").json()["document"]
    assert opened["cells"] == doc["cells"]
    one_line_error(client.get("/api/corpus/nope"), 422)
    r = client.post("/api/download", json={"format": "non", "document": doc}, headers=headers)
    assert r.headers["content-disposition"] == 'attachment; filename="script-alert-1-script.non"'
    assert "width 5" in r.text
    r = client.post("/api/download", json={"format": "nope", "document": doc}, headers=headers)
    one_line_error(r, 422)


def test_repair_and_grade(client, headers) -> None:
    out = client.post("/api/repair", json=SWITCH, headers=headers).json()
    assert out["accepted"] and out["status"] == "unique" and len(out["changed"]) >= 1
    again = client.post("/api/check", json={**SWITCH, "cells": out["cells"]}, headers=headers)
    assert again.json()["line_solves"]
    dancer = client.post("/api/open?example=dancer", headers=headers).json()["document"]
    graded = client.post("/api/grade", json=dancer, headers=headers).json()
    assert graded["status"] == "unique" and graded["grade"] in range(1, 6)
    one_line_error(client.post("/api/repair", content=b"[]", headers=headers), 422)


def test_easier_moves_toward_the_target_grade_with_edits_the_check_calls_unique(
    client, headers
) -> None:
    cat = client.post("/api/open?example=cat", headers=headers).json()["document"]
    graded = client.post("/api/grade", json=cat, headers=headers).json()
    out = client.post("/api/regrade", json={**cat, "direction": "easier", "target": 1},
                      headers=headers).json()
    assert out["direction"] == "easier" and out["grade_before"] == graded["grade"] == 2
    assert out["changed"] and out["score_after"] < out["score_before"]
    cells = [list(r) for r in cat["cells"]]
    for y, x, v in out["changed"]:
        cells[y][x] = v
    assert cells == out["cells"]
    after = {**cat, "cells": cells}
    assert client.post("/api/check", json=after, headers=headers).json()["verdict"] == "unique"
    regraded = client.post("/api/grade", json=after, headers=headers).json()
    assert regraded["grade"] == out["grade_after"]


def test_harder_runs_hardens_search_and_keeps_the_puzzle_unique(client, headers) -> None:
    dancer = client.post("/api/open?example=dancer", headers=headers).json()["document"]
    out = client.post("/api/regrade", json={**dancer, "direction": "harder", "target": 2},
                      headers=headers).json()
    assert out["direction"] == "harder" and out["grade_before"] == 1
    assert out["changed"] and out["score_after"] > out["score_before"]
    assert out["note"] and not out["reached"]  # dancer's 5x10 allows only 2 edits
    cells = [list(r) for r in dancer["cells"]]
    for y, x, v in out["changed"]:
        cells[y][x] = v
    assert cells == out["cells"]
    after = {**dancer, "cells": cells}
    assert client.post("/api/check", json=after, headers=headers).json()["verdict"] == "unique"
    assert client.post("/api/grade", json=after, headers=headers).json()["score"] == \
        pytest.approx(out["score_after"], abs=0.1)


def test_regrade_refuses_bad_requests_in_one_line(client, headers) -> None:
    for bad in ({**SWITCH, "direction": "sideways", "target": 2},
                {**SWITCH, "direction": "easier", "target": 9},
                {**SWITCH, "direction": "easier", "target": True},
                {**SWITCH, "direction": "easier"}):
        one_line_error(client.post("/api/regrade", json=bad, headers=headers), 422)
    two = {"palette": BW, "cells": [[1, 0], [0, 1]]}  # two solutions
    err = one_line_error(client.post("/api/regrade", json={**two, "direction": "easier",
                                                           "target": 1}, headers=headers), 422)
    assert "unique" in err


def test_pasted_clues_open_with_the_solvers_picture(client, headers) -> None:
    text = (DATA / "dancer.non").read_text(encoding="utf-8")
    clues = "\n".join(line for line in text.splitlines() if not line.startswith("goal"))
    out = client.post("/api/open?name=pasted", content=clues.encode(), headers=headers).json()
    doc = out["document"]
    assert "solver" in doc["note"] and (doc["width"], doc["height"]) == (5, 10)


def test_a_token_that_is_not_even_ascii_is_refused_in_one_line(client, headers) -> None:
    odd = {k: v.encode("ascii") for k, v in headers.items()}
    odd["X-Studio-Token"] = "\u00e9t\u00e9".encode("latin-1")  # bytes a client may send
    one_line_error(client.post("/api/check", json=SWITCH, headers=odd), 403)


def test_a_corpus_that_cannot_open_is_one_line(tmp_path: Path) -> None:
    where = tmp_path / "not-a-folder"
    where.write_text("a file where the corpus's folder should be", encoding="utf-8")
    settings = Settings(db=str(where / "c.db"), hosts=frozenset({"testserver"}))
    with TestClient(make_app(settings)) as client:
        assert one_line_error(client.get("/api/corpus"), 422)


def test_a_selection_exports_as_a_book_a_page_a_dataset_or_rofl(client, headers) -> None:
    keys = []
    for name in ("dancer", "petro"):
        doc = client.post(f"/api/open?example={name}", headers=headers).json()["document"]
        keys.append(client.post("/api/save", json={"document": doc}, headers=headers)
                    .json()["key"])
    starts = {"pdf": b"%PDF-", "html": b"<!DOCTYPE html>", "jsonl": b"{", "rofl": b""}
    for to, start in starts.items():
        r = client.post("/api/export", json={"keys": keys, "to": to, "name": "My <b>book"},
                        headers=headers)
        assert r.status_code == 200, r.text
        assert r.content.startswith(start) and len(r.content) > 100
        assert r.headers["content-disposition"].endswith(f'my-b-book.{to}"')
    for bad in ({"keys": [], "to": "pdf"}, {"keys": keys, "to": "exe"},
                {"keys": ["nope"], "to": "pdf"}):
        one_line_error(client.post("/api/export", json=bad, headers=headers), 422)


def test_a_check_superseded_by_a_newer_stroke_stops(client, headers) -> None:
    newer = client.post("/api/check", json={"seq": 7, "page": "p1", **SWITCH}, headers=headers)
    assert newer.json()["verdict"] == "multiple"
    older = client.post("/api/check", json={"seq": 6, "page": "p1", **SWITCH}, headers=headers)
    assert "superseded" in one_line_error(older, 409)
    other_page = client.post("/api/check", json={"seq": 6, "page": "p2", **SWITCH},
                             headers=headers)
    assert other_page.json() == {**newer.json(), "seq": 6}  # the same answer for the grid


def test_the_studio_is_a_face_like_the_cli() -> None:
    """Only the command line starts the studio, and only the studio's web layer knows the
    web framework (the import graph as tests/test_architecture.py reads it)."""
    import ast

    from test_architecture import GRAPH, MODULES

    studio = {m for m in GRAPH if m == "nonoforge.studio" or m.startswith("nonoforge.studio.")}
    for name, deps in GRAPH.items():
        if name not in studio and name != "nonoforge.cli":
            assert not deps & studio, f"{name} imports the studio"
    web = ("starlette", "uvicorn")
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                mods = ([a.name for a in node.names] if isinstance(node, ast.Import)
                        else [node.module or ""])
                if any(m.split(".")[0] in web for m in mods):
                    assert name in ("nonoforge.studio.app", "nonoforge.studio.server"), name


def test_a_puzzle_with_givens_is_checked_saved_and_downloaded_with_them(
    client, headers
) -> None:
    data = (DATA / "givens.nonpack").read_bytes()  # the switch: unique only with its given
    doc = client.post("/api/open?name=givens.nonpack", content=data,
                      headers=headers).json()["document"]
    assert doc["givens"] and doc["note"] is None
    checked = client.post("/api/check", json=doc, headers=headers).json()
    assert (checked["verdict"], checked["line_solves"]) == ("unique", True)
    bare = client.post("/api/check", json={**doc, "givens": []}, headers=headers).json()
    assert bare["verdict"] == "multiple"
    given = next(s for s in bare["suggestions"] if s["kind"] == "given")
    assert given["unique"]  # applied, as the page applies it: the cell given
    applied = {**doc, "givens": [[given["row"], given["column"]]]}
    assert client.post("/api/check", json=applied, headers=headers).json()["verdict"] == \
        "unique"
    saved = client.post("/api/save", json={"document": doc}, headers=headers).json()
    back = client.get(f"/api/corpus/{saved['key']}").json()["document"]
    assert back["givens"] == doc["givens"] and back["key"] == doc["key"]
    r = client.post("/api/download", json={"format": "non", "document": doc}, headers=headers)
    assert r.status_code == 200 and b"givens" in r.content
    refused = client.post("/api/download", json={"format": "cwc", "document": doc},
                          headers=headers)
    assert refused.status_code == 422


def test_easier_superseded_by_a_stroke_is_not_answered(client, headers) -> None:
    """A stroke's check with a newer sequence number than a running Easier supersedes it:
    the search stops at its next candidate and answers 409, never a result for the grid
    the page no longer holds (here the stroke's check comes first: the same order of
    events as during a search, without depending on how long the search takes)."""
    cat = client.post("/api/open?example=cat", headers=headers).json()["document"]
    stroke = client.post("/api/check", json={**cat, "seq": 8, "page": "p1"}, headers=headers)
    assert stroke.status_code == 200
    for direction in ("easier", "harder"):
        late = client.post("/api/regrade", json={**cat, "direction": direction, "target": 3 if
                                                 direction == "harder" else 1,
                                                 "seq": 7, "page": "p1"}, headers=headers)
        assert "superseded" in one_line_error(late, 409)
    # the page that made no newer stroke gets its answer, with its sequence number
    mine = client.post("/api/regrade", json={**cat, "direction": "easier", "target": 1,
                                             "seq": 7, "page": "p2"}, headers=headers)
    assert mine.status_code == 200 and mine.json()["seq"] == 7 and mine.json()["changed"]
