"""Shape arithmetic folded once shapes are known (TF's constant folding of shapes).

A gradient is full of shape bookkeeping: `Shape(x)`, `BroadcastGradientArgs`, the
`Sum` and `Reshape` that undo a broadcast. Where the graph knows a shape completely
(`x` has static shape [32, 10]), `Shape(x)` is a constant, and so is everything computed
from constants only: BroadcastGradientArgs of two known shapes, the Pack and Slice of
a softmax's shape work, a Reshape's target shape. This pass puts the value of each such
Shape/Size/Rank into the plan's template (the values every run starts from) and folds
the pure steps that then have only constant inputs, as the plan's own folding does
(executor.Plan._fold_constants): the fast loop no longer runs them.

The kernels themselves compute the values, from a zero-byte stand-in of the known shape
(`np.broadcast_to`), so a folded value has the bits, dtype and type the step would give.
A fed tensor has the shape the graph says (the Session refuses any other), so the
fold holds for every run of the plan.
"""
import numpy as np

from tfteach.runtime.optimizer.rewrite import Rewrite
from tfteach.runtime.optimizer.slots import plain

__all__ = ["run", "NAME"]

NAME = "shape_folding"
SHAPE_OPS = ("Shape", "Size", "Rank")
MAX_FOLDED_BYTES = 10 * 1024 * 1024     # as executor.MAX_FOLDED_BYTES


def run(steps, plan, rewrites):
    template = plan.template
    known = {s for s, v in enumerate(template) if v is not None}
    kept = []
    with np.errstate(all="ignore"):
        for step in steps:
            value = _shape_value(step) if step.type in SHAPE_OPS else None
            if value is None and _foldable(step, known):
                value = _computed(step, template)
            if value is None:
                kept.append(step)
                continue
            store(step, value, template, known, plan.num_slots - 1)
            rewrites.append(Rewrite(NAME, (step.name,), "constant %s" % _words(value)))
    return kept


def store(step, value, template, known, sink):
    """Puts a folded step's value (a tuple for several outputs) into the template."""
    outputs = (value,) if step.single_out is not None else value
    for s, v in zip(step.out_slots, outputs):
        if s == sink:
            continue
        if isinstance(v, np.ndarray):
            v.flags.writeable = False      # shared by every run, like a Const
        template[s] = v
        known.add(s)


def _shape_value(step):
    """The step's value from its input's static shape, or None when not known."""
    if not plain(step) or step.op._control_inputs or step.single_out is None:
        return None
    shape = step.op._inputs[0].shape
    if step.type == "Rank":
        if shape.ndims is None:
            return None
    elif not shape.is_fully_defined():
        return None
    dims = tuple(shape.as_list()) if shape.ndims is not None else ()
    stand_in = np.broadcast_to(np.zeros((), np.int8), dims if step.type != "Rank" else
                               (1,) * shape.ndims)
    return step.kernel(step.ctx, stand_in)


def _foldable(step, known):
    # Not a value a (virtual) GPU counts: folded, it would live in no allocator's
    # figures; computed when it runs, it is counted while it lives. Shapes and int32
    # values of GPU ops are host memory (step.alloc is None).
    op = step.op
    return (plain(step) and step.alloc is None and step.in_slots and step.out_slots
            and not op._op_def.stateful and not op._control_inputs
            and not op._op_def.ref_inputs and all(s in known for s in step.in_slots))


def _computed(step, template):
    try:
        value = step.kernel(step.ctx, *[template[s] for s in step.in_slots])
    except Exception:  # noqa: BLE001 - it fails again, properly, at run time
        return None
    outputs = (value,) if step.single_out is not None else value
    if step.single_out is None and (not isinstance(value, (tuple, list))
                                    or len(value) != len(step.out_slots)):
        return None
    if sum(getattr(v, "nbytes", 0) for v in outputs) > MAX_FOLDED_BYTES:
        return None
    return value


def _words(value):
    if isinstance(value, (tuple, list)):
        return ", ".join(_words(v) for v in value)
    a = np.asarray(value)
    if a.size <= 8:
        return np.array2string(a, separator=", ")
    return "of shape %s" % (list(a.shape),)
