"""Sliced assignment: `v[:, 1].assign([9., 9.])` writes into part of a variable.

As in TF 1.15, slicing a variable gives a tensor with an `assign` method
(`_SliceHelperVar`), which adds a `StridedSliceAssign` op: the variable by reference,
the slice's begin/end/strides and its five masks, and the new values, whose shape must
be the slice's (TF 1.15 does not broadcast: `UnimplementedError: sliced l-value shape
[3] does not match r-value shape [2]. Automatic broadcasting not yet implemented.`). It
returns the variable's ref tensor holding the new value; executing eagerly it updates
the variable at once and returns the variable. A slice of a plain graph tensor has the
method too, and it raises TF's ValueError ("Sliced assignment is only supported for
variables"). The op is named `<the slice's scope>/_assign` (`strided_slice/_assign`).
"""
import numpy as np

from tfteach.framework import convert
from tfteach.framework.errors import UnimplementedError
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.kernels.cpu.shape_kernels import invalid_argument, shape_text
from tfteach.kernels.cpu.slice_spec import SliceError, resolved_index
from tfteach.kernels.cpu.state_kernels import variable_ref_of
from tfteach.ops.op_builder import apply_op

__all__ = ["attach_assign"]

_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _kernel(ctx, ref, begin, end, strides, value):
    ref = variable_ref_of(ctx, ref)
    old = ref.deref()
    masks = tuple(ctx.attrs[m] for m in _MASKS)
    try:
        index, final_shape = resolved_index(
            old.shape, tuple(np.asarray(begin).tolist()), tuple(np.asarray(end).tolist()),
            tuple(np.asarray(strides).tolist()), masks)
    except SliceError as e:
        raise invalid_argument(ctx, str(e)) from None
    value = np.asarray(value, dtype=old.dtype)
    target = old[index] if index else old
    if target.size:
        if tuple(value.shape) != tuple(final_shape):
            raise UnimplementedError(
                None, ctx.op, "sliced l-value shape %s does not match r-value shape %s. "
                "Automatic broadcasting not yet implemented."
                % (shape_text(final_shape), shape_text(value.shape)))
        new = old.copy()                    # readers of the old value keep it
        if index:
            new[index] = value.reshape(target.shape)
        else:
            new[...] = value.reshape(target.shape)
        ref.store_value(new, owned=True)
    return ref


def _shape(op):
    ref = op._inputs[0]
    return [(ref.dtype.base_dtype._as_ref, ref.shape)]


register_op("StridedSliceAssign", _shape, cpu=_kernel, stateful=True, ref_inputs=(0,))
not_differentiable("StridedSliceAssign")


def attach_assign(sliced, var, begin, end, strides, masks, scope):
    """Gives the result of `var[...]` (or of a graph tensor's slice, `var` None) TF's
    `assign(value, name=None)`."""
    def assign(value, name=None):
        if var is None:
            raise ValueError("Sliced assignment is only supported for variables")
        return _strided_slice_assign(var, begin, end, strides, value, masks,
                                     name or scope + "_assign")
    sliced.assign = assign
    return sliced


def _strided_slice_assign(var, begin, end, strides, value, masks, name):
    from tfteach.framework.eager_mode import executing_eagerly
    eager = executing_eagerly() and hasattr(var, "_ref_value")
    ref = var._ref_tensor if eager else var._ref()
    value = convert.convert_to_tensor(value, dtype=ref.dtype.base_dtype, name="value")
    attrs = dict(masks, T=ref.dtype.base_dtype, Index=begin.dtype.base_dtype)
    result = apply_op("StridedSliceAssign", [ref, begin, end, strides, value], attrs, name)
    return var if eager else result
