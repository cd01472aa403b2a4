"""Gradients through `tf.cond` (Switch / Merge) and `tf.while_loop`, as TF 1.x builds them.

A cond is Switch ... branch ... Merge, so its gradient is the mirror image:
  - Merge's gradient is a Switch of the incoming gradient on the same predicate
    (`gradients/cond/Merge_grad/cond_grad`): the gradient enters only the branch that
    ran, and the other branch's gradient ops are dead, exactly like its forward ops;
  - a Switch's gradient is a Merge of what came back from the branch and zeros for the
    untaken side (zeros built so that they exist only when that side is taken), so the
    gradient that leaves the cond is alive whichever branch ran.
So `tf.gradients` of a cond's result is the derivative of the branch that was taken.
The loop gradient (the While op) is in while_grad.py.
"""
from tfteach.framework import dtypes
from tfteach.framework.registry import gradient, not_differentiable
from tfteach.ops import gradients_impl, while_grad  # noqa: F401 (registers While's gradient)
from tfteach.ops import stack_ops, tensor_array_ops  # noqa: F401 (imported TF 1.15 graphs)
from tfteach.ops import tensor_array_grad  # noqa: F401 (after tensor_array_ops)
from tfteach.ops.comparison_ops import equal
from tfteach.ops.cond_ops import CondContext, merge, switch
from tfteach.ops.constant_op import identity
from tfteach.ops.fill_ops import zeros, zeros_like
from tfteach.ops.op_builder import apply_op

__all__ = []


def _cond_context_of_branch(tensor, merge_op):
    """The CondContext of the branch `tensor` (a Merge input) comes from, if any."""
    context = tensor.op._control_flow_context
    outer = merge_op._control_flow_context
    while context is not None and context.outer_context is not outer:
        context = context.outer_context
    return context if isinstance(context, CondContext) else None


def _raw_pred(context):
    """The cond's predicate (its branches test `pred_id`, an identity of it)."""
    return context.pred_id.op.inputs[0]


@gradient("Merge")
def _merge_grad(op, grad, _):
    """The gradient goes back into the branch that produced the Merge's value."""
    context = _cond_context_of_branch(op.inputs[0], op)
    if context is not None:
        # Merge(false_value, true_value): Switch's outputs are (false, true) too.
        return list(switch(grad, _raw_pred(context), name="cond_grad"))
    # A Merge built by hand: route by which input was alive (its value_index).
    return [switch(grad, equal(op.outputs[1], i))[1] for i in range(len(op.inputs))]


def _switch_zeros(op, index):
    """Zeros for the Switch output `index` that nothing used (TF's ZerosLikeOutsideLoop).

    They must be alive exactly when output `index` is (a constant would be alive always,
    and the Merge in the Switch's gradient would forward it instead of the taken
    branch's gradient). TF builds them from a Switch of the same input on the same
    predicate, with the zeros waiting for that side's pivot: so does tfteach.
    """
    context = op._control_flow_context
    value = op.outputs[index]
    if not isinstance(context, CondContext):
        return zeros_like(value, optimize=False)
    switch_value = switch(op.inputs[0], _raw_pred(context))[index]
    pivot = identity(switch_value)
    zeros_shape = apply_op("Shape", [switch_value], {"T": value.dtype.base_dtype,
                                                     "out_type": dtypes.int32}, "Shape")
    with op.graph.control_dependencies([pivot]):
        return zeros(zeros_shape, dtype=value.dtype.base_dtype)


gradients_impl.ZEROS_LIKE_OUTPUT["Switch"] = _switch_zeros


@gradient("Switch")
def _switch_grad(op, *grads):
    """Merge the gradient of the branch that ran with zeros from the other side."""
    grads = [_switch_zeros(op, i) if g is None else g for i, g in enumerate(grads)]
    context = op._control_flow_context
    if isinstance(context, CondContext):
        return [merge(grads, name="cond_grad")[0], None]
    # A Switch built by hand (tf.switch): each side's gradient only when that side ran.
    pred = op.inputs[1]
    false_grad = switch(grads[0], pred)[0]
    true_grad = switch(grads[1], pred)[1]
    return [merge([false_grad, true_grad])[0], None]


# -- the loop's pieces seen from outside -----------------------------------------------------
@gradient("Exit")
def _exit_grad(op, grad):
    return [grad]


@gradient("NextIteration")
def _next_iteration_grad(op, grad):
    return [grad]


not_differentiable("LoopCond")
