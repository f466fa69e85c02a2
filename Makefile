# quizbot: `make run` starts the bot on the embedded defaults; `make test` runs every check CI runs.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
DEV_INSTALLED := $(VENV)/.installed-dev
# Every dependency, pinned with its hashes (pip-tools): what runs is what was tested. `make lock` refreshes them.
LOCK := requirements/lock.txt
DEV_LOCK := requirements/dev-lock.txt
PIP_COMPILE := $(BIN)/pip-compile --quiet --generate-hashes --strip-extras --allow-unsafe \
	--index-url https://pypi.org/simple --no-emit-index-url --no-emit-find-links

.PHONY: run test lint layers typecheck content docs pytest install lock clean bench

run: $(INSTALLED)
	$(BIN)/quizbot run

test: $(DEV_INSTALLED) lint layers typecheck content docs pytest

install: $(INSTALLED)

# `make run` installs the bot and what it needs to run, nothing more; `make test` adds the test tools.
$(INSTALLED): pyproject.toml $(LOCK)
	@$(PYTHON) -c 'import sys; sys.exit("quizbot needs Python 3.11 or newer, found " + sys.version.split()[0]) if sys.version_info < (3, 11) else None'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps -e .
	@touch $@

$(DEV_INSTALLED): $(INSTALLED) pyproject.toml $(DEV_LOCK)
	$(BIN)/python -m pip install --quiet --require-hashes -r $(DEV_LOCK)
	@touch $@

# After changing the dependencies in pyproject.toml (or to take newer releases, e.g. a security fix): rewrite both
# locks from PyPI with the Python of the venv (3.11, as the image), then commit them. Takes a few minutes.
lock: $(INSTALLED)
	$(BIN)/python -m pip install --quiet pip-tools
	PIP_FIND_LINKS= $(PIP_COMPILE) --upgrade --output-file $(LOCK) pyproject.toml
	PIP_FIND_LINKS= $(PIP_COMPILE) --upgrade --extra dev --output-file $(DEV_LOCK) pyproject.toml

lint: $(DEV_INSTALLED)
	$(BIN)/ruff check bot adapters migrations tests
	$(BIN)/ruff format --check bot adapters migrations tests
	$(BIN)/ruff check bench && $(BIN)/ruff format --check bench

# The import graph's contracts (.importlinter): the layers of bot/, adapters behind the facade, who may import
# sqlalchemy and the platform libraries; TYPE_CHECKING imports included.
layers: $(DEV_INSTALLED)
	$(BIN)/lint-imports

typecheck: $(DEV_INSTALLED)
	$(BIN)/mypy

# Every shipped pack passes the quality rules too (the two verbatim seed packs are checked for structure only).
content: $(INSTALLED)
	$(BIN)/quizbot content check --strict

# The documentation site (mkdocs.yml, docs/) built strictly into site/: a broken link or anchor, or a page missing
# from the nav, fails it. Offline: no plugin that fetches. The generated references are checked by pytest.
docs: $(DEV_INSTALLED)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

pytest: $(DEV_INSTALLED)
	$(BIN)/python -m pytest -q

# Every benchmark in bench/ in its quick mode (minutes), or at full size with FULL=1; results in bench/RESULTS.md.
bench: $(DEV_INSTALLED)
	$(BIN)/python -m bench $(if $(FULL),--full,)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache site
