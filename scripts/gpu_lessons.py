"""Every lesson executed on the tfteach kernel on a real GPU, several at once, as a class
sharing one card would (docs/classroom.md, "What changes with a real GPU node").

    python scripts/gpu_lessons.py [--workers 6] [--lesson-limit 150] [--deadline 300]
                                  [--json OUT.json] [LESSON.ipynb ...]

Each lesson runs in its own `scripts/run_lesson.py` process (its own kernel, its own
CUDA context), with its exercises solved, and passes when no cell failed and every
check said "right!", as in tests/test_lessons.py. The longest lessons (by their CPU
time in docs/classroom.md's order: the RNN and training lessons) start first. A lesson
still running after --lesson-limit seconds is stopped with its kernel and reported as
such; no lesson starts after --deadline seconds, so the run ends in time for a lease.

Run it with TFTEACH_CUDA_RESERVE=0, the setting docs/classroom.md gives a shared card:
with the default reservation the first kernel in a cell takes the card minus 5% and the
others find it full. Needs the installed tfteach kernel (scripts/gpu_check.sh installs
it) and TFTEACH_DATA for the MNIST lessons.
"""
import argparse
import glob
import json
import os
import signal
import subprocess
import sys
import threading
import time

from gpu_notebook_check import NvmlProbe

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Started first: the lessons that train (longest on the CPU, docs/classroom.md), RNNs first.
LONG_FIRST = ("18_", "19_", "36_", "35_", "34_", "13_", "15_", "37_", "24_", "12_", "28_")


def order(lessons):
    def rank(path):
        name = os.path.basename(path)
        for k, prefix in enumerate(LONG_FIRST):
            if name.startswith(prefix):
                return (0, k, name)
        return (1, 0, name)
    return sorted(lessons, key=rank)


def run_one(path, limit):
    """(status, seconds, output lines) of one lesson in its own process group."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, os.path.join(ROOT, "scripts", "run_lesson.py"), "--timeout",
         str(limit), path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)            # its kernel joins the group: stopped together
    try:
        out, _ = proc.communicate(timeout=limit)
        status = "ok" if proc.returncode == 0 else "FAILED"
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        status = "stopped after %d s" % limit
    lines = [line for line in out.splitlines() if line.startswith("  ")]
    return status, time.perf_counter() - start, lines


def card_used_mib():
    probe = NvmlProbe()             # gpu_notebook_check's NVML reader
    if probe.nvml is None:          # no NVML: the figure is only left out
        return "no NVML: %s" % probe.error
    return probe.read(None)["card_used"]


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("lessons", nargs="*")
    parser.add_argument("--workers", type=int, default=6)
    parser.add_argument("--lesson-limit", type=int, default=150)
    parser.add_argument("--deadline", type=float, default=300)
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    lessons = order(args.lessons or glob.glob(os.path.join(ROOT, "lessons", "[0-9]*.ipynb")))
    began = time.perf_counter()
    pending, results, lock = list(lessons), {}, threading.Lock()

    def worker():
        while True:
            with lock:
                if not pending or time.perf_counter() - began > args.deadline:
                    return
                path = pending.pop(0)
            results[path] = run_one(path, args.lesson_limit)
            status, seconds, _ = results[path]
            print("%-40s %s in %.1f s" % (os.path.basename(path), status, seconds), flush=True)

    threads = [threading.Thread(target=worker) for _ in range(args.workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("\nlesson                                   result                 seconds")
    for path in sorted(lessons):
        status, seconds, lines = results.get(path, ("not started (deadline)", 0.0, []))
        print("%-40s %-22s %7.1f" % (os.path.basename(path), status, seconds))
        for line in lines:
            print("    " + line.strip()[:300])
    passed = sum(1 for r in results.values() if r[0] == "ok")
    print("%d of %d lessons passed, %d run, %.0f s with %d workers; card memory used after: %s"
          % (passed, len(lessons), len(results), time.perf_counter() - began, args.workers,
             card_used_mib()))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({os.path.basename(p): {"status": s, "seconds": round(t, 1),
                                             "problems": ls}
                       for p, (s, t, ls) in results.items()}, f, indent=1)
    return 0 if passed == len(lessons) else 1


if __name__ == "__main__":
    sys.exit(main())
