"""Helpers the passes share: who reads a slot, and when a slot can be freed."""
from collections import Counter

import numpy as np

__all__ = ["readers", "producers", "plain", "reassign_frees", "read_through",
           "read_by_stateful_ops", "size_one_constant"]


def readers(steps, fetch_slots):
    """How many times each slot is read by `steps` (a fetch counts once more)."""
    count = Counter(s for step in steps for s in step.in_slots)
    count.update(fetch_slots)
    return count


def producers(steps):
    """slot -> the step that writes it (single-output steps)."""
    return {step.single_out: step for step in steps if step.single_out is not None}


def plain(step):
    """Whether `step` runs its op's own kernel on host arrays: not a copy, not fused, not
    a re-reading wrapper (ref_reads.py), on the CPU or a virtual GPU (whose values are
    host arrays it only counts; not a real GPU's)."""
    return step.source is None and step.on_host_arrays and step.kernel is step.ctx.kernel


def size_one_constant(template, feeds, slot, dtype, rank):
    """The size-1 constant at `slot` of a plan's `template` (not fed), as a scalar of
    `dtype`, if broadcasting it cannot change a value of rank `rank`; None otherwise, and
    for NaN: a fused kernel gets the constant's bits as they are, and LLVM may not keep a
    NaN's sign (fused_arithmetic.py)."""
    value = template[slot] if slot < len(template) and slot not in feeds else None
    if (type(value) is not np.ndarray or value.size != 1 or value.dtype != dtype
            or rank is None or value.ndim > rank or np.isnan(value).any()):
        return None
    return value.reshape(-1)[0]


def read_by_stateful_ops(steps):
    """The slots a stateful op (or one taking refs) reads: an Assign may keep the array
    it is given (runtime/assign_forwarding.py), so a pass never changes which array
    such an op reads. A training update's gradient and hyperparameters are only read."""
    kept = set()
    for step in steps:
        op_def = step.op._op_def
        if not (op_def.stateful or op_def.ref_inputs):
            continue
        if step.type.startswith("Apply"):
            # A training update (ApplyGradientDescent, ApplyAdam, ...) computes the new
            # value from its gradient and hyperparameters and keeps none of them: only
            # its ref inputs (the variable and its slots) are held.
            kept.update(s for i, s in enumerate(step.in_slots) if i in op_def.ref_inputs)
        else:
            kept.update(step.in_slots)
    return kept


def read_through(steps, aliases):
    """`steps` with every input slot in `aliases` (slot -> slot it equals) replaced by
    the slot it stands for (a step's copy is made only where an input changes)."""
    def resolve(s):
        while s in aliases:
            s = aliases[s]
        return s
    out = []
    for step in steps:
        ins = tuple(resolve(s) for s in step.in_slots)
        if ins != step.in_slots:
            step = _copy(step)
            step.in_slots = ins
        out.append(step)
    return out


def reassign_frees(steps, keep):
    """`steps` with each step's `frees` the slots it reads last (not those in `keep`:
    fed and fetched), after the passes changed who reads what. A step whose frees
    change is copied: the traced loop shares the originals."""
    last = {}
    for i, step in enumerate(steps):
        for s in step.in_slots:
            last[s] = i
    frees = [[] for _ in steps]
    for s, i in last.items():
        if s not in keep:
            frees[i].append(s)
    out = []
    for step, f in zip(steps, frees):
        if tuple(f) != step.frees:
            step = _copy(step)
            step.frees = tuple(f)
        out.append(step)
    return out


def _copy(step):
    import copy
    return copy.copy(step)
