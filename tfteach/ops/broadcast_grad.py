"""Summing a broadcast op's output gradient back to the shape of each input.

If `z = x + y` broadcast `x` (shape [3]) against `y` (shape [2, 3]), every element of
`x` was used twice, so its gradient is the output gradient summed over axis 0.

TensorFlow 1.15 always works this out when the graph runs: `Shape` of both inputs, a
`BroadcastGradientArgs` op giving the axes to sum, then `Sum` and `Reshape`. tfteach
decides it when the graph is built whenever the static shapes allow it, which is
nearly always: even with an unknown batch size, `[None, 500] + [500]` sums the bias
gradient over axis 0. Only when a dimension of unknown size may or may not have been
broadcast (`[None] + [None]`) does it build TF's runtime ops (registered here).
The helpers also give the *static* versions of the shapes reduction gradients need.
"""
import numpy as np

from tfteach.framework import tensor_shape
from tfteach.framework.errors import InvalidArgumentError
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.ops import shape_ops
from tfteach.ops.op_builder import apply_op, broadcast_static_shape

__all__ = ["BroadcastGradients", "static_reduction_axes", "reshape_like", "shape_constant"]


# -- the runtime op (TF's BroadcastGradientArgs) --------------------------------------------
def _broadcast_gradient_args_shape(op):
    dtype = op._inputs[0].dtype.base_dtype
    return [(dtype, tensor_shape.TensorShape([None]))] * 2


def _broadcast_gradient_args_kernel(ctx, s0, s1):
    s0 = [int(d) for d in np.ravel(s0)]
    s1 = [int(d) for d in np.ravel(s1)]
    dtype = ctx.attrs["T"].np
    if s0 == s1:
        return np.zeros(0, dtype), np.zeros(0, dtype)
    n = max(len(s0), len(s1))
    p0 = [1] * (n - len(s0)) + s0
    p1 = [1] * (n - len(s1)) + s1
    r0, r1 = [], []
    for i, (a, b) in enumerate(zip(p0, p1)):
        if a != b and a != 1 and b != 1:
            raise InvalidArgumentError(None, ctx.op, "Incompatible shapes: [%s] vs. [%s]" % (
                ",".join(map(str, s0)), ",".join(map(str, s1))))
        if a == 1:
            r0.append(i)
        if b == 1:
            r1.append(i)
    return np.array(r0, dtype), np.array(r1, dtype)


register_op("BroadcastGradientArgs", _broadcast_gradient_args_shape,
            cpu=_broadcast_gradient_args_kernel)
not_differentiable("BroadcastGradientArgs")


def broadcast_gradient_args(s0, s1):
    return apply_op("BroadcastGradientArgs", [s0, s1], {"T": s0.dtype.base_dtype},
                    name="BroadcastGradientArgs")


# -- deciding at build time ------------------------------------------------------------------
def static_reduction_axes(x_dims, y_dims):
    """Output axes to sum for x's gradient when x broadcasts against y; None if unknowable.

    `x_dims`, `y_dims`: lists of ints or None (unknown sizes). An axis is summed when x
    lacks it (leading axes) or x has size 1 there while the output may be larger.
    """
    if x_dims is None or y_dims is None:
        return None
    out_rank = max(len(x_dims), len(y_dims))
    lead_x = out_rank - len(x_dims)
    lead_y = out_rank - len(y_dims)
    axes = list(range(lead_x))
    for j, xd in enumerate(x_dims):
        axis = j + lead_x
        yd = y_dims[axis - lead_y] if axis >= lead_y else 1
        if xd == 1:
            if yd != 1:
                axes.append(axis)       # summing an axis of size 1 is harmless if yd is 1
        elif xd is None and yd != 1:
            return None                 # x may be 1 here, broadcast to y's size; or not
    return axes


def _dims(tensor):
    shape = tensor.shape
    return None if shape.ndims is None else shape.as_list()


