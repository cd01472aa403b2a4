"""Where the time of an RNN training step goes (issue 20): a diagnostic, not a benchmark.

    python bench/rnn_profile.py [--only lstm gru charlm] [--steps 15] [--ops]
    python bench/rnn_profile.py --gemms     # NumPy's and TF's matmul on the LSTM's and GRU's shapes
    python bench/rnn_profile.py --wavefront # would running the layers side by side help?

For each of bench/nn_steps.py's RNN workloads, the best of `--steps` training steps,
split into: the GEMMs (every product BLAS computes, inside the loops or not), the fused
cells' compiled regions (optimizer/region_kernels.py), each loop sub-plan (the forward
body, the gradient body, the condition; runtime/loop_runner.py), and what is outside
them. The parts overlap: a loop body's time includes its GEMMs and regions. Last, what
is left of the step once its GEMMs and regions are taken away: the small ops, the loop
machinery and what runs outside the loops, the part a design running whole loops as
compiled code would remove (docs/rnn.md, "What 0.8x would take").
With `--ops`, also the time per op type inside the loop bodies, from one more round of
steps run op by op with a timer around each kernel (that slows the step and turns the
fast loop's compiled code off, so compare op types with each other, not with the step).
Run it with one-threaded BLAS (`OPENBLAS_NUM_THREADS=1`) on a busy host: two BLAS
threads fighting other processes make the GEMM times say nothing.

The timers are put around tfteach's internals from outside (module attributes
replaced in this process only): tfteach itself has no profiling hooks here.
"""
import argparse
import collections
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import nn_steps  # noqa: E402  (bench/ is not a package)
from _common import best_seconds  # noqa: E402

RNN_WORKLOADS = nn_steps.RNN_WORKLOADS


def _label(plan):
    """'gradient body', 'forward body' or 'condition', from the plan's op names."""
    names = [step.op.name for step in plan.fast_steps]
    if any("_grad/" in n for n in names):
        return "gradient body"
    return "forward body" if len(names) > 3 else "condition"


def install_timers(totals):
    """Adds the seconds spent in every GEMM and in each loop sub-plan to `totals`."""
    from tfteach.kernels.cpu import linalg
    from tfteach.runtime import loop_hoisting, loop_specialise, loop_sums
    plain_gemm = linalg.split_matmul

    def timed_gemm(*args, **kwargs):
        start = time.perf_counter()
        try:
            return plain_gemm(*args, **kwargs)
        finally:
            totals["GEMMs"] += time.perf_counter() - start
    # (every module that calls it by its own name: the pretransposed `dy @ W^T` too)
    linalg.split_matmul = loop_sums.split_matmul = loop_hoisting.split_matmul = timed_gemm

    # Each region's compiled kernel, as kernel_for hands it to the region's step
    # (installed before the warm-up steps, which compile them).
    from tfteach.runtime.optimizer import region_kernels
    plain_kernel_for = region_kernels.kernel_for

    def timed_kernel_for(program):
        found = plain_kernel_for(program)
        if found is None:
            return None
        kernel, loops = found

        def timed_region(*args):
            start = time.perf_counter()
            try:
                return kernel(*args)
            finally:
                totals["cell regions"] += time.perf_counter() - start
        return timed_region, loops
    region_kernels.kernel_for = timed_kernel_for

    plain_run = loop_specialise.SpecialisingPlan.run
    labels = {}

    def timed_run(self, feed_values):
        start = time.perf_counter()
        try:
            return plain_run(self, feed_values)
        finally:
            label = labels.get(id(self)) or labels.setdefault(id(self), _label(self.plan))
            totals[label] += time.perf_counter() - start
    loop_specialise.SpecialisingPlan.run = timed_run


LOOP_PARTS = ("forward body", "gradient body", "condition")


def op_type_times(step, rounds):
    """{op type: (seconds a step, calls a step)} of the loop bodies' steps."""
    from tfteach.runtime import executor, fast_loop
    seconds, calls = collections.Counter(), collections.Counter()
    plain = executor.Plan._run_fast, fast_loop.COMPILE_AFTER_RUNS

    def timed_steps(plan, values):
        for s in plan.fast_steps:
            args = [values[i] for i in s.in_slots]
            start = time.perf_counter()
            result = s.kernel(s.ctx, *args)
            elapsed = time.perf_counter() - start
            if s.single_out is not None:
                values[s.single_out] = result
            elif s.out_slots:
                for slot, value in zip(s.out_slots, result):
                    values[slot] = value
            for slot in s.frees:
                values[slot] = None
            if "While" not in s.type:          # a loop op's time is its bodies'
                seconds[s.type] += elapsed
                calls[s.type] += 1
    executor.Plan._run_fast = timed_steps
    fast_loop.COMPILE_AFTER_RUNS = 1 << 30
    try:
        for _ in range(rounds):
            step()
    finally:
        executor.Plan._run_fast, fast_loop.COMPILE_AFTER_RUNS = plain
    return {t: (seconds[t] / rounds, calls[t] / rounds) for t in seconds}


