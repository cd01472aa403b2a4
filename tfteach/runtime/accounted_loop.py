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

Each charge and release takes the allocator's lock (other session threads account on
the same GPU); taking it was ~0.3 of a charge and release's ~1.1 µs. So a run of
consecutive steps that charge and release on one virtual GPU only, and whose kernels
wait for nothing (no stateful op: no queue, variable update, loop, random op; no op
taking a reference), runs inside one `with L0:` and accounts with the unlocked
methods. No cycle of waits can form: such a kernel takes no lock that a thread
accounting on this GPU could hold while it waits for this one (a real GPU's device
arrays come from Numba's allocator, so its steps keep the lock per charge).
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
            return _charge_locked(alloc, value, op_name)
    return alloc.charge(value, op_name)


def _charge_locked(alloc, value, op_name):
    """`_charge` for a caller holding `alloc.lock` already (a lock segment)."""
    if value.__class__ is _NDARRAY and value.base is None:
        buf = alloc.live.get(id(value))
        if buf is None:
            return alloc.allocate_locked(value.nbytes, op_name, value.shape, value.dtype,
                                         value)
        buf.refs += 1
        return buf
    return alloc.charge(value, op_name)


def _release(buf):
    if buf is not None:
        buf.allocator.unref(buf)


def _release_locked(buf):
    """`_release` for a caller holding the buffer's allocator's lock already."""
    if buf is not None:
        buf.refs -= 1
        if buf.refs <= 0:
            buf.allocator.free_locked(buf)


def _store_charged(values, held, slots, results, alloc, op_name, swallow, locked=False):
    charge, release = (_charge_locked, _release_locked) if locked else (_charge, _release)
    for s, value in zip(slots, results):
        values[s] = value
        buf = charge(alloc, value, op_name)
        if s == swallow:                  # nobody reads it: freed at once
            release(buf)
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
    charged_on = {}            # slot -> the allocator whose Buffer a slot may hold
    for step in steps:
        for producer in _producers(step):
            for s in producer.out_slots:
                if s in written and s != swallow:
                    return None
                written.add(s)
                if producer.alloc is not None and s != swallow:
                    charged_on[s] = producer.alloc
    names = {"C": _charge, "R": _release, "CL": _charge_locked, "RL": _release_locked,
             "_store": store_outputs, "_store_charged": _store_charged, "SW": swallow,
             "RP": chain_accounting.replay}
    lines = ["def accounted(v, h):"]
    where = _Lines()
    charged = set()            # slots a GPU step writes: only they may hold a Buffer
    segment = None             # the allocator whose lock the code holds here, if any
    for i, step in enumerate(steps):
        wanted = _lock_wanted(step, charged_on)
        if wanted is _NO_LOCK or (wanted is not None and wanted is not segment):
            segment = None                                      # (the block ends)
        if wanted is not _NO_LOCK and wanted is not None and segment is None:
            segment = wanted
            names["L%d" % i] = wanted.lock
            where.add(len(lines) + 1, step)
            lines.append("    with L%d:" % i)
        indent = "        " if segment is not None else "    "
        locked = segment is not None
        if getattr(step, "links", None) is None:
            _step_lines(step, "%d" % i, lines, where, names, charged, swallow, indent, locked)
            continue
        # A fused chain: its kernel gives (value, every link in place); the replay
        # accounts it as its links, or says it cannot (then they run one by one).
        where.add(len(lines) + 1, step)
        key = "%d" % i
        names["k" + key], names["c" + key], names["a" + key] = step.kernel, step.ctx, step.alloc
        names["p" + key] = chain_accounting.replay_script(step, swallow, charged)
        inner = indent + "    "
        lines.append("%sr = k%s(c%s%s)" % (indent, key, key, _args(step)))
        lines.append("%sif RP(a%s, r, h, *p%s):" % (indent, key, key))
        lines.append("%sv[%d] = r[0]" % (inner, step.single_out))
        charged.add(step.single_out)
        _free_lines(step, lines, charged, inner, locked)
        lines.append("%selse:" % indent)
        for j, link in enumerate(chain_accounting.unfused_steps(step)):
            _step_lines(link, "%d_%d" % (i, j), lines, where, names, charged, swallow,
                        inner, locked)
    lines.append("    return None")
    exec(compile("\n".join(lines), _FILENAME, "exec"), names)   # noqa: S102
    return names["accounted"], where


_NO_LOCK = object()


def _producers(step):
    """The steps whose outputs `step` writes: itself, or a fused chain's links."""
    if getattr(step, "links", None) is None:
        return (step,)
    return chain_accounting.unfused_steps(step)


def _lock_wanted(step, charged_on):
    """The one virtual GPU allocator `step` charges or releases on, if it may run
    holding that allocator's lock; None if it accounts nothing (it may run inside a
    block or outside); _NO_LOCK if it must run without (a kernel that may wait for
    another thread or takes a lock of its own, or accounting on two allocators or on a
    real GPU)."""
    touched = set()
    for producer in _producers(step):
        op_def = producer.op._op_def
        if op_def.stateful or op_def.ref_inputs:
            return _NO_LOCK
        if producer.alloc is not None:
            touched.add(producer.alloc)
        touched.update(charged_on[s] for s in producer.frees if s in charged_on)
    if not touched:
        return None
    if len(touched) > 1:
        return _NO_LOCK
    alloc = touched.pop()
    return alloc if alloc.virtual else _NO_LOCK


def _args(step):
    return "".join(", v[%d]" % s for s in step.in_slots)


def _step_lines(step, key, lines, where, names, charged, swallow, indent, locked=False):
    """The lines that run one step (key: its names' suffix) and free what it read last;
    `locked`: inside a block holding its allocator's lock."""
    where.add(len(lines) + 1, step)
    names["k" + key], names["c" + key] = step.kernel, step.ctx
    names["o" + key], names["a" + key], names["n" + key] = (step.out_slots, step.alloc,
                                                            step.name)
    call = "k%s(c%s%s)" % (key, key, _args(step))
    charge, release = ("CL", "RL") if locked else ("C", "R")
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
            lines.append("%sr = %s; v[%d] = r; %s(%s(a%s, r, n%s))"
                         % (indent, call, s, release, charge, key, key))
        else:
            lines.append("%sr = %s; v[%d] = r; h[%d] = %s(a%s, r, n%s)"
                         % (indent, call, s, s, charge, key, key))
            charged.add(s)
    elif step.out_slots:
        lines.append("%s_store_charged(v, h, o%s, %s, a%s, n%s, SW%s)"
                     % (indent, key, call, key, key, ", True" if locked else ""))
        charged.update(slot for slot in step.out_slots if slot != swallow)
    else:
        lines.append("%s%s" % (indent, call))
    _free_lines(step, lines, charged, indent, locked)


def _free_lines(step, lines, charged, indent, locked=False):
    for f in step.frees:
        lines.append("%sv[%d] = None" % (indent, f))
        if f in charged:
            lines.append("%sb = h[%d]" % (indent, f))
            if locked:      # _release_locked written out: no call per release
                lines.append("%sif b is not None:" % indent)
                lines.append("%s    h[%d] = None; b.refs -= 1" % (indent, f))
                lines.append("%s    if b.refs <= 0: b.allocator.free_locked(b)" % indent)
            else:
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
