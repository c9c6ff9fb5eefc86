# The two commands: `make run` (web + worker, demo data) and `make test` (whole suite).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test test-services test-netbox bench bench-instructions mutation lint format migrate clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP)

migrate: $(STAMP)
	DEBUG=1 $(VENV)/bin/cluster-designer migrate --noinput

# `make run PORT=8080` (or HOST=0.0.0.0) serves elsewhere than 127.0.0.1:8000
HOST ?= 127.0.0.1
PORT ?= 8000

run: migrate
	DEBUG=1 $(VENV)/bin/cluster-designer load-demo
	DEBUG=1 $(VENV)/bin/cluster-designer serve --addr $(HOST):$(PORT)

test: $(STAMP)
	bash .ci/ensure-chromium
	bash .ci/ensure-libreoffice
	bash .ci/ensure-slurm
	$(PY) -m ruff check .
	$(PY) -m pytest -m "not services"

# Production mode: the whole suite on PostgreSQL + Redis with real workers, plus the tests
# marked `services` (.ci/services-up starts the servers where this machine has them), and the NetBox round
# trip (issue #37 item 3) against a real NetBox that .ci/netbox-up installs, migrates and serves (stopped after,
# whatever the result). `make test-services NETBOX=0` leaves NetBox out (the round trip then skips, saying so).
NETBOX ?= 1
test-services: $(STAMP)
	bash .ci/services-up
	if [ "$(NETBOX)" = 1 ]; then bash .ci/netbox-up; fi
	$(if $(filter 1,$(NETBOX)),NETBOX_URL=$${NETBOX_URL:-http://127.0.0.1:8765}) \
	DATABASE_URL=$${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/designer_test} \
	CELERY_BROKER_URL=$${CELERY_BROKER_URL:-redis://127.0.0.1:6379/14} \
	CELERY_RESULT_BACKEND=$${CELERY_RESULT_BACKEND:-redis://127.0.0.1:6379/15} \
	$(PY) -m pytest; rc=$$?; if [ "$(NETBOX)" = 1 ]; then bash .ci/netbox-up --stop; fi; exit $$rc

# The NetBox round trip alone (netbox==4.7.3 from PyPI, Python 3.12; .ci/netbox-up installs, migrates and serves
# it): the seed design's import set through its CSV bulk import, read back over its REST API, with each step's
# time printed (-rP). ~23 min on 2 vCPUs from a clean clone (install 63 s, migrate 335 s, test 925 s), ~16 min
# once var/ holds the venv and the migrated template database.
test-netbox: $(STAMP)
	bash .ci/services-up
	bash .ci/netbox-up
	NETBOX_URL=$${NETBOX_URL:-http://127.0.0.1:8765} \
	DATABASE_URL=$${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/designer_test} \
	CELERY_BROKER_URL=$${CELERY_BROKER_URL:-redis://127.0.0.1:6379/14} \
	CELERY_RESULT_BACKEND=$${CELERY_RESULT_BACKEND:-redis://127.0.0.1:6379/15} \
	$(PY) -m pytest -rP tests/bom/test_netbox_roundtrip.py

bench: $(STAMP)
	$(PY) benchmarks/run.py
	DEBUG=1 $(PY) benchmarks/bom.py
	DEBUG=1 $(PY) benchmarks/exports.py
	$(PY) benchmarks/collectives.py
	$(PY) benchmarks/simulator.py
	$(PY) benchmarks/live.py
	$(PY) benchmarks/bounds.py
	$(PY) benchmarks/blast_radius.py
	$(PY) benchmarks/bench_search.py
	$(PY) -m pip install --quiet "locust>=2.20"
	$(PY) benchmarks/load.py

bench-instructions: $(STAMP)  # a cold 100k live evaluate's instructions under callgrind (needs valgrind; ≈ 4 min)
	$(PY) benchmarks/live_instructions.py

# Mutation testing of the pure calculation packages (not part of CI): var/mutation/report.md (.ci/mutation.py).
# `make mutation MODULES="topology/clos.py power/tco.py"` runs some modules only.
mutation: $(STAMP)
	$(PY) .ci/mutation.py $(MODULES)

lint: $(STAMP)
	$(PY) -m ruff check .

format: $(STAMP)
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

clean:
	rm -rf var .pytest_cache .ruff_cache
