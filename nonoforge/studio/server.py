"""Starting the studio: bind, say the address, open the browser, serve with uvicorn."""

from __future__ import annotations

import socket
from collections.abc import Callable
from dataclasses import dataclass

from nonoforge.errors import UsageError

#: What ``nonoforge studio`` says when the web framework is not installed.
INSTALL_HINT = ("the studio needs its web server: pip install 'nonoforge[studio]' "
                "(starlette and uvicorn)")


@dataclass(frozen=True)
class StudioOptions:
    """One launch: the corpus (path or SQLAlchemy URL; None for ``nonoforge.db`` here),
    the address to bind (127.0.0.1 unless asked otherwise; port 0 for any free one) and
    whether to open the browser."""

    db: str | None = None
    host: str = "127.0.0.1"
    port: int = 0
    open_browser: bool = False


def url_of(host: str, port: int) -> str:
    """The address the page is served at.

    >>> url_of("127.0.0.1", 8000), url_of("::1", 8000)
    ('http://127.0.0.1:8000/', 'http://[::1]:8000/')
    """
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: a free one), or one line why not."""
    if not 0 <= port <= 65535:
        raise UsageError(f"--port must be 0..65535, got {port}")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as e:
        raise UsageError(f"cannot resolve --host {host!r} ({e.strerror or e})") from None
    family, _, _, _, addr = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(128)
    except OSError as e:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port} ({e.strerror or e})") from None
    return sock


def serve(opts: StudioOptions, announce: Callable[[str], None]) -> None:
    """Serve the studio until interrupted; ``announce`` is told its URL once it listens."""
    try:
        import starlette  # noqa: F401
        import uvicorn
    except ImportError:
        raise UsageError(INSTALL_HINT) from None
    from nonoforge.solver import warmup
    from nonoforge.studio.app import Settings, hosts_for, make_app

    sock = bind(opts.host, opts.port)
    # the solver's kernels and what the routes import load before the address is given:
    # the first page and its first check then answer at once, not behind the loading
    warmup()
    import nonoforge.db
    import nonoforge.formats
    import nonoforge.studio.api  # noqa: F401
    host, port = sock.getsockname()[:2]
    app = make_app(Settings(db=opts.db, hosts=hosts_for(opts.host, port)))
    url = url_of(opts.host, port)
    announce(url)
    if opts.open_browser:
        import webbrowser

        webbrowser.open(url)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    uvicorn.Server(config).run(sockets=[sock])
