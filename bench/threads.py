"""Training steps from one thread and from two threads on one Session.

Session.run is thread-safe (docs/engine.md, "Threads"): each run in progress keeps its
own kernel state, and nothing is locked while a step computes, so two threads' steps
overlap wherever the kernels release the GIL (BLAS, the Numba loops). This prints, for
the MLP and LeNet training steps of bench/nn_steps.py (same graphs, same batches), the
steps per second of one thread running N steps and of two threads running N/2 each at
once on the same Session, and their ratio, all measured in this one process run.

What bounds the ratio: the process's cores (the ratio cannot pass usable cores / cores
one step already keeps busy: LeNet's convolutions split over two workers by
themselves, kernels/cpu/two_workers.py, and an MLP step runs OpenBLAS's own threads),
and the Python between kernels, which holds the GIL.

    python bench/threads.py [--quick]
"""
import argparse
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from nn_steps import lenet_graph, mlp_graph  # noqa: E402


def _session_step(tf, build):
    graph = tf.Graph()
    with graph.as_default():
        step, feed = build(tf)
        sess = tf.Session(graph=graph)
        sess.run(tf.global_variables_initializer())
    return sess, lambda: sess.run(step, feed_dict=feed)


def _seconds(run_step, steps, threads):
    """Wall time of `steps` steps shared by `threads` threads started together."""
    share = [steps // threads + (1 if k < steps % threads else 0) for k in range(threads)]
    start = threading.Barrier(threads + 1)

    def work(count):
        start.wait()
        for _ in range(count):
            run_step()
    workers = [threading.Thread(target=work, args=(n,)) for n in share]
    for w in workers:
        w.start()
    start.wait()
    t0 = time.perf_counter()
    for w in workers:
        w.join()
    return time.perf_counter() - t0


def measure(tf, build, steps, repeat):
    """(steps/s with one thread, steps/s with two): the best of `repeat` rounds each,
    the rounds alternating so that a noisy neighbour hurts both alike."""
    sess, run_step = _session_step(tf, build)
    for _ in range(3):                  # warm-up: plans, Numba's cache, work arrays
        run_step()
    _seconds(run_step, 4, 2)            # and a second thread's RunState
    best = {1: float("inf"), 2: float("inf")}
    for _ in range(repeat):
        for threads in (1, 2):
            best[threads] = min(best[threads], _seconds(run_step, steps, threads))
    sess.close()
    return steps / best[1], steps / best[2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer steps and rounds")
    args = parser.parse_args()
    import tfteach as tf
    from tfteach.kernels.cpu.cpu_quota import usable_cpus
    rows = [("mlp", mlp_graph, 100 if args.quick else 400),
            ("lenet", lenet_graph, 10 if args.quick else 40)]
    repeat = 2 if args.quick else 3
    print("tfteach training steps on one Session, %.1f usable CPUs" % usable_cpus())
    print("%-7s %14s %14s %10s" % ("step", "1 thread /s", "2 threads /s", "2 vs 1"))
    for name, build, steps in rows:
        one, two = measure(tf, build, steps, repeat)
        print("%-7s %14.1f %14.1f %9.2fx" % (name, one, two, two / one))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
