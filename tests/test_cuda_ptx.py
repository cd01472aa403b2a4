"""Every CUDA kernel compiles to PTX for sm_80 (A100-class), without a GPU or driver.

Numba's CUDA simulator runs the kernels as Python, so it never types them: an int
where Numba needs a float, a NumPy call Numba-CUDA lacks, a shared array of a dynamic
size pass there and fail on a real GPU. Compiling each kernel with the exact argument
types its wrapper launches it with (tfteach/kernels/cuda/signatures.py) catches them.

This needs NVIDIA's NVVM library, which the `numba-cuda[cu12]` extra installs from PyPI
(`nvidia-cuda-nvcc-cu12` ships libnvvm, `nvidia-cuda-nvrtc-cu12` libnvrtc); `make test`
installs it. It runs in a subprocess because the test process has the simulator on.
"""
import json
import os
import subprocess
import sys

import pytest

import tfteach

pytest.importorskip("numba_cuda", reason="numba-cuda is not installed")

SCRIPT = r"""
import importlib, json, pkgutil, sys, types
from numba import cuda
import numba.cuda.dispatcher as dispatcher
result = {"failures": [], "compiled": 0, "unlisted": [], "missing": None}
if getattr(cuda, "implementation", "") != "NVIDIA":
    result["missing"] = "numba.cuda is not numba-cuda (NVIDIA's package)"
    print(json.dumps(result)); sys.exit(0)
# A kernel that calls a device function makes Numba ask the *driver* for the current
# GPU's compute capability; there is no driver here, so answer for the target, sm_80.
dispatcher.get_current_device = lambda: types.SimpleNamespace(compute_capability=(8, 0))
import tfteach.kernels.cuda as package
from tfteach.kernels.cuda.signatures import kernel_signatures
signatures = kernel_signatures()
listed = {kernel for _, kernel, _ in signatures}
for info in pkgutil.iter_modules(package.__path__):
    module = importlib.import_module("tfteach.kernels.cuda." + info.name)
    for name, obj in vars(module).items():
        if (isinstance(obj, dispatcher.CUDADispatcher) and obj.__module__ == module.__name__
                and not obj.targetoptions.get("device") and obj not in listed):
            result["unlisted"].append(module.__name__ + "." + name)
for name, kernel, sig in signatures:
    try:
        ptx, _ = cuda.compile_ptx(kernel.py_func, sig, cc=(8, 0))
        assert ".target sm_80" in ptx and ".entry" in ptx
        result["compiled"] += 1
    except Exception as e:
        text = "%s: %s" % (type(e).__name__, e)
        if "NotFound" in type(e).__name__ or "cannot be found" in text:
            result["missing"] = text[:500]
            break
        result["failures"].append("%s%s -> %s" % (name, [str(t) for t in sig], text[:800]))
result["total"] = len(signatures)
maps = open("/proc/self/maps").read() if sys.platform.startswith("linux") else ""
result["libnvvm"] = sorted({l.split()[-1] for l in maps.splitlines() if "libnvvm" in l})
print(json.dumps(result))
"""


def test_every_cuda_kernel_compiles_to_ptx_for_sm_80():
    root = os.path.dirname(os.path.dirname(os.path.abspath(tfteach.__file__)))
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0",
               PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH"))
                                          if p))
    proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    if result["missing"]:
        pytest.skip("cannot compile CUDA kernels here: %s (install numba-cuda[cu12], which "
                    "brings NVVM from PyPI)" % result["missing"])
    assert result["unlisted"] == [], "kernels missing from kernels/cuda/signatures.py"
    assert result["failures"] == []
    assert result["compiled"] == result["total"] > 40
