"""tf.slice, tf.strided_slice and `tensor[...]` (Tensor.__getitem__), as in TF 1.x.

`x[1:, ..., tf.newaxis, -1]` is turned, as TensorFlow's `_slice_helper` does, into one
StridedSlice op: begin/end/strides vectors (packed from the Python ints or tensors) and
bit masks saying which entries are `:` bounds, `...`, new axes or single indices.
"""
import builtins
import sys

import numpy as np

from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import register_op
from tfteach.framework.tensor import Tensor
from tfteach.kernels.cpu import slice_kernels
from tfteach.kernels.cpu.slice_spec import SliceError, as_int_list, resolve_strided_slice
from tfteach.ops.build_time_values import inferred_value
from tfteach.ops.list_inputs import index_dtype_of
from tfteach.ops.op_builder import ShapeError, apply_op, constant_value
from tfteach.ops.shape_utils import partial_shape_from_tensor, shape_error
# (imported here, not at the first slice: it registers StridedSliceAssign, which a
# GraphDef read before any slice was built may name)
from tfteach.ops.slice_assign import attach_assign

__all__ = ["slice", "strided_slice"]


# -- Slice ---------------------------------------------------------------------------------------
def _slice_shape(op):
    x, begin_t, size_t = op._inputs
    dtype = x.dtype.base_dtype
    for t in (begin_t, size_t):
        if t.shape.ndims not in (None, 1):
            raise ShapeError("Shape must be rank 1 but is rank %d" % t.shape.ndims)
    n = begin_t.shape[0].value if begin_t.shape.ndims == 1 else None
    m = size_t.shape[0].value if size_t.shape.ndims == 1 else None
    if n is not None and m is not None and n != m:
        raise ShapeError("Dimension 0 in both shapes must be equal, but are %d and %d. "
                         "Shapes are [%d] and [%d]." % (n, m, n, m))
    n = n if n is not None else m
    if n is not None and x.shape.ndims not in (None, n):
        raise ShapeError("Shape must be rank %d but is rank %d" % (n, x.shape.ndims))
    sizes_shape = partial_shape_from_tensor(size_t)    # (rejects sizes below -1)
    sizes = inferred_value(size_t)
    if sizes is None:
        if sizes_shape.ndims is not None:
            return [(dtype, sizes_shape)]
        return [(dtype, tensor_shape.unknown_shape(rank=n if n is not None else
                                                   x.shape.ndims))]
    sizes = as_int_list(sizes)
    begin = inferred_value(begin_t)
    dims = x.shape.as_list() if x.shape.ndims is not None else [None] * len(sizes)
    out = []
    for i, s in enumerate(sizes):
        if s == -1:
            if begin is None or dims[i] is None:
                out.append(None)
                continue
            b = as_int_list(begin)[i]
            if dims[i] - b < 0:
                raise shape_error("Negative dimension size caused by subtracting %d from %d"
                                  % (b, dims[i]), op, partial=[1, 2])
            out.append(dims[i] - b)
        else:
            out.append(s)
    return [(dtype, tensor_shape.TensorShape(out))]


register_op("Slice", _slice_shape, cpu=slice_kernels.slice_kernel)


def slice(input_, begin, size, name=None):  # noqa: A001 - TF's public name
    """The part of `input_` starting at `begin` with shape `size` (-1: to the end)."""
    with name_scope(name, "Slice", [input_]) as scope:
        x = convert_to_tensor(input_, name="input")
        begin_t = convert_to_tensor(begin, name="begin", preferred_dtype=dtypes.int32)
        size_t = convert_to_tensor(size, name="size", dtype=begin_t.dtype)
        index_dtype_of(begin_t, "begin")
        return apply_op("Slice", [x, begin_t, size_t], {"T": x.dtype.base_dtype,
                                                        "Index": begin_t.dtype}, scope)


