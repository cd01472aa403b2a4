"""What the benchmark scripts share: the best time per call and the host's CPU name.

The scripts run as `python bench/<name>.py`, so this folder is on sys.path and they
import it as `_common`.
"""
import json
import platform
import subprocess
import sys
import timeit

__all__ = ["best_seconds", "cpu_model", "child_json"]


def best_seconds(fn, number, repeat=5, warmups=1):
    """Best per-call time in seconds over `repeat` rounds of `number` calls, after
    `warmups` calls (plans built, kernels compiled, Numba's cache loaded)."""
    for _ in range(warmups):
        fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def cpu_model():
    """The CPU's model name (for the tables' headers), or what `platform` knows."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def child_json(code, args=(), env=None, timeout=1200):
    """What `python -c code *args` printed as JSON on its last line, or None where it
    could not run, failed or timed out (a library it needs is missing, say)."""
    try:
        out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                             text=True, env=env, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0 or not out.stdout.strip():
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])
