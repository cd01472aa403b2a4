#!/usr/bin/env bash
# Prepares .whl/ for scripts/gpu_check.sh on an offline GPU machine (docs/cuda_kernels.md):
# tfteach's own wheel, built from this checkout, and the wheels of what the check needs
# beyond a CUDA image's Python (numba, numba-cuda, pytest, nvidia-ml-py, tensorboard and
# protobuf are expected there): the Jupyter kernel and notebook runner, google-crc32c,
# and a NumPy older than 2.5 (numba-cuda 0.30 still registers np.row_stack, which NumPy
# 2.5 removed: its import fails there); and MNIST in .gpu-data/ for the lessons. Run it
# here, with network.
#   scripts/gpu_wheels.sh [PYTHON_VERSION]     (default 3.12, the GPU machine's)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
VERSION=${1:-3.12}
rm -rf .whl && mkdir -p .whl
$PY -m pip wheel -q --no-deps -w .whl .
$PY -m pip download -q --only-binary=:all: --python-version "$VERSION" --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
  --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  --platform manylinux1_x86_64 -d .whl \
  ipykernel nbclient nbformat jupyter_client ipywidgets graphviz google-crc32c "numpy>=2,<2.5"
# already in CUDA images (KINDS: the 'cuda' image); two versions of one package would
# stop the install there
rm -f .whl/attrs-* .whl/packaging-* .whl/psutil-* .whl/pygments-* .whl/python_dateutil-* \
  .whl/typing_extensions-* .whl/tzdata-* .whl/six-*
# MNIST for the lessons (scripts/gpu_check.sh --lessons): the GPU machine gets only the
# checkout, so the data travels in the ignored .gpu-data/ beside it
if [ -d "${TFTEACH_DATA:-../shared/data}/mnist" ]; then
  rm -rf .gpu-data && mkdir -p .gpu-data && cp -r "${TFTEACH_DATA:-../shared/data}/mnist" .gpu-data/
  chmod -R u+w .gpu-data
fi
du -sh .whl .gpu-data 2>/dev/null
