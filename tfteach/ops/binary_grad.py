"""Gradients of the broadcasting elementwise ops of two tensors (add, mul, div, pow, ...).

Each computes the gradient for the output's shape, then `BroadcastGradients` sums it
back to the shape of each input (see broadcast_grad.py). When both inputs have the
same shape nothing is summed and the graph is TF's `return grad, grad` shortcut.
"""
from tfteach.framework.registry import gradient
from tfteach.ops import (binary_ops, comparison_ops, complex_ops, random_ops,  # noqa: F401
                         unary_ops, where_ops)
from tfteach.ops.broadcast_grad import BroadcastGradients
from tfteach.ops.fill_ops import ones_like, zeros_like

__all__ = []


@gradient("Add")
@gradient("AddV2")
def _add_grad(op, grad):
    x, y = op._inputs
    bcast = BroadcastGradients(x, y)
    return [bcast.for_x(grad), bcast.for_y(grad)]


@gradient("Sub")
def _sub_grad(op, grad):
    x, y = op._inputs
    bcast = BroadcastGradients(x, y)
    return [bcast.for_x(grad), bcast.for_y(grad, post=binary_ops_negative)]


def binary_ops_negative(t):
    return unary_ops.negative(t)


@gradient("Mul")
def _mul_grad(op, grad):
    x, y = op._inputs
    bcast = BroadcastGradients(x, y)
    x, y = complex_ops.conj(x), complex_ops.conj(y)   # no op for real dtypes
    return [bcast.for_x(binary_ops.multiply(grad, y)),
            bcast.for_y(binary_ops.multiply(x, grad))]


@gradient("RealDiv")
def _real_div_grad(op, grad):
    x, y = op._inputs
    bcast = BroadcastGradients(x, y)
    x, y = complex_ops.conj(x), complex_ops.conj(y)
    gx = bcast.for_x(binary_ops.realdiv(grad, y))
    gy = bcast.for_y(grad * binary_ops.realdiv(binary_ops.realdiv(-x, y), y))
    return [gx, gy]


@gradient("FloorMod")
def _floor_mod_grad(op, grad):
    # x mod y = x - floor(x / y) * y: d/dx = 1, d/dy = -floor(x / y).
    x, y = op._inputs
    bcast = BroadcastGradients(x, y)
    floor_xy = binary_ops.floordiv(x, y)
    gx = bcast.for_x(grad)
    gy = bcast.for_y(grad * unary_ops.negative(floor_xy))
    return [gx, gy]


@gradient("FloorDiv")
@gradient("TruncateDiv")
def _no_gradient(op, grad):
    # Piecewise constant: TF registers a gradient that returns None for both inputs.
    return [None, None]


# (TruncateMod has no gradient in TF either, and is not marked not_differentiable:
# tf.gradients raises TF's LookupError for it.)


@gradient("Pow")
def _pow_grad(op, grad):
    """grad * (y * x^(y-1), z * log(x)), with log(x) taken as 0 where x <= 0 (TF; for
    complex x only x == 0 is excluded, and x, y, z are conjugated)."""
    x, y = op._inputs
    z = op._outputs[0]
    bcast = BroadcastGradients(x, y)
    x, y, z = complex_ops.conj(x), complex_ops.conj(y), complex_ops.conj(z)
    gx = bcast.for_x(binary_ops.multiply(grad, binary_ops.multiply(
        y, binary_ops.pow(x, y - 1))))
    mask = comparison_ops.not_equal(x, 0) if x.dtype.is_complex else x > 0
    safe_x = where_ops.where(mask, x, ones_like(x))
    log_x = where_ops.where(mask, unary_ops.log(safe_x), zeros_like(x))
    gy = bcast.for_y(binary_ops.multiply(grad, binary_ops.multiply(z, log_x)))
    return [gx, gy]


def _maximum_minimum_grad(op, grad, selector):
    """The gradient goes to x where selector(x, y) holds (ties go to x), else to y."""
    x, y = op._inputs
    zeros = zeros_like(grad)
    xmask = selector(x, y)
    bcast = BroadcastGradients(x, y)
    xgrad = where_ops.where(xmask, grad, zeros)
    ygrad = where_ops.where(xmask, zeros, grad)
    return [bcast.for_x(xgrad), bcast.for_y(ygrad)]


@gradient("Maximum")
def _maximum_grad(op, grad):
    return _maximum_minimum_grad(op, grad, comparison_ops.greater_equal)


@gradient("Minimum")
def _minimum_grad(op, grad):
    return _maximum_minimum_grad(op, grad, comparison_ops.less_equal)


@gradient("SquaredDifference")
def _squared_difference_grad(op, grad):
    x, y = op._inputs
    bcast = BroadcastGradients(x, y)
    x_grad = binary_ops.scalar_mul(2.0, grad) * (x - y)
    return [bcast.for_x(x_grad), bcast.for_y(x_grad, post=binary_ops_negative)]


# -- the random ops' affine parts (tfteach folds TF's `rnd * stddev + mean` into one op) -------
@gradient("ScaleShift")
def _scale_shift_grad(op, grad):
    """out = values * scale + shift."""
    values, scale, shift = op._inputs
    to_values = BroadcastGradients(values, scale)
    to_scale = BroadcastGradients(scale, values)
    to_shift = BroadcastGradients(shift, op._outputs[0])
    return [to_values.for_x(grad * scale), to_scale.for_x(grad * values),
            to_shift.for_x(grad)]


@gradient("UniformRange")
def _uniform_range_grad(op, grad):
    """out = values * (maxval - minval) + minval."""
    values, minval, maxval = op._inputs
    out = op._outputs[0]
    to_values = BroadcastGradients(values, maxval - minval)
    return [to_values.for_x(grad * (maxval - minval)),
            BroadcastGradients(minval, out).for_x(grad * (1 - values)),
            BroadcastGradients(maxval, out).for_x(grad * values)]
