"""A GPU plan's accounted loop written out as straight-line Python, as fast_loop.py does
for the CPU's.

`device_run.run_accounted` walks a plan's steps on a (virtual) GPU: for each one it
builds the argument list, calls the kernel, stores the result, charges each new array it
made to the GPU's allocator while a slot holds it, and releases what the step was the
last reader of. That walk costs ~2 µs of interpreter work per op on top of the kernel:
in the course kernel, whose graphs run on its virtual /gpu:0, a 50-op chain took 140 µs
where the CPU's straight-line loop takes 30. Once a plan's steps have run twice
untraced (`COMPILE_AFTER_RUNS`), they get a function that does the same with no loop,
no per-step attribute lookups and no argument lists:

    def accounted(v, h):
        r = k0(c0, v[0], v[1]); v[3] = r; h[3] = C(a0, r, n0)
        v[0] = None
        r = k1(c1, v[3], v[2]); v[4] = r; h[4] = C(a1, r, n1)
        v[3] = None
        b = h[3]
        if b is not None: h[3] = None; b.allocator.unref(b)
        ...

Same kernels, order, charges and releases, so the same values, errors and memory
figures (peak, `num_allocs`, live buffers at an OOM): tests/test_accounted_loop.py runs
plans both ways. Only runs without tracing and without dead tensors (no tf.cond at the
plan's top level) take it, and only plans whose steps write each slot once (the
executor's plans do; a slot nobody reads, which several steps write, is charged and
released at once, as run_accounted does).
"""
import bisect

import numpy as np

from tfteach.runtime.fast_loop import line_raised_in, store_outputs

__all__ = ["compile_accounted", "failed_step", "COMPILE_AFTER_RUNS"]

COMPILE_AFTER_RUNS = 2
_FILENAME = "<tfteach accounted loop>"
_NDARRAY = np.ndarray


def _charge(alloc, value, op_name):
    """The Buffer that accounts `value` (made by `op_name`) on `alloc`: a new one for a
    new array, the same one (one more reference) for an array already accounted, None
    for what takes no device memory (run_accounted's rule, allocator.charge)."""
    if value.__class__ is _NDARRAY and value.base is None:     # the common case
        with alloc.lock:        # other session threads account too
            buf = alloc.live.get(id(value))
            if buf is None:
                return alloc.allocate_locked(value.nbytes, op_name, value.shape,
                                             value.dtype, value)
            buf.refs += 1
            return buf
    return alloc.charge(value, op_name)


def _release(buf):
    if buf is not None:
        buf.allocator.unref(buf)


def _store_charged(values, held, slots, results, alloc, op_name, swallow):
    for s, value in zip(slots, results):
        values[s] = value
        buf = _charge(alloc, value, op_name)
        if s == swallow:                  # nobody reads it: freed at once
            _release(buf)
        else:
            held[s] = buf


def compile_accounted(steps, swallow):
    """(accounted(values, held), first_lines) running `steps` as run_accounted does for
    an untraced run without dead tensors, or None when a slot other than `swallow` (the
    slot of outputs nobody reads) is written twice. `first_lines[i]` is the line of the
    generated code where step i starts (for failed_step)."""
    written = set()
    for step in steps:
        for s in step.out_slots:
            if s in written and s != swallow:
                return None
            written.add(s)
    names = {"C": _charge, "R": _release, "_store": store_outputs,
             "_store_charged": _store_charged, "SW": swallow}
    lines = ["def accounted(v, h):"]
    first_lines = []
    charged = set()            # slots a GPU step writes: only they may hold a Buffer
    for i, step in enumerate(steps):
        first_lines.append(len(lines) + 1)
        names["k%d" % i], names["c%d" % i] = step.kernel, step.ctx
        names["o%d" % i], names["a%d" % i], names["n%d" % i] = (step.out_slots, step.alloc,
                                                                step.name)
        call = "k%d(c%d%s)" % (i, i, "".join(", v[%d]" % s for s in step.in_slots))
        s = step.single_out
        if step.alloc is None:
            if s is not None:
                lines.append("    v[%d] = %s" % (s, call))
            elif step.out_slots:
                lines.append("    _store(v, o%d, %s)" % (i, call))
            else:
                lines.append("    %s" % call)
        elif s is not None:
            if s == swallow:
                lines.append("    r = %s; v[%d] = r; R(C(a%d, r, n%d))" % (call, s, i, i))
            else:
                lines.append("    r = %s; v[%d] = r; h[%d] = C(a%d, r, n%d)"
                             % (call, s, s, i, i))
                charged.add(s)
        elif step.out_slots:
            lines.append("    _store_charged(v, h, o%d, %s, a%d, n%d, SW)" % (i, call, i, i))
            charged.update(slot for slot in step.out_slots if slot != swallow)
        else:
            lines.append("    %s" % call)
        for f in step.frees:
            lines.append("    v[%d] = None" % f)
            if f in charged:
                lines.append("    b = h[%d]" % f)
                lines.append("    if b is not None: h[%d] = None; b.allocator.unref(b)" % f)
    lines.append("    return None")
    exec(compile("\n".join(lines), _FILENAME, "exec"), names)   # noqa: S102
    return names["accounted"], first_lines


def failed_step(error, steps, first_lines):
    """The step whose line of the accounted loop raised `error`, or None (not raised
    there)."""
    line = line_raised_in(error, _FILENAME)
    if line is None:
        return None
    return steps[bisect.bisect_right(first_lines, line) - 1]
