"""The feature specs of `tf.parse_example` & co, and how they become the parse ops' attrs.

    FixedLenFeature(shape, dtype, default_value=None)   a dense tensor of `shape` per
        example; without a default the feature is required;
    VarLenFeature(dtype)                                 any number of values per example,
        returned as a SparseTensor;
    FixedLenSequenceFeature(shape, dtype, allow_missing=False, default_value=None)
        any number of `shape`-sized rows, returned dense as [rows] + shape (parse_example
        pads short examples with default_value, a scalar; it needs allow_missing=True).

As TF 1.15's parsing_ops.py: the features are taken in sorted key order, sparse ones
(VarLenFeature) first in the op's outputs, then dense ones; the messages are TF's.
The dtypes are those an Example holds: float32, int64, string.
"""
import collections

from tfteach.framework import dtypes, tensor_shape

__all__ = ["FixedLenFeature", "VarLenFeature", "FixedLenSequenceFeature", "RawParams",
           "features_to_raw_params", "prepend_none_dimension"]


class FixedLenFeature(collections.namedtuple("FixedLenFeature",
                                             ["shape", "dtype", "default_value"])):
    """`tf.FixedLenFeature(shape, dtype, default_value=None)`."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """`tf.FixedLenSequenceFeature(shape, dtype, allow_missing=False, default_value=None)`."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """`tf.VarLenFeature(dtype)`: a SparseTensor of the values each example has."""


RawParams = collections.namedtuple("RawParams", [
    "sparse_keys", "sparse_types", "dense_keys", "dense_types", "dense_defaults",
    "dense_shapes"])


def prepend_none_dimension(features):
    """TF's `_prepend_none_dimension`: a FixedLenSequenceFeature's rows become an unknown
    leading dimension, which tells the op it has a variable length."""
    if not features:
        return features
    modified = dict(features)
    for key, feature in features.items():
        if isinstance(feature, FixedLenSequenceFeature):
            if not feature.allow_missing:
                raise ValueError("Unsupported: FixedLenSequenceFeature requires "
                                 "allow_missing to be True.")
            modified[key] = FixedLenSequenceFeature([None] + list(feature.shape),
                                                    feature.dtype, feature.allow_missing,
                                                    feature.default_value)
    return modified


def features_to_raw_params(features, types):
    """The op's parameters for `features` (a dict key -> spec), in sorted key order."""
    sparse_keys, sparse_types, dense_keys, dense_types, dense_shapes = [], [], [], [], []
    dense_defaults = collections.OrderedDict()
    for key in sorted(features):
        feature = features[key]
        if not isinstance(feature, tuple(types)):
            raise ValueError("Unsupported %s %s." % (type(feature).__name__, feature))
        if isinstance(feature, VarLenFeature):
            if not feature.dtype:
                raise ValueError("Missing type for feature %s." % key)
            sparse_keys.append(key)
            sparse_types.append(_allowed(feature.dtype, "sparse_types"))
            continue
        if not feature.dtype:
            raise ValueError("Missing type for feature %s." % key)
        if feature.shape is None:
            raise ValueError("Missing shape for feature %s." % key)
        shape = tensor_shape.as_shape(feature.shape)
        if isinstance(feature, FixedLenFeature):
            if feature.shape and shape.ndims and shape.dims[0].value is None:
                raise ValueError("First dimension of shape for feature %s unknown. Consider "
                                 "using FixedLenSequenceFeature." % key)
            if not shape.is_fully_defined():
                raise ValueError("All dimensions of shape for feature %s need to be known "
                                 "but received %s." % (key, feature.shape))
        elif not tensor_shape.TensorShape(shape.dims[1:]).is_fully_defined():
            raise ValueError("All dimensions of shape for feature %s need to be known except "
                             "for the first one but received %s." % (key, feature.shape))
        dense_keys.append(key)
        dense_types.append(_allowed(feature.dtype, "dense_defaults"))
        dense_shapes.append(shape)
        if isinstance(feature, FixedLenSequenceFeature) and feature.allow_missing:
            dense_defaults[key] = None          # present: "missing means no rows"
        if feature.default_value is not None:
            dense_defaults[key] = feature.default_value
    return RawParams(sparse_keys, sparse_types, dense_keys, dense_types, dense_defaults,
                     dense_shapes)


def _allowed(dtype, attr):
    dtype = dtypes.as_dtype(dtype)
    if dtype.base_dtype not in (dtypes.float32, dtypes.int64, dtypes.string):
        raise TypeError("Value passed to parameter '%s' has DataType %s not in list of "
                        "allowed values: float32, int64, string" % (attr, dtype.name))
    return dtype.base_dtype
