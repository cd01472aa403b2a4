"""The element structure of a dataset: nested tuples and dicts of (dtype, shape) specs.

tf.data's nesting rules (TF 1.15's `tensorflow/python/data/util/nest.py`) differ from
`tf.nest`'s in one point: a *list* is not a structure but a value (it becomes one
tensor, `from_tensor_slices([1, 2, 3])` slices a vector). Tuples, namedtuples and dicts
(flattened in sorted key order) are structures. At run time an element is the flat
list of its components' NumPy values; the structure is only needed to give `get_next()`
and the traced functions their nesting back.
"""
from tfteach.framework import dtypes, tensor_shape
from tfteach.ops import nest

__all__ = ["Spec", "is_structure", "flatten", "pack", "map_structure", "specs_of",
           "same_structure", "describe", "type_specs"]


class Spec:
    """One component of an element: its dtype and static shape (TF's TensorSpec), and
    whether it is a SparseTensor (then `shape` is its dense shape; sparse.py)."""

    __slots__ = ("dtype", "shape", "sparse")

    def __init__(self, dtype, shape, sparse=False):
        self.dtype = dtypes.as_dtype(dtype).base_dtype
        self.shape = tensor_shape.as_shape(shape)
        self.sparse = sparse

    def with_shape(self, shape):
        """The same kind of component (dense or sparse) with another static shape."""
        return Spec(self.dtype, shape, self.sparse)

    def type_spec(self):
        """The public spec: a `tf.TensorSpec` (no name), or a `tf.SparseTensorSpec`."""
        from tfteach.eager.tensor_spec import SparseTensorSpec, TensorSpec
        return (SparseTensorSpec(self.shape, self.dtype) if self.sparse
                else TensorSpec(self.shape, self.dtype))

    def __repr__(self):
        return repr(self.type_spec())


def is_structure(value):
    return isinstance(value, (tuple, dict))


def flatten(structure):
    """The leaves of `structure`, depth first (dicts in sorted key order)."""
    return nest.flatten_with(structure, is_structure)


def pack(structure, flat):
    """`flat` (a sequence) arranged like `structure`: the inverse of `flatten`."""
    return nest.pack_with(structure, flat, is_structure)


def map_structure(fn, structure):
    return pack(structure, [fn(leaf) for leaf in flatten(structure)])


def specs_of(tensors_structure):
    """The Spec structure of a structure of tensors (and SparseTensors)."""
    from tfteach.framework.sparse_tensor import SparseTensor
    return map_structure(lambda t: Spec(t.dtype, t.get_shape(), True)
                         if isinstance(t, SparseTensor) else Spec(t.dtype, t.shape),
                         tensors_structure)


def same_structure(a, b):
    """True if `a` and `b` nest the same way (same kinds of sequence, same dict keys)."""
    if is_structure(a) != is_structure(b):
        return False
    if not is_structure(a):
        return True
    if isinstance(a, dict) != isinstance(b, dict):
        return False
    if isinstance(a, dict) and sorted(a) != sorted(b):
        return False
    if len(a) != len(b):
        return False
    return all(same_structure(x, y) for x, y in zip(nest.children(a), nest.children(b)))


def type_specs(structure):
    """`element_spec` (TF 1.15's too): the structure of `tf.TensorSpec`s and
    `tf.SparseTensorSpec`s of an element."""
    return map_structure(lambda spec: spec.type_spec(), structure)


def describe(structure, what):
    """A structure of `what(spec)`, for messages and `output_types` & co."""
    return map_structure(what, structure)
