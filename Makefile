# The front door: `make run` plays, `make test` checks. Both work from a fresh
# clone: they create .venv and install requirements on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run

.PHONY: run test test-serial test-fast lint format bench chaos install services-stop clean

# Two stamps: `make run` needs the runtime requirements only; tests, lint and benchmarks need the dev ones too
# (requirements-dev.txt includes requirements.txt, so installing it also brings the runtime stamp up to date).
$(RUN_STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $(RUN_STAMP)

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $(RUN_STAMP) $(STAMP)

install: $(STAMP)

# Development: the embedded PostgreSQL/Redis when no URL is given, a development key (settings.development_mode).
export BACCARAT_DEV ?= 1

run: $(RUN_STAMP)
	$(PY) -m baccarat_site.run --host $(HOST) --port $(PORT)

# Tests run on TEST_WORKERS pytest-xdist workers: the machine's cores by default (`auto`), each worker with its own
# test database and Redis database (tests/parallel.py). TEST_WORKERS=1, or `make test-serial`, runs them in one
# process (so does a venv without pytest-xdist). How long each lane takes, and where the time goes: docs/testing.md.
TEST_WORKERS ?= auto
workers = $$([ "$(TEST_WORKERS)" != 1 ] && $(PY) -c "import xdist" 2>/dev/null && echo "$(strip -p tests.parallel -n $(TEST_WORKERS) $(1))")

# The whole suite. A whole test file stays on one worker (--dist loadfile), so a browser file's casino starts once.
test: $(STAMP)
	$(PY) -m pytest $(call workers,--dist loadfile) $(PYTEST_ARGS)

test-serial: $(STAMP)
	$(PY) -m pytest $(PYTEST_ARGS)

# The quick loop while editing: everything but the tests marked slow (real processes, long runs) and the browser
# tests.
test-fast: $(STAMP)
	$(PY) -m pytest $(call workers) -m "not slow and not browser" $(PYTEST_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

format: $(STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# Every benchmark, then one table of all their measures (also written to bench/RESULTS.md).
bench: $(STAMP)
	rm -f var/bench-results.jsonl && mkdir -p var
	BENCH_RESULTS=var/bench-results.jsonl $(PY) bench/engine.py
	BENCH_RESULTS=var/bench-results.jsonl $(PY) bench/bets.py --floor
	BENCH_RESULTS=var/bench-results.jsonl $(PY) bench/confirm.py
	BENCH_RESULTS=var/bench-results.jsonl $(PY) bench/fanout.py
	BENCH_RESULTS=var/bench-results.jsonl $(PY) bench/sockets_per_daphne.py
	BENCH_RESULTS=var/bench-results.jsonl $(PY) bench/chat.py
	BENCH_RESULTS=var/bench-results.jsonl $(PY) bench/table_page.py
	BENCH_RESULTS=var/bench-results.jsonl $(PY) bench/reveal.py
	BENCH_RESULTS=var/bench-results.jsonl $(PY) bench/tables_per_worker.py
	BENCH_RESULTS=var/bench-results.jsonl CHAOS_PLAYERS=20 CHAOS_ROUNDS=40 CHAOS_KILLS=10 $(PY) bench/chaos.py
	$(PY) bench/summary.py var/bench-results.jsonl

# The casino under faults (bench/chaos.py); sizes from CHAOS_PLAYERS, CHAOS_ROUNDS, CHAOS_KILLS.
chaos: $(STAMP)
	$(PY) bench/chaos.py

services-stop: $(RUN_STAMP)
	$(PY) -m baccarat_site.embedded stop

clean: services-stop
	rm -rf var staticfiles
