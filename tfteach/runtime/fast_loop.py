"""A plan's fast loop written out as straight-line Python, one line per step.

`Plan._run_fast` walks its steps: for each one it builds the argument list from the
slots, calls the kernel, stores the result, clears the freed slots — about a microsecond
of interpreter work per op, which is all a small op costs (a 50-op chain on a
100-vector). Once a plan has run twice (`COMPILE_AFTER_RUNS`; a plan run once, such as
an initializer, never pays for it) it gets a function that does the same with no loop,
no per-step attribute lookups and no argument lists:

    def fast_loop(v):
        v[3] = k0(c0, v[0], v[1]); v[0] = None
        v[4] = k1(c1, v[3], v[2]); v[3] = None
        ...

Same kernels, same order, same frees, so the same values and the same errors: the line
a kernel failed on names its step (see `failed_step`). docs/engine.md, "The session
fast path".
"""

from tfteach.framework import errors
from tfteach.runtime import errors_text

__all__ = ["run_steps", "compile_steps", "failed_step", "line_raised_in", "store_outputs",
           "COMPILE_AFTER_RUNS"]

COMPILE_AFTER_RUNS = 2
_FILENAME = "<tfteach fast loop>"
_FIRST_LINE = 3          # the steps' lines start after `def make(K):` and `def fast_loop`


def run_steps(steps, values, free=True):
    """Runs `steps` in order on the slot list `values`: each kernel on its input slots,
    its result(s) stored in its output slots, then (with `free`) its freed slots cleared.
    The loop `compile_steps` writes out; also the one of the shape specialisers
    (optimizer/specialise.py, loop_specialise.py). A kernel's failure is raised as the
    OpError that names its step."""
    step = None
    try:
        for step in steps:
            result = step.kernel(step.ctx, *[values[i] for i in step.in_slots])
            if step.single_out is not None:
                values[step.single_out] = result
            elif step.out_slots:
                for s, v in zip(step.out_slots, result):
                    values[s] = v
            if free:
                for s in step.frees:
                    values[s] = None
    except Exception as e:  # noqa: BLE001 - every kernel failure becomes an OpError
        raise errors_text.op_error_from(e, step.op) from (
            None if isinstance(e, errors.OpError) else e)


def _step_line(i, step):
    args = "".join(", v[%d]" % s for s in step.in_slots)
    call = "k%d(c%d%s)" % (i, i, args)
    if step.single_out is not None:
        line = "v[%d] = %s" % (step.single_out, call)
    elif step.out_slots:
        line = "_store(v, o%d, %s)" % (i, call)
    else:
        line = call
    return line + "".join("; v[%d] = None" % s for s in step.frees)


def store_outputs(values, slots, results):
    """A multi-output step's results into its slots (the compiled loops' `_store`)."""
    for s, value in zip(slots, results):
        values[s] = value


def compile_steps(steps):
    """fast_loop(values) running `steps` as `Plan._run_fast` does."""
    names = []
    for i in range(len(steps)):
        names += ["k%d" % i, "c%d" % i, "o%d" % i]
    lines = ["def make(K):", "    %s, = K" % ", ".join(names) if names else "    pass",
             "    def fast_loop(v):"]
    lines += ["        " + _step_line(i, step) for i, step in enumerate(steps)]
    lines += ["        return None", "    return fast_loop"]
    namespace = {"_store": store_outputs}
    exec(compile("\n".join(lines), _FILENAME, "exec"), namespace)   # noqa: S102
    bound = []
    for step in steps:
        bound += [step.kernel, step.ctx, step.out_slots]
    return namespace["make"](bound)


def failed_step(error, steps):
    """The step whose line of a compiled loop raised `error` (None if not found)."""
    line = line_raised_in(error, _FILENAME)
    if line is None:
        return None
    index = line - _FIRST_LINE - 1
    return steps[index] if 0 <= index < len(steps) else None


def line_raised_in(error, filename):
    """The line of the generated code `filename` where `error` passed, or None.
    The first such frame below the caller's is its own loop (a loop body's plan run by
    a kernel has a compiled loop of its own, deeper down)."""
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            return tb.tb_lineno
        tb = tb.tb_next
    return None
