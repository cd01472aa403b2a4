"""Ops that pick or place elements by index: gather, gather_nd, one_hot,
unsorted_segment_sum (the course notes' k-means uses it to sum the points of each cluster).
"""
from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.kernels.cpu import index_kernels
from tfteach.ops.build_time_values import inferred_value
from tfteach.ops.list_inputs import index_dtype_of
from tfteach.ops.op_builder import ShapeError, apply_op
from tfteach.ops.shape_utils import shape_error
from tfteach.ops.typed_inputs import convert_fixed_type, refuse_none

__all__ = ["gather", "gather_nd", "one_hot", "unsorted_segment_sum"]


def _require_rank_at_least(shape, rank):
    if shape.ndims is not None and shape.ndims < rank:
        raise ShapeError("Shape must be at least rank %d but is rank %d" % (rank, shape.ndims))


# -- GatherV2 -----------------------------------------------------------------------------------
def _gather_shape(op):
    params, indices, axis_t = op._inputs
    dtype = params.dtype.base_dtype
    _require_rank_at_least(params.shape, 1)
    if axis_t.shape.ndims not in (None, 0):
        raise ShapeError("Shape must be rank 0 but is rank %d" % axis_t.shape.ndims)
    axis = inferred_value(axis_t)
    if params.shape.ndims is None or indices.shape.ndims is None:
        return [(dtype, tensor_shape.unknown_shape())]
    if axis is None:
        return [(dtype, tensor_shape.unknown_shape(
            rank=params.shape.ndims + indices.shape.ndims - 1))]
    axis = int(axis)
    try:
        _require_rank_at_least(params.shape, -axis if axis < 0 else axis + 1)
    except ShapeError as e:
        raise shape_error(str(e), op, computed=[2]) from None
    axis %= params.shape.ndims
    dims = params.shape.as_list()
    out = dims[:axis] + indices.shape.as_list() + dims[axis + 1:]
    return [(dtype, tensor_shape.TensorShape(out))]


register_op("GatherV2", _gather_shape, cpu=index_kernels.gather)


def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """Slices of `params` along `axis` at `indices` (checked: out of range is an error)."""
    if batch_dims != 0:
        raise NotImplementedError("tfteach's gather supports batch_dims=0 only")
    with name_scope(name, "GatherV2", [params, indices]) as scope:
        refuse_none(params, "params")
        params_t = convert_to_tensor(params, name="params")
        indices_t = convert_to_tensor(indices, name="indices")
        index_dtype_of(indices_t, "indices")
        axis_t = convert_to_tensor(0 if axis is None else axis, name="axis",
                                   preferred_dtype=dtypes.int32)
        index_dtype_of(axis_t, "axis")
        return apply_op("GatherV2", [params_t, indices_t, axis_t],
                        {"Tparams": params_t.dtype.base_dtype, "Tindices": indices_t.dtype,
                         "Taxis": axis_t.dtype, "batch_dims": 0}, scope)


# -- GatherNd -------------------------------------------------------------------------------------
def _gather_nd_shape(op):
    params, indices = op._inputs
    dtype = params.dtype.base_dtype
    _require_rank_at_least(indices.shape, 1)
    depth = indices.shape[-1].value if indices.shape.ndims else None
    if params.shape.ndims is None or depth is None:
        return [(dtype, tensor_shape.unknown_shape())]
    if depth > params.shape.ndims:
        raise ShapeError("indices.shape[-1] must be <= params.rank, but saw indices shape: %s "
                         "and params shape: %s" % (indices.shape.debug_string(),
                                                    params.shape.debug_string()))
    out = indices.shape.as_list()[:-1] + params.shape.as_list()[depth:]
    return [(dtype, tensor_shape.TensorShape(out))]


register_op("GatherNd", _gather_nd_shape, cpu=index_kernels.gather_nd)


def gather_nd(params, indices, name=None, batch_dims=0):
    """Elements or slices of `params` at the index vectors in the last axis of `indices`."""
    if batch_dims != 0:
        raise NotImplementedError("tfteach's gather_nd supports batch_dims=0 only")
    with name_scope(name, "GatherNd", [params, indices]) as scope:
        params_t = convert_to_tensor(params, name="params")
        indices_t = convert_to_tensor(indices, name="indices")
        index_dtype_of(indices_t, "indices")
        return apply_op("GatherNd", [params_t, indices_t],
                        {"Tparams": params_t.dtype.base_dtype, "Tindices": indices_t.dtype},
                        scope)


# -- OneHot ----------------------------------------------------------------------------------------
def _one_hot_shape(op):
    indices, depth_t, on_t, off_t = op._inputs
    axis = op._attrs["axis"]
    dtype = on_t.dtype.base_dtype
    if axis < -1:
        raise ShapeError("axis must be >= -1")
    if depth_t.shape.ndims not in (None, 0):
        raise ShapeError("Shape must be rank 0 but is rank %d" % depth_t.shape.ndims)
    depth = inferred_value(depth_t)
    if depth is not None and int(depth) < 0:
        raise shape_error("Dimension size, given by scalar input 1, must be non-negative but is "
                          "%d" % int(depth), op, computed=[1])
    depth = None if depth is None else int(depth)
    if indices.shape.ndims is None:
        return [(dtype, tensor_shape.unknown_shape())]
    dims = indices.shape.as_list()
    new_rank = len(dims) + 1
    at = (axis + new_rank) % new_rank
    return [(dtype, tensor_shape.TensorShape(dims[:at] + [depth] + dims[at:]))]


