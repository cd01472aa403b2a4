"""What the per-cell memory hooks cost (tfteach/notebook/cell_memory.py).

Target: a cell that touches no device pays at most a millisecond. Measured in one
in-process IPython shell with one virtual GPU and one open session holding memory (the
usual state of a lesson):
  1. the two hooks alone (pre_run_cell + post_run_cell) around a cell that touches no
     device;
  2. `shell.run_cell("y = 1")` with the extension loaded minus without it;
  3. for information, the end of a cell that touched the GPU: with every session
     named (only the release), and after dropping a session (gc.collect, the history
     check, the release) — only such cells pay these.

    python bench/cell_memory_overhead.py [--quick]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import best_seconds  # noqa: E402


def best_us(fn, number, repeat):
    return best_seconds(fn, number, repeat) * 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    number, repeat = (200, 3) if args.quick else (2000, 7)

    from IPython.core.interactiveshell import InteractiveShell
    import numpy as np
    import tfteach as tf
    from tfteach.notebook import cell_memory

    tf.config.set_virtual_gpus(1)
    shell = InteractiveShell.instance()
    shell.user_ns.update(tf=tf, np=np)
    shell.run_cell("x = tf.placeholder(tf.float32, [1 << 20])\nv = tf.Variable(x)\n"
                   "sess = tf.Session()\n"
                   "sess.run(v.initializer, {x: np.ones(1 << 20, np.float32)})",
                   store_history=True)

    without = best_us(lambda: shell.run_cell("y = 1", store_history=True), number // 4,
                      repeat)
    shell.run_line_magic("load_ext", "tfteach")
    monitor = cell_memory.current_monitor()
    monitor._show = lambda obj: None

    def hooks():
        monitor.pre_run_cell()
        monitor.post_run_cell()
    hooks_us = best_us(hooks, number, repeat)
    with_ext = best_us(lambda: shell.run_cell("y = 1", store_history=True), number // 4,
                       repeat)

    sess = shell.user_ns["sess"]
    v, x = shell.user_ns["v"], shell.user_ns["x"]
    ones = np.ones(1 << 20, np.float32)

    def end_of_cell(cell_body, rounds):
        """Best time of post_run_cell alone after a cell that ran `cell_body`."""
        best = float("inf")
        for _ in range(rounds):
            monitor.pre_run_cell()
            cell_body()
            start = time.perf_counter()
            monitor.post_run_cell()
            best = min(best, time.perf_counter() - start)
        return best * 1e6

    def dropped():
        s = tf.Session()
        s.run(v.initializer, {x: ones})   # ran: in a reference cycle, only gc frees it
    touched_us = end_of_cell(lambda: sess.run(v.initializer, {x: ones}), 20)
    dropped_us = end_of_cell(dropped, 10)

    print("cell that touches no device (1 virtual GPU, 1 open session):")
    print("  pre_run_cell + post_run_cell hooks: %8.1f us" % hooks_us)
    print("  run_cell('y = 1') without the extension: %8.1f us" % without)
    print("  run_cell('y = 1') with the extension:    %8.1f us  (+%.1f us)"
          % (with_ext, with_ext - without))
    print("cell that ran the named session 'sess' (release only):")
    print("  end-of-cell work: %8.1f us" % touched_us)
    print("cell that dropped a session (gc.collect + history check + release):")
    print("  end-of-cell work: %8.1f us" % dropped_us)
    print("target: < 1000 us for a cell that touches no device: %s"
          % ("met" if hooks_us < 1000 else "NOT met"))


if __name__ == "__main__":
    main()
