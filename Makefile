# Aoristos Table: `make serve` to play, `make test` to check everything.
HOST ?= 0.0.0.0
PORT ?= 8000
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q

.PHONY: serve test test-unit test-browser bench lint messages vendor clean help

help:
	@echo "make serve   set up .venv, migrate, load demo data, serve on $(HOST):$(PORT)"
	@echo "make test    set up .venv and run every test (unit, view, API, browser)"
	@echo "make bench   measure the live table over HTTP beside baselines (BENCH_QUICK=1: smoke run)"

# The venv is rebuilt when the requirement files change.
$(VENV)/.runtime: requirements.txt
	@test -x $(PY) || { interp=$$(./scripts/find-python) && echo "Using $$interp" && "$$interp" -m venv $(VENV); }
	$(PIP) install -r requirements.txt
	@touch $@

$(VENV)/.test: requirements-test.txt $(VENV)/.runtime
	$(PIP) install -r requirements-test.txt
	@touch $@

serve: $(VENV)/.runtime
	$(PY) manage.py serve --host $(HOST) --port $(PORT)

# Browser tests run in their own pytest process: Playwright leaves an asyncio loop in
# the main thread that would break later async tests.
test: $(VENV)/.test
	$(PY) -m pytest -m "not browser"
	$(PY) -m pytest -m browser

test-unit: $(VENV)/.test
	$(PY) -m pytest -m "not browser"

test-browser: $(VENV)/.test
	$(PY) -m pytest -m browser

bench: $(VENV)/.test
	$(PY) bench/odds.py
	$(PY) bench/simulate.py
	$(PY) bench/simulation_wait.py
	$(PY) bench/archive.py
	$(PY) bench/live.py

lint: $(VENV)/.test
	$(VENV)/bin/ruff check .

# Re-extract and compile translations (needs GNU gettext; the compiled .mo files are committed).
messages: $(VENV)/.runtime
	$(PY) manage.py makemessages -l sv -l en --no-obsolete --ignore=.venv --ignore=staticfiles --ignore=tests
	$(PY) manage.py compilemessages --ignore=.venv

# Front-end libraries (vendor.json) from the npm registry into static/vendor/, checked
# against the registry's integrity hash; the copies are committed (no network to serve).
vendor: $(VENV)/.runtime
	$(PY) scripts/vendor.py

clean:
	rm -rf $(VENV) staticfiles .pytest_cache
