"""Arithmetic that gives its input back, bit for bit, reads the input itself.

TF's arithmetic optimizer rewrites `x * 1` to `x`. Here only the identities that hold
for every bit pattern are used, and only where broadcasting cannot change the shape
(the constant has at most x's rank and size 1, and x's static rank is known):
- `x * 1`, `1 * x`, `x / 1` (floats and integers: -0.0 * 1 is -0.0, NaN stays NaN);
- `x - 0` (floats: -0.0 - 0.0 is -0.0);
- `x + (-0.0)`, `(-0.0) + x` for floats, `x + 0`, `0 + x` for integers.
`x + 0.0` is *not* rewritten: -0.0 + 0.0 is +0.0. The step's readers read x's slot
instead (slots.read_through); x must have the output's dtype. Not where the result is
fetched or read by a stateful op (an Assign may keep the array it is given).
"""
import numpy as np

from tfteach.runtime.optimizer.rewrite import Rewrite
from tfteach.runtime.optimizer.slots import plain, read_by_stateful_ops, read_through

__all__ = ["run", "NAME"]

NAME = "arithmetic"


def run(steps, plan, rewrites):
    template = plan.template
    left_alone = set(plan.fetch_slots) | read_by_stateful_ops(steps)
    aliases, kept = {}, []
    for step in steps:
        position = (_identity_operand(step, template) if step.single_out not in left_alone
                    else None)
        if position is None:
            kept.append(step)
            continue
        x = step.op._inputs[position]
        aliases[step.single_out] = step.in_slots[position]
        rewrites.append(Rewrite(NAME, (step.name,), "reads %s" % x.name))
    return read_through(kept, aliases) if aliases else steps


def _identity_operand(step, template):
    """0 or 1: the input the step gives back unchanged; None if it is not such a step."""
    if (step.type not in ("Mul", "RealDiv", "Sub", "Add", "AddV2")
            or not plain(step) or step.op._control_inputs or step.single_out is None):
        return None
    out = step.op._outputs[0]
    kind = out.dtype.base_dtype.np.kind
    if kind not in ("f", "i", "u"):
        return None
    for x_at in (0, 1):
        c_at = 1 - x_at
        if step.type in ("RealDiv", "Sub") and x_at == 1:
            continue                                 # 1 / x, 0 - x are not x
        c = template[step.in_slots[c_at]]
        x = step.op._inputs[x_at]
        if c is None or x.dtype.is_ref_dtype or x.dtype.base_dtype != out.dtype.base_dtype:
            continue
        if x.shape.ndims is None or np.ndim(c) > x.shape.ndims or np.size(c) != 1:
            continue
        if _neutral(step.type, kind, np.asarray(c).reshape(())):
            return x_at
    return None


def _neutral(op_type, kind, c):
    """Whether `x op c` is x for every x of this kind."""
    if op_type in ("Mul", "RealDiv"):
        return c == 1
    if op_type == "Sub":
        return c == 0 and (kind != "f" or not np.signbit(c))
    # Add, AddV2: -0.0 for floats (x + -0.0 is x, also for x = -0.0); 0 for integers
    return c == 0 and (kind != "f" or bool(np.signbit(c)))
