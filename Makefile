# DBD Force Builder: everyday commands. GNU make; needs only Python 3.11 to start.
#
#   make run          set up .venv, migrate, load the rules, refresh evaluations, serve :8000
#                     (and run the background worker beside the server)
#   make test         the whole suite: test-fast, then test-browser
#   make test-fast    everything but the browser tests (pytest -m "not browser", parallel)
#   make test-browser the browser tests in Debian's chromium (installed if missing)
#   make lint         ruff, the import contracts (lint-imports) and mypy
#   make mutation     the pure modules' mutation scores (sampled, seeded; docs/mutation.md)
#   make format       ruff fix + ruff format
#   make bench        what players feel, about 5 minutes: writes bench/results.md
#   make bench-scale  the same pages as the site grows to a million battles (long)
#   make two-servers  two gunicorns behind nginx on loopback: shared state and failover proven
#   make clean        remove .venv, caches and build output (keeps var/, the database)

SHELL := /bin/bash
.DEFAULT_GOAL := help

# Python 3.11: `python3.11`, or `python3` when that is 3.11. Override with `make PYTHON=...`.
ifndef PYTHON
PYTHON := $(shell command -v python3.11 2>/dev/null || \
	{ python3 -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null && \
	  command -v python3; })
endif

VENV := .venv
STAMP := $(VENV)/.installed
BIN := $(VENV)/bin
MANAGE := $(BIN)/python manage.py
PYTEST := $(BIN)/pytest
# `-n auto` runs one pytest-xdist worker per core; each worker gets its own test database.
PYTEST_XDIST ?= -n auto

CHROMIUM := /usr/bin/chromium
WRK := /usr/bin/wrk
NGINX := /usr/sbin/nginx
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_INSTALL := $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y

# `make run` only: the development server runs with DEBUG on (and its built-in key).
DEV_ENV := DEBUG=1

.PHONY: help venv .venv run test test-fast test-browser chromium lint format mutation bench \
	bench-scale two-servers clean

help:
	@sed -n '3,15s/^#//p' $(firstword $(MAKEFILE_LIST))

venv .venv: $(STAMP)

# Re-installs whenever pyproject.toml changes.
$(STAMP): pyproject.toml
	@if [ -z "$(PYTHON)" ]; then \
		echo "Python 3.11 not found: install python3.11 or run 'make PYTHON=/path/to/python3.11'." >&2; \
		exit 1; \
	fi
	@# Debian's python3.11 ships without ensurepip until python3.11-venv is installed.
	@if [ ! -x $(BIN)/python ] && ! $(PYTHON) -c 'import ensurepip' 2>/dev/null; then \
		echo "Installing python3.11-venv (needed for 'python3.11 -m venv')"; \
		$(SUDO) apt-get update && $(APT_INSTALL) python3.11-venv; \
	fi
	[ -x $(BIN)/python ] || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $@

run: $(STAMP)
	mkdir -p var
	$(DEV_ENV) $(MANAGE) migrate --noinput
	$(DEV_ENV) $(MANAGE) loaddata rules
	@# Stored evaluations follow the rules just loaded (issue #13).
	$(DEV_ENV) $(MANAGE) refresh_evaluations
	@# A database with other people's accounts is refused (and the server starts anyway).
	-$(DEV_ENV) $(MANAGE) seed_demo
	@# The background worker (webhook deliveries, docs/events.md) runs beside the server
	@# and is stopped with it (Ctrl-C, or the server ending any way): RQ's when
	@# TASKS_QUEUE_URL puts the queue in Redis (docs/operations.md), else the database's.
	if [ -n "$$TASKS_QUEUE_URL" ]; then \
		$(DEV_ENV) $(MANAGE) rqworker --with-scheduler --job-class django_tasks_rq.Job default & \
	else $(DEV_ENV) $(MANAGE) db_worker --no-reload & fi; worker=$$!; \
	trap 'kill $$worker 2>/dev/null; wait $$worker 2>/dev/null' EXIT INT TERM; \
	$(DEV_ENV) $(MANAGE) runserver 127.0.0.1:8000

# The team rule: `make test` runs everything, browser tests included.
test:
	$(MAKE) --no-print-directory test-fast
	$(MAKE) --no-print-directory test-browser

test-fast: $(STAMP)
	mkdir -p var
	$(PYTEST) -m "not browser" $(PYTEST_XDIST) $(PYTEST_ARGS)

test-browser: $(STAMP) $(CHROMIUM)
	mkdir -p var
	$(PYTEST) -m browser $(PYTEST_ARGS)

chromium: $(CHROMIUM)

$(CHROMIUM):
	$(SUDO) apt-get update
	$(APT_INSTALL) chromium

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Not part of `make test`: a sample of mutants a module, each judged by that module's fast
# tests. MUTATION_ARGS passes options, e.g. `--at main` to measure main's tests, or one
# module (`roster/engine.py`).
mutation: $(STAMP)
	$(BIN)/python scripts/mutation.py $(MUTATION_ARGS)

# Need PostgreSQL on 127.0.0.1:5432 (BENCH_DATABASE_URL to change it) and Redis
# (BENCH_REDIS_URL); make and drop dbd_bench; install wrk, nginx and chromium from Debian if
# missing. BENCH_ARGS passes options, e.g. `make bench BENCH_ARGS=--quick`; with --profile,
# pyinstrument is installed into .venv if missing.
bench: $(STAMP) $(WRK) $(NGINX) $(CHROMIUM)
	mkdir -p var
	@if [[ " $(BENCH_ARGS) " == *" --profile "* ]] && ! $(BIN)/python -c 'import pyinstrument' 2>/dev/null; then \
		$(BIN)/python -m pip install --quiet pyinstrument; \
	fi
	$(BIN)/python -m bench $(BENCH_ARGS)

# A million campaign battles and a million table battles: writes bench/results-scale.md.
bench-scale: $(STAMP)
	mkdir -p var
	$(BIN)/python -m bench --scale $(BENCH_ARGS)

# Needs PostgreSQL on 127.0.0.1:5432 (user postgres, trust); installs nginx, wrk and
# redis-server from Debian if missing. About a minute and a half; see scripts/two_servers.py.
two-servers: $(STAMP)
	$(BIN)/python scripts/two_servers.py $(TWO_SERVERS_ARGS)

$(WRK):
	$(SUDO) apt-get update
	$(APT_INSTALL) wrk

$(NGINX):
	$(SUDO) apt-get update
	$(APT_INSTALL) nginx

clean:
	rm -rf $(VENV) staticfiles build *.egg-info test-results .pytest_cache .ruff_cache \
		.mypy_cache .import_linter_cache .hypothesis .benchmarks
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
