"""Per-run overhead of Session.run, next to NumPy and TensorFlow doing the same work.

Prints, for each workload, microseconds per run for tfteach, NumPy and (when
`tensorflow` is importable) TensorFlow 1.x graph mode via tf.compat.v1, plus ratios —
all measured in this one process run (issue 20's rows: the fed scalar add, the 50-op
tanh/*/+ chain, the linear-regression training step with [None, 1] placeholders, one
512x512 float32 matmul, also as GFLOP/s). Also the cost of `import tfteach` (warm Numba
cache) and its resident memory, and of the import plus a tiny graph run, next to
TensorFlow's, in fresh subprocesses. Last, the graphs as the course kernel runs them
(its virtual /gpu:0, memory accounted) with the accounted loop compiled and walked, and
on the CPU, alternating in this process. The CPU model is printed first: ratios depend
on it.

    python bench/session_overhead.py [--quick]
"""
import argparse
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import best_seconds, cpu_model  # noqa: E402


def best_us(fn, number, repeat=5):
    """Best per-call time in microseconds over `repeat` rounds of `number` calls."""
    return best_seconds(fn, number, repeat) * 1e6


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


def chain_50_tanh(tf):
    # Issue 20's chain: tanh, * and + in turn, 50 ops on a fed 100-vector.
    v = tf.placeholder(tf.float32, [100])
    y = v
    for i in range(50):
        y = tf.tanh(y) if i % 3 == 0 else (y * 1.0001 if i % 3 == 1 else y + 0.5)
    return y, {v: np.linspace(0, 1, 100, dtype=np.float32)}


def linreg_step(tf):
    # As students write it: [None, 1] placeholders, matmul, reduce_mean(square), SGD.
    xs, ys = _linreg_points()
    x = tf.placeholder(tf.float32, [None, 1])
    y = tf.placeholder(tf.float32, [None, 1])
    w = tf.Variable(tf.zeros([1, 1]))
    b = tf.Variable(tf.zeros([1]))
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return [train, loss], {x: xs, y: ys}


MATMUL_N = 512


def matmul_512(tf):
    # Variables, not constants: a product of constants is folded once per plan.
    rng = np.random.RandomState(0)
    a = tf.Variable(rng.rand(MATMUL_N, MATMUL_N).astype(np.float32))
    b = tf.Variable(rng.rand(MATMUL_N, MATMUL_N).astype(np.float32))
    return tf.matmul(a, b), None


def _linreg_points():
    rng = np.random.RandomState(0)
    xs = rng.rand(100, 1).astype(np.float32)
    return xs, (3 * xs + 2).astype(np.float32)


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

    def chain_tanh():
        y = v0
        for i in range(50):
            y = (np.tanh(y) if i % 3 == 0 else
                 y * np.float32(1.0001) if i % 3 == 1 else y + np.float32(0.5))
        return y

    lx, ly = _linreg_points()
    lw, lb = np.zeros((1, 1), np.float32), np.zeros(1, np.float32)

    def linreg_sgd():
        err = lx @ lw + lb - ly
        loss = np.mean(np.square(err))
        grad = (2.0 / err.size) * err
        lw[...] -= np.float32(0.1) * (lx.T @ grad)
        lb[...] -= np.float32(0.1) * grad.sum(axis=0)
        return loss

    ma = rng.rand(MATMUL_N, MATMUL_N).astype(np.float32)
    mb = rng.rand(MATMUL_N, MATMUL_N).astype(np.float32)
    return {
        "chain_50_tanh": chain_tanh,
        "linreg_step": linreg_sgd,
        "matmul_512": lambda: ma @ mb,
        "scalar_add": lambda: one + two,
        "scalar_add_fed": lambda: np.asarray(1.0, np.float32) + two,
        "chain_50": chain,
        "linreg_forward": lambda: np.mean(np.square(w * xs + b - ys)),
    }


WORKLOADS = [("scalar_add", scalar_add, 20000), ("scalar_add_fed", scalar_add_fed, 20000),
             ("chain_50", chain_50, 2000), ("chain_50_tanh", chain_50_tanh, 2000),
             ("linreg_forward", linreg_forward, 5000), ("linreg_step", linreg_step, 5000),
             ("matmul_512", matmul_512, 50)]
