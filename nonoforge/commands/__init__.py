"""The commands of the ``nonoforge`` CLI, one module per job; :mod:`nonoforge.cli`
assembles them into one app (importing a module registers its commands)."""
