"""``python -m nonoforge``: the same as the ``nonoforge`` command."""

from nonoforge.cli import main

main()
