"""The Sum and Reshape that undo a broadcast, read through once shapes are known
(TF's constant folding: `SimplifyReduction`,
`RemoveRedundantReshapeOrBroadcastTo`).

The gradient of `a - b` with `a` and `b` of the same shape still runs, for each side,
`Sum(grad, r)` over the axes BroadcastGradientArgs found (none) and `Reshape(that,
Shape(a))` back to the shape it already has. Once those axes and that shape are
constants (shape_folding.py, or specialise.py for a fed `[None, 1]`), both steps give
their input back: the Sum kernel returns its very input when it has no axis to reduce,
and a Reshape to the input's own shape is a view of the same numbers. Their readers
read the input's slot instead.

Only where the result is bit-identical and the same kind of value: the input has a
known shape of rank >= 1 (a kernel's rank-0 result may be a NumPy scalar, which Sum and
Reshape would turn into an array); not a fetched step (the client asks for it), not one
with control inputs, not one whose output a stateful op reads (an Assign may keep the
array it is given, slots.read_by_stateful_ops).
"""
import numpy as np

from tfteach.runtime.optimizer.rewrite import Rewrite
from tfteach.runtime.optimizer.slots import plain, read_by_stateful_ops, read_through

__all__ = ["run", "NAME", "ENABLED_BY"]

NAME = "redundant_shape_ops"
ENABLED_BY = "shape_folding"           # TF's constant_folding toggle switches both


def static_shape(t):
    """The shape of tensor `t` as the graph knows it, or None when not fully known."""
    return tuple(t.shape.as_list()) if t.shape.is_fully_defined() else None


def run(steps, plan, rewrites, shape_of=static_shape, template=None):
    """`steps` with each redundant Sum / Reshape read through. `shape_of(tensor)`: its
    known shape or None; `template`: the slot values known before the run (the
    specialiser's, with the fed shapes' constants; the plan's by default)."""
    template = plan.template if template is None else template
    fetched = set(plan.fetch_slots)
    stateful_reads = read_by_stateful_ops(steps)
    aliases, kept = {}, []
    for step in steps:
        if (step.type in ("Sum", "Reshape") and plain(step) and not step.op._control_inputs
                and step.single_out is not None and step.single_out not in fetched
                and step.single_out not in stateful_reads
                and _gives_input_back(step, shape_of(step.op._inputs[0]),
                                      template[step.in_slots[1]])):
            aliases[step.single_out] = step.in_slots[0]
            rewrites.append(Rewrite(NAME, (step.name,), "reads %s" % step.op._inputs[0].name))
            continue
        kept.append(step)
    return read_through(kept, aliases) if aliases else kept


def _gives_input_back(step, shape, constant):
    if shape is None or len(shape) == 0 or not isinstance(constant, np.ndarray):
        return False
    if constant.dtype.kind not in "iu":
        return False
    if step.type == "Sum":             # no axis to reduce: reduction_kernel returns x
        return constant.size == 0
    return constant.ndim == 1 and tuple(constant.tolist()) == tuple(shape)
