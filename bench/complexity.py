"""Functions above a cyclomatic complexity (radon), worst first: where to split next.

    python bench/complexity.py            # the list for the default limit, 25
    python bench/complexity.py --over 20  # a stricter view
    python bench/complexity.py --check    # exit status 1 when any function is over

Issue 18 asked for none above 30, issue 40 for none above 25; tests/test_architecture.py
runs the same check, with no exceptions.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from radon.complexity import cc_visit

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 25


def over(limit: int = LIMIT, package: Path = ROOT / "nonoforge") -> list[tuple[int, str]]:
    """``(complexity, "path:line name")`` of every function or method above ``limit``."""
    found = []
    for path in sorted(package.rglob("*.py")):
        for block in cc_visit(path.read_text(encoding="utf-8")):
            if block.complexity > limit:
                name = block.fullname if hasattr(block, "fullname") else block.name
                found.append((block.complexity, f"{path.relative_to(ROOT)}:{block.lineno} {name}"))
    return sorted(found, reverse=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--over", type=int, default=LIMIT)
    ap.add_argument("--check", action="store_true", help="exit 1 when any function is over")
    args = ap.parse_args()
    found = over(args.over)
    for cc, where in found:
        print(f"{cc:4d}  {where}")
    print(f"{len(found)} function(s) above complexity {args.over}")
    return 1 if args.check and found else 0


if __name__ == "__main__":
    sys.exit(main())
