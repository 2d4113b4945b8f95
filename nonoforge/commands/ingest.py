"""``nonoforge ingest``: a command per site of the registry, and ``ingest path`` for local
archives; all of them resumable through the corpus's fetch log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import typer

from nonoforge.cliapp import (
    Text,
    _Group,
    is_quiet,
    make_app,
    out,
    print_json,
    say_error,
)
from nonoforge.util import terminal_text

if TYPE_CHECKING:

    pass
from nonoforge.commands.base import (
    CorpusOption,
    app,
    corpus_target,
    open_corpus,
    resolve_input,
)


class _IngestGroup(_Group):
    """``nonoforge ingest``: a command for each site of the registry
    (:func:`nonoforge.scraper.site.sites`, built when asked for), then ``path``;
    ``nonoforge ingest PATH`` is short for ``nonoforge ingest path PATH``."""

    def list_commands(self, ctx: Any) -> list[str]:
        from nonoforge.scraper.site import sites

        own = super().list_commands(ctx)
        return [*(n for n in sites() if n not in own), *own]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        from nonoforge.scraper.site import is_site, site_kind

        cmd = super().get_command(ctx, cmd_name)
        if cmd is None and is_site(cmd_name):
            return _site_command(site_kind(cmd_name))
        return cmd

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and not args[0].startswith("-") and self.get_command(ctx, args[0]) is None:
            return "path", self.get_command(ctx, "path"), args
        return super().resolve_command(ctx, args)


ingest_app = make_app(
    "Fetch puzzles into the corpus from the sites below or local archives, politely "
    "(paced, cached, robots.txt) and resumably (a re-run skips what is done and retries "
    "what failed).\n\n"
    "Examples: nonoforge ingest webpbn 1-500,733 | nonoforge ingest nonograms 100-200 | "
    "nonoforge ingest puzzles.zip (short for: nonoforge ingest path puzzles.zip)"
)
ingest_app.info.cls = _IngestGroup
app.add_typer(ingest_app, name="ingest")

_NET = "Network"
IdsArg = Annotated[str, typer.Argument(help="Ids and ranges, e.g. 1-500,733.")]
BaseUrlOpt = Annotated[
    str | None,
    typer.Option("--base-url", help="The site's address (a mirror, a test server).",
                 rich_help_panel=_NET),
]
RateOpt = Annotated[
    float, typer.Option("--rate", min=0.001, help="Requests per second per host.",
                        rich_help_panel=_NET),
]
CacheDirOpt = Annotated[
    str | None,
    typer.Option("--cache-dir", help="Cache of raw responses [default: the user cache dir, "
                 "e.g. ~/.cache/nonoforge/http].", rich_help_panel=_NET),
]
NoCacheOpt = Annotated[
    bool, typer.Option("--no-cache", help="Neither read nor write the response cache.",
                       rich_help_panel=_NET),
]
TimeoutOpt = Annotated[
    float, typer.Option("--timeout", min=0.01, help="Read timeout in seconds.",
                        rich_help_panel=_NET),
]
RetriesOpt = Annotated[
    int, typer.Option("--retries", min=0, max=20, help="Retries of a failing request.",
                      rich_help_panel=_NET),
]
DryRunOpt = Annotated[
    bool, typer.Option("--dry-run", help="Fetch and parse, write nothing to the corpus."),
]
SummaryJsonOpt = Annotated[bool, typer.Option("--json", help="The summary as JSON on stdout.")]


def _ingest_http(rate: float, cache_dir: str | None, no_cache: bool, timeout: float,
                 retries: int) -> Any:
    from nonoforge.scraper.http import Http, default_cache_dir

    where = None if no_cache else (cache_dir or default_cache_dir())
    return Http(rate=rate, cache_dir=where, read_timeout=timeout, retries=retries)


def _ingest_corpus(db: str | None, dry_run: bool) -> Any:
    """The corpus to write to; for a dry run, only one that already exists (or None)."""
    from nonoforge.errors import CorpusError

    if dry_run:
        try:
            corpus_target(db)  # the one existence check
        except CorpusError:
            return None
    return open_corpus(db, create=True)


def _ingest_report(summary: Any, as_json: bool) -> None:
    if as_json:
        print_json(summary.as_dict())
    else:
        out.print(Text(terminal_text(summary.line())))
        for line in summary.failure_lines():
            out.print(Text(terminal_text(line)))
    stop = summary.stop_line()
    if stop is not None:  # the site could not be reached: one line, exit 5
        say_error(stop)
    if summary.exit_code:  # stopped, or every item tried failed: 5 for the network, else 2
        raise typer.Exit(summary.exit_code)


def _site_options(
    ids: IdsArg,
    db: CorpusOption = None,
    base_url: BaseUrlOpt = None,
    rate: RateOpt = 1.0,
    cache_dir: CacheDirOpt = None,
    no_cache: NoCacheOpt = False,
    timeout: TimeoutOpt = 30.0,
    retries: RetriesOpt = 4,
    dry_run: DryRunOpt = False,
    as_json: SummaryJsonOpt = False,
) -> None:
    """The options every site's command has (never called: its signature is the template
    :func:`_site_command` adds a site's own settings to)."""


