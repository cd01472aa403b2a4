"""`tf.diag` and `tf.diag_part` (TF's `Diag` / `DiagPart`), any rank.

`diag(d)` of a rank-k tensor is the rank-2k tensor with d[i1..ik] at [i1..ik, i1..ik]
and zeros elsewhere; `diag_part(x)` is its inverse: x must have rank 2k with the second
half of its shape equal to the first. (For batches of matrices use `tf.matrix_diag` /
`tf.matrix_diag_part`.) Each op's gradient is the other op.
"""
import numpy as np

from tfteach.framework import tensor_shape
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.errors import InvalidArgumentError
from tfteach.framework.registry import gradient, register_op
from tfteach.ops.op_builder import ShapeError, apply_op

__all__ = ["diag", "diag_part"]


def _diag_shape(op):
    x = op._inputs[0]
    dtype = x.dtype.base_dtype
    if x.shape.ndims is None:
        return [(dtype, tensor_shape.unknown_shape())]
    if x.shape.ndims < 1:
        raise ShapeError("Shape must be at least rank 1 but is rank %d" % x.shape.ndims)
    return [(dtype, x.shape.concatenate(x.shape))]


def _diag_kernel(ctx, d):
    d = np.asarray(d)
    out = np.zeros(d.shape + d.shape, d.dtype)
    out.reshape(d.size, d.size)[np.arange(d.size), np.arange(d.size)] = d.reshape(-1)
    return out


def _diag_part_shape(op):
    x = op._inputs[0]
    dtype = x.dtype.base_dtype
    if x.shape.ndims is None:
        return [(dtype, tensor_shape.unknown_shape())]
    rank = x.shape.ndims
    if rank % 2 or rank == 0:
        raise ShapeError("Input must have even rank <= 6, input rank is %d" % rank)
    dims = x.shape.as_list()
    half = rank // 2
    out = []
    for a, b in zip(dims[:half], dims[half:]):
        if a is not None and b is not None and a != b:
            raise ShapeError("Dimensions must be equal, but are %d and %d" % (a, b))
        out.append(a if a is not None else b)
    return [(dtype, tensor_shape.TensorShape(out))]


def _diag_part_kernel(ctx, x):
    x = np.asarray(x)
    half = x.ndim // 2
    if x.ndim % 2 or x.shape[:half] != x.shape[half:]:
        raise InvalidArgumentError(None, ctx.op, "Invalid shape %s: dimensions must match" %
                                   str(list(x.shape)).replace(" ", ""))
    size = int(np.prod(x.shape[:half], dtype=np.int64))
    return x.reshape(size, size).diagonal().reshape(x.shape[:half]).copy()


register_op("Diag", _diag_shape, cpu=_diag_kernel)
register_op("DiagPart", _diag_part_shape, cpu=_diag_part_kernel)


def diag(diagonal, name=None):
    """The tensor with `diagonal` on its diagonal and zeros elsewhere (`Diag`)."""
    diagonal = convert_to_tensor(diagonal, name="diagonal")
    return apply_op("Diag", [diagonal], {"T": diagonal.dtype.base_dtype}, name or "Diag")


def diag_part(input, name=None):  # noqa: A002 - TensorFlow's argument name
    """The diagonal of a rank-2k tensor (`DiagPart`)."""
    x = convert_to_tensor(input, name="input")
    return apply_op("DiagPart", [x], {"T": x.dtype.base_dtype}, name or "DiagPart")


@gradient("Diag")
def _diag_grad(op, grad):
    return [diag_part(grad)]


@gradient("DiagPart")
def _diag_part_grad(op, grad):
    return [diag(grad)]
