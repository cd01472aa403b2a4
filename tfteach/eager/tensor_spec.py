"""`tf.TensorSpec`: the dtype and (partial) shape a tf.function input must have."""
from tfteach.framework import dtypes, tensor_shape

__all__ = ["TensorSpec"]


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
        if self._shape.ndims is None:
            shape = "<unknown>"
        else:
            dims = self._shape.as_list()
            shape = "(%s,)" % dims[0] if len(dims) == 1 else "(%s)" % ", ".join(
                str(d) for d in dims)
        return "TensorSpec(shape=%s, dtype=%r, name=%r)" % (shape, self._dtype, self._name)
