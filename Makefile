# Two commands are all the set-up there is: `make run` and `make test`. `make test-fast` runs the fast tier
# (unit tests of store, context, session, turn and the pure modules; tests/conftest.py), its temp files in
# memory (/dev/shm) where there is one; `make test-loaded` runs `make test` next to HOGS busy processes
# (bench/hogs.py; one per core unless HOGS=N is given), as on a machine shared with other work.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-fast test-loaded lint bench clean

HOGS ?= $(shell nproc 2>/dev/null || echo 2)
FAST_TMP := $(shell test -d /dev/shm && test -w /dev/shm && echo /dev/shm || echo "$${TMPDIR:-/tmp}")

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/hermes-tui $(ARGS)

test: $(STAMP)
	$(BIN)/ruff check hermes_tui tests bench
	$(BIN)/ruff format --check hermes_tui tests bench
	$(BIN)/python -m pytest $(PYTEST_ARGS)

test-fast: $(STAMP)
	TMPDIR=$(FAST_TMP) $(BIN)/python -m pytest -m fast $(PYTEST_ARGS)

test-loaded: $(STAMP)
	$(BIN)/python -m bench.hogs $(HOGS) -- $(MAKE) test

lint: $(STAMP)
	$(BIN)/ruff check hermes_tui tests bench
	$(BIN)/ruff format --check hermes_tui tests bench

bench: $(STAMP)
	$(BIN)/python -m bench.startup

clean:
	rm -rf $(VENV) build *.egg-info snapshot_report.html
