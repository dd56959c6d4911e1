# The two commands of the README, on a machine with only Python 3.11: each makes .venv and installs first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_DB := data/demo.sqlite3

.PHONY: install demo lint test test-fast notebooks docs bench bench-quick clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch first and pinned: the CPU build; an unpinned one is a CUDA build of several GB.
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/kgtoolkit demo --out $(DEMO_DB) --force
	$(BIN)/kgtoolkit --db $(DEMO_DB) dashboard --port $(or $(PORT),8501)

# The lint and type gate (rules and strictness in pyproject.toml), then the suite. `ruff format .` formats.
lint: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest -n 2 -q

# The lane to run while working: SQLite only, no browser, no Spark, nothing marked slow (the full suite is `make test`,
# and CI's).
test-fast: lint
	$(BIN)/python -m pytest -n 2 -q -m "not slow and not postgresql and not browser and not spark"

notebooks: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[notebooks]'
	KGTOOLKIT_REPO=$(CURDIR) $(BIN)/jupyter lab --ip=127.0.0.1 --ServerApp.root_dir=notebooks

# The documentation site on http://127.0.0.1:8000 (tests/meta/test_site.py builds it strict in `make test`).
docs: $(STAMP)
	$(BIN)/mkdocs serve

# Benchmarks (never part of the tests). MemPalace is a comparison only: installed without its dependencies.
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet --no-deps mempalace
	$(BIN)/python benchmarks/bench_suite.py --readme
	$(BIN)/python benchmarks/bench_postgres.py --json benchmarks/results-postgres.json
	$(BIN)/python benchmarks/bench_speed.py --readme
	$(BIN)/python benchmarks/bench_traversal.py --facts 1000000 --samples 100 --json benchmarks/results-traversal.json
	$(BIN)/python benchmarks/bench_retrieval.py --readme --json benchmarks/results-retrieval.json

bench-quick: $(STAMP)
	$(BIN)/python -m pip install --quiet --no-deps mempalace
	$(BIN)/python benchmarks/bench_suite.py --quick
	$(BIN)/python benchmarks/bench_speed.py --quick
	$(BIN)/python benchmarks/bench_retrieval.py --quick

clean:
	rm -rf $(VENV) $(DEMO_DB) $(DEMO_DB)-wal $(DEMO_DB)-shm
