"""Joining and splitting tensors: tf.concat, stack, unstack, split, and auto-packing.

Auto-packing is TensorFlow's conversion of a list that contains tensors
(`tf.reshape(x, [-1, n])`, `tf.zeros([batch, 10])`) into a Pack op: `convert_to_tensor`
tries it before the plain constant conversion.
"""
import numpy as np

from tfteach.framework import convert, dtypes, tensor_shape
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import register_op
from tfteach.kernels.cpu import array_kernels
from tfteach.ops.build_time_values import inferred_value
from tfteach.ops.constant_op import constant, identity
from tfteach.ops.eager_type_errors import is_eager_value
from tfteach.ops.list_inputs import convert_list_input, index_dtype_of
from tfteach.ops.op_builder import ShapeError, apply_op
from tfteach.ops.shape_utils import check_axis, merge_dims, shape_error

__all__ = ["concat", "stack", "unstack", "split"]


# -- ConcatV2 -------------------------------------------------------------------------------------
def _concat_shape(op):
    values, axis_t = op._inputs[:-1], op._inputs[-1]
    dtype = values[0].dtype.base_dtype
    ranks = [t.shape.ndims for t in values if t.shape.ndims is not None]
    for r in ranks[1:]:
        if r != ranks[0]:
            raise ShapeError("Shape must be rank %d but is rank %d" % (ranks[0], r))
    axis = inferred_value(axis_t)
    if not ranks:
        return [(dtype, tensor_shape.unknown_shape())]
    rank = ranks[0]
    if axis is None:
        if rank == 0:
            raise ShapeError("Can't concatenate scalars (use tf.stack instead)")
        return [(dtype, tensor_shape.unknown_shape(rank=rank))]
    axis = int(axis)
    min_rank = -axis if axis < 0 else axis + 1
    if rank < min_rank:
        raise shape_error("Shape must be at least rank %d but is rank %d" % (min_rank, rank),
                          op, computed=[len(op._inputs) - 1])
    axis %= rank
    known = [t.shape for t in values if t.shape.ndims is not None]
    out = known[-1].as_list()
    for s in reversed(known[:-1]):
        dims = s.as_list()
        for i in range(rank):
            if i == axis:
                out[i] = None if out[i] is None or dims[i] is None else out[i] + dims[i]
                continue
            # TF merges the dims before the axis, then those after, as two sub-shapes.
            part, index_in_part = (slice(0, axis), i) if i < axis else (
                slice(axis + 1, rank), i - axis - 1)
            try:
                out[i] = merge_dims(dims[i], out[i], index_in_part, tensor_shape.TensorShape(
                    dims[part]), tensor_shape.TensorShape(out[part]))
            except ShapeError as e:
                raise shape_error(str(e), op, computed=[len(op._inputs) - 1]) from None
    if len(known) < len(values):
        out[axis] = None     # an input of unknown rank adds an unknown amount
    return [(dtype, tensor_shape.TensorShape(out))]


register_op("ConcatV2", _concat_shape, cpu=array_kernels.concat)