def _site_command(kind: Any) -> Any:
    """The command ``ingest NAME IDS`` of the registered site ``kind``
    (:class:`~nonoforge.scraper.site.SiteKind`): the common options, then one ``--NAME``
    option for each of the site's settings, and :func:`ingest_site_ids` as its body."""
    import inspect

    from typer.main import get_command

    common = list(inspect.signature(_site_options, eval_str=True).parameters.values())
    own = [inspect.Parameter(c.name, inspect.Parameter.KEYWORD_ONLY, default=c.default,
                             annotation=Annotated[str, typer.Option(f"--{c.name}", help=c.help)])
           for c in kind.choices]
    params = [*common[:-2], *(p.replace(kind=inspect.Parameter.POSITIONAL_OR_KEYWORD)
                              for p in own), *common[-2:]]

    def command(**given: Any) -> None:
        own = {c.name: given.pop(c.name) for c in kind.choices}
        ingest_site_ids(kind.name, SiteArgs(**given), own)

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    one = typer.Typer(add_completion=False, rich_markup_mode=None)
    one.command(kind.name, help=kind.help())(command)
    return get_command(one)


@dataclass(frozen=True)
class SiteArgs:
    """The common options of ``ingest SITE IDS``, as the command line gave them."""

    ids: str
    db: str | None
    base_url: str | None
    rate: float
    cache_dir: str | None
    no_cache: bool
    timeout: float
    retries: int
    dry_run: bool
    as_json: bool


def ingest_site_ids(site: str, args: SiteArgs, own: dict[str, str | None]) -> None:
    """``ingest SITE IDS``, one path for every site of the registry: ``args`` the common
    options, ``own`` the site's own settings by name (checked before any work)."""
    from contextlib import nullcontext

    from nonoforge.scraper.ingest import ingest_ids
    from nonoforge.scraper.site import site_kind

    kind = site_kind(site)
    settings = kind.settings(own)
    items = kind.ids(args.ids)
    corpus = _ingest_corpus(args.db, args.dry_run)
    http = _ingest_http(args.rate, args.cache_dir, args.no_cache, args.timeout, args.retries)
    with corpus or nullcontext(), http as h:
        summary = ingest_ids(corpus, site, items, http=h, base_url=args.base_url,
                             settings=settings, dry_run=args.dry_run, progress=not is_quiet())
    _ingest_report(summary, args.as_json)


@ingest_app.command("path")
def ingest_path_cmd(
    path: Annotated[str, typer.Argument(help="A puzzle file, a directory, a .zip or a .tar.gz.")],
    db: CorpusOption = None,
    dry_run: DryRunOpt = False,
    as_json: SummaryJsonOpt = False,
) -> None:
    """Every puzzle file under PATH, in any format nonoforge reads; a bad file is recorded
    (with its reason, in the fetch log) and the rest are ingested.

    Example: nonoforge ingest path puzzles.tar.gz (or just: nonoforge ingest puzzles.tar.gz)
    """
    from contextlib import nullcontext

    from nonoforge.scraper.ingest import check_source, ingest_path

    path = resolve_input(path)
    check_source(path)  # before a corpus is created for nothing
    corpus = _ingest_corpus(db, dry_run)
    with corpus or nullcontext():
        summary = ingest_path(corpus, path, dry_run=dry_run, progress=not is_quiet())
    _ingest_report(summary, as_json)