# -- StridedSlice --------------------------------------------------------------------------------
_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _strided_slice_shape(op):
    x, begin_t, end_t, strides_t = op._inputs
    dtype = x.dtype.base_dtype
    lengths = [t.shape[0].value if t.shape.ndims == 1 else None for t in op._inputs[1:]]
    for t in op._inputs[1:]:
        if t.shape.ndims not in (None, 1):
            raise ShapeError("Shape must be rank 1 but is rank %d" % t.shape.ndims)
    known = [n for n in lengths if n is not None]
    if any(n != known[0] for n in known):
        raise ShapeError("Dimension 0 in both shapes must be equal, but are %d and %d. Shapes "
                         "are [%d] and [%d]." % (known[0], [n for n in known if n != known[0]][0],
                                                 known[0], [n for n in known
                                                            if n != known[0]][0]))
    strides = inferred_value(strides_t)
    if x.shape.ndims is None or not known or strides is None:
        return [(dtype, tensor_shape.unknown_shape())]
    begin, end = inferred_value(begin_t), inferred_value(end_t)
    if end is None:
        end = _end_ignoring_shrink_axes(end_t, op._attrs["shrink_axis_mask"])
    masks = tuple(op._attrs[m] for m in _MASKS)
    try:
        _, final = resolve_strided_slice(
            x.shape.as_list(), None if begin is None else as_int_list(begin),
            None if end is None else as_int_list(end), as_int_list(strides), masks)
    except SliceError as e:
        raise shape_error(str(e), op, computed=[1, 2, 3]) from None
    return [(dtype, tensor_shape.TensorShape(final))]


def _end_ignoring_shrink_axes(end_t, shrink_axis_mask):
    """`x[t]` with a tensor index t builds end = t + 1, which is not a constant; but a
    shrink axis takes only its begin (TF's shape inference folds the sum anyway). The
    end vector, with 0 in those places, when every other entry is a constant."""
    if end_t.op.type != "Pack":
        return None
    parts = [inferred_value(t) for t in end_t.op._inputs]
    if any(p is None and not shrink_axis_mask >> i & 1 for i, p in enumerate(parts)):
        return None
    return np.array([0 if p is None else int(p) for p in parts], dtype=np.int64)


register_op("StridedSlice", _strided_slice_shape, cpu=slice_kernels.strided_slice)


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """`input_[begin:end:strides]` per dimension, with TF's five bit masks."""
    with name_scope(name, "StridedSlice", [input_]) as scope:
        x = convert_to_tensor(input_, name="input")
        begin_t = convert_to_tensor(begin, name="begin", preferred_dtype=dtypes.int32)
        end_t = convert_to_tensor(end, name="end", dtype=begin_t.dtype)
        if strides is None:
            known_begin = constant_value(begin_t)
            if known_begin is not None:
                # TF's ones_like(begin) is a constant then: keep the strides known statically.
                from tfteach.ops.constant_op import constant
                strides_t = constant(np.ones_like(known_begin), name="ones_like")
            else:
                from tfteach.ops.fill_ops import ones_like
                strides_t = ones_like(begin_t)
        else:
            strides_t = convert_to_tensor(strides, name="strides", dtype=begin_t.dtype)
        index_dtype_of(begin_t, "begin")
        masks = {"begin_mask": begin_mask, "end_mask": end_mask,
                 "ellipsis_mask": ellipsis_mask, "new_axis_mask": new_axis_mask,
                 "shrink_axis_mask": shrink_axis_mask}
        attrs = dict(masks, T=x.dtype.base_dtype, Index=begin_t.dtype)
        sliced = apply_op("StridedSlice", [x, begin_t, end_t, strides_t], attrs, scope)
    if var is not None or not hasattr(sliced, "_value"):
        # TF gives a variable's slice (and any graph tensor's) an `assign` method
        attach_assign(sliced, var, begin_t, end_t, strides_t, masks, scope)
    return sliced


# -- tensor[...] ----------------------------------------------------------------------------------
_SLICE_TYPE_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                     "scalar tf.int32/tf.int64 tensors are valid indices")


