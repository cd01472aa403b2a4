"""Tensors made from a shape and a value: zeros, ones, fill, *_like, range, linspace, eye.

As TF 1.x does, `tf.zeros([2, 3])` with a small constant shape is a Const named `zeros`;
a shape given as a tensor (or a list holding tensors) becomes a Fill op.
"""
import numpy as np

from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.convert import convert_to_tensor, holds_tensor
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import register_op
from tfteach.framework.tensor import Tensor
from tfteach.kernels.cpu import fill_kernels
from tfteach.ops.build_time_values import inferred_value
from tfteach.ops.constant_op import constant
from tfteach.ops.list_inputs import index_dtype_of
from tfteach.ops.op_builder import ShapeError, apply_op, constant_value, same_shape_fn
from tfteach.ops.shape_utils import partial_shape_from_tensor, shape_error

__all__ = ["fill", "zeros", "ones", "zeros_like", "ones_like", "range", "linspace",
           "lin_space", "eye", "matrix_diag", "matrix_set_diag"]

def _require_rank(t, rank, what=""):
    if t.shape.ndims not in (None, rank):
        raise ShapeError("Shape must be rank %d but is rank %d%s" % (rank, t.shape.ndims, what))


# -- Fill -------------------------------------------------------------------------------------
def _fill_shape(op):
    dims_t, value_t = op._inputs
    _require_rank(dims_t, 1)
    _require_rank(value_t, 0)
    # TF reads the dims as a shape first (a value below -1 is "Invalid value in tensor
    # used for shape"), then as values: -1 is no dimension of a Fill.
    shape = partial_shape_from_tensor(dims_t)
    dims = inferred_value(dims_t)
    if dims is not None and np.any(np.asarray(dims) < 0):
        # (TF names the input by the partial shape it read: "input[0] = [?,4]")
        raise shape_error("Fill dimensions must be >= 0", op, partial=[0])
    return [(value_t.dtype.base_dtype, shape)]


register_op("Fill", _fill_shape, cpu=fill_kernels.fill)


def fill(dims, value, name=None):
    """A tensor of shape `dims` with every element `value`."""
    with name_scope(name, "Fill", [dims, value]) as scope:
        dims_t = convert_to_tensor(dims, name="dims", preferred_dtype=dtypes.int32)
        index_dtype_of(dims_t, "dims")
        value_t = convert_to_tensor(value, name="value")
        return apply_op("Fill", [dims_t, value_t], {"T": value_t.dtype.base_dtype,
                                                     "index_type": dims_t.dtype}, scope)


