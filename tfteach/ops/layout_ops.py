"""Ops that rearrange or repeat a tensor's elements: transpose, reverse, tile, pad."""
import numpy as np

from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.convert import convert_to_tensor, is_tensor
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import register_op
from tfteach.kernels.cpu import array_kernels
from tfteach.ops.build_time_values import inferred_value
from tfteach.ops.list_inputs import index_dtype_of
from tfteach.ops.op_builder import ShapeError, apply_op
from tfteach.ops.shape_utils import partial_shape_from_tensor, shape_error
from tfteach.ops.typed_inputs import refuse_none

__all__ = ["transpose", "reverse", "reverse_v2", "tile", "pad"]


# -- Transpose ------------------------------------------------------------------------------
def _transpose_shape(op):
    x, perm_t = op._inputs
    dtype = x.dtype.base_dtype
    perm = inferred_value(perm_t)
    perm_len = perm_t.shape[0].value if perm_t.shape.ndims == 1 else None
    if x.shape.ndims is not None:
        rank = x.shape.ndims
    elif perm_len is not None:
        rank = perm_len
    elif perm is not None:
        rank = np.size(perm)
    else:
        return [(dtype, tensor_shape.unknown_shape())]
    if x.shape.ndims is None and rank < 2:
        return [(dtype, x.shape)]     # one perm entry: a scalar or a vector, both unchanged
    if perm_t.shape.ndims not in (None, 1):
        raise ShapeError("Shape must be rank 1 but is rank %d" % perm_t.shape.ndims)
    if perm_len is not None and perm_len != rank:
        raise ShapeError("Dimension must be %d but is %d" % (rank, perm_len))
    if perm is None or x.shape.ndims is None:
        return [(dtype, tensor_shape.unknown_shape(rank=rank))]
    dims = x.shape.as_list()
    out = []
    for p in np.asarray(perm).reshape(-1):
        if p >= rank:
            raise shape_error("perm dim %d is out of range of input rank %d" % (p, rank), op,
                              computed=[1])
        out.append(dims[p])
    return [(dtype, tensor_shape.TensorShape(out))]


register_op("Transpose", _transpose_shape, cpu=array_kernels.transpose)
# transpose(..., conjugate=True) of a complex tensor: the conjugate of the transpose.
register_op("ConjugateTranspose", _transpose_shape,
            cpu=lambda ctx, x, perm: np.conj(array_kernels.transpose(ctx, x, perm)))


def transpose(a, perm=None, name="transpose", conjugate=False):
    """Permutes the dimensions of `a`; the default `perm` reverses them.

    `conjugate=True` also conjugates a complex tensor (`ConjugateTranspose`: for a
    matrix, its conjugate transpose a^H); for real dtypes it changes nothing.
    """
    with name_scope(name, "transpose", [a]) as scope:
        x = convert_to_tensor(a, name="a")
        if perm is None:
            rank = x.shape.ndims
            if rank is None:
                # Unknown rank: reverse(range(rank(a))), computed when the graph runs.
                from tfteach.ops.fill_ops import range as range_op
                from tfteach.ops.shape_ops import rank as rank_op
                perm = reverse_v2(range_op(rank_op(x)), [0])
            else:
                perm = np.arange(rank - 1, -1, -1, dtype=np.int32)
        perm_t = convert_to_tensor(perm, name="perm", preferred_dtype=dtypes.int32)
        index_dtype_of(perm_t, "perm")
        op_type = "ConjugateTranspose" if conjugate and x.dtype.is_complex else "Transpose"
        return apply_op(op_type, [x, perm_t], {"T": x.dtype.base_dtype,
                                                   "Tperm": perm_t.dtype}, scope)


# -- ReverseV2 ----------------------------------------------------------------------------
def _reverse_shape(op):
    x, axis_t = op._inputs
    if axis_t.shape.ndims not in (None, 1):
        raise ShapeError("Shape must be rank 1 but is rank %d" % axis_t.shape.ndims)
    axes = inferred_value(axis_t)
    if axes is not None and x.shape.ndims is not None:
        rank = x.shape.ndims
        seen = set()
        for i, a in enumerate(np.asarray(axes).reshape(-1)):
            canonical = a + rank if a < 0 else a
            if not 0 <= canonical < rank:
                # (TF's text really lacks the closing bracket.)
                raise shape_error("'axis'[%d] = %d is out of valid range [0, %d" % (
                    i, a, rank - 1), op, computed=[1])
            if canonical in seen:
                raise shape_error("axis %d specified more than once." % canonical, op,
                                  computed=[1])
            seen.add(canonical)
    return [(x.dtype.base_dtype, x.shape)]


register_op("ReverseV2", _reverse_shape, cpu=array_kernels.reverse)


def reverse_v2(tensor, axis, name=None):
    """Reverses `tensor` along each dimension in the list `axis`."""
    with name_scope(name, "ReverseV2", [tensor]) as scope:
        x = convert_to_tensor(tensor, name="tensor")
        axis_t = convert_to_tensor(axis, name="axis", preferred_dtype=dtypes.int32)
        index_dtype_of(axis_t, "axis")
        return apply_op("ReverseV2", [x, axis_t], {"T": x.dtype.base_dtype,
                                                   "Tidx": axis_t.dtype}, scope)


