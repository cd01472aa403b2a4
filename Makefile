# Two commands do all the set-up: `make test` and `make lab` (see README.md).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
export TFTEACH_DATA ?= $(abspath ../shared/data)

.PHONY: install test lab bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test,reference]"
	$(PY) -m pip install -q --no-deps "tf-keras==2.21.*"
	touch $@

install: $(VENV)/.installed

test: install
	$(PY) -m pytest -q -p no:cacheprovider

lab: install
	$(PY) -m pip install -q -e ".[lab]"
	$(VENV)/bin/jupyter lab --notebook-dir=lessons $(if $(filter 0,$(shell id -u)),--allow-root)

bench: install
	$(PY) bench/session_overhead.py
	$(PY) bench/train_steps.py
	$(PY) bench/nn_steps.py

clean:
	rm -rf $(VENV) build dist *.egg-info
	find . -name __pycache__ -prune -exec rm -rf {} +