def _filled(shape, dtype, value, name, default_name):
    """TF1's zeros/ones: a Const when the shape is a small known list, else a Fill."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    if dtype == dtypes.bool:
        value = bool(value)
    elif dtype == dtypes.string:
        value = "" if value == 0 else "1"
    with name_scope(name, default_name, [shape]) as scope:
        if not isinstance(shape, Tensor):
            if isinstance(shape, tensor_shape.TensorShape):
                shape = shape.as_list()
            try:
                dims = np.asarray(shape, dtype=np.int64) if not holds_tensor(shape) else None
            except (TypeError, ValueError):
                dims = None
            # A negative dimension goes to Fill, whose shape function refuses it with
            # TF's text (not numpy's "negative dimensions are not allowed").
            if (dims is not None and dims.ndim <= 1 and np.all(dims >= 0)
                    and np.prod(dims) < 1000):
                return constant(value, dtype=dtype, shape=dims.reshape(-1).tolist(), name=scope)
            # Dimension objects (`x.shape[0]`, as the notes' k-means writes) become ints
            # here, as TF's TensorShape conversion does; the Const path above did that too.
            shape = convert_to_tensor(shape if dims is None else dims.tolist(),
                                      dtype=None if dims is not None and
                                      np.any(np.abs(dims) >= 2 ** 31) else dtypes.int32)
        if shape.shape.ndims == 0:
            from tfteach.ops.shape_ops import reshape
            shape = reshape(shape, [-1])
        return fill(shape, constant(value, dtype=dtype), name=scope)


def zeros(shape, dtype=dtypes.float32, name=None):
    """A tensor of `shape` filled with zeros (False, b'' for bool, string)."""
    return _filled(shape, dtype, 0, name, "zeros")


def ones(shape, dtype=dtypes.float32, name=None):
    """A tensor of `shape` filled with ones (True for bool)."""
    return _filled(shape, dtype, 1, name, "ones")


# -- ZerosLike, OnesLike ------------------------------------------------------------------------
register_op("ZerosLike", same_shape_fn, cpu=fill_kernels.zeros_like)
register_op("OnesLike", same_shape_fn, cpu=fill_kernels.ones_like)


def zeros_like(tensor, dtype=None, name=None, optimize=True):
    """Zeros with the shape of `tensor` (and its dtype unless `dtype` is given)."""
    with name_scope(name, "zeros_like", [tensor]) as scope:
        x = convert_to_tensor(tensor, name="tensor")
        dtype = dtypes.as_dtype(dtype).base_dtype if dtype is not None else None
        if optimize and x.shape.is_fully_defined():
            return zeros(x.shape.as_list(), dtype=dtype or x.dtype.base_dtype, name=scope)
        if dtype is not None and dtype != x.dtype.base_dtype:
            from tfteach.ops.shape_ops import shape
            return zeros(shape(x), dtype=dtype, name=scope)
        return apply_op("ZerosLike", [x], {"T": x.dtype.base_dtype}, scope)


def ones_like(tensor, dtype=None, name=None, optimize=True):
    """Ones with the shape of `tensor` (and its dtype unless `dtype` is given)."""
    from tfteach.ops.shape_ops import shape
    with name_scope(name, "ones_like", [tensor]) as scope:
        x = convert_to_tensor(tensor, name="tensor")
        shape_t = shape(x) if optimize else apply_op("Shape", [x], {
            "T": x.dtype.base_dtype, "out_type": dtypes.int32})
        result = ones(shape_t, dtype=dtype or x.dtype.base_dtype, name=scope)
        result.set_shape(x.shape)
        return result


# -- Range, LinSpace ---------------------------------------------------------------------------
_RANGE_DTYPES = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]


def _range_shape(op):
    for t, arg in zip(op._inputs, ("start", "limit", "delta")):
        _require_rank(t, 0, " for '%s'" % arg)
    values = [inferred_value(t) for t in op._inputs]
    dtype = op._attrs["Tidx"]
    if any(v is None for v in values):
        return [(dtype, tensor_shape.TensorShape([None]))]
    try:
        size = fill_kernels.range_size(*[v.item() for v in map(np.asarray, values)],
                                       integral=dtype.is_integer, dtype=dtype.np)
    except ValueError as e:
        raise shape_error(str(e), op, computed=[0, 1, 2]) from None
    return [(dtype, tensor_shape.TensorShape([size]))]


register_op("Range", _range_shape, cpu=fill_kernels.range_kernel)


def _cast_scalar(t, dtype):
    if t.dtype.base_dtype == dtype:
        return t
    value = constant_value(t)
    if value is not None:
        return constant(np.asarray(value).astype(dtype.np), dtype=dtype, name="Cast")
    from tfteach.ops import math_ops
    return math_ops.cast(t, dtype)


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 - TF's name
    """`[start, start + delta, ...]` up to (excluding) `limit`; `range(n)` starts at 0."""
    if limit is None:
        start, limit = 0, start
    with name_scope(name, "Range", [start, limit, delta]) as scope:
        start = convert_to_tensor(start, dtype=dtype, name="start")
        limit = convert_to_tensor(limit, dtype=dtype, name="limit")
        delta = convert_to_tensor(delta, dtype=dtype, name="delta")
        args = [start, limit, delta]
        if dtype is None:
            for a in args:
                if a.dtype.base_dtype not in _RANGE_DTYPES:
                    raise TypeError("Value passed to parameter 'start' has DataType %s not in "
                                    "list of allowed values: bfloat16, float32, float64, int32, "
                                    "int64" % a.dtype.base_dtype.name)
            inferred = max((a.dtype.base_dtype for a in args), key=_RANGE_DTYPES.index)
            args = [_cast_scalar(a, inferred) for a in args]
        return apply_op("Range", args, {"Tidx": args[0].dtype.base_dtype}, scope)


def _lin_space_shape(op):
    start, stop, num = op._inputs
    _require_rank(start, 0)
    _require_rank(stop, 0)
    _require_rank(num, 0)
    n = inferred_value(num)
    if n is None:
        return [(start.dtype.base_dtype, tensor_shape.TensorShape([None]))]
    if int(n) <= 0:
        raise shape_error("Requires num > 0: %d" % int(n), op, computed=[2])
    return [(start.dtype.base_dtype, tensor_shape.TensorShape([int(n)]))]


register_op("LinSpace", _lin_space_shape, cpu=fill_kernels.lin_space)


def lin_space(start, stop, num, name=None):
    """`num` evenly spaced values from `start` to `stop` (both included)."""
    with name_scope(name, "LinSpace", [start, stop, num]) as scope:
        start_t = convert_to_tensor(start, name="start")
        stop_t = convert_to_tensor(stop, name="stop", dtype=start_t.dtype.base_dtype)
        num_t = convert_to_tensor(num, name="num", preferred_dtype=dtypes.int32)
        if start_t.dtype.base_dtype not in (dtypes.float32, dtypes.float64):
            raise TypeError("Value passed to parameter 'start' has DataType %s not in list of "
                            "allowed values: bfloat16, float32, float64"
                            % start_t.dtype.base_dtype.name)
        index_dtype_of(num_t, "num")
        return apply_op("LinSpace", [start_t, stop_t, num_t],
                        {"T": start_t.dtype.base_dtype, "Tidx": num_t.dtype}, scope)


linspace = lin_space


# -- eye (MatrixDiag, MatrixSetDiag) -----------------------------------------------------------
def _matrix_diag_shape(op):
    d = op._inputs[0]
    if d.shape.ndims is None:
        return [(d.dtype.base_dtype, tensor_shape.unknown_shape())]
    if d.shape.ndims < 1:
        raise ShapeError("Shape must be at least rank 1 but is rank 0")
    n = d.shape[-1].value
    return [(d.dtype.base_dtype, d.shape.concatenate([n]))]


def _matrix_set_diag_shape(op):
    x, diag = op._inputs
    if x.shape.ndims is not None and x.shape.ndims < 2:
        raise ShapeError("Shape must be at least rank 2 but is rank %d" % x.shape.ndims)
    return [(x.dtype.base_dtype, x.shape)]


register_op("MatrixDiag", _matrix_diag_shape, cpu=fill_kernels.matrix_diag)
register_op("MatrixSetDiag", _matrix_set_diag_shape, cpu=fill_kernels.matrix_set_diag)


def matrix_diag(diagonal, name=None):
    """Batched square matrices with `diagonal` on their diagonals."""
    d = convert_to_tensor(diagonal, name="diagonal")
    return apply_op("MatrixDiag", [d], {"T": d.dtype.base_dtype}, name or "MatrixDiag")


def matrix_set_diag(input, diagonal, name=None):  # noqa: A002
    """`input` with its main diagonal(s) replaced by `diagonal`."""
    x = convert_to_tensor(input, name="input")
    d = convert_to_tensor(diagonal, name="diagonal", dtype=x.dtype.base_dtype)
    return apply_op("MatrixSetDiag", [x, d], {"T": x.dtype.base_dtype}, name or "MatrixSetDiag")


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """Identity matrix (or a batch of them), as `tf.eye`. Sizes may be tensors
    (`tf.eye(tf.shape(x)[0])`): the diagonal's length is then a `Minimum` op, as in TF."""
    from tfteach.ops.join_ops import concat
    with name_scope(name, "eye", [num_rows, num_columns, batch_shape]):
        is_square = num_columns is None
        batch_shape = [] if batch_shape is None else batch_shape
        num_columns = num_rows if num_columns is None else num_columns
        if isinstance(num_rows, Tensor) or isinstance(num_columns, Tensor):
            from tfteach.ops.math_ops import minimum
            diag_size = minimum(num_rows, num_columns)
            batch_shape = convert_to_tensor(batch_shape, name="shape", dtype=dtypes.int32)
            diag_shape = concat((batch_shape, [diag_size]), 0)
            shape = None if is_square else concat((batch_shape, [num_rows, num_columns]), 0)
            diag_ones = ones(diag_shape, dtype=dtype)
            if is_square:
                return matrix_diag(diag_ones)
            return matrix_set_diag(zeros(shape, dtype=dtype), diag_ones)
        if not all(isinstance(n, (int, np.integer)) for n in (num_rows, num_columns)):
            raise TypeError("num_rows and num_columns must be positive integer values.")
        if num_rows < 0 or num_columns < 0:
            raise ValueError("num_rows and num_columns must be positive integer values.")
        is_square = num_rows == num_columns
        diag_size = int(min(num_rows, num_columns))
        if isinstance(batch_shape, Tensor):
            diag_shape = concat((batch_shape, [diag_size]), 0)
            shape = concat((batch_shape, [num_rows, num_columns]), 0)
        else:
            diag_shape = list(batch_shape) + [diag_size]
            shape = list(batch_shape) + [num_rows, num_columns]
        diag_ones = ones(diag_shape, dtype=dtype)
        if is_square:
            return matrix_diag(diag_ones)
        return matrix_set_diag(zeros(shape, dtype=dtype), diag_ones)