# Rows also shown as GFLOP/s: name -> floating-point operations per run.
FLOPS = {"matmul_512": 2 * MATMUL_N ** 3}
# Sides of the square float32 products whose best rate stands for the machine's GEMM
# ceiling: large enough that BLAS runs at its full speed, small enough to take a second.
CEILING_SIDES = (1024, 2048)


def gemm_ceiling_gflops(sides=CEILING_SIDES):
    """The best GFLOP/s of NumPy's float32 products of `sides` x `sides` matrices: what
    this machine's BLAS reaches at all. Issue 20 asked for a 512x512 matmul at 1.5x
    TensorFlow's GFLOP/s; next to this figure a reader sees whether any library could
    (on a 2-core AMD EPYC, 2026-11-28: ~205 GFLOP/s, TF's 512x512 ~161, 1.5x that 241)."""
    rng = np.random.RandomState(1)
    best = 0.0
    for n in sides:
        a, b = (rng.rand(n, n).astype(np.float32) for _ in range(2))
        out = np.empty((n, n), np.float32)
        number = max(2, int(4e9 / (2 * n ** 3)))         # ~4 GFLOP a round
        seconds = best_seconds(lambda: np.matmul(a, b, out=out), number, 3)
        best = max(best, 2 * n ** 3 / seconds / 1e9)
    return best


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


TINY_RUN = {
    "tfteach": "import tfteach as tf\n",
    "tensorflow": "import tensorflow as _tf\n_tf.compat.v1.disable_eager_execution()\n"
                  "tf = _tf.compat.v1\n",
}
TINY_GRAPH = ("x = tf.placeholder(tf.float32, [])\n"
              "with tf.Session() as sess:\n"
              "    sess.run(x * 2.0 + 1.0, {x: 3.0})\n")


def import_cost(module, tiny_run=False):
    """Seconds and max RSS (MiB) of `import module` in a fresh interpreter; with
    `tiny_run`, of the import plus building and running a two-op graph in a Session."""
    # VmHWM (peak RSS of this process image); ru_maxrss would include the forking parent.
    body = (TINY_RUN[module] + TINY_GRAPH) if tiny_run else "import %s\n" % module
    code = ("import time\nt = time.perf_counter()\n%s"
            "dt = time.perf_counter() - t\n"
            "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0]\n"
            "print(dt, int(hwm.split()[1]) / 1024)\n" % body)
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


def print_header(*columns):
    """A table's header: the workload, three timings, two ratios; then a rule."""
    header = "%-16s %10s %10s %10s %12s %12s" % (("workload",) + columns)
    print(header)
    print("-" * len(header))


