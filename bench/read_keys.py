"""Every record of every file under a folder, as read: a puzzle's key and metadata, or an
error's words. Run before and after a change to a reader and compare the outputs (they must
be identical: a speed-up changes no puzzle, key or error).

    .venv/bin/python bench/read_keys.py [FOLDER] > before.txt
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nonoforge.errors import FormatError  # noqa: E402
from nonoforge.formats import iter_file  # noqa: E402


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT.parent / "shared" / "corpora")
    for dirpath, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, folder)
            try:
                for r in iter_file(path, on_error="collect").records():
                    if isinstance(r, FormatError):
                        print(rel, "error", r)
                    else:
                        goal = (None if r.goal is None
                                else hashlib.sha256(r.goal.cells.tobytes()).hexdigest()[:16])
                        print(rel, r.key, repr(r.meta), r.palette, goal, r.givens)
            except (FormatError, ValueError) as e:
                print(rel, "failed", e)


if __name__ == "__main__":
    main()
