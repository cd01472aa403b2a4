#!/usr/bin/env bash
# CI's packaging check (`make dist-check`, .ci/run; docs/install.md):
#  1. `python -m build` (sdist, then the wheel from the sdist) from a clean copy of this
#     checkout (tracked and untracked files, no node_modules, no built extension), in
#     pip's isolated build environments, as a user installing from source would;
#  2. the wheel installed into a fresh venv whose PATH has no Node;
#  3. `jupyter labextension list` there shows tfteach enabled;
#  4. the tfteach kernel installed there, and lesson 01 executed on it.
# Needs Node and npm for step 1, PyPI and npm's registry; prints how long each step took.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BASE_PYTHON=${PYTHON:-python3}
WORK=$(mktemp -d)
# kept when a step fails, for a look
trap 'rc=$?; if [ $rc = 0 ]; then rm -rf "$WORK"; else echo "failed ($rc); see $WORK"; fi' EXIT
step() { echo "== $(date +%T) $*"; }

step "clean copy of the checkout"
mkdir "$WORK/src"
git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$WORK/src"

step "python -m build (sdist + wheel from it)"
"$BASE_PYTHON" -m venv "$WORK/tools"
"$WORK/tools/bin/python" -m pip install -q build
"$WORK/tools/bin/python" -m build --outdir "$WORK/dist" "$WORK/src" > "$WORK/build.log" 2>&1 ||
  { tail -40 "$WORK/build.log"; exit 1; }
ls -l "$WORK/dist"
tar -tzf "$WORK"/dist/tfteach-*.tar.gz > "$WORK/sdist.txt"    # (grep -q in a pipe: SIGPIPE)
grep -q 'tfteach/labextension/static/style.js' "$WORK/sdist.txt" ||
  { echo "the sdist lacks the built lab extension"; exit 1; }
cmp -s "$WORK/src/labextension/package-lock.json" labextension/package-lock.json ||
  { echo "npm changed labextension/package-lock.json"; exit 1; }

step "the wheel into a fresh venv without Node"
"$BASE_PYTHON" -m venv "$WORK/venv"
NO_NODE="$WORK/venv/bin"                 # the venv only: no node, npm
if env PATH="$NO_NODE" /bin/sh -c 'command -v node || command -v npm'; then
  echo "node is still reachable"; exit 1
fi
WHEEL=$(ls "$WORK"/dist/tfteach-*.whl)
env PATH="$NO_NODE" "$WORK/venv/bin/python" -m pip install -q "$WHEEL[lab]" nbclient nbformat
env PATH="$NO_NODE" "$WORK/venv/bin/python" -m pip check

step "jupyter labextension list"
env PATH="$NO_NODE" "$WORK/venv/bin/jupyter" labextension list 2>&1 | tee "$WORK/ext.txt"
sed 's/\x1b\[[0-9;]*m//g' "$WORK/ext.txt" | grep -Eq '^\s*tfteach v[0-9.]+ enabled OK' ||
  { echo "tfteach is not listed as enabled"; exit 1; }

step "the tfteach kernel and lesson 01 on it"
env PATH="$NO_NODE" "$WORK/venv/bin/python" -m tfteach.kernel install --sys-prefix
cd "$WORK"            # so the kernel imports the installed tfteach, not this checkout's
env -u PYTHONPATH PATH="$NO_NODE" "$WORK/venv/bin/python" "$ROOT/scripts/run_lesson.py" \
  "$ROOT/lessons/01_graphs_and_sessions.ipynb"
step "done"
