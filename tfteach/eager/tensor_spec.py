"""`tf.TensorSpec`: the dtype and (partial) shape a tf.function input must have, and
`tf.SparseTensorSpec`, its SparseTensor kind (what a dataset's `element_spec` holds).

Both print their shapes as TensorFlow does in the program's mode: TF 1.15's graph
programs write an unknown size `?` (`TensorSpec(shape=(?, 3), ...)`, a TensorShape's
str) and its Dimensions (`TensorShape([Dimension(None)])`), TF 2's `None`.
"""
from tfteach.framework import dtypes, eager_mode, tensor_shape

__all__ = ["TensorSpec", "SparseTensorSpec"]


def _shape_text(shape):
    """`str(shape)` as the program's TensorFlow writes it: (?, 3) in TF 1, (None, 3) in
    TF 2 (eager execution on)."""
    if shape.ndims is None or not eager_mode.STATE.enabled:
        return str(shape)
    dims = shape.as_list()
    return "(%s,)" % dims[0] if len(dims) == 1 else "(%s)" % ", ".join(str(d) for d in dims)


def _shape_repr(shape):
    """`repr(shape)`: TensorShape([Dimension(None), Dimension(3)]) in TF 1,
    TensorShape([None, 3]) in TF 2."""
    if shape.ndims is None or not eager_mode.STATE.enabled:
        return repr(shape)
    return "TensorShape(%r)" % (shape.as_list(),)


class TensorSpec:
    """Describes a tensor: `tf.TensorSpec(shape, dtype=tf.float32, name=None)`."""

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self._shape = tensor_shape.as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        return cls(tensor.shape, tensor.dtype, name)

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    def is_compatible_with(self, spec_or_tensor):
        return (self._dtype.is_compatible_with(spec_or_tensor.dtype) and
                self._shape.is_compatible_with(spec_or_tensor.shape))

    def __eq__(self, other):
        return (type(other) is TensorSpec and self._dtype == other._dtype and
                self._shape.as_list() == other._shape.as_list()
                if self._shape.ndims is not None and other._shape.ndims is not None
                else type(other) is TensorSpec and self._dtype == other._dtype and
                self._shape.ndims == other._shape.ndims)

    def __hash__(self):
        return hash((self._dtype, self._shape.ndims))

    def __repr__(self):
        return "TensorSpec(shape=%s, dtype=%r, name=%r)" % (_shape_text(self._shape),
                                                             self._dtype, self._name)


class SparseTensorSpec:
    """Describes a SparseTensor: `tf.SparseTensorSpec(shape=None, dtype=tf.float32)`;
    `shape` is its dense shape."""

    def __init__(self, shape=None, dtype=dtypes.float32):
        self._shape = tensor_shape.as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    def is_compatible_with(self, spec_or_value):
        return (type(spec_or_value) is SparseTensorSpec and
                self._dtype.is_compatible_with(spec_or_value.dtype) and
                self._shape.is_compatible_with(spec_or_value.shape))

    def __eq__(self, other):
        return (type(other) is SparseTensorSpec and self._dtype == other._dtype and
                _dims(self._shape) == _dims(other._shape))

    def __hash__(self):
        return hash((self._dtype, self._shape.ndims))

    def __repr__(self):                 # TF's TypeSpec repr: the class and its fields
        return "SparseTensorSpec(%s, %r)" % (_shape_repr(self._shape), self._dtype)


def _dims(shape):
    return None if shape.ndims is None else shape.as_list()
