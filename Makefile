# The two commands the README starts with: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test test-fast typecheck lint bench postgres chromium clean

# What mypy checks: the package, and the benches (the project's measuring instruments:
# a bench whose write path crashed went unseen while only the package was checked). The
# benches' sibling imports resolve through pyproject's mypy_path; nothing needs ../shared.
TYPED := nonoforge bench

# pip shows each package as it comes (a quiet install was minutes without a word, issue 38);
# then it unpacks them all without a word (about 1.5 min on a busy 2-core machine)
$(BIN)/nonoforge: pyproject.toml
	@echo "installing nonoforge and its dependencies into $(VENV)/: 1 to 3 minutes, once;"
	@echo "pip lists the packages, then is silent for a minute or so while it unpacks them ..."
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --progress-bar off -e '.[test]'
	@# compile the solver's kernels into numba's cache now, saying so (issue 38): the first
	@# demo or solve would otherwise pay a minute or more of it in silence
	$(BIN)/python -c "from nonoforge.solver import warmup; warmup()"
	touch $@

demo: $(BIN)/nonoforge
	$(BIN)/nonoforge demo

# The corpus tests also run against a throw-away PostgreSQL server when its binaries are
# installed; as root with apt we install them, elsewhere those tests skip and say why.
postgres:
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing PostgreSQL for the corpus tests"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			postgresql >/dev/null) || echo "PostgreSQL unavailable: its tests will skip"; \
	else echo "no PostgreSQL server: its tests will skip"; fi

# The playable page's test drives Debian's Chromium headless (Selenium + chromedriver);
# installed as root with apt, elsewhere that test skips and says why.
chromium:
	@if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing Chromium for the browser test"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			chromium chromium-driver >/dev/null) || echo "Chromium unavailable: its test will skip"; \
	else echo "no Chromium: the browser test will skip"; fi

test: $(BIN)/nonoforge postgres chromium
	$(BIN)/ruff check nonoforge tests bench
	$(BIN)/mypy $(TYPED)
	$(BIN)/python -m pytest -n 2 -q

# The edit loop: everything but the tests marked slow (CI still runs those), under 2 minutes.
test-fast: $(BIN)/nonoforge
	$(BIN)/ruff check nonoforge tests bench
	$(BIN)/python -m pytest -n 2 -q -m "not slow"

typecheck: $(BIN)/nonoforge
	$(BIN)/mypy $(TYPED)

lint: $(BIN)/nonoforge
	$(BIN)/ruff check nonoforge tests bench

clean:
	rm -rf $(VENV) build *.egg-info
