"""tf.dynamic_partition (`DynamicPartition`) and tf.dynamic_stitch (`DynamicStitch`):
splitting a tensor's rows among N outputs by a partition number each, and putting rows
back together at given positions. Sharded `embedding_lookup` is built from them, as in
TF 1.15. The kernels make TF's checks with its messages; the gradients are TF's.
"""
import numpy as np

from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import gradient, register_op
from tfteach.kernels.cpu.output_limits import check_shape, wrap_int32
from tfteach.kernels.cpu.shape_kernels import invalid_argument, list_outputs, shape_text
from tfteach.ops.build_time_values import inferred_value
from tfteach.ops.list_inputs import check_list_length
from tfteach.ops.op_builder import ShapeError, apply_op
from tfteach.runtime.placement import register_cpu_only

__all__ = ["dynamic_partition", "dynamic_stitch", "parallel_dynamic_stitch"]


# -- DynamicPartition ----------------------------------------------------------------------------
def _partition_shape(op):
    data, partitions = op._inputs
    n = op._attrs["num_partitions"]
    if data.shape.ndims is None or partitions.shape.ndims is None:
        out = tensor_shape.unknown_shape()
    else:
        p_rank = partitions.shape.ndims
        _merge_prefix(data.shape, partitions.shape)
        out = tensor_shape.TensorShape([None] + data.shape.as_list()[p_rank:])
    return [(data.dtype.base_dtype, out)] * n


def _merge_prefix(data_shape, index_shape):
    """TF's shape check: data's shape starts with the index tensor's."""
    if data_shape.ndims is not None and data_shape.ndims < index_shape.ndims:
        raise ShapeError("Shape must be at least rank %d but is rank %d"
                         % (index_shape.ndims, data_shape.ndims))
    for d, i in zip(data_shape.as_list(), index_shape.as_list()):
        if d is not None and i is not None and d != i:
            raise ShapeError("Dimensions must be equal, but are %d and %d" % (d, i))


def _partition_kernel(ctx, data, partitions):
    n = ctx.attrs["num_partitions"]
    data, partitions = np.asarray(data), np.asarray(partitions)
    if data.shape[:partitions.ndim] != partitions.shape:
        raise invalid_argument(ctx, "data.shape must start with partitions.shape, got "
                                    "data.shape = %s, partitions.shape = %s"
                               % (shape_text(data.shape), shape_text(partitions.shape)))
    flat_p = partitions.reshape(-1)
    bad = (flat_p < 0) | (flat_p >= n)
    if bad.any():
        i = int(np.argmax(bad))
        where = np.unravel_index(i, partitions.shape) if partitions.ndim else ()
        raise invalid_argument(ctx, "partitions%s = %d is not in [0, %d)"
                               % (shape_text(where), flat_p[i], n))
    rows = data.reshape((flat_p.size,) + data.shape[partitions.ndim:])
    return list_outputs(np.ascontiguousarray(rows[flat_p == k]) for k in range(n))


register_op("DynamicPartition", _partition_shape, cpu=_partition_kernel)
register_cpu_only("DynamicPartition")


def dynamic_partition(data, partitions, num_partitions, name=None):
    """[data[partitions == 0], ..., data[partitions == num_partitions - 1]]: the rows of
    `data` (indexed like `partitions`) split by their partition number, in order."""
    with name_scope(name, "DynamicPartition", [data, partitions]) as scope:
        data = convert_to_tensor(data, name="data")
        partitions = convert_to_tensor(partitions, name="partitions", dtype=dtypes.int32)
        if int(num_partitions) < 1:
            raise ValueError("num_partitions must be >= 1, got %d" % int(num_partitions))
        out = apply_op("DynamicPartition", [data, partitions],
                       {"T": data.dtype.base_dtype, "num_partitions": int(num_partitions)},
                       scope)
        return out if isinstance(out, list) else [out]


@gradient("DynamicPartition")
def _partition_grad(op, *grads):
    from tfteach.ops import fill_ops, shape_ops
    data, partitions = op.inputs
    prefix = shape_ops.shape(partitions)
    original = shape_ops.reshape(fill_ops.range(shape_ops.size(partitions)), prefix)
    parts = dynamic_partition(original, partitions, op.get_attr("num_partitions"))
    stitched = dynamic_stitch(parts, list(grads))
    return [shape_ops.reshape(stitched, shape_ops.shape(data)), None]