def profile(name, steps, ops):
    import tfteach
    totals = collections.Counter()
    install_timers(totals)
    step = nn_steps.graph_step(tfteach, getattr(nn_steps, name + "_graph"))
    for _ in range(3):                          # warm-up: plans built, loops specialised
        step()
    best, parts = float("inf"), {}
    for _ in range(steps):
        before = dict(totals)
        start = time.perf_counter()
        step()
        elapsed = time.perf_counter() - start
        if elapsed < best:
            best, parts = elapsed, {k: totals[k] - before.get(k, 0.0) for k in totals}
    inside = sum(v for k, v in parts.items() if k in LOOP_PARTS)
    print("%s: %.1f ms a step (best of %d)" % (name, best * 1e3, steps))
    for key in ("GEMMs", "cell regions") + LOOP_PARTS:
        if key in parts:
            print("  %-14s %6.2f ms" % (key, parts[key] * 1e3))
    print("  %-14s %6.2f ms (the step less the loop sub-plans)" % (
        "outside loops", (best - inside) * 1e3))
    rest = best - parts.get("GEMMs", 0.0) - parts.get("cell regions", 0.0)
    print("  %-14s %6.2f ms (the step less its GEMMs and regions: small ops, loop "
          "machinery, outside)" % ("the rest", rest * 1e3))
    if ops:
        print("  op types inside the loop bodies (timed op by op, %d steps):" % steps)
        table = op_type_times(step, steps)
        for op_type, (seconds, calls) in sorted(table.items(), key=lambda kv: -kv[1][0])[:20]:
            print("    %-20s %6.2f ms %6.0f calls %7.1f us a call" % (
                op_type, seconds * 1e3, calls, seconds / calls * 1e6))


# The LSTM step's GEMM shapes (m, k, n): forward per layer, the gradient's dy @ W^T per
# layer, and the weight gradients summed over the 20 time steps (K = 20 x 32).
LSTM_GEMMS = ((32, 156, 512), (32, 256, 512), (32, 512, 156), (32, 512, 256),
              (156, 640, 512), (256, 640, 512))
# The GRU's: gates (2 x 128 columns) and candidate (128) of each layer, their gradients'
# products with the transposed kernels, and the weight gradients over 20 steps.
GRU_GEMMS = ((32, 156, 256), (32, 156, 128), (32, 256, 256), (32, 256, 128),
             (32, 256, 156), (32, 128, 156), (32, 128, 256),
             (156, 640, 256), (156, 640, 128), (256, 640, 256), (256, 640, 128))


def gemm_comparison(number=50):
    """NumPy's and TensorFlow's matmul on the LSTM's and the GRU's shapes, same run: is
    TF's GEMM the reason its step is faster? TF runs `number` matmuls of variables in one
    session run (chained by control dependencies, one inter-op thread), with 1 and 2
    intra-op threads; NumPy with the BLAS threads it has."""
    tf1 = nn_steps.import_tf1()
    for name, shapes in (("LSTM", LSTM_GEMMS), ("GRU", GRU_GEMMS)):
        _gemm_table(tf1, name, shapes, number)


def _gemm_table(tf1, name, shapes, number):
    import numpy as np
    rng = np.random.RandomState(0)
    print("GEMMs of the %s step, microseconds a product (best of 5)" % name)
    print("%-14s %8s %8s %8s %8s" % ("m x k x n", "numpy", "tf-1thr", "tf-2thr", "tf/np"))
    for m, k, n in shapes:
        a = rng.rand(m, k).astype(np.float32)
        b = rng.rand(k, n).astype(np.float32)
        ours = nn_steps.best_ms(lambda: np.matmul(a, b), number) * 1e3
        tf_us = [_tf_gemm_us(tf1, a, b, number, threads) if tf1 else None for threads in (1, 2)]
        cells = ["-" if t is None else "%.1f" % t for t in tf_us]
        ratio = "-" if tf_us[0] is None else "%.2f" % (min(tf_us) / ours)
        print("%-14s %8.1f %8s %8s %8s" % ("%dx%dx%d" % (m, k, n), ours, cells[0], cells[1],
                                          ratio))


def _tf_gemm_us(tf1, a, b, number, intra_threads):
    graph = tf1.Graph()
    with graph.as_default():
        left = tf1.Variable(a)
        rights = [tf1.Variable(b + i) for i in range(number)]
        outs, previous = [], []
        for right in rights:
            with tf1.control_dependencies(previous):
                out = tf1.matmul(left, right)
            outs.append(out)
            previous = [out]
        # one element of each product fetched: nothing is pruned or folded away
        fetch = tf1.add_n([o[0, 0] for o in outs])
        config = tf1.ConfigProto(intra_op_parallelism_threads=intra_threads,
                                 inter_op_parallelism_threads=1)
        sess = tf1.Session(graph=graph, config=config)
        sess.run(tf1.global_variables_initializer())
        ms = nn_steps.best_ms(lambda: sess.run(fetch), 5)
        sess.close()
    return ms * 1e3 / number


