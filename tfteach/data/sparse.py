"""SparseTensor components of dataset elements (`parse_single_example`'s VarLenFeature).

A component is dense (one tensor) or sparse (a `tf.SparseTensor`: three tensors). Inside
a pipeline a sparse component travels as one value, a SparseTensorValue; where the
pipeline meets the graph — a traced function's arguments and results, `get_next()`'s
outputs — it is its three tensors (indices int64 [N, rank], values [N], dense_shape
int64 [rank]), as TF 1.15's iterators hand a SparseTensor back. `batch` stacks sparse
components as TF does: the batch index becomes the first column of the indices, and
the dense shape is the batch size followed by the largest shape in the batch.
"""
import numpy as np

from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.errors import InvalidArgumentError
from tfteach.framework.sparse_tensor import SparseTensor, SparseTensorValue

__all__ = ["graph_signature", "to_tensors", "from_tensors", "pack_values", "unpack_values",
           "batch_sparse", "SparseTensor"]


def _rank(spec):
    return spec.shape.ndims


def graph_signature(specs):
    """[(dtype, TensorShape)] of the graph tensors standing for components `specs`."""
    out = []
    for spec in specs:
        if spec.sparse:
            rank = _rank(spec)
            out += [(dtypes.int64, tensor_shape.TensorShape([None, rank])),
                    (spec.dtype, tensor_shape.TensorShape([None])),
                    (dtypes.int64, tensor_shape.TensorShape([rank]))]
        else:
            out.append((spec.dtype, spec.shape))
    return out


def to_tensors(value):
    """The graph tensors of one component (a Tensor, or a SparseTensor's three)."""
    if isinstance(value, SparseTensor):
        return [value.indices, value.values, value.dense_shape]
    return [value]


class _ShapedSparseTensor(SparseTensor):
    """A SparseTensor that knows the static dense shape of its component, as TF's
    iterators and function arguments restore it (their dense_shape is a run-time
    value)."""

    def __init__(self, indices, values, dense_shape, static_shape):
        super().__init__(indices, values, dense_shape)
        self._static_shape = static_shape

    def get_shape(self):
        shape = super().get_shape()
        try:
            return shape.merge_with(self._static_shape)
        except ValueError:
            return shape


_ShapedSparseTensor.__name__ = _ShapedSparseTensor.__qualname__ = "SparseTensor"


def from_tensors(specs, tensors, known_shapes_as_constants=False):
    """Components (Tensors / SparseTensors) of `specs` from their graph tensors.

    `known_shapes_as_constants` (a traced function's arguments): a fully known dense
    shape is given as a constant, so a SparseTensor the function rebuilds from it keeps
    its static shape, as in TF."""
    from tfteach.ops.constant_op import constant
    tensors, out = list(tensors), []
    for spec in specs:
        if spec.sparse:
            indices, values, shape = tensors[:3]
            del tensors[:3]
            if known_shapes_as_constants and spec.shape.is_fully_defined():
                shape = constant(np.array(spec.shape.as_list(), np.int64), name="shape")
            out.append(_ShapedSparseTensor(indices, values, shape, spec.shape))
        else:
            out.append(tensors.pop(0))
    return out


def pack_values(specs, values):
    """Run time: component values (SparseTensorValue for sparse) from graph values."""
    values, out = list(values), []
    for spec in specs:
        if spec.sparse:
            out.append(SparseTensorValue(*(np.asarray(v) for v in values[:3])))
            del values[:3]
        else:
            out.append(values.pop(0))
    return out


def unpack_values(specs, components):
    """Run time: the graph values of component values (the inverse of pack_values)."""
    out = []
    for spec, value in zip(specs, components):
        if spec.sparse:
            if not isinstance(value, SparseTensorValue):
                raise InvalidArgumentError(None, None, "Expected a SparseTensor component, "
                                           "got a dense value of shape %s"
                                           % (np.shape(value),))
            out += [value.indices, value.values, value.dense_shape]
        else:
            out.append(value)
    return out


def batch_sparse(rows):
    """SparseTensorValues of one rank stacked into one, TF's way."""
    ranks = {len(r.dense_shape) for r in rows}
    if len(ranks) != 1:
        raise InvalidArgumentError(None, None, "Cannot batch sparse tensors of different "
                                   "ranks: %s" % sorted(ranks))
    rank = ranks.pop()
    shape = np.max(np.stack([np.asarray(r.dense_shape, np.int64) for r in rows]), axis=0)
    indices = [np.concatenate([np.full((len(r.values), 1), i, np.int64),
                               np.asarray(r.indices, np.int64).reshape(len(r.values), rank)],
                              axis=1) for i, r in enumerate(rows)]
    values = [np.asarray(r.values) for r in rows]
    return SparseTensorValue(np.concatenate(indices).astype(np.int64),
                             np.concatenate(values),
                             np.concatenate([[len(rows)], shape]).astype(np.int64))
