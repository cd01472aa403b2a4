"""Gradients of the reductions (sum, mean, max, min, prod, logsumexp) and of cumsum/cumprod.

A reduction's gradient has the reduced shape; it is reshaped with the reduced axes
kept (size 1) and tiled back to the input's shape: every input element that went
into one sum receives that sum's gradient. When the input's shape and the axes are
known when the graph is built (the usual case, also with an unknown batch size) the
reshape target and the tile multiples are constants; otherwise small runtime ops
compute them (`ReducedShape` is tfteach's single op for TF's `reduced_shape`).
"""
import numpy as np

from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.registry import gradient, not_differentiable, register_op
from tfteach.ops import (binary_ops, cast_ops, comparison_ops, fill_ops, unary_ops,
                         where_ops)
from tfteach.ops.array_grad_ops import invert_permutation
from tfteach.ops.broadcast_grad import kept_dims, reshape_like, shape_constant
from tfteach.ops.complex_ops import conj, real
from tfteach.ops.constant_op import constant
from tfteach.ops.fill_ops import fill
from tfteach.ops.gather_ops import gather
from tfteach.ops.join_ops import stack
from tfteach.ops.layout_ops import tile, transpose
from tfteach.ops.op_builder import apply_op, constant_value
from tfteach.ops.reduction_ops import cumprod, cumsum, reduce_prod, reduce_sum
from tfteach.ops.shape_ops import reshape, shape, size

__all__ = []


# -- ReducedShape: the kept-dims shape, when it is only known at run time ----------------------
def _reduced_shape_kernel(ctx, input_shape, axes):
    out = np.array(input_shape, copy=True)
    if out.size:
        out[np.ravel(axes) % out.size] = 1
    return out


register_op("ReducedShape", lambda op: [(op._inputs[0].dtype.base_dtype,
                                         op._inputs[0].shape)], cpu=_reduced_shape_kernel)
not_differentiable("ReducedShape")


def _reduction_permutation_kernel(ctx, input_shape, axes):
    rank = len(input_shape)
    reduced = sorted(set(int(a) % rank for a in np.ravel(axes))) if rank else []
    other = [i for i in range(rank) if i not in reduced]
    counts = [int(np.prod([input_shape[i] for i in dims], dtype=np.int64))
              for dims in (reduced, other)]
    return np.array(reduced + other, np.int32), np.array(counts, np.int32)


# The reduced axes first, then the others; and the [reduced, other] sizes (TF computes
# them with Rank, Range, SetDiff1d, Gather and Prod ops): reduce_prod's gradient when the
# rank or the axes are only known at run time.
register_op("ReductionPermutation",
            lambda op: [(dtypes.int32, op._inputs[0].shape),
                        (dtypes.int32, tensor_shape.TensorShape([2]))],
            cpu=_reduction_permutation_kernel)
not_differentiable("ReductionPermutation")


class _Reduction:
    """What a reduction's gradient needs to know about its input and axes."""

    def __init__(self, op):
        self.x, self.axes_t = op._inputs[0], op._inputs[1]
        shape_ = self.x.shape
        self.in_dims = None if shape_.ndims is None else shape_.as_list()
        axes = constant_value(self.axes_t)
        self.axes = None
        if axes is not None and self.in_dims is not None:
            rank = len(self.in_dims)
            self.axes = sorted(set(int(a) % rank for a in np.ravel(axes))) if rank else []
        self.kept = None if self.axes is None else kept_dims(self.in_dims, self.axes)

    def kept_target(self):
        """Reshape target of the output with reduced axes kept: a constant if possible."""
        target = shape_constant(self.kept)
        if target is not None:
            return target
        return apply_op("ReducedShape", [shape(self.x), self.axes_t],
                        {"T": dtypes.int32}, name="ReducedShape")

    def reshape_kept(self, value):
        if (self.kept is not None and None not in self.kept
                and value.shape.ndims is not None and value.shape.as_list() == self.kept):
            return value                       # keepdims=True: already that shape
        return reshape(value, self.kept_target())

    def tile_to_input(self, grad):
        """`grad` (reduced shape) repeated over the reduced axes: the input's shape."""
        if grad.shape.ndims == 0 and self.in_dims is not None:
            # Everything was reduced to one number: fill the input's shape with it
            # (one op where TF builds Reshape and Tile).
            return fill(shape(self.x), grad)
        grad = self.reshape_kept(grad)
        if self.axes is not None:
            multiples = [self.in_dims[i] if i in self.axes else 1
                         for i in range(len(self.in_dims))]
            if all(m == 1 for m in multiples):
                return grad
            if None not in multiples:
                return tile(grad, np.array(multiples, dtype=np.int32))
            if len(self.axes) == len(self.in_dims):
                return tile(grad, shape(self.x))
            mask = np.array([i in self.axes for i in range(len(self.in_dims))])
            return tile(grad, where_ops.where(mask, shape(self.x),
                                              np.ones(len(mask), np.int32)))
        input_shape = shape(self.x)
        scaling = binary_ops.floordiv(input_shape, binary_ops.maximum(self.kept_target(), 1))
        return tile(grad, scaling)

    def reduced_count(self, dtype):
        """How many input elements went into each output element, as `dtype`."""
        if self.axes is not None:
            dims = [self.in_dims[i] for i in self.axes]
            if None not in dims:
                return constant(int(np.prod(dims, dtype=np.int64)), dtype=dtype)
        count = size(self.x)
        out_size = self.output.shape.num_elements() if self.output.shape.is_fully_defined() \
            else None
        if out_size != 1:
            count = binary_ops.floordiv(count, binary_ops.maximum(size(self.output), 1))
        return cast_ops.cast(count, dtype)


def _reduction(op):
    r = _Reduction(op)
    r.output = op._outputs[0]
    return r