def _check_index(idx):
    """TF's rule: ints, Dimensions, or scalar int32/int64 values (tensors, NumPy ints)."""
    if isinstance(idx, (int, tensor_shape.Dimension)) and not isinstance(idx, bool):
        return
    dtype = getattr(idx, "dtype", None)
    try:
        ok = dtype is not None and dtypes.as_dtype(dtype).base_dtype in (dtypes.int32,
                                                                        dtypes.int64)
    except TypeError:
        ok = False
    rank = idx.shape.ndims if isinstance(idx, Tensor) else np.ndim(idx)
    if not ok or rank == 1:
        raise TypeError(_SLICE_TYPE_ERROR + ", got {!r}".format(idx))


def _plain(idx):
    return idx.value if isinstance(idx, tensor_shape.Dimension) else idx


def _plus_one(index):
    if isinstance(index, Tensor):
        try:
            return index + 1
        except TypeError:
            return index      # (no tf.add yet: a shrink axis ignores its end anyway)
    return index + 1


def _slice_helper(tensor, slice_spec, var=None):
    """`tensor[slice_spec]` as one StridedSlice op (TF's `_slice_helper`)."""
    if isinstance(slice_spec, bool) or (isinstance(slice_spec, Tensor) and
                                        slice_spec.dtype.base_dtype == dtypes.bool) or (
            isinstance(slice_spec, np.ndarray) and slice_spec.dtype == bool):
        from tfteach.ops.where_ops import boolean_mask
        return boolean_mask(tensor, slice_spec)
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin, end, strides = [], [], []
    masks = dict.fromkeys(_MASKS, 0)
    for index, s in enumerate(slice_spec):
        bit = 1 << index
        if isinstance(s, builtins.slice):
            # `a[:]` may arrive as slice(None, sys.maxsize, None): both mean "to the end".
            if s.start is not None and (isinstance(s.start, Tensor) or s.start != sys.maxsize):
                _check_index(s.start)
                begin.append(_plain(s.start))
            else:
                begin.append(0)
                masks["begin_mask"] |= bit
            if s.stop is not None and (isinstance(s.stop, Tensor) or s.stop != sys.maxsize):
                _check_index(s.stop)
                end.append(_plain(s.stop))
            else:
                end.append(0)
                masks["end_mask"] |= bit
            if s.step is not None:
                _check_index(s.step)
                strides.append(_plain(s.step))
            else:
                strides.append(1)
        elif s is Ellipsis:
            begin.append(0), end.append(0), strides.append(1)
            masks["ellipsis_mask"] |= bit
        elif s is None:
            begin.append(0), end.append(0), strides.append(1)
            masks["new_axis_mask"] |= bit
        else:
            _check_index(s)
            s = _plain(s)
            begin.append(s), end.append(_plus_one(s)), strides.append(1)
            masks["shrink_axis_mask"] |= bit
    values = [tensor] + begin + end + strides
    with name_scope(None, "strided_slice", [v for v in values if isinstance(v, Tensor)]) \
            as scope:
        if begin:
            from tfteach.ops.join_ops import stack
            packed = [stack(begin), stack(end), stack(strides)]
        else:
            from tfteach.ops.constant_op import constant
            packed = [constant([], dtype=dtypes.int32)] * 3
        if any(p.dtype.base_dtype == dtypes.int64 for p in packed):
            packed = [_to_int64(p) for p in packed]
        return strided_slice(tensor, packed[0], packed[1], packed[2], var=var, name=scope,
                             **masks)


def _to_int64(t):
    if t.dtype.base_dtype == dtypes.int64:
        return t
    value = constant_value(t)
    if value is not None:
        from tfteach.ops.constant_op import constant
        return constant(np.asarray(value, dtype=np.int64))
    from tfteach.ops import math_ops
    return math_ops.cast(t, dtypes.int64)


Tensor._override_operator("__getitem__", _slice_helper)
