# quizbot: `make run` starts the bot on the embedded defaults; `make test` runs every check CI runs.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
DEV_INSTALLED := $(VENV)/.installed-dev

.PHONY: run test lint typecheck content pytest install clean bench

run: $(INSTALLED)
	$(BIN)/quizbot run

test: $(DEV_INSTALLED) lint typecheck content pytest

install: $(INSTALLED)

# `make run` installs the bot and what it needs to run, nothing more; `make test` adds the test tools.
$(INSTALLED): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit("quizbot needs Python 3.11 or newer, found " + sys.version.split()[0]) if sys.version_info < (3, 11) else None'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	@touch $@

$(DEV_INSTALLED): $(INSTALLED) pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	@touch $@

lint: $(DEV_INSTALLED)
	$(BIN)/ruff check bot adapters migrations tests
	$(BIN)/ruff format --check bot adapters migrations tests

typecheck: $(DEV_INSTALLED)
	$(BIN)/mypy

# Every shipped pack passes the quality rules too (the two verbatim seed packs are checked for structure only).
content: $(INSTALLED)
	$(BIN)/quizbot content check --strict

pytest: $(DEV_INSTALLED)
	$(BIN)/python -m pytest -q

# Every benchmark in bench/ in its quick mode (minutes), or at full size with FULL=1; results in bench/RESULTS.md.
bench: $(DEV_INSTALLED)
	$(BIN)/python -m bench $(if $(FULL),--full,)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