@gradient("Sum")
def _sum_grad(op, grad):
    return [_reduction(op).tile_to_input(grad), None]


@gradient("Mean")
def _mean_grad(op, grad):
    r = _reduction(op)
    # Divided before it is repeated over the input's shape: the same numbers, with the
    # division done once per output element instead of once per input element.
    scaled = binary_ops.truediv(grad, r.reduced_count(grad.dtype.base_dtype))
    return [r.tile_to_input(scaled), None]


@gradient("Max")
@gradient("Min")
def _min_or_max_grad(op, grad):
    """The gradient is shared equally by the elements equal to the max (or min)."""
    r = _reduction(op)
    y = r.reshape_kept(op._outputs[0])
    grad = r.reshape_kept(grad)
    indicators = cast_ops.cast(comparison_ops.equal(y, r.x), grad.dtype.base_dtype)
    num_selected = r.reshape_kept(reduce_sum(indicators, r.axes_t))
    return [binary_ops.divide(indicators, num_selected) * grad, None]


@gradient("ReduceLogSumExp")
def _log_sum_exp_grad(op, grad):
    """d/dx log(sum(exp(x))) = exp(x - logsumexp(x)): the softmax over the axes."""
    r = _reduction(op)
    y = r.reshape_kept(op._outputs[0])
    grad = r.reshape_kept(grad)
    return [grad * unary_ops.exp(r.x - y), None]


@gradient("Prod")
def _prod_grad(op, grad):
    """d prod / d x_i = the product of all the other elements: the product of those
    before i times those after i (two exclusive cumprods), which works with zeros."""
    r = _reduction(op)
    grad = r.tile_to_input(grad)
    if r.axes is None:
        return [_prod_grad_at_run_time(r, grad), None]
    rank = len(r.in_dims)
    reduced = r.axes
    other = [i for i in range(rank) if i not in reduced]
    perm = reduced + other
    permuted = transpose(r.x, perm)
    reduced_dims = [r.in_dims[i] for i in reduced]
    other_dims = [r.in_dims[i] for i in other]
    if None not in reduced_dims and None not in other_dims:
        target = [int(np.prod(reduced_dims, dtype=np.int64)),
                  int(np.prod(other_dims, dtype=np.int64))]
    else:
        # Both sizes at run time, as TF: a -1 cannot be inferred for an empty x.
        dims = shape(r.x)
        target = stack([reduce_prod(gather(dims, np.array(reduced, np.int32))),
                        reduce_prod(gather(dims, np.array(other, np.int32)))])
    reshaped = reshape(permuted, target)
    left = cumprod(reshaped, axis=0, exclusive=True)
    right = cumprod(reshaped, axis=0, exclusive=True, reverse=True)
    # For complex inputs the gradient is in the conjugate direction (TF; no op if real).
    y = reshape_like(conj(left) * conj(right), permuted)
    inverse = np.argsort(perm).astype(np.int32)
    out = grad * transpose(y, inverse)
    return [reshape_like(out, r.x), None]


@gradient("Cumsum")
def _cumsum_grad(op, grad):
    exclusive = op._attrs["exclusive"]
    reverse = op._attrs["reverse"]
    return [cumsum(grad, op._inputs[1], exclusive=exclusive, reverse=not reverse), None]


@gradient("Cumprod")
def _cumprod_grad(op, grad):
    # TF's formula, d x_i = (sum over the later k of grad_k * y_k) / x_i, divides by x:
    # with a zero in x it gives nan (TF 1.15) or 0 (TF 2, div_no_nan), both wrong (a
    # cumprod is a polynomial: its gradient exists everywhere). Along the axis, with z
    # the first zero (in the scan's direction): before z, x_i != 0 and TF's formula is
    # right; at z, the products that skip x_z are those of x with x_z set to 1; after z,
    # every product holds x_z, so 0. Complex x: the products are conjugated, as every
    # complex gradient (TF's own Cumprod gradient forgets to; docs/complex.md).
    x, axis = op._inputs
    exclusive = op._attrs["exclusive"]
    reverse = op._attrs["reverse"]

    def scan_sum(t):
        return cumsum(t, axis, exclusive=exclusive, reverse=not reverse)
    nonzero = cast_ops.cast(comparison_ops.not_equal(x, 0), x.dtype.base_dtype)
    # 1 where every earlier element is nonzero: up to and including the first zero
    no_zero_before = cumprod(nonzero, axis, exclusive=True, reverse=reverse)
    before_first_zero = no_zero_before * nonzero
    first_zero = no_zero_before - before_first_zero
    ones = fill_ops.ones_like(x)
    safe_x = where_ops.where(real(nonzero) > 0, x, ones)
    before = scan_sum(conj(cumprod(x, axis, exclusive=exclusive, reverse=reverse)) * grad
                      ) / conj(safe_x)
    x_without_zero = where_ops.where(real(first_zero) > 0, ones, x)
    at_zero = scan_sum(conj(cumprod(x_without_zero, axis, exclusive=exclusive,
                                    reverse=reverse)) * grad)
    return [before * before_first_zero + at_zero * first_zero, None]



def _prod_grad_at_run_time(r, grad):
    """The same, with the permutation and the sizes computed when the graph runs."""
    perm, sizes = apply_op("ReductionPermutation", [shape(r.x), r.axes_t], {},
                           name="ReductionPermutation")
    permuted = transpose(r.x, perm)
    reshaped = reshape(permuted, sizes)
    left = cumprod(reshaped, axis=0, exclusive=True)
    right = cumprod(reshaped, axis=0, exclusive=True, reverse=True)
    y = reshape(conj(left) * conj(right), shape(permuted))
    out = grad * transpose(y, invert_permutation(perm))
    return reshape(out, shape(r.x))
