"""TF 1.15's stack ops, which its while-loop gradients use: StackV2, StackPushV2,
StackPopV2 (graphs only, not a public API).

A TF 1.15 gradient of a `tf.while_loop` pushes, each forward iteration, the values the
gradient needs onto stacks, and its gradient loop pops them, last iteration first
(see framework/loop_frames.py). tfteach writes such graphs and imports them, so it runs
these three ops: the handle StackV2 makes is a Python list, new in every run, kept on
the host (`string` dtype, as the loop history's value) — TF's `resource` handle.
"""
from tfteach.framework import tensor_shape
from tfteach.framework.errors import InvalidArgumentError
from tfteach.framework import dtypes
from tfteach.framework.registry import not_differentiable, register_op

__all__ = []


class _Stack(list):
    """One run's stack (a list, so identity, not value, tells two stacks apart)."""

    def __init__(self, max_size, name):
        super().__init__()
        self.max_size = max_size
        self.name = name

    __hash__ = object.__hash__


def _stack_kernel(ctx, max_size):
    return _Stack(int(max_size), ctx.attrs.get("stack_name") or ctx.op.name)


def _push_kernel(ctx, stack, elem):
    if 0 <= stack.max_size <= len(stack):
        raise InvalidArgumentError(None, ctx.op, "Stack[%s] overflowed its max_size (%d)"
                                   % (stack.name, stack.max_size))
    stack.append(elem)
    return elem


def _pop_kernel(ctx, stack):
    if not stack:
        raise InvalidArgumentError(None, ctx.op, "Stack[%s] is empty when calling Pop()."
                                   % stack.name)
    return stack.pop()


register_op("StackV2", lambda op: [(dtypes.string, tensor_shape.scalar())],
            cpu=_stack_kernel, stateful=True)
register_op("StackPushV2", lambda op: [(op._inputs[1].dtype.base_dtype, op._inputs[1].shape)],
            cpu=_push_kernel, stateful=True)
register_op("StackPopV2", lambda op: [(op._attrs["elem_type"], tensor_shape.unknown_shape())],
            cpu=_pop_kernel, stateful=True)

# TF's gradient loops order their pushes and pops with a ControlTrigger (`f_sync`,
# `b_sync`: control inputs only). Unlike a NoOp it runs even when a control input is
# dead (a push in an untaken tf.cond branch of the loop body), so the loop counter that
# waits for it stays alive: an op that handles dead inputs, as Merge.
register_op("ControlTrigger", lambda op: [], cpu=lambda ctx: None).handles_dead_inputs = True

for _op_type in ("StackV2", "StackPushV2", "StackPopV2", "ControlTrigger"):
    not_differentiable(_op_type)          # as in TF (data_flow_grad.py, control_flow_grad.py)
