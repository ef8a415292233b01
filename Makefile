# ModularRSI — two set-up commands: `make demo` (the main job, offline) and `make test`.
SHELL := /bin/bash
VENV  := .venv
PY    := $(VENV)/bin/python
export HARBOR_TELEMETRY := 0
export LITELLM_LOCAL_MODEL_COST_MAP := True
export HF_HUB_OFFLINE := 1

.PHONY: demo test lint bench system-deps check-setup clean

$(VENV)/.installed: pyproject.toml requirements.lock
	@scripts/system-deps.sh
	@py=$$(scripts/find-python.sh) && test -x $(PY) || $$py -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -c requirements.lock -e '.[dev]' 2>&1 | grep -v "is ignored" || true
	$(PY) -c "import modularrsi, harbor" && touch $@

system-deps:
	@scripts/system-deps.sh

# one line: what the tests and the container paths need that this machine lacks (CI runs it)
check-setup: $(VENV)/.installed
	@scripts/check-setup.sh

# evolve on tasks/pool (sim) → integrate → merge → freeze → eval on tasks/heldout → HTML report
demo: $(VENV)/.installed
	rm -rf runs/demo
	$(VENV)/bin/modularrsi evolve --config configs/demo.yaml --out runs/demo
	$(VENV)/bin/modularrsi report runs/demo

test: $(VENV)/.installed
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/pytest -q

bench: $(VENV)/.installed
	$(PY) bench/sandbox.py
	cd bench && ../$(PY) harness.py
	cd bench && ../$(PY) throughput.py

clean:
	rm -rf $(VENV) runs .pytest_cache
