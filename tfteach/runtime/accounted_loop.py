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

from tfteach.runtime import chain_accounting
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
    """(accounted(values, held), lines) running `steps` as run_accounted does for an
    untraced run without dead tensors, or None when a slot other than `swallow` (the
    slot of outputs nobody reads) is written twice. `lines` says which step each line
    of the generated code belongs to (for failed_step). A chain fused on the GPU
    (`step.links`) replays its links' charges, or where it cannot, runs them one by
    one (chain_accounting.py)."""
    written = set()
    for step in steps:
        for s in _written_slots(step):
            if s in written and s != swallow:
                return None
            written.add(s)
    names = {"C": _charge, "R": _release, "_store": store_outputs,
             "_store_charged": _store_charged, "SW": swallow,
             "RP": chain_accounting.replay}
    lines = ["def accounted(v, h):"]
    where = _Lines()
    charged = set()            # slots a GPU step writes: only they may hold a Buffer
    for i, step in enumerate(steps):
        if getattr(step, "links", None) is None:
            _step_lines(step, "%d" % i, lines, where, names, charged, swallow, "    ")
            continue
        # A fused chain: its kernel gives (value, every link in place); the replay
        # accounts it as its links, or says it cannot (then they run one by one).
        where.add(len(lines) + 1, step)
        key = "%d" % i
        names["k" + key], names["c" + key], names["a" + key] = step.kernel, step.ctx, step.alloc
        names["p" + key] = chain_accounting.replay_script(step, swallow)
        lines.append("    r = k%s(c%s%s)" % (key, key, _args(step)))
        lines.append("    if RP(a%s, r, h, *p%s):" % (key, key))
        lines.append("        v[%d] = r[0]" % step.single_out)
        charged.add(step.single_out)
        _free_lines(step, lines, charged, "        ")
        lines.append("    else:")
        for j, link in enumerate(chain_accounting.unfused_steps(step)):
            _step_lines(link, "%d_%d" % (i, j), lines, where, names, charged, swallow,
                        "        ")
    lines.append("    return None")
    exec(compile("\n".join(lines), _FILENAME, "exec"), names)   # noqa: S102
    return names["accounted"], where


def _written_slots(step):
    if getattr(step, "links", None) is None:
        return step.out_slots
    return [s for link in chain_accounting.unfused_steps(step) for s in link.out_slots]


def _args(step):
    return "".join(", v[%d]" % s for s in step.in_slots)


def _step_lines(step, key, lines, where, names, charged, swallow, indent):
    """The lines that run one step (key: its names' suffix) and free what it read last."""
    where.add(len(lines) + 1, step)
    names["k" + key], names["c" + key] = step.kernel, step.ctx
    names["o" + key], names["a" + key], names["n" + key] = (step.out_slots, step.alloc,
                                                            step.name)
    call = "k%s(c%s%s)" % (key, key, _args(step))
    s = step.single_out
    if step.alloc is None:
        if s is not None:
            lines.append("%sv[%d] = %s" % (indent, s, call))
        elif step.out_slots:
            lines.append("%s_store(v, o%s, %s)" % (indent, key, call))
        else:
            lines.append("%s%s" % (indent, call))
    elif s is not None:
        if s == swallow:
            lines.append("%sr = %s; v[%d] = r; R(C(a%s, r, n%s))" % (indent, call, s, key, key))
        else:
            lines.append("%sr = %s; v[%d] = r; h[%d] = C(a%s, r, n%s)"
                         % (indent, call, s, s, key, key))
            charged.add(s)
    elif step.out_slots:
        lines.append("%s_store_charged(v, h, o%s, %s, a%s, n%s, SW)"
                     % (indent, key, call, key, key))
        charged.update(slot for slot in step.out_slots if slot != swallow)
    else:
        lines.append("%s%s" % (indent, call))
    _free_lines(step, lines, charged, indent)


def _free_lines(step, lines, charged, indent):
    for f in step.frees:
        lines.append("%sv[%d] = None" % (indent, f))
        if f in charged:
            lines.append("%sb = h[%d]" % (indent, f))
            lines.append("%sif b is not None: h[%d] = None; b.allocator.unref(b)"
                         % (indent, f))


class _Lines:
    """Which step each line of the generated code belongs to: the first line of each."""

    def __init__(self):
        self.first_lines, self.steps = [], []

    def add(self, line, step):
        self.first_lines.append(line)
        self.steps.append(step)


def failed_step(error, where):
    """The step whose line of the accounted loop raised `error` (`where`: what
    compile_accounted returned with the loop), or None (not raised there)."""
    line = line_raised_in(error, _FILENAME)
    if line is None:
        return None
    return where.steps[bisect.bisect_right(where.first_lines, line) - 1]
