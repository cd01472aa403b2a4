"""Where the time of an RNN training step goes (issue 20): a diagnostic, not a benchmark.

    python bench/rnn_profile.py [--only lstm gru charlm] [--steps 15] [--ops]

For each of bench/nn_steps.py's RNN workloads, the best of `--steps` training steps,
split into: the GEMMs (every product BLAS computes, inside the loops or not), each loop
sub-plan (the forward body, the gradient body, the condition; runtime/loop_runner.py),
and what is outside them. The parts overlap: a loop body's time includes its GEMMs.
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

RNN_WORKLOADS = ("lstm", "gru", "charlm")


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
    inside = sum(v for k, v in parts.items() if k != "GEMMs")
    print("%s: %.1f ms a step (best of %d)" % (name, best * 1e3, steps))
    for key in ("GEMMs", "forward body", "gradient body", "condition"):
        if key in parts:
            print("  %-14s %6.2f ms" % (key, parts[key] * 1e3))
    print("  %-14s %6.2f ms (the step less the loop sub-plans)" % (
        "outside loops", (best - inside) * 1e3))
    if ops:
        print("  op types inside the loop bodies (timed op by op, %d steps):" % steps)
        table = op_type_times(step, steps)
        for op_type, (seconds, calls) in sorted(table.items(), key=lambda kv: -kv[1][0])[:20]:
            print("    %-20s %6.2f ms %6.0f calls %7.1f us a call" % (
                op_type, seconds * 1e3, calls, seconds / calls * 1e6))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=list(RNN_WORKLOADS),
                        choices=RNN_WORKLOADS)
    parser.add_argument("--steps", type=int, default=15)
    parser.add_argument("--ops", action="store_true",
                        help="also the time per op type inside the loop bodies")
    args = parser.parse_args()
    print("CPU:", nn_steps.cpu_model(), "| OPENBLAS_NUM_THREADS =",
          os.environ.get("OPENBLAS_NUM_THREADS", "(unset)"))
    for name in args.only:
        profile(name, args.steps, args.ops)


if __name__ == "__main__":
    main()
