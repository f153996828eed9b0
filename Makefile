# Two commands are all the set-up there is: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench clean

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

lint: $(STAMP)
	$(BIN)/ruff check hermes_tui tests bench
	$(BIN)/ruff format --check hermes_tui tests bench

bench: $(STAMP)
	$(BIN)/python -m bench.startup

clean:
	rm -rf $(VENV) build *.egg-info snapshot_report.html
