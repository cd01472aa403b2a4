# Two commands do all the set-up: `make test` and `make lab` (see README.md).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
export TFTEACH_DATA ?= $(abspath ../shared/data)

.PHONY: install graphviz kernel test lab bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test,reference]"
	$(PY) -m pip install -q --no-deps "tf-keras==2.21.*"
	touch $@

# Graphviz's `dot` draws the %%tfgraph SVG; as root we can install it (Debian/Ubuntu),
# otherwise say what to install (the SVG tests then skip with that reason).
graphviz:
	@command -v dot >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -q graphviz >/dev/null || \
	    { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q graphviz >/dev/null; }; \
	  else echo "Graphviz's dot is missing: install the graphviz package for the SVG views"; fi; }

install: $(VENV)/.installed graphviz

# The "Python 3 (tfteach)" kernel (docs/kernel.md): the extension preloaded, a virtual
# GPU when there is no real one. Installed into the venv, so nothing outside it changes.
kernel: install
	$(PY) -m tfteach.kernel install --sys-prefix

test: install kernel
	$(PY) -m pytest -q -p no:cacheprovider

lab: install
	$(PY) -m pip install -q -e ".[lab]"
	$(PY) -m tfteach.kernel install --sys-prefix
	$(VENV)/bin/jupyter lab --notebook-dir=lessons \
	  --MappingKernelManager.default_kernel_name=tfteach \
	  $(if $(filter 0,$(shell id -u)),--allow-root)

bench: install
	$(PY) bench/session_overhead.py
	$(PY) bench/train_steps.py
	$(PY) bench/nn_steps.py
	$(PY) bench/cell_memory_overhead.py

clean:
	rm -rf $(VENV) build dist *.egg-info
	find . -name __pycache__ -prune -exec rm -rf {} +