def course_kernel_rows(tfteach, scale):
    """The same graphs as the course kernel runs them, on its virtual /gpu:0 (memory
    accounted: docs/devices.md), with the accounted loop compiled (runtime/
    accounted_loop.py) and walked step by step, alternating in this one process, and
    tfteach on the CPU in the same rounds."""
    from tfteach.runtime import accounted_loop
    tfteach.config.set_virtual_gpus(1, memory_limit=4096)
    compile_after = accounted_loop.COMPILE_AFTER_RUNS
    cpu_only = tfteach.ConfigProto(device_count={"GPU": 0})
    print()
    print("In the course kernel (virtual /gpu:0), microseconds per run (best of 5 rounds)")
    print_header("compiled", "walked", "cpu", "comp/walked", "comp/cpu")
    for name, build, number in WORKLOADS:
        if name in FLOPS:                  # BLAS-bound: the loop is not what it measures
            continue
        number = max(1, number // scale)
        runs = {}
        for label, config in (("compiled", None), ("walked", None), ("cpu", cpu_only)):
            graph = tfteach.Graph()
            with graph.as_default():
                fetch, feed = build(tfteach)
                sess = tfteach.Session(graph=graph, config=config)
                sess.run(tfteach.global_variables_initializer())
            runs[label] = (lambda s=sess, f=fetch, d=feed: s.run(f, feed_dict=d))
        best = dict.fromkeys(runs, float("inf"))
        for _ in range(5):
            for label, run in runs.items():
                accounted_loop.COMPILE_AFTER_RUNS = 10 ** 9 if label == "walked" \
                    else compile_after
                best[label] = min(best[label], best_us(run, number, repeat=1))
        accounted_loop.COMPILE_AFTER_RUNS = compile_after
        print("%-16s %10.1f %10.1f %10.1f %12.3f %12.2f" % (
            name, best["compiled"], best["walked"], best["cpu"],
            best["compiled"] / best["walked"], best["compiled"] / best["cpu"]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer iterations")
    args = parser.parse_args()
    scale = 10 if args.quick else 1

    import tfteach
    from tfteach.runtime.optimizer import fused_arithmetic
    # The steady state: a chain's Numba kernels compile at its first run here, where a
    # student's session compiles them once the chain has run as long as compiling would
    # take (docs/optimizer.md, pass 5) -- the chain rows show what a long loop reaches.
    fused_arithmetic.COMPILE_AFTER_SECONDS = 0.0
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow
        tensorflow.compat.v1.disable_eager_execution()
        tensorflow.compat.v1.disable_resource_variables()     # TF 1.15: ref variables
        tf1 = tensorflow.compat.v1
    except ImportError:
        tf1 = None
    numpy_fns = numpy_equivalents()

    print("CPU: %s, %d cores" % (cpu_model(), os.cpu_count() or 0))
    print("(chains' fused-arithmetic kernels compiled before timing: the steady state)")
    print("Session.run overhead, microseconds per run (best of 5)")
    print_header("tfteach", "numpy", "tensorflow", "tfteach/np", "tfteach/tf")
    for name, build, number in WORKLOADS:
        number = max(1, number // scale)
        ours = time_graph(tfteach, build, number)
        np_us = best_us(numpy_fns[name], number)
        tf_us = time_graph(tf1, build, max(1, number // 10)) if tf1 is not None else None
        print("%-16s %10.1f %10.2f %10s %12.1f %12s" % (
            name, ours, np_us, "-" if tf_us is None else "%.1f" % tf_us, ours / np_us,
            "-" if tf_us is None else "%.3f" % (ours / tf_us)))
        if name in FLOPS:
            gflops = [None if us is None else FLOPS[name] / us / 1e3
                      for us in (ours, np_us, tf_us)]
            print("%-16s %10.1f %10.1f %10s %12.2f %12s   GFLOP/s (higher is better)" % (
                "", gflops[0], gflops[1], "-" if tf_us is None else "%.1f" % gflops[2],
                gflops[0] / gflops[1],
                "-" if tf_us is None else "%.2f" % (gflops[0] / gflops[2])))
            ceiling = gemm_ceiling_gflops()
            print("%-16s GEMM ceiling (NumPy's float32 products of %s): %.1f GFLOP/s; "
                  "tfteach's 512x512 run reaches %.2f of it%s" % (
                      "", " and ".join("%dx%d" % (n, n) for n in CEILING_SIDES), ceiling,
                      gflops[0] / ceiling, "" if tf_us is None else
                      ", the ceiling is %.2fx TensorFlow's 512x512 rate" % (
                          ceiling / gflops[2])))

    print()
    print("import cost in a fresh process (best of 3; warm Numba cache)")
    costs = {}
    for tiny_run in (False, True):
        for module in ("tfteach", "tensorflow"):
            cost = costs[module, tiny_run] = import_cost(module, tiny_run)
            what = module + (" + tiny run" if tiny_run else "")
            if cost is None:
                print("%-24s not importable" % what)
            else:
                print("%-24s %.3f s  %6.0f MiB max RSS" % (what, cost[0], cost[1]))
        ours, theirs = costs["tfteach", tiny_run], costs["tensorflow", tiny_run]
        if ours is not None and theirs is not None:
            print("%-24s %.3fx wall  %.3fx RSS" % ("  tfteach/tensorflow", ours[0] / theirs[0],
                                                 ours[1] / theirs[1]))
    course_kernel_rows(tfteach, scale)


if __name__ == "__main__":
    main()
