"""The teaching kernel: "Python 3 (tfteach)" (docs/kernel.md).

An ordinary IPython kernel (ipykernel) whose kernelspec
- preloads the extension: its argv ends with `--ext=tfteach` (IPython's
  `InteractiveShellApp.extra_extensions`), so `%load_ext tfteach` has already run in
  every kernel started — and restarted, since a restart reuses the argv;
- gives the kernel virtual GPUs when it has no real one: kernel.json's env sets
  `TFTEACH_VIRTUAL_GPUS_IF_NO_GPU` (runtime/devices.py), read when the devices are first
  listed, so a machine with a CUDA card keeps its card and a laptop gets a virtual GPU;
- keeps freed memory in the process for the next allocation (MALLOC_ENV below): glibc's
  defaults hand large freed blocks back to the system and fault the pages in again at
  the next step, ~34,000 page faults a step of the notes' eager char-RNN.

    python -m tfteach.kernel install [--user | --sys-prefix | --prefix P] [--virtual-gpus N]
                                     [--keep-malloc-defaults]
    python -m tfteach.kernel uninstall [--user | --sys-prefix | --prefix P]
"""
import os
import shutil
import sys
import tempfile

from tfteach.install_hints import require

__all__ = ["KERNEL_NAME", "DISPLAY_NAME", "MALLOC_ENV", "kernel_dict", "install", "uninstall"]

KERNEL_NAME = "tfteach"
DISPLAY_NAME = "Python 3 (tfteach)"
ENV_FALLBACK = "TFTEACH_VIRTUAL_GPUS_IF_NO_GPU"
# glibc's malloc, set through its environment (other C libraries ignore it). By default
# a block over a threshold that adapts up to 32 MiB is mapped fresh from the system and
# unmapped when freed, and freed memory at the top of the heap is handed back beyond
# twice that threshold: a training step that frees tens of MiB (an eager step's tape,
# 40 time steps of an LSTM's gradients) gets its memory back as new pages, each faulted
# in (zeroed by the kernel) at the next step. Fixed thresholds keep blocks under 32 MiB
# in the heap and up to 128 MiB of freed heap in the process. Measured (2026-11-28, a
# 2-core AMD EPYC VM; bench/malloc_settings.py): the notes' eager char-RNN step went
# from ~33,700 page faults and 144-151 ms to none and 89-104 ms (TensorFlow's: 137-143
# ms either way); graph-mode steps, which fault little, did not change. The cost: up to
# 128 MiB of freed memory stays with the kernel (that step's peak, 313 MiB, stayed its
# RSS instead of falling to 230).
MALLOC_ENV = {"MALLOC_MMAP_THRESHOLD_": str(32 << 20),
              "MALLOC_TRIM_THRESHOLD_": str(128 << 20)}


def kernel_dict(virtual_gpus=1, executable=None, malloc_settings=True):
    """The kernel.json contents. `malloc_settings`: the env carries MALLOC_ENV."""
    make_ipkernel_cmd = require("ipykernel.kernelspec", "The tfteach kernel").make_ipkernel_cmd
    spec = {"argv": make_ipkernel_cmd(executable=executable or sys.executable,
                                      extra_arguments=["--ext=%s" % KERNEL_NAME]),
            "display_name": DISPLAY_NAME,
            "language": "python",
            "metadata": {"debugger": True},
            "env": {}}
    if virtual_gpus:
        spec["env"][ENV_FALLBACK] = str(int(virtual_gpus))
    if malloc_settings:
        spec["env"].update(MALLOC_ENV)
    return spec


def _where(user=False, sys_prefix=False, prefix=None):
    if sys_prefix:
        prefix = sys.prefix
    return dict(user=bool(user), prefix=prefix)


def install(user=False, sys_prefix=False, prefix=None, virtual_gpus=1, malloc_settings=True):
    """Writes the kernelspec and installs it; returns the directory it went to. With
    no location given: the environment's prefix inside a virtual environment, else the
    user's Jupyter folder (never system-wide without asking)."""
    import json

    RESOURCES = require("ipykernel.kernelspec", "The tfteach kernel").RESOURCES
    KernelSpecManager = require("jupyter_client.kernelspec",
                                "The tfteach kernel").KernelSpecManager
    if not (user or sys_prefix or prefix):
        in_venv = sys.prefix != getattr(sys, "base_prefix", sys.prefix)
        sys_prefix, user = in_venv, not in_venv
    staging = tempfile.mkdtemp(suffix="_tfteach_kernel")
    try:
        path = os.path.join(staging, KERNEL_NAME)
        shutil.copytree(RESOURCES, path)          # ipykernel's logos
        with open(os.path.join(path, "kernel.json"), "w") as f:
            json.dump(kernel_dict(virtual_gpus, malloc_settings=malloc_settings), f,
                      indent=1)
        return KernelSpecManager().install_kernel_spec(
            path, KERNEL_NAME, **_where(user, sys_prefix, prefix))
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def uninstall(user=False, sys_prefix=False, prefix=None):
    """Removes the kernelspec; from the location given, else from wherever Jupyter
    finds it. Returns the directories removed."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_core.paths import jupyter_data_dir
    if user:
        dirs = [os.path.join(jupyter_data_dir(), "kernels", KERNEL_NAME)]
    elif sys_prefix or prefix:
        base = sys.prefix if sys_prefix else prefix
        dirs = [os.path.join(base, "share", "jupyter", "kernels", KERNEL_NAME)]
    else:
        found = KernelSpecManager().find_kernel_specs().get(KERNEL_NAME)
        dirs = [found] if found else []
    removed = []
    for d in dirs:
        if os.path.isdir(d):
            shutil.rmtree(d)
            removed.append(d)
    return removed
