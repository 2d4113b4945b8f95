"""``nonoforge studio``: a designer's workbench in the browser, the solver checking every stroke.

A face like :mod:`nonoforge.cli`: the web layer (:mod:`~nonoforge.studio.app`, on
Starlette, served by uvicorn) parses requests, calls the library and renders JSON; the
page (``static/``, bundled: it fetches nothing from other hosts) draws. What the solver
says about a picture while it is drawn is :mod:`~nonoforge.studio.check`; the documents
the page edits, opens and saves are :mod:`~nonoforge.studio.docs`.

This package's ``__init__`` imports nothing heavy: ``nonoforge --help`` and every other
command start as fast as before, and a missing web framework is one line
(:func:`~nonoforge.studio.server.serve`).
"""

from __future__ import annotations
