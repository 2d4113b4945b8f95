"""The studio's web layer: Starlette routes that parse a request, call the library, answer JSON.

Safety, for an app that listens on a port of the user's machine (docs/studio.md):

* every request's ``Host`` must be the address served (a DNS-rebinding page on another
  site resolves its own name to 127.0.0.1, and its requests then carry that name);
* every state-changing request (anything but GET and HEAD) carries the page's per-launch
  token (``X-Studio-Token``) and an ``Origin`` that is the address served;
* request bodies are read up to :data:`MAX_UPLOAD` bytes, no further; a picture is then
  decoded under the limits ``generate`` enforces (:mod:`nonoforge.images.load`);
* no request names a path on the server: files come as bytes, examples by name;
* every error is one JSON line ``{"error": "..."}`` with a 4xx/5xx status, never a
  traceback (what went wrong inside is logged on the server's stderr).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import sys
import tempfile
import threading
import traceback
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from nonoforge.errors import NonoforgeError, UsageError
from nonoforge.studio.check import Superseded

STATIC = Path(__file__).resolve().parent / "static"
#: The largest request body read: an image or a puzzle file (more is refused unread).
MAX_UPLOAD = 16 * 2**20
#: The largest JSON body (a grid of 100x100 and its palette is far smaller).
MAX_JSON = 2 * 2**20
#: Rows a corpus page may have.
MAX_PAGE = 200
#: Pages whose newest check is remembered (the oldest forgotten first).
MAX_PAGES = 256
#: The header that carries the per-launch token.
TOKEN_HEADER = "x-studio-token"
#: Content security: only this origin's scripts, styles, images (blob: and data: for
#: pictures made in the page); nothing from other hosts.
CSP = ("default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
       "form-action 'self'")

#: The playable page's own policy (what its file says in its meta element).
PLAY_CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
            "img-src data:; base-uri 'none'; form-action 'none'")


@dataclass
class Settings:
    """What one launch of the studio serves: its corpus, the addresses it answers as
    (``host:port`` values of the Host header) and its per-launch token."""

    db: str | None = None
    hosts: frozenset[str] = frozenset()
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))


class StudioError(Exception):
    """A refusal with an HTTP status (the message is one line for the page)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class Guard:
    """ASGI middleware: the Host check, the token and Origin check, and one-line errors for
    anything that escapes a route."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        host = headers.get("host", "")
        refusal: JSONResponse | None = None
        if host not in self.settings.hosts:
            refusal = error(421, "this studio does not serve that host name")
        elif scope["method"] not in ("GET", "HEAD"):
            given = headers.get(TOKEN_HEADER, "").encode("latin-1")
            if not secrets.compare_digest(given, self.settings.token.encode("ascii")):
                refusal = error(403, "missing or wrong studio token: reload the page")
            elif headers.get("origin") != f"http://{host}":
                refusal = error(403, "requests that change anything must come from the "
                                     "studio's own page")
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        started = False

        async def tracking(message: Any) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                have = list(message.get("headers", []))
                if not any(k.lower() == b"content-security-policy" for k, _ in have):
                    have.append((b"content-security-policy", CSP.encode()))
                message["headers"] = [*have,
                                      (b"x-content-type-options", b"nosniff"),
                                      (b"referrer-policy", b"no-referrer"),
                                      (b"cache-control", b"no-store")]
            await send(message)

        try:
            await self.app(scope, receive, tracking)
        except Exception:  # the one place a bug becomes a line, not a traceback in the page
            traceback.print_exc(file=sys.stderr)
            if not started:
                await error(500, "internal error in the studio (details on its terminal)")(
                    scope, receive, send)


async def body(request: Request, cap: int) -> bytes:
    """The request body, refused (413) past ``cap`` bytes before reading it all."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > cap:
        raise StudioError(413, f"upload is over the {cap // 2**20} MB limit")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > cap:
            raise StudioError(413, f"upload is over the {cap // 2**20} MB limit")
        chunks.append(chunk)
    return b"".join(chunks)


