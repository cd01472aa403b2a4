"""What the benchmark scripts share: the best time per call and the host's CPU name.

The scripts run as `python bench/<name>.py`, so this folder is on sys.path and they
import it as `_common`.
"""
import platform
import timeit

__all__ = ["best_seconds", "cpu_model"]


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
