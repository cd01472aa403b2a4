# Two commands do all the set-up: `make test` and `make lab` (see README.md).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
export TFTEACH_DATA ?= $(abspath ../shared/data)

.PHONY: install graphviz chromium kernel labextension test dist-check lab bench clean

# The venv first holds JupyterLab alone: building the lab extension needs it (its
# jupyter-builder, and its static/package.json for the shared versions).
$(VENV)/.lab-python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q "jupyterlab>=4.6,<5"
	touch $@

# The JupyterLab extension (labextension/, docs/labextension.md), built with Node into
# tfteach/labextension (git-ignored); wheels ship it prebuilt, so users need no Node.
# `npm ci` installs exactly the committed lockfile and never rewrites it, so a clean
# checkout stays clean. The lockfile lists every platform's optional binaries (rollup's),
# as npm 11 requires; after changing package.json, refresh it with
# `npm install --package-lock-only` and commit it.
LABEXT := tfteach/labextension/static/style.js
LABEXT_SRC := $(wildcard labextension/src/*.ts labextension/style/*) labextension/package.json \
	labextension/tsconfig.json labextension/scripts/build.js
labextension/node_modules/.package-lock.json: labextension/package-lock.json labextension/package.json
	cd labextension && npm ci --no-audit --no-fund
	touch $@

$(LABEXT): labextension/node_modules/.package-lock.json $(LABEXT_SRC) $(VENV)/.lab-python
	cd labextension && JUPYTERLAB_PYTHON=$(abspath $(PY)) npm run build:prod
	touch $@

labextension: $(LABEXT)

# pip copies the built extension into the venv's share/jupyter/labextensions/tfteach
# (the wheel's shared-data; editable installs copy it too), so the venv is reinstalled
# whenever the build changes. The install's build hook finds it built and skips npm.
$(VENV)/.installed: pyproject.toml $(LABEXT)
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

# Debian's chromium for the lab extension's browser test (Playwright drives it; no
# browser is ever downloaded). As root it is installed; otherwise the test skips, and
# this says what to install.
chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null || \
	    { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null; }; \
	  else echo "chromium is missing: install Debian's chromium package for the lab extension's browser test"; fi; }

install: $(VENV)/.installed graphviz

# The "Python 3 (tfteach)" kernel (docs/kernel.md): the extension preloaded, a virtual
# GPU when there is no real one. Installed into the venv, so nothing outside it changes.
kernel: install
	$(PY) -m tfteach.kernel install --sys-prefix

# Two worker processes (pytest-xdist), each test file whole on one of them: CI's host
# has two cores, and the suite is mostly one-threaded Python (half the time of one
# process). `TEST_WORKERS=0 make test` runs it in one process.
TEST_WORKERS ?= 2
test: install kernel chromium
	$(PY) -m pytest -q -p no:cacheprovider --durations=15 \
	  $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadfile)

# The wheel and sdist as users get them (scripts/check_dist.sh): built from a clean copy
# with `python -m build`, the wheel installed into a fresh venv without Node, the lab
# extension listed as enabled, lesson 01 run on the installed kernel.
dist-check:
	PYTHON=$(PYTHON) scripts/check_dist.sh

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
	$(PY) bench/threads.py
	$(PY) bench/eager.py
	$(PY) bench/malloc_settings.py
	$(PY) bench/compiled_lstm.py
	$(PY) bench/random_draws.py

clean:
	rm -rf $(VENV) build dist *.egg-info labextension/node_modules labextension/lib \
	  tfteach/labextension test-artifacts
	find . -name __pycache__ -prune -exec rm -rf {} +
