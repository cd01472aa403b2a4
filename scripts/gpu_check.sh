#!/usr/bin/env bash
# What only a real NVIDIA GPU can check (docs/cuda_kernels.md, "On a real GPU"), in one
# run of a few minutes:
#   1. install tfteach (the wheels in .whl/ made by scripts/gpu_wheels.sh when the machine
#      is offline, else `pip install .[cuda,lab]`) and its Jupyter kernel;
#   2. the `gpu` tests at full size (tests/test_cuda_gpu.py: kernels against the CPU's,
#      CNN training with four optimizers, the real reservation and its release as the
#      driver sees it), then the simulator's CUDA suites on the card;
#   3. a notebook on the tfteach kernel, NVML read after every cell
#      (scripts/gpu_notebook_check.py);
#   4. bench/nn_steps.py --device gpu.
# `scripts/gpu_check.sh --lessons [ARGS...]` runs, after the install, only the lessons on
# the card, six kernels at once with TFTEACH_CUDA_RESERVE=0 (scripts/gpu_lessons.py, which
# takes ARGS: lesson paths, --workers, ...; MNIST from .gpu-data/, which
# scripts/gpu_wheels.sh fills).
# Every phase has its own time limit and the next one runs whatever the last gave; logs
# go to $OUT (default gpu-check-out/). Exit status: the number of failed phases.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-check-out}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1 NUMBA_ENABLE_CUDASIM=0 TFTEACH_CUDA_GPU_CHILD=1
export NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS=0
# libnvvm from the machine's CUDA toolkit when no pip package brings it
[ -d /usr/local/cuda ] && export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
failed=0
phase() {   # phase NAME SECONDS COMMAND...: runs it, logs it, counts a failure
  local name=$1 limit=$2; shift 2
  local start=$SECONDS
  echo; echo "=== $name (limit ${limit}s)"
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  tail -n 40 "$OUT/$name.log"
  echo "=== $name: rc=$rc in $((SECONDS - start))s"
  [ "$rc" = 0 ] || failed=$((failed + 1))
}

echo "=== the machine"
nvidia-smi --query-gpu=name,memory.total,memory.used,driver_version --format=csv 2>&1
$PY - <<'PY' 2>&1
import importlib.metadata as md, sys
print('python', sys.version.split()[0])
for n in ("numpy", "numba", "numba-cuda", "cuda-bindings", "nvidia-ml-py", "pytest"):
    try:
        print("  %s %s" % (n, md.version(n)))
    except md.PackageNotFoundError:
        print("  %s: not installed" % n)
PY
timeout 60 $PY -c "from numba import cuda; cuda.detect()" 2>&1 | tail -n 8

if ls .whl/tfteach-*.whl >/dev/null 2>&1; then        # offline: the prepared wheels
  phase install 120 $PY -m pip install -q --no-index --no-deps --no-compile \
    --target /tmp/tfteach-site .whl/*.whl
else
  phase install 600 $PY -m pip install -q ".[cuda,lab]"
fi
[ -d /tmp/tfteach-site ] && export PYTHONPATH=/tmp/tfteach-site
export JUPYTER_PATH=/tmp/tfteach-jupyter/share/jupyter
phase kernel 60 bash -c "cd /tmp && $PY -c 'import tfteach; print(tfteach.__file__)' && \
  $PY -m tfteach.kernel install --prefix /tmp/tfteach-jupyter"

if [ "${1:-}" = "--lessons" ]; then
  [ -d .gpu-data/mnist ] && export TFTEACH_DATA=${TFTEACH_DATA:-$PWD/.gpu-data}
  shift
  phase lessons 480 env TFTEACH_CUDA_RESERVE=0 $PY scripts/gpu_lessons.py \
    --json "$OUT/lessons.json" "$@"
  echo "=== gpu_check --lessons: $failed phase(s) failed"
  exit "$failed"
fi

phase gpu_tests 240 $PY -m pytest -q -s -p no:cacheprovider -m gpu tests/test_cuda_gpu.py \
  --deselect tests/test_cuda_gpu.py::test_real_gpu_suite
if grep -q " skipped" "$OUT/gpu_tests.log"; then   # a skip here means: no card was used
  echo "=== gpu_tests: some were skipped"; failed=$((failed + 1))
fi
phase simulator_suites_on_the_card 90 $PY -m pytest -q -p no:cacheprovider \
  tests/test_cuda_kernels.py tests/test_cuda_nn.py tests/test_cuda_runtime.py \
  tests/test_cuda_variables.py
phase notebook 120 $PY scripts/gpu_notebook_check.py --json "$OUT/notebook.json"
phase bench 150 $PY bench/nn_steps.py --device gpu --quick

echo; echo "=== after"
nvidia-smi --query-gpu=memory.used --format=csv 2>&1
echo "=== gpu_check: $failed phase(s) failed"
exit "$failed"
