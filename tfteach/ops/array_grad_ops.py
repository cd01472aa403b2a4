"""The op types array gradients are built from, as TensorFlow's gen_array_ops has them.

ConcatOffset (where each concat input starts), InvertPermutation (undoes a transpose),
StridedSliceGrad (scatters a slice's gradient back), MirrorPadGrad (folds a mirrored
border back), ScatterNd (the reverse of gather_nd) and MatrixDiagPart. Kernels are in
kernels/cpu/array_grad_kernels.py.
"""
import numpy as np

from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.kernels.cpu import array_grad_kernels as grad_kernels
from tfteach.kernels.cpu.slice_spec import SliceError, as_int_list, resolve_strided_slice
from tfteach.ops.build_time_values import inferred_value
from tfteach.ops.op_builder import ShapeError, apply_op
from tfteach.ops.shape_utils import partial_shape_from_tensor

__all__ = ["concat_offset", "invert_permutation", "strided_slice_grad", "mirror_pad_grad",
           "scatter_nd", "matrix_diag_part"]

_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


# -- ConcatOffset -------------------------------------------------------------------------
def _concat_offset_shape(op):
    return [(t.dtype.base_dtype, t.shape) for t in op._inputs[1:]]


register_op("ConcatOffset", _concat_offset_shape, cpu=grad_kernels.concat_offset)
not_differentiable("ConcatOffset")


def concat_offset(concat_dim, shapes, name=None):
    """One offset vector per shape: where that input of a concat starts in the result."""
    result = apply_op("ConcatOffset", [convert_to_tensor(concat_dim, dtype=dtypes.int32)] +
                      list(shapes), {"N": len(shapes)}, name or "ConcatOffset")
    return result if isinstance(result, list) else [result]


# -- InvertPermutation ----------------------------------------------------------------------
def _same_shape(op):
    x = op._inputs[0]
    return [(x.dtype.base_dtype, x.shape)]


register_op("InvertPermutation", _same_shape, cpu=grad_kernels.invert_permutation)
not_differentiable("InvertPermutation")


def invert_permutation(x, name=None):
    x = convert_to_tensor(x, preferred_dtype=dtypes.int32)
    return apply_op("InvertPermutation", [x], {"T": x.dtype.base_dtype},
                    name or "InvertPermutation")


# -- StridedSliceGrad ---------------------------------------------------------------------------
def _strided_slice_grad_shape(op):
    shape_t, dy = op._inputs[0], op._inputs[4]
    return [(dy.dtype.base_dtype, partial_shape_from_tensor(shape_t))]


register_op("StridedSliceGrad", _strided_slice_grad_shape, cpu=grad_kernels.strided_slice_grad)


def strided_slice_grad(shape, begin, end, strides, dy, name=None, **masks):
    """Zeros of `shape` with `dy` where `strided_slice(begin, end, strides, masks)` read."""
    attrs = {"T": dy.dtype.base_dtype, "Index": shape.dtype.base_dtype}
    attrs.update((m, int(masks.get(m, 0))) for m in _MASKS)
    return apply_op("StridedSliceGrad", [shape, begin, end, strides, dy], attrs,
                    name or "StridedSliceGrad")


def static_strided_slice_shape(shape, begin, end, strides, masks):
    """The forward slice's output shape when everything is known at build time (else None)."""
    values = [inferred_value(t) for t in (begin, end, strides)]
    if not shape.is_fully_defined() or any(v is None for v in values):
        return None
    try:
        return resolve_strided_slice(shape.as_list(), *[as_int_list(v) for v in values],
                                     masks)[1]
    except SliceError:
        return None


# -- MirrorPadGrad --------------------------------------------------------------------------------
def _mirror_pad_grad_shape(op):
    grad, paddings_t = op._inputs
    dtype = grad.dtype.base_dtype
    paddings = inferred_value(paddings_t)
    if paddings is None or grad.shape.ndims is None:
        rank = grad.shape.ndims
        return [(dtype, tensor_shape.unknown_shape(rank=rank))]
    paddings = np.asarray(paddings).reshape(-1, 2)
    out = [None if d is None else d - int(p[0]) - int(p[1])
           for d, p in zip(grad.shape.as_list(), paddings)]
    if any(d is not None and d < 0 for d in out):
        raise ShapeError("Paddings must be non-negative and fit the input")
    return [(dtype, tensor_shape.TensorShape(out))]


register_op("MirrorPadGrad", _mirror_pad_grad_shape, cpu=grad_kernels.mirror_pad_grad)


def mirror_pad_grad(grad, paddings, mode, name=None):
    return apply_op("MirrorPadGrad", [grad, paddings],
                    {"T": grad.dtype.base_dtype, "Tpaddings": paddings.dtype.base_dtype,
                     "mode": mode}, name or "MirrorPadGrad")


# -- ScatterNd ------------------------------------------------------------------------------------
def _scatter_nd_shape(op):
    updates, shape_t = op._inputs[1], op._inputs[2]
    return [(updates.dtype.base_dtype, partial_shape_from_tensor(shape_t))]


register_op("ScatterNd", _scatter_nd_shape, cpu=grad_kernels.scatter_nd)


def scatter_nd(indices, updates, shape, name=None):
    """Zeros of `shape` with `updates` added at `indices` (duplicates add up)."""
    indices = convert_to_tensor(indices, name="indices")
    updates = convert_to_tensor(updates, name="updates")
    shape = convert_to_tensor(shape, name="shape", dtype=indices.dtype.base_dtype)
    return apply_op("ScatterNd", [indices, updates, shape],
                    {"T": updates.dtype.base_dtype, "Tindices": indices.dtype.base_dtype},
                    name or "ScatterNd")


# -- MatrixDiagPart ------------------------------------------------------------------------------
def _matrix_diag_part_shape(op):
    x = op._inputs[0]
    dtype = x.dtype.base_dtype
    if x.shape.ndims is None:
        return [(dtype, tensor_shape.unknown_shape())]
    if x.shape.ndims < 2:
        raise ShapeError("Shape must be at least rank 2 but is rank %d" % x.shape.ndims)
    dims = x.shape.as_list()
    rows, cols = dims[-2:]
    diag = None if rows is None or cols is None else min(rows, cols)
    return [(dtype, tensor_shape.TensorShape(dims[:-2] + [diag]))]


register_op("MatrixDiagPart", _matrix_diag_part_shape, cpu=grad_kernels.matrix_diag_part)


def matrix_diag_part(x, name=None):
    x = convert_to_tensor(x, name="input")
    return apply_op("MatrixDiagPart", [x], {"T": x.dtype.base_dtype}, name or "MatrixDiagPart")
