"""`tf.SparseTensor` and `tf.SparseTensorValue`: a tensor stored as its non-default cells.

A SparseTensor is not one graph tensor but three, as in TensorFlow:
  - indices      int64 [N, rank]: the coordinates of the N stored cells, row-major order;
  - values       [N]: their values (any dtype);
  - dense_shape  int64 [rank]: the shape of the dense tensor it stands for.
`Session.run` of a SparseTensor fetches the three and returns a SparseTensorValue (a
namedtuple of three NumPy arrays, runtime/fetches.py); a SparseTensor key of a feed_dict
(a `tf.sparse_placeholder`) takes a SparseTensorValue or any (indices, values, shape)
triple. `VarLenFeature` of `tf.parse_example` returns one.

This is TF 1.15's class, minimal: no sparse arithmetic ops (tf.sparse.add, ...) yet.
"""
import collections

from tfteach.framework import dtypes
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.graph_functions import name_scope

__all__ = ["SparseTensor", "SparseTensorValue", "is_sparse"]

SparseTensorValue = collections.namedtuple("SparseTensorValue",
                                           ["indices", "values", "dense_shape"])
SparseTensorValue.__doc__ = ("The value of a SparseTensor that `Session.run` returns: "
                             "indices, values and dense_shape as NumPy arrays.")


class SparseTensor:
    """`tf.SparseTensor(indices, values, dense_shape)`."""

    @classmethod
    def from_value(cls, sparse_tensor_value):
        return cls(indices=sparse_tensor_value.indices, values=sparse_tensor_value.values,
                   dense_shape=sparse_tensor_value.dense_shape)

    def __init__(self, indices, values, dense_shape):
        with name_scope(None, "SparseTensor", [indices, values, dense_shape]):
            indices = convert_to_tensor(indices, name="indices", dtype=dtypes.int64)
            values = convert_to_tensor(values, name="values")
            dense_shape = convert_to_tensor(dense_shape, name="dense_shape",
                                            dtype=dtypes.int64)
        self._indices, self._values, self._dense_shape = indices, values, dense_shape
        # TF's static checks (the same ValueErrors): N rows of indices for N values, one
        # column per dimension of dense_shape.
        indices_shape = indices.shape.with_rank(2)
        values_shape = values.shape.with_rank(1)
        dense_shape_shape = dense_shape.shape.with_rank(1)
        indices_shape.dims[0].merge_with(values_shape.dims[0])
        indices_shape.dims[1].merge_with(dense_shape_shape.dims[0])

    @property
    def indices(self):
        return self._indices

    @property
    def values(self):
        return self._values

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def op(self):
        """The op that makes `values` (TensorFlow's choice)."""
        return self._values.op

    @property
    def graph(self):
        return self._indices.graph

    @property
    def shape(self):
        return self.get_shape()

    def get_shape(self):
        """The dense shape as far as it is known when the graph is built."""
        # shape_utils reads a shape tensor's build-time value (Const, Pack, tf.shape);
        # imported here because ops/ sits above framework/ (DESIGN.md's layers).
        from tfteach.ops.shape_utils import partial_shape_from_tensor
        return partial_shape_from_tensor(self._dense_shape)

    def eval(self, feed_dict=None, session=None):
        """`sess.run(self)`: a SparseTensorValue."""
        from tfteach.runtime import session as session_lib
        return session_lib.run_in_session(self, feed_dict, session, what="tensor")

    def consumers(self):
        return sorted(set(self._indices.consumers() + self._values.consumers()
                          + self._dense_shape.consumers()), key=lambda op: op._id)

    def __str__(self):
        return "SparseTensor(indices=%s, values=%s, dense_shape=%s)" % (
            self._indices, self._values, self._dense_shape)

    __repr__ = __str__


def is_sparse(x):
    """True for a SparseTensor or a SparseTensorValue (TF's sparse_tensor.is_sparse)."""
    return isinstance(x, (SparseTensor, SparseTensorValue))