def concat(values, axis, name="concat"):
    """Joins tensors along an existing dimension `axis` (TF1 argument order)."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    with name_scope(name, "concat", list(values)) as scope:
        if len(values) == 1:
            axis_t = convert_to_tensor(axis, name="concat_dim", dtype=dtypes.int32)
            axis_t.shape.assert_has_rank(0)
            return identity(values[0], name=scope)
        tensors = convert_list_input(values, "values", "ConcatV2", minimum=2)
        axis_t = convert_to_tensor(axis, name="axis", preferred_dtype=dtypes.int32)
        index_dtype_of(axis_t, "axis")
        return apply_op("ConcatV2", tensors + [axis_t],
                        {"N": len(tensors), "T": tensors[0].dtype.base_dtype,
                         "Tidx": axis_t.dtype}, scope)


# -- Pack / Unpack -------------------------------------------------------------------------------
def _pack_shape(op):
    values = op._inputs
    merged = values[-1].shape
    for i in range(len(values) - 2, -1, -1):
        try:
            merged = values[i].shape.merge_with(merged)
        except ValueError:
            raise ShapeError("Shapes of all inputs must match: values[0].shape = %s != "
                             "values[%d].shape = %s" % (values[0].shape.debug_string(), i,
                                                        values[i].shape.debug_string()))
    dtype = values[0].dtype.base_dtype
    if merged.ndims is None:
        return [(dtype, tensor_shape.unknown_shape())]
    axis = op._attrs["axis"]
    rank = merged.ndims + 1
    if not -rank <= axis < rank:
        raise ShapeError("Invalid axis: %d; must be in [%d,%d)" % (axis, -rank, rank))
    axis %= rank
    dims = merged.as_list()
    return [(dtype, tensor_shape.TensorShape(dims[:axis] + [len(values)] + dims[axis:]))]


register_op("Pack", _pack_shape, cpu=array_kernels.pack)


def _pack(tensors, axis, name):
    return apply_op("Pack", tensors, {"N": len(tensors), "T": tensors[0].dtype.base_dtype,
                                      "axis": axis}, name)


def stack(values, axis=0, name="stack"):
    """Joins same-shaped tensors along a new dimension `axis` (TF's Pack)."""
    if axis == 0:
        try:
            # A list of constants is one constant; a list with tensors auto-packs.
            return convert_to_tensor(values, name=name)
        except (TypeError, ValueError):
            pass
    value_shape = convert_to_tensor(values[0], name=name).shape
    if value_shape.ndims is not None:
        expanded = value_shape.ndims + 1
        if not -expanded <= axis < expanded:
            raise ValueError("axis = %d not in [%d, %d)" % (axis, -expanded, expanded))
    with name_scope(name, "stack", list(values)) as scope:
        tensors = convert_list_input(values, "values", "Pack")
        return _pack(tensors, axis, scope)


def _unpack_shape(op):
    x = op._inputs[0]
    num, axis = op._attrs["num"], op._attrs["axis"]
    dtype = x.dtype.base_dtype
    if x.shape.ndims is None:
        return [(dtype, tensor_shape.unknown_shape())] * num
    rank = x.shape.ndims
    if not -rank <= axis < rank:
        raise ShapeError("Invalid axis: %d; must be in [%d,%d)" % (axis, -rank, rank))
    axis %= rank
    dims = x.shape.as_list()
    if dims[axis] is not None and dims[axis] != num:
        raise ShapeError("Dimension must be %d but is %d" % (num, dims[axis]))
    out = tensor_shape.TensorShape(dims[:axis] + dims[axis + 1:])
    return [(dtype, out)] * num


register_op("Unpack", _unpack_shape, cpu=array_kernels.unpack)


def unstack(value, num=None, axis=0, name="unstack"):
    """The list of slices of `value` along `axis` (TF's Unpack)."""
    value = convert_to_tensor(value)
    value_shape = value.shape
    if num is None:
        if value_shape.ndims is not None:
            if not -value_shape.ndims <= axis < value_shape.ndims:
                raise ValueError("axis = %d not in [%d, %d)" % (axis, -value_shape.ndims,
                                                                 value_shape.ndims))
            num = value_shape[axis].value
        if num is None:
            raise ValueError("Cannot infer num from shape %s" % value_shape)
    result = apply_op("Unpack", [value], {"num": num, "T": value.dtype.base_dtype,
                                          "axis": axis}, name)
    if num == 0:
        return []
    return result if isinstance(result, list) else [result]


# -- Split / SplitV ----------------------------------------------------------------------------
def _split_shape(op):
    axis_t, x = op._inputs
    num = op._attrs["num_split"]
    dtype = x.dtype.base_dtype
    axis = inferred_value(axis_t)
    if x.shape.ndims is None:
        return [(dtype, tensor_shape.unknown_shape())] * num
    if axis is None:
        return [(dtype, tensor_shape.unknown_shape(rank=x.shape.ndims))] * num
    axis = check_axis(int(axis), x.shape.ndims, op, computed=[0])
    dims = x.shape.as_list()
    if dims[axis] is not None:
        if dims[axis] % num:
            raise shape_error("Dimension size must be evenly divisible by %d but is %d\n\t"
                              "Number of ways to split should evenly divide the split "
                              "dimension" % (num, dims[axis]), op, computed=[0])
        dims[axis] //= num
    return [(dtype, tensor_shape.TensorShape(dims))] * num


def _split_v_shape(op):
    x, sizes_t, axis_t = op._inputs
    num = op._attrs["num_split"]
    dtype = x.dtype.base_dtype
    if x.shape.ndims is None:
        return [(dtype, tensor_shape.unknown_shape())] * num
    axis = inferred_value(axis_t)
    if axis is None:
        return [(dtype, tensor_shape.unknown_shape(rank=x.shape.ndims))] * num
    axis = check_axis(int(axis), x.shape.ndims, op, computed=[2])
    dims = x.shape.as_list()
    sizes = inferred_value(sizes_t)
    if sizes is None:
        dims[axis] = None
        return [(dtype, tensor_shape.TensorShape(dims))] * num
    sizes = [int(s) for s in np.asarray(sizes).reshape(-1)]
    if sizes.count(-1) > 1:
        raise shape_error("size_splits can only have one -1", op, computed=[1, 2])
    total = sum(s for s in sizes if s != -1)
    whole = dims[axis]
    if whole is not None and (total > whole if -1 in sizes else total != whole):
        raise shape_error("can't split axis of size %d into pieces of size [%s]"
                          % (whole, ",".join(str(s) for s in sizes)), op, computed=[1, 2])
    outputs = []
    for s in sizes:
        piece = list(dims)
        piece[axis] = (whole - total if whole is not None else None) if s == -1 else s
        outputs.append((dtype, tensor_shape.TensorShape(piece)))
    return outputs


register_op("Split", _split_shape, cpu=array_kernels.split)
register_op("SplitV", _split_v_shape, cpu=array_kernels.split_v)


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Splits `value` along `axis` into `num_or_size_splits` equal parts or the given sizes."""
    with name_scope(name, "split", [value]) as scope:
        size_splits = convert_to_tensor(num_or_size_splits)
        x = convert_to_tensor(value, name="value")
        if isinstance(num_or_size_splits, (int, np.integer, tensor_shape.Dimension)) and \
                not isinstance(num_or_size_splits, bool):
            count = int(num_or_size_splits)
            axis_t = convert_to_tensor(axis, name="split_dim", dtype=dtypes.int32)
            result = apply_op("Split", [axis_t, x], {"num_split": count,
                                                     "T": x.dtype.base_dtype}, scope)
            return result if isinstance(result, list) else [result]
        if size_splits.shape.ndims == 0:
            raise ValueError("Rank-0 tensors are not supported as the num_or_size_splits "
                             "argument to split. Argument provided: %s" % (num_or_size_splits,))
        if num is None:
            if size_splits.shape.ndims:
                num = size_splits.shape[0].value
            if num is None:
                raise ValueError("Cannot infer num from shape %s" % (num_or_size_splits,))
        index_dtype_of(size_splits, "size_splits")
        axis_t = convert_to_tensor(axis, name="split_dim", dtype=dtypes.int32)
        result = apply_op("SplitV", [x, size_splits, axis_t],
                          {"num_split": num, "T": x.dtype.base_dtype,
                           "Tlen": size_splits.dtype}, scope)
        return result if isinstance(result, list) else [result]


# -- auto-packing --------------------------------------------------------------------------------
def _first_tensor_dtype(values):
    for v in values:
        if convert.is_tensor(v):
            return convert_to_tensor(v).dtype.base_dtype
        if isinstance(v, (list, tuple)):
            found = _first_tensor_dtype(v)
            if found is not None:
                return found
    return None


def _autopack(values, dtype, name, cast):
    """A Pack of `values` (nested lists packed recursively), or the list if none is a
    tensor. A tensor of another dtype than `dtype` is cast when `cast` (a dtype was asked
    for), else it is TF's TypeError: with no dtype asked for, TF never casts a tensor."""
    must_pack = False
    converted = []
    with name_scope(name) as scope:
        for i, elem in enumerate(values):
            if convert.is_tensor(elem):
                elem = convert_to_tensor(elem)
                if elem.dtype.base_dtype != dtype:
                    elem = _cast_or_fail(elem, dtype, cast)
                must_pack = True
            elif isinstance(elem, (list, tuple)):
                elem = _autopack(elem, dtype, str(i), cast)
                must_pack = must_pack or convert.is_tensor(elem)
            converted.append(elem)
        if not must_pack:
            return converted
        tensors = [e if convert.is_tensor(e) else constant(e, dtype=dtype, name=str(i))
                   for i, e in enumerate(converted)]
        return _pack(tensors, 0, scope)


def _cast_or_fail(tensor, dtype, cast):
    """TF casts the list's tensors when a dtype other than theirs is asked for
    (`convert_to_tensor([t], dtype=...)`), with tf.cast where it exists yet."""
    from tfteach.ops import math_ops
    cast_op = getattr(math_ops, "cast", None)
    if not cast or cast_op is None:
        raise TypeError("Cannot convert a list containing a tensor of dtype %s to %s (Tensor "
                        "is: %r)" % (tensor.dtype, dtype, tensor))
    return cast_op(tensor, dtype)


def _autopacking_conversion(value, dtype=None, name=None, as_ref=False):
    if as_ref:
        return NotImplemented
    inferred = _first_tensor_dtype(value)
    if inferred is None:
        return NotImplemented       # no tensor inside: the constant conversion handles it
    # A dtype asked for that is not the first tensor's: TF casts every tensor to it.
    cast = dtype is not None and dtype != inferred
    if not cast and value and all(is_eager_value(v) for v in value):
        # TF's eager fast path: a list of eager tensors goes straight to Pack, whose
        # runtime checks the dtypes (ops/eager_type_errors.py).
        with name_scope(name or "packed") as scope:
            return _pack(convert_list_input(list(value), "values", "Pack"), 0, scope)
    return _autopack(value, dtype or inferred, name or "packed", cast)


convert.register_tensor_conversion_function((list, tuple), _autopacking_conversion, priority=99)
