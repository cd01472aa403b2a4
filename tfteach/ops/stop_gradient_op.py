"""`tf.stop_gradient`: the value passes through, the gradient does not.

`StopGradient` is an identity when the graph runs; `tf.gradients` treats it as an op
without a gradient, so nothing flows back into its input (TF's `NotDifferentiable`).
"""
from tfteach.framework import convert
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.ops.op_builder import apply_op, same_shape_fn

__all__ = ["stop_gradient"]

register_op("StopGradient", same_shape_fn, cpu=lambda ctx, x: x)
not_differentiable("StopGradient")


def stop_gradient(input, name=None):  # noqa: A002 - TF's argument name
    """`input`'s value, seen by `tf.gradients` as a constant (`StopGradient`)."""
    value = convert.convert_to_tensor(input, name="input")
    return apply_op("StopGradient", [value], {"T": value.dtype.base_dtype},
                    name or "StopGradient")