def wavefront_comparison(rounds=8, number=20):
    """The LSTM's forward loop (2 layers of 128 units, 20 steps, batch 32) written in
    NumPy, run three ways in alternating rounds: one step after the other with OpenBLAS's
    threads (as tfteach runs it), the same with one BLAS thread, and as a wavefront --
    layer 2 of step t in a second thread while layer 1 runs step t + 1, one BLAS thread
    each: the parallelism TensorFlow's executor finds in a while loop (its
    `parallel_iterations`). Whether a design running iterations side by side would gain
    on this machine; also whether one and two BLAS threads give the same bits."""
    import queue
    import threading
    import numpy as np
    from tfteach.kernels.cpu import two_workers
    blas = two_workers._find_blas()
    if blas is None:
        print("NumPy's BLAS is not OpenBLAS: its thread count cannot be set here")
        return
    get_threads, set_threads = blas
    default_threads = get_threads()
    rng = np.random.RandomState(0)
    steps, batch, units, inputs = 20, 32, 128, 28
    xs = rng.rand(steps, batch, inputs).astype(np.float32)
    weights = [((rng.rand(n + units, 4 * units) - 0.5) * 0.1).astype(np.float32)
               for n in (inputs, units)]
    bias = np.zeros(4 * units, np.float32)

    def sigmoid(z):
        return 1 / (1 + np.exp(-z))

    def cell(x, h, c, w):
        i, j, f, o = np.split(np.concatenate([x, h], 1) @ w + bias, 4, 1)
        c = sigmoid(f + 1) * c + sigmoid(i) * np.tanh(j)
        return sigmoid(o) * np.tanh(c), c

    zeros = np.zeros((batch, units), np.float32)

    def serial():
        (h1, c1), (h2, c2), out = (zeros, zeros), (zeros, zeros), []
        for t in range(steps):
            h1, c1 = cell(xs[t], h1, c1, weights[0])
            h2, c2 = cell(h1, h2, c2, weights[1])
            out.append(h2)
        return out

    def wavefront():
        handed, out = queue.SimpleQueue(), []

        def second_layer():
            h2 = c2 = zeros
            for _ in range(steps):
                h2, c2 = cell(handed.get(), h2, c2, weights[1])
                out.append(h2)
        worker = threading.Thread(target=second_layer)
        worker.start()
        h1 = c1 = zeros
        for t in range(steps):
            h1, c1 = cell(xs[t], h1, c1, weights[0])
            handed.put(h1)
        worker.join()
        return out

    ways = (("serial, BLAS threads", serial, default_threads),
            ("serial, 1 BLAS thread", serial, 1),
            ("wavefront, 1 each", wavefront, 1))
    times = {name: [] for name, _, _ in ways}
    results = {}
    try:
        for _ in range(rounds):
            for name, fn, threads in ways:
                set_threads(threads)
                results[name] = fn()            # (also this round's warm-up)
                times[name].append(best_seconds(fn, 1, repeat=number, warmups=0) * 1e3)
    finally:
        set_threads(default_threads)
    print("LSTM forward loop in NumPy (2 x 128 units, 20 steps, batch 32), ms, "
          "%d alternating rounds" % rounds)
    for name, _, _ in ways:
        t = sorted(times[name])
        print("  %-24s best %6.2f  median %6.2f" % (name, t[0], t[len(t) // 2]))
    first = results[ways[0][0]]
    same = all(np.array_equal(a, b) for name, _, _ in ways[1:]
               for a, b in zip(first, results[name]))
    print("  the same bits all three ways: %s" % same)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=list(RNN_WORKLOADS),
                        choices=RNN_WORKLOADS)
    parser.add_argument("--steps", type=int, default=15)
    parser.add_argument("--ops", action="store_true",
                        help="also the time per op type inside the loop bodies")
    parser.add_argument("--gemms", action="store_true",
                        help="only NumPy's and TensorFlow's matmul on the LSTM's shapes")
    parser.add_argument("--wavefront", action="store_true",
                        help="only the LSTM forward loop in NumPy, serial and as a "
                             "two-thread wavefront")
    args = parser.parse_args()
    nn_steps.steady_state()        # fused kernels compiled at once, as bench/nn_steps.py
    print("CPU:", nn_steps.cpu_model(), "| OPENBLAS_NUM_THREADS =",
          os.environ.get("OPENBLAS_NUM_THREADS", "(unset)"))
    if args.gemms:
        return gemm_comparison()
    if args.wavefront:
        return wavefront_comparison()
    for name in args.only:
        profile(name, args.steps, args.ops)


if __name__ == "__main__":
    main()
