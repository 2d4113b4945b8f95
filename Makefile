# The two commands the README starts with: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench clean

$(BIN)/nonoforge: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

demo: $(BIN)/nonoforge
	$(BIN)/nonoforge demo

test: $(BIN)/nonoforge
	$(BIN)/ruff check nonoforge tests bench
	$(BIN)/python -m pytest -n 2 -q

lint: $(BIN)/nonoforge
	$(BIN)/ruff check nonoforge tests bench

clean:
	rm -rf $(VENV) build *.egg-info