# -- DynamicStitch -------------------------------------------------------------------------------
def _stitch_shape(op):
    n = op._attrs["N"]
    indices, data = op._inputs[:n], op._inputs[n:]
    size = 0
    for i in indices:
        v = inferred_value(i)
        if v is None:
            size = None
            break
        size = max(size, int(np.max(v)) + 1 if np.size(v) else 0)
    for i, d in zip(indices, data):
        if i.shape.ndims is not None and d.shape.ndims is not None:
            _merge_prefix(d.shape, i.shape)
    d, i = data[0], indices[0]
    if d.shape.ndims is None or i.shape.ndims is None:
        return [(d.dtype.base_dtype, tensor_shape.unknown_shape())]
    return [(d.dtype.base_dtype,
             tensor_shape.TensorShape([size] + d.shape.as_list()[i.shape.ndims:]))]


def _stitch_kernel(ctx, *inputs):
    n = ctx.attrs["N"]
    indices = [np.asarray(i) for i in inputs[:n]]
    data = [np.asarray(d) for d in inputs[n:]]
    # TF computes max index + 1 in int32: 2**31 - 1 wraps to a negative size, refused.
    size = wrap_int32(max([int(i.max()) for i in indices if i.size] + [-1]) + 1)
    if size < 0:
        raise invalid_argument(ctx, "Expected a non-negative size, got %d" % size)
    row = data[0].shape[indices[0].ndim:]
    for k, (i, d) in enumerate(zip(indices, data)):
        if d.shape[:i.ndim] != i.shape:
            raise invalid_argument(ctx, "data[%d].shape = %s does not start with indices[%d]."
                                        "shape = %s" % (k, shape_text(d.shape), k,
                                                        shape_text(i.shape)))
        if d.shape[i.ndim:] != row:
            raise invalid_argument(ctx, "Need data[0].shape[%d:] = data[%d].shape[%d:], got "
                                        "data[0].shape = %s, data[%d].shape = %s, "
                                        "indices[0].shape = %s, indices[%d].shape = %s"
                                   % (indices[0].ndim, k, i.ndim,
                                      shape_text(data[0].shape), k, shape_text(d.shape),
                                      shape_text(indices[0].shape), k, shape_text(i.shape)))
        if i.size and i.min() < 0:
            raise invalid_argument(ctx, "indices[%d] is out of range"
                                   % int(np.argmax(i.reshape(-1) < 0)))
    check_shape(ctx, (size,) + row, ctx.attrs["T"].np)
    out = np.zeros((size,) + row, dtype=ctx.attrs["T"].np)
    for i, d in zip(indices, data):                  # later writes win, as in TF
        out[i.reshape(-1)] = d.reshape((i.size,) + row)
    return out


register_op("DynamicStitch", _stitch_shape, cpu=_stitch_kernel)
register_cpu_only("DynamicStitch")


def dynamic_stitch(indices, data, name=None):
    """merged[indices[m][i]] = data[m][i]: the rows put back at their positions."""
    with name_scope(name, "DynamicStitch", list(indices) + list(data)) as scope:
        check_list_length(indices, "indices", "DynamicStitch", 1)
        indices = [convert_to_tensor(i, name="indices", dtype=dtypes.int32) for i in indices]
        data = [convert_to_tensor(d, name="data") for d in data]
        kinds = [d.dtype.base_dtype for d in data]
        if len(set(kinds)) > 1:
            raise TypeError("Tensors in list passed to 'data' of 'DynamicStitch' Op have "
                            "types [%s] that don't all match." % ", ".join(k.name for k in kinds))
        if len(indices) != len(data) or not indices:
            raise ValueError("List argument 'data' to 'DynamicStitch' Op with length %d must "
                             "match length %d of argument 'indices'." % (len(data),
                                                                          len(indices)))
        return apply_op("DynamicStitch", indices + data,
                        {"N": len(indices), "T": data[0].dtype.base_dtype}, scope)


parallel_dynamic_stitch = dynamic_stitch


@gradient("DynamicStitch")
def _stitch_grad(op, grad):
    from tfteach.ops.gather_ops import gather
    n = op.get_attr("N")
    indices = op.inputs[:n]
    return [None] * n + [gather(grad, i) for i in indices]
