"""Per-run overhead of Session.run, next to NumPy and TensorFlow doing the same work.

Prints, for each workload, microseconds per run for tfteach, NumPy and (when
`tensorflow` is importable) TensorFlow 1.x graph mode via tf.compat.v1, plus ratios —
all measured in this one process run. Also the cost of `import tfteach` (warm Numba
cache) and its resident memory, next to `import tensorflow`, in fresh subprocesses.

    python bench/session_overhead.py [--quick]
"""
import argparse
import os
import subprocess
import sys
import timeit

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def best_us(fn, number, repeat=5):
    """Best per-call time in microseconds over `repeat` rounds of `number` calls."""
    fn()  # warm up: plans built, kernels compiled
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


# -- the workloads, each built by a function taking the tf module ---------------------------
def scalar_add(tf):
    a, b = tf.constant(1.0), tf.constant(2.0)
    return a + b, None


def scalar_add_fed(tf):
    x = tf.placeholder(tf.float32, [])
    return x + 2.0, {x: 1.0}


def chain_50(tf):
    # Fed, not a constant: a chain of pure ops on constants is folded once per plan (as
    # Grappler would), and the row would then time nothing but the fetch.
    v = tf.placeholder(tf.float32, [100])
    y = v
    for i in range(50):
        y = y * 1.0001 + 0.5 if i % 2 else y - 0.25
    return y, {v: np.linspace(0, 1, 100, dtype=np.float32)}


def linreg_forward(tf):
    rng = np.random.RandomState(0)
    xs = rng.rand(100).astype(np.float32)
    ys = (3 * xs + 2).astype(np.float32)
    x = tf.placeholder(tf.float32, [100])
    y = tf.placeholder(tf.float32, [100])
    w = tf.Variable(tf.constant([0.5]))
    b = tf.Variable(tf.zeros([1]))
    loss = tf.reduce_mean(tf.square(w * x + b - y))
    return loss, {x: xs, y: ys}


def numpy_equivalents():
    one, two = np.float32(1.0), np.float32(2.0)
    v0 = np.linspace(0, 1, 100, dtype=np.float32)
    rng = np.random.RandomState(0)
    xs = rng.rand(100).astype(np.float32)
    ys = (3 * xs + 2).astype(np.float32)
    w, b = np.array([0.5], np.float32), np.zeros(1, np.float32)

    def chain():
        y = v0
        for i in range(50):
            y = y * np.float32(1.0001) + np.float32(0.5) if i % 2 else y - np.float32(0.25)
        return y

    return {
        "scalar_add": lambda: one + two,
        "scalar_add_fed": lambda: np.asarray(1.0, np.float32) + two,
        "chain_50": chain,
        "linreg_forward": lambda: np.mean(np.square(w * xs + b - ys)),
    }


WORKLOADS = [("scalar_add", scalar_add, 20000), ("scalar_add_fed", scalar_add_fed, 20000),
             ("chain_50", chain_50, 2000), ("linreg_forward", linreg_forward, 5000)]


def time_graph(tf, build, number):
    graph = tf.Graph()
    with graph.as_default():
        fetch, feed = build(tf)
        sess = tf.Session(graph=graph)
        sess.run(tf.global_variables_initializer())
        if feed is None:
            us = best_us(lambda: sess.run(fetch), number)
        else:
            us = best_us(lambda: sess.run(fetch, feed_dict=feed), number)
        sess.close()
    return us


def import_cost(module):
    """Seconds and max RSS (MiB) of `import module` in a fresh interpreter."""
    # VmHWM (peak RSS of this process image); ru_maxrss would include the forking parent.
    code = ("import time; t = time.perf_counter(); import %s; "
            "dt = time.perf_counter() - t; "
            "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0]; "
            "print(dt, int(hwm.split()[1]) / 1024)" % module)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    runs = []
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=env, cwd=os.path.dirname(os.path.dirname(
                                 os.path.abspath(__file__))))
        if out.returncode != 0:
            return None
        seconds, rss = out.stdout.split()[-2:]
        runs.append((float(seconds), float(rss)))
    return min(r[0] for r in runs), min(r[1] for r in runs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer iterations")
    args = parser.parse_args()
    scale = 10 if args.quick else 1

    import tfteach
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow
        tensorflow.compat.v1.disable_eager_execution()
        tf1 = tensorflow.compat.v1
    except ImportError:
        tf1 = None
    numpy_fns = numpy_equivalents()

    print("Session.run overhead, microseconds per run (best of 5)")
    header = "%-16s %10s %10s %10s %12s %12s" % (
        "workload", "tfteach", "numpy", "tensorflow", "tfteach/np", "tfteach/tf")
    print(header)
    print("-" * len(header))
    for name, build, number in WORKLOADS:
        number = max(1, number // scale)
        ours = time_graph(tfteach, build, number)
        np_us = best_us(numpy_fns[name], number)
        tf_us = time_graph(tf1, build, max(1, number // 10)) if tf1 is not None else None
        print("%-16s %10.1f %10.2f %10s %12.1f %12s" % (
            name, ours, np_us, "-" if tf_us is None else "%.1f" % tf_us, ours / np_us,
            "-" if tf_us is None else "%.3f" % (ours / tf_us)))

    print()
    print("import cost in a fresh process (best of 3; warm Numba cache)")
    for module in ("tfteach", "tensorflow"):
        cost = import_cost(module)
        if cost is None:
            print("%-12s not importable" % module)
        else:
            print("%-12s %.3f s  %6.0f MiB max RSS" % (module, cost[0], cost[1]))


if __name__ == "__main__":
    main()