async def json_body(request: Request) -> Any:
    data = await body(request, MAX_JSON)
    try:
        return json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise StudioError(400, "the request body is not JSON") from None


def _int(request: Request, name: str, default: int, lo: int, hi: int) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    if not raw.isdigit() or not lo <= int(raw) <= hi:
        raise StudioError(400, f"{name} must be a whole number {lo}..{hi}")
    return int(raw)


class Studio:
    """The routes, over one corpus (opened on first use) and one check lock."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._corpus: Any = None
        self._lock = threading.Lock()
        self._newest: dict[str, int] = {}  # each page's newest check (Studio.newest)
        index = (STATIC / "index.html").read_text(encoding="utf-8")
        self.index_html = index.replace("{{TOKEN}}", settings.token)

    def corpus(self) -> Any:
        from nonoforge.db import Corpus

        with self._lock:
            if self._corpus is None:
                self._corpus = Corpus.open(self.settings.db)
            return self._corpus

    def close(self) -> None:
        if self._corpus is not None:
            self._corpus.close()
            self._corpus = None

    @asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        """The solver's compiled kernels load in the background as the server starts (the
        first check need not pay for it); the corpus is released when the server stops."""
        from nonoforge.solver import warmup

        threading.Thread(target=warmup, name="studio-warmup", daemon=True).start()
        try:
            yield
        finally:
            self.close()

    # -- pages ----------------------------------------------------------------------------

    async def index(self, request: Request) -> Response:
        return Response(self.index_html, media_type="text/html; charset=utf-8")

    async def examples(self, request: Request) -> Response:
        from nonoforge.examples import list_examples

        return JSONResponse({"examples": [{"name": e.name, "kind": e.kind}
                                          for e in list_examples()]})

    async def example_image(self, request: Request) -> Response:
        """A bundled example picture, by name (shown beside the puzzle made from it)."""
        from nonoforge.examples import example_path

        try:
            path = example_path(request.path_params["name"])
        except UsageError as e:
            raise StudioError(404, str(e)) from None
        if path.suffix != ".png":
            raise StudioError(404, "not an example picture")
        return Response(path.read_bytes(), media_type="image/png")

    async def formats(self, request: Request) -> Response:
        from nonoforge.studio.api import writable_formats

        return JSONResponse({"formats": writable_formats()})

    # -- the editor -----------------------------------------------------------------------

    async def check(self, request: Request) -> Response:
        from nonoforge.studio.api import check_document

        return await self._sequenced(request, check_document)

    async def _sequenced(
        self, request: Request, work: Callable[[Any, Callable[[], bool] | None], dict[str, Any]],
    ) -> Response:
        """Run ``work(document, stale)`` for a request of the page's one sequence (checks,
        and the harder/easier searches: a stroke's check supersedes a running search),
        ``stale`` telling it when a newer one has started; the answer carries its ``seq``."""
        raw = await json_body(request)
        seq = raw.get("seq") if isinstance(raw, dict) else None
        stale = self.newest(raw.get("page") if isinstance(raw, dict) else None, seq)
        out = await run_in_threadpool(work, raw, stale)
        return JSONResponse({"seq": seq, **out})

    def newest(self, page: Any, seq: Any) -> Callable[[], bool] | None:
        """Note check (or harder/easier search) ``seq`` of the page ``page`` (an id each page
        load makes) as its newest, and a test whether a newer one has started since: a
        superseded check or search stops instead of working on for an answer nobody will
        see."""
        if not isinstance(page, str) or not 0 < len(page) <= 64 or not isinstance(seq, int):
            return None
        with self._lock:
            if seq > self._newest.get(page, -1):
                self._newest[page] = seq
                while len(self._newest) > MAX_PAGES:
                    self._newest.pop(next(iter(self._newest)))
        return lambda: self._newest.get(page, -1) > seq

    async def repair(self, request: Request) -> Response:
        from nonoforge.studio.api import repair_document

        raw = await json_body(request)
        return JSONResponse(await run_in_threadpool(repair_document, raw))

    async def grade(self, request: Request) -> Response:
        from nonoforge.studio.api import grade_document

        raw = await json_body(request)
        return JSONResponse(await run_in_threadpool(grade_document, raw))

    async def regrade(self, request: Request) -> Response:
        from nonoforge.studio.api import regrade_document

        return await self._sequenced(request, regrade_document)

    async def open_file(self, request: Request) -> Response:
        from nonoforge.studio.api import open_bytes, open_example

        example = request.query_params.get("example")
        if example:
            return JSONResponse(await run_in_threadpool(open_example, example))
        data = await body(request, MAX_UPLOAD)
        name = request.query_params.get("name", "upload")
        return JSONResponse(await run_in_threadpool(open_bytes, data, name))

    async def from_picture(self, request: Request) -> Response:
        from nonoforge.studio.api import PictureSettings, parse_box

        opts = PictureSettings(
            width=_int(request, "width", 30, 5, 100), height=_int(request, "height", 30, 5, 100),
            colours=_int(request, "colours", 1, 1, 8),
            max_technique=request.query_params.get("technique", "line"),
            crop=request.query_params.get("crop", "1") != "0",
            box=parse_box(request.query_params["box"]) if request.query_params.get("box")
            else None,
            style=request.query_params.get("style", "silhouette")[:40],
        )
        example = request.query_params.get("example")
        name = request.query_params.get("name", "picture")
        if example:
            from nonoforge.examples import example_path

            try:
                path = example_path(example)
            except UsageError as e:
                raise StudioError(404, str(e)) from None
            if not path.suffix == ".png":
                raise StudioError(400, f"example {example!r} is a puzzle, not a picture")
            data, name = path.read_bytes(), f"example:{example}"
        else:
            data = await body(request, MAX_UPLOAD)
        return JSONResponse(await run_in_threadpool(_generate_from, data, name, opts))

    async def save(self, request: Request) -> Response:
        from nonoforge.studio.api import save_document

        raw = await json_body(request)
        return JSONResponse(await run_in_threadpool(save_document, self.corpus(), raw))

    async def download(self, request: Request) -> Response:
        from nonoforge.studio.api import download_document

        raw = await json_body(request)
        data, filename, media = await run_in_threadpool(download_document, raw)
        return Response(data, media_type=media, headers={
            "content-disposition": f'attachment; filename="{filename}"'})

    # -- the corpus -----------------------------------------------------------------------

    async def corpus_page(self, request: Request) -> Response:
        from nonoforge.studio.api import CorpusQuery, corpus_page

        q = CorpusQuery(
            page=_int(request, "page", 0, 0, 10**6),
            per_page=_int(request, "per_page", 50, 1, MAX_PAGE),
            size=request.query_params.get("size") or None,
            colours=request.query_params.get("colours") or None,
            grade=request.query_params.get("grade") or None,
            source=request.query_params.get("source") or None,
            status=request.query_params.get("status") or None,
            text=(request.query_params.get("text") or "")[:200] or None,
            author=(request.query_params.get("author") or "")[:200] or None,
        )
        return JSONResponse(await run_in_threadpool(corpus_page, self.corpus(), q))

    async def export(self, request: Request) -> Response:
        from nonoforge.studio.api import export_selection

        raw = await json_body(request)
        data, filename, media = await run_in_threadpool(export_selection, self.corpus(), raw)
        return Response(data, media_type=media, headers={
            "content-disposition": f'attachment; filename="{filename}"'})

    async def play(self, request: Request) -> Response:
        """A corpus puzzle in the playable page, under that page's own policy (inline
        script and style, nothing fetched: it is one self-contained file)."""
        from nonoforge.studio.api import play_page

        key = request.path_params["key"]
        html = await run_in_threadpool(play_page, self.corpus(), key)
        return Response(html, media_type="text/html; charset=utf-8", headers={
            "content-security-policy": PLAY_CSP})

    async def corpus_item(self, request: Request) -> Response:
        from nonoforge.studio.api import corpus_document

        key = request.path_params["key"]
        return JSONResponse(await run_in_threadpool(corpus_document, self.corpus(), key))


def _generate_from(data: bytes, name: str, opts: Any) -> dict[str, Any]:
    """The picture's bytes through a private temporary file, so that ``generate`` reads it
    with every check :func:`nonoforge.images.load.load_image` makes (size, decoded cost)."""
    from nonoforge.studio.api import from_picture

    fd, path = tempfile.mkstemp(prefix="nonoforge-studio-", suffix=".img")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return from_picture(path, data, name, opts)
    finally:
        os.unlink(path)


async def _studio_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StudioError)
    return error(exc.status, exc.message)


async def _superseded(request: Request, exc: Exception) -> Response:
    return error(409, "superseded by a newer stroke")


async def _our_error(request: Request, exc: Exception) -> Response:
    return error(422 if isinstance(exc, NonoforgeError) else 400, str(exc).splitlines()[0]
                 if str(exc) else type(exc).__name__)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return error(exc.status_code, exc.detail if isinstance(exc.detail, str) else "error")


def make_app(settings: Settings) -> ASGIApp:
    """The studio's ASGI app for one launch (the server and the tests both build it here)."""
    studio = Studio(settings)
    routes = [
        Route("/", studio.index),
        Route("/api/examples", studio.examples),
        Route("/api/formats", studio.formats),
        Route("/api/example-image/{name:str}", studio.example_image),
        Route("/api/check", studio.check, methods=["POST"]),
        Route("/api/repair", studio.repair, methods=["POST"]),
        Route("/api/grade", studio.grade, methods=["POST"]),
        Route("/api/regrade", studio.regrade, methods=["POST"]),
        Route("/api/open", studio.open_file, methods=["POST"]),
        Route("/api/picture", studio.from_picture, methods=["POST"]),
        Route("/api/save", studio.save, methods=["POST"]),
        Route("/api/download", studio.download, methods=["POST"]),
        Route("/api/corpus", studio.corpus_page),
        Route("/api/corpus/{key:str}", studio.corpus_item),
        Route("/play/{key:str}", studio.play),
        Route("/api/export", studio.export, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={
            StudioError: _studio_error,
            Superseded: _superseded,
            NonoforgeError: _our_error,
            HTTPException: _http_error,
        },
        lifespan=studio.lifespan,
    )
    app.state.studio = studio
    return Guard(app, settings)


def hosts_for(host: str, port: int) -> frozenset[str]:
    """The Host header values a studio bound to ``host:port`` answers to: the address
    itself, ``localhost`` when it is a loopback address, and for a wildcard address
    (``0.0.0.0``, ``::``: every interface) this machine's own names and addresses.

    >>> sorted(hosts_for("192.168.1.5", 80))
    ['192.168.1.5:80']
    """
    def shown(h: str) -> str:
        return f"[{h}]" if ":" in h else h

    names = {f"{shown(host)}:{port}"}
    loopback = {"127.0.0.1", "::1", "localhost"}
    if host in loopback or host in WILDCARDS:
        names |= {f"{shown(h)}:{port}" for h in loopback}
    if host in WILDCARDS:
        own = {socket.gethostname(), socket.getfqdn()}
        with contextlib.suppress(OSError):
            own |= {str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None)}
        names |= {f"{shown(h)}:{port}" for h in own if h}
    return frozenset(names)


#: Addresses that mean every interface of the machine.
WILDCARDS = frozenset({"0.0.0.0", "::", ""})


__all__ = ["MAX_UPLOAD", "Settings", "hosts_for", "make_app"]