reverse = reverse_v2


# -- Tile ------------------------------------------------------------------------------------
def _multiply_dims(a, b):
    if a == 0 or b == 0:
        return 0
    return None if a is None or b is None else a * b


def _tile_shape(op):
    x, multiples_t = op._inputs
    dtype = x.dtype.base_dtype
    if multiples_t.shape.ndims not in (None, 1):     # `tf.tile(x, 3)`: a vector, as TF says
        raise ShapeError("Shape must be rank 1 but is rank %d" % multiples_t.shape.ndims)
    multiples = partial_shape_from_tensor(multiples_t)
    if x.shape.ndims is not None:
        rank = x.shape.ndims
        if multiples.ndims is not None and multiples.ndims != rank:
            raise ShapeError("Shape must be rank %d but is rank %d" % (rank, multiples.ndims))
        multiples = tensor_shape.unknown_shape(rank=rank) if multiples.ndims is None \
            else multiples
    if multiples.ndims is None:
        return [(dtype, tensor_shape.unknown_shape())]
    rank = multiples.ndims
    if x.shape.ndims is None:
        return [(dtype, tensor_shape.unknown_shape(rank=rank))]
    dims = [_multiply_dims(a, b) for a, b in zip(x.shape.as_list(), multiples.as_list())]
    return [(dtype, tensor_shape.TensorShape(dims))]


register_op("Tile", _tile_shape, cpu=array_kernels.tile)


def tile(input, multiples, name=None):  # noqa: A002 - TF's argument name
    """Repeats `input` `multiples[i]` times along dimension i."""
    with name_scope(name, "Tile", [input]) as scope:
        refuse_none(input, "input")
        x = convert_to_tensor(input, name="input")
        multiples_t = convert_to_tensor(multiples, name="multiples", preferred_dtype=dtypes.int32)
        index_dtype_of(multiples_t, "multiples")
        return apply_op("Tile", [x, multiples_t], {"T": x.dtype.base_dtype,
                                                   "Tmultiples": multiples_t.dtype}, scope)


# -- Pad, PadV2, MirrorPad -------------------------------------------------------------------
def _pad_shape(op):
    x, paddings_t = op._inputs[:2]
    dtype = x.dtype.base_dtype
    pshape = paddings_t.shape
    if pshape.ndims not in (None, 2):
        raise ShapeError("Shape must be rank 2 but is rank %d" % pshape.ndims)
    if pshape.ndims == 2 and pshape[1].value not in (None, 2):
        raise ShapeError("Dimension must be 2 but is %d" % pshape[1].value)
    n_dim = pshape[0].value if pshape.ndims == 2 else None
    if n_dim is not None and x.shape.ndims not in (None, n_dim):
        raise ShapeError("Shape must be rank %d but is rank %d" % (n_dim, x.shape.ndims))
    if n_dim is None and x.shape.ndims is not None:
        n_dim = x.shape.ndims
    paddings = inferred_value(paddings_t)
    if paddings is None:
        return [(dtype, tensor_shape.unknown_shape(rank=n_dim))]
    paddings = np.asarray(paddings)
    if np.any(paddings < 0):
        raise shape_error("Paddings must be non-negative", op, computed=[1])
    # TF's WithRank: an input of unknown rank has as many (unknown) dims as paddings rows.
    dims = x.shape.as_list() if x.shape.ndims is not None else [None] * len(paddings)
    out = [None if d is None else d + int(p[0]) + int(p[1]) for d, p in zip(dims, paddings)]
    return [(dtype, tensor_shape.TensorShape(out))]


register_op("Pad", _pad_shape, cpu=array_kernels.pad)
register_op("PadV2", _pad_shape, cpu=array_kernels.pad)
register_op("MirrorPad", _pad_shape, cpu=array_kernels.mirror_pad)


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):
    """Pads `tensor` with `paddings[i] = [before, after]` values in each dimension."""
    mode = mode.upper()
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError("Unknown padding mode: %s" % mode)
    if mode != "CONSTANT":
        op_type = "MirrorPad"
    else:
        op_type = "Pad" if _is_plain_zero(constant_values) else "PadV2"
    with name_scope(name, op_type, [tensor]) as scope:
        x = convert_to_tensor(tensor, name="input")
        paddings_t = convert_to_tensor(paddings, name="paddings", preferred_dtype=dtypes.int32)
        index_dtype_of(paddings_t, "paddings")
        attrs = {"T": x.dtype.base_dtype, "Tpaddings": paddings_t.dtype}
        inputs = [x, paddings_t]
        if op_type == "PadV2":
            inputs.append(convert_to_tensor(constant_values, dtype=x.dtype.base_dtype,
                                            name="constant_values"))
        elif op_type == "MirrorPad":
            attrs["mode"] = mode
        return apply_op(op_type, inputs, attrs, scope)


def _is_plain_zero(value):
    """TF1 uses the old Pad op when constant_values is a Python/NumPy zero."""
    if is_tensor(value):
        return False
    try:
        return bool(np.all(np.asarray(value) == 0)) and np.ndim(value) == 0
    except (TypeError, ValueError):
        return False

