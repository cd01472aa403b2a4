"""`Dataset.padded_batch`: batches of elements padded to a common shape.

Each component is padded (at the end of every dimension) to its `padded_shapes` entry;
a dimension given as -1 or None is padded to the longest in the batch. Padding values
default to 0 (and "" for strings), as TF 1.15's.
"""
import numpy as np

from tfteach.data import streams, structure
from tfteach.data.dataset_ops import dataset_op, int64_scalar, _bool_scalar, _static_int
from tfteach.data.structure import Spec
from tfteach.framework import convert, dtypes, tensor_shape
from tfteach.framework.tensor import Tensor
from tfteach.ops.op_builder import constant_value

__all__ = ["padded_batch"]


def _padded_shape_tensor(value, spec, index):
    """(int64 vector tensor, static TensorShape) for one component's padded shape."""
    if isinstance(value, Tensor):
        tensor = convert.convert_to_tensor(value, dtype=dtypes.int64,
                                           name="padded_shape_%d" % index)
        known = constant_value(tensor)
        static = (tensor_shape.TensorShape([None if d < 0 else int(d) for d in known])
                  if known is not None else tensor_shape.unknown_shape(
                      tensor.shape[0].value if tensor.shape.ndims == 1 else None))
    else:
        static = tensor_shape.as_shape(value)
        if static.ndims is None:
            raise ValueError("Padded shape %s must be a 1-D tensor of tf.int64 values, but "
                             "its shape was %s." % (value, static))
        dims = [-1 if d is None else int(d) for d in static.as_list()]
        tensor = convert.convert_to_tensor(np.array(dims, dtype=np.int64),
                                           dtype=dtypes.int64, name="padded_shape_%d" % index)
    if not _can_pad(static, spec.shape):
        raise ValueError("The padded shape %s is not compatible with the corresponding input "
                         "component shape %s." % (static, spec.shape))
    return tensor, static


def _can_pad(padded, shape):
    """TF 1.15's `_is_padded_shape_compatible_with`: same rank, and no known padded size
    below the element's known size (a larger one is what padding is for)."""
    if padded.ndims is None or shape.ndims is None:
        return True
    if padded.ndims != shape.ndims:
        return False
    return all(p is None or d is None or p >= d
               for p, d in zip(padded.as_list(), shape.as_list()))


def _padding_value_tensor(value, spec):
    """TF 1.15's `_padding_value_to_tensor`: a scalar of exactly the component's dtype
    (a Python 0 for an int64 component is an int32, refused as in TF)."""
    tensor = convert.convert_to_tensor(value, name="padding_value")
    if not tensor.shape.is_compatible_with(tensor_shape.TensorShape([])):
        raise ValueError("Padding value should be a scalar, but is not: %s" % tensor)
    if tensor.dtype.base_dtype != spec.dtype:
        raise TypeError("Padding value tensor (%s) does not match output type: %s"
                        % (tensor, spec.dtype))
    return tensor


def _default_padding(spec):
    return "" if spec.dtype == dtypes.string else np.zeros((), dtype=spec.dtype.np)


def padded_batch(dataset, batch_size, padded_shapes, padding_values, drop_remainder):
    specs = structure.flatten(dataset._structure)
    if any(s.sparse for s in specs):
        raise TypeError("Batching of padded sparse tensors is not currently supported")
    # Flattened up to the element's structure: for one component, the whole value (a
    # tuple such as (None,) included) is its shape.
    single = not structure.is_structure(dataset._structure)
    shapes = [padded_shapes] if single else structure.flatten(padded_shapes)
    if len(shapes) != len(specs):
        raise ValueError("The two structures don't have the same number of elements: "
                         "padded_shapes has %d and the dataset's elements %d"
                         % (len(shapes), len(specs)))
    if padding_values is None:
        values = [_default_padding(s) for s in specs]
    else:
        values = [padding_values] if single else structure.flatten(padding_values)
    size = int64_scalar(batch_size, "batch_size")
    drop = _bool_scalar(drop_remainder, "drop_remainder")
    shape_tensors, statics, value_tensors = [], [], []
    for i, (shape, spec, value) in enumerate(zip(shapes, specs, values)):
        tensor, static = _padded_shape_tensor(shape, spec, i)
        shape_tensors.append(tensor)
        statics.append(static)
        value_tensors.append(_padding_value_tensor(value, spec))
    static_drop = constant_value(drop)
    known = _static_int(size) if static_drop is not None and bool(static_drop) else None
    element = structure.pack(dataset._structure, [
        Spec(s.dtype, tensor_shape.TensorShape([known]).concatenate(static))
        for s, static in zip(specs, statics)])
    n = len(specs)

    def make(ctx, stream, size_value, *rest):
        shapes_v, values_v, drop_v = rest[:n], rest[n:2 * n], rest[2 * n]
        return streams.PaddedBatch(stream, size_value, shapes_v, values_v, bool(drop_v))

    return dataset_op("PaddedBatchDatasetV2",
                      [dataset._variant, size] + shape_tensors + value_tensors + [drop],
                      element, make)