register_op("OneHot", _one_hot_shape, cpu=index_kernels.one_hot)
not_differentiable("OneHot")


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """A one-hot encoding: `on_value` at each index, `off_value` elsewhere (all off when the
    index is out of range)."""
    with name_scope(name, "one_hot", [indices, depth, on_value, off_value]) as scope:
        dtype = dtypes.as_dtype(dtype).base_dtype if dtype is not None else None
        on_dtype = convert_to_tensor(on_value).dtype.base_dtype if on_value is not None else None
        off_dtype = convert_to_tensor(off_value).dtype.base_dtype \
            if off_value is not None else None
        if on_value is not None or off_value is not None:
            if dtype is not None:
                if on_value is not None and on_dtype != dtype:
                    raise TypeError("dtype {0} of on_value does not match dtype parameter {1}"
                                    .format(on_dtype, dtype))
                if off_value is not None and off_dtype != dtype:
                    raise TypeError("dtype {0} of off_value does not match dtype parameter {1}"
                                    .format(off_dtype, dtype))
            else:
                dtype = on_dtype if on_value is not None else off_dtype
        elif dtype is None:
            dtype = dtypes.float32
        if on_value is None:
            on_value, on_dtype = convert_to_tensor(1, dtype, name="on_value"), dtype
        if off_value is None:
            off_value, off_dtype = convert_to_tensor(0, dtype, name="off_value"), dtype
        if on_dtype != off_dtype:
            raise TypeError("dtype {0} of on_value does not match dtype {1} of off_value"
                            .format(on_dtype, off_dtype))
        indices_t = convert_to_tensor(indices, name="indices")
        index_dtype_of(indices_t, "indices", (dtypes.uint8, dtypes.int32, dtypes.int64))
        # depth: int32 (TF's OpDef): a float depth gets the op-definition library's words
        depth_t, = convert_fixed_type("OneHot", [("depth", depth)], dtypes.int32)
        on_t = convert_to_tensor(on_value, name="on_value", dtype=dtype)
        off_t = convert_to_tensor(off_value, name="off_value", dtype=dtype)
        return apply_op("OneHot", [indices_t, depth_t, on_t, off_t],
                        {"T": dtype, "TI": indices_t.dtype,
                         "axis": -1 if axis is None else int(axis)}, scope)


# -- UnsortedSegmentSum ----------------------------------------------------------------------------
def _unsorted_segment_sum_shape(op):
    data, ids, num_t = op._inputs
    dtype = data.dtype.base_dtype
    if num_t.shape.ndims not in (None, 0):
        raise ShapeError("Shape must be rank 0 but is rank %d" % num_t.shape.ndims)
    if ids.shape.ndims is None:
        return [(dtype, tensor_shape.unknown_shape())]
    _require_rank_at_least(data.shape, ids.shape.ndims)
    if data.shape.ndims is not None:
        for a, b in zip(data.shape.as_list(), ids.shape.as_list()):
            if a is not None and b is not None and a != b:
                raise ShapeError("Dimensions must be equal, but are %d and %d" % (a, b))
    num = inferred_value(num_t)
    if num is not None and int(num) < 0:
        raise shape_error("Dimension size, given by scalar input 2, must be non-negative but is "
                          "%d" % int(num), op, computed=[2])
    num = None if num is None else int(num)
    if data.shape.ndims is None:
        return [(dtype, tensor_shape.unknown_shape())]
    return [(dtype, tensor_shape.TensorShape([num] + data.shape.as_list()[ids.shape.ndims:]))]


register_op("UnsortedSegmentSum", _unsorted_segment_sum_shape,
            cpu=index_kernels.unsorted_segment_sum)


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """output[j] = sum of data[i] over all i with segment_ids[i] == j (ids < 0 are dropped)."""
    with name_scope(name, "UnsortedSegmentSum", [data, segment_ids, num_segments]) as scope:
        data_t = convert_to_tensor(data, name="data")
        ids_t = convert_to_tensor(segment_ids, name="segment_ids")
        index_dtype_of(ids_t, "segment_ids")
        num_t = convert_to_tensor(num_segments, name="num_segments",
                                  preferred_dtype=dtypes.int32)
        index_dtype_of(num_t, "num_segments")
        if data_t.dtype.base_dtype in (dtypes.bool, dtypes.string):
            raise TypeError("Value passed to parameter 'data' has DataType %s not in list of "
                            "allowed values: float32, float64, int32, uint8, int16, int8, "
                            "int64, bfloat16, uint16, half, uint32, uint64"
                            % data_t.dtype.base_dtype.name)
        return apply_op("UnsortedSegmentSum", [data_t, ids_t, num_t],
                        {"T": data_t.dtype.base_dtype, "Tindices": ids_t.dtype,
                         "Tnumsegments": num_t.dtype}, scope)