def _same_static_dims(a, b):
    dims = _dims(a)
    return dims is not None and dims == _dims(b) and None not in dims


def shape_constant(dims):
    """`dims` as a reshape target known at build time (-1 for one unknown size), or None.

    None also when a -1 would stand beside a 0: Reshape cannot infer the missing size of
    an empty tensor then (TF's rule), so the target must be the runtime shape."""
    if dims is None or sum(d is None for d in dims) > 1 or (None in dims and 0 in dims):
        return None
    return np.array([-1 if d is None else d for d in dims], dtype=np.int32)


def reshape_like(value, like, name=None):
    """`value` reshaped to the shape of `like`, with a constant target when possible."""
    from tfteach.ops.shape_ops import reshape
    target = shape_constant(_dims(like))
    if target is None:
        target = shape_ops.shape(like)
    return reshape(value, target, name=name)


class BroadcastGradients:
    """Reduces gradients of a broadcasting op's output to its inputs' shapes.

    `x_dims`/`y_dims` may replace the inputs' static dims, and `matrix_dims=2` leaves
    the last two dims out of the runtime comparison (BatchMatMul broadcasts only its
    batch dimensions). Build it before the gradient ops, as TF builds its Shape and
    BroadcastGradientArgs ops first.
    """

    def __init__(self, x, y, x_dims=None, y_dims=None, matrix_dims=0):
        self._x, self._y = x, y
        x_dims = _dims(x) if x_dims is None else x_dims
        y_dims = _dims(y) if y_dims is None else y_dims
        self._axes_x = static_reduction_axes(x_dims, y_dims)
        self._axes_y = static_reduction_axes(y_dims, x_dims)
        self._out_dims = None
        if x_dims is not None and y_dims is not None:
            self._out_dims = broadcast_static_shape(tensor_shape.TensorShape(x_dims),
                                                    tensor_shape.TensorShape(y_dims)).as_list()
        self._runtime = None
        if self._axes_x is None or self._axes_y is None:
            sx = shape_ops.shape(x)
            sy = shape_ops.shape(y)
            if matrix_dims:
                args = broadcast_gradient_args(sx[:-matrix_dims], sy[:-matrix_dims])
            else:
                args = broadcast_gradient_args(sx, sy)
            self._runtime = (sx, sy) + tuple(args)

    def needs_reduction_x(self):
        return self._axes_x != []

    def needs_reduction_y(self):
        return self._axes_y != []

    def for_x(self, grad, post=None):
        """x's gradient from `grad` (of the output's shape); `post` applies after summing."""
        return self._reduce(grad, self._x, self._axes_x, 0, post)

    def for_y(self, grad, post=None):
        return self._reduce(grad, self._y, self._axes_y, 1, post)

    def _reduce(self, grad, target, axes, which, post):
        from tfteach.ops.reduction_ops import reduce_sum
        from tfteach.ops.shape_ops import reshape
        if axes is None:
            sx, sy, rx, ry = self._runtime
            summed = reduce_sum(grad, (rx, ry)[which])
            if post is not None:
                summed = post(summed)
            return reshape(summed, (sx, sy)[which])
        if not axes:
            return grad if post is None else post(grad)
        if all(self._out_dims[a] == 1 for a in axes):
            summed = grad                   # only size-1 axes: nothing to add up
        else:
            summed = reduce_sum(grad, axes)
        if post is not None:
            summed = post(summed)
        if _same_static_dims(summed, target):
            return summed                   # only leading axes were summed: shape is right
        return reshape_like(summed, target)


def kept_dims(input_dims, axes):
    """The reduction's output dims with kept (size 1) reduced axes; None if unknown rank."""
    if input_dims is None:
        return None
    rank = len(input_dims)
    reduced = set(int(a) % rank for a in axes) if rank else set()
    return [1 if i in reduced else d for i, d in enumerate(input_dims)]
