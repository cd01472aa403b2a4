"""Reductions (`tf.reduce_sum`, ...), `tf.argmax` / `tf.argmin` and `tf.cumsum` / `tf.cumprod`.

The functions keep TF 1.15's signatures, including the TF1 aliases students meet in
older notes (`keep_dims`, `reduction_indices`, argmax's `dimension`), and build the
graph TensorFlow builds: `tf.reduce_sum(x)` adds a `Const` holding every axis and an op
`Sum` whose second input is the axes (a Python axis becomes `Sum/reduction_indices`).

Static shapes follow TensorFlow's shape functions: an axis known at build time gives a
known output shape; an axis only known when the graph runs gives an unknown shape
(of the input's rank with keepdims). Kernels are in `kernels/cpu/reduction_kernels.py`.

`reduce_logsumexp` and `count_nonzero` are single ops here (`ReduceLogSumExp`,
`CountNonzero`); TensorFlow composes them from ~15 and 4 smaller ops. The values and
the output tensor's name (`ReduceLogSumExp:0`, ...) are what TF gives. Likewise,
`axis=None` on an input of unknown rank is one `AllAxes` op (TF: `Rank` and `range`).
"""
import numpy as np

from tfteach.framework import convert, dtypes, tensor_shape
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.kernels.cpu import reduction_kernels as kernels
from tfteach.ops import op_builder
from tfteach.ops.build_time_values import inferred_value
from tfteach.ops.constant_op import constant
from tfteach.ops.op_builder import (ShapeError, apply_op,
                                     deprecated_argument_lookup)
from tfteach.ops.typed_inputs import refuse_none

__all__ = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
           "reduce_any", "reduce_all", "reduce_logsumexp", "count_nonzero",
           "argmax", "argmin", "cumsum", "cumprod"]

# TensorFlow's type-constraint texts, as its TypeErrors print them.
_NUMBER_TYPES = ("float32, float64, int32, uint8, int16, int8, complex64, int64, qint8, "
                 "quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, float16, "
                 "uint32, uint64")
_REAL_NUMBER_TYPES = ("float32, float64, int32, uint8, int16, int8, int64, bfloat16, uint16, "
                      "float16, uint32, uint64, qint8, quint8, qint32, qint16, quint16")
_FLOAT_TYPES = "bfloat16, float16, float32, float64"
_INDEX_TYPES = (dtypes.int32, dtypes.int64)


# -- argument checks -----------------------------------------------------------------------
def _is_number(dtype):
    return dtype.is_floating or dtype.is_integer


def _is_number_or_complex(dtype):
    """Sum, Prod and Mean also add complex numbers (Max/Min need an order)."""
    return _is_number(dtype) or dtype.is_complex


def _check_dtype(param, dtype, accepted, allowed_text):
    dtype = dtype.base_dtype
    if not accepted(dtype):
        raise TypeError("Value passed to parameter '%s' has DataType %s not in list of "
                        "allowed values: %s" % (param, dtype.name, allowed_text))


def _index_tensor(value, param):
    """An axis argument as an int32/int64 tensor (a Python int becomes a Const `param`)."""
    if isinstance(value, (list, tuple)) and not value:
        value = np.zeros(0, np.int32)   # `[]`: no axis; as a Python list it would be float32
    tensor = convert.convert_to_tensor(value, name=param, preferred_dtype=dtypes.int32)
    _check_dtype(param, tensor.dtype, lambda d: d in _INDEX_TYPES, "int32, int64")
    return tensor


def _all_axes(x):
    """The `axis=None` tensor: every axis of `x` (TF's `_ReductionDims`)."""
    if x.shape.ndims is not None:
        return constant(np.arange(x.shape.ndims, dtype=np.int32))
    return apply_op("AllAxes", [x], {"T": x.dtype.base_dtype}, name="all_axes")


def _may_reduce_to_scalar(keepdims, axis, output):
    """Reducing over all axes of an input of unknown rank still gives a scalar (TF)."""
    if axis is None and not keepdims and not output.shape.is_fully_defined():
        output.set_shape(())
    return output


# -- shape functions -----------------------------------------------------------------------
def _computed_error(message, value):
    """A ShapeError that, like TF's, also shows the constant axis value it read."""
    error = ShapeError(message)
    error.input_tensors_note = " and with computed input tensors: input[1] = <%s>" % " ".join(
        str(v) for v in np.ravel(value).tolist())
    return error


def reduced_shape(input_shape, axis_tensor, keep_dims):
    """The static shape of a reduction of `input_shape` over `axis_tensor` (TF's rules)."""
    if axis_tensor.shape.ndims is not None and axis_tensor.shape.ndims > 1:
        raise ShapeError("Shape must be at most rank 1 but is rank %d" % axis_tensor.shape.ndims)
    axes = inferred_value(axis_tensor)
    rank = input_shape.ndims
    if axes is None or rank is None:
        if keep_dims and rank is not None:
            return tensor_shape.unknown_shape(rank)
        return tensor_shape.unknown_shape()
    reduced = set()
    for axis in np.ravel(axes).tolist():
        if not -rank <= axis < rank:
            raise _computed_error("Invalid reduction dimension %d for input with %d "
                                  "dimensions." % (axis, rank), axes)
        reduced.add(axis % rank)
    dims = []
    for i, dim in enumerate(input_shape.dims):
        if i not in reduced:
            dims.append(dim)
        elif keep_dims:
            dims.append(1)
    return tensor_shape.TensorShape(dims)


def _reduction_shape_fn(output_dtype):
    def shape_fn(op):
        x, axis = op._inputs
        return [(output_dtype(op), reduced_shape(x.shape, axis, op._attrs["keep_dims"]))]
    return shape_fn


def _input_dtype(op):
    return op._inputs[0].dtype.base_dtype


def _attr_dtype(op):
    return op._attrs["dtype"]


def _all_axes_shape(op):
    rank = op._inputs[0].shape.ndims
    return [(dtypes.int32, tensor_shape.TensorShape([rank]))]


def _arg_shape(op):
    x, dimension = op._inputs
    out_type = op._attrs["output_type"]
    if dimension.shape.ndims not in (None, 0):
        raise ShapeError("Shape must be rank 0 but is rank %d" % dimension.shape.ndims)
    rank = x.shape.ndims
    if rank is None:
        return [(out_type, tensor_shape.unknown_shape())]
    if rank <= 1:        # TF: reducing a scalar or a vector gives a scalar, whatever the axis
        return [(out_type, tensor_shape.scalar())]
    value = inferred_value(dimension)
    if value is None:
        return [(out_type, tensor_shape.unknown_shape(rank - 1))]
    axis = int(value)
    if not -rank <= axis < rank:
        raise _computed_error("Dimension (%d) must be in the range [%d, %d), where %d is the "
                              "number of dimensions in the input." % (axis, -rank, rank, rank),
                              value)
    dims = x.shape.dims
    del dims[axis % rank]
    return [(out_type, tensor_shape.TensorShape(dims))]


# -- registration --------------------------------------------------------------------------
_same = _reduction_shape_fn(_input_dtype)
register_op("Sum", _same, cpu=kernels.reduction_kernel(np.sum))
register_op("Prod", _same, cpu=kernels.reduction_kernel(np.prod))
register_op("Mean", _same, cpu=kernels.mean_kernel)
register_op("Max", _same, cpu=kernels.max_kernel)
register_op("Min", _same, cpu=kernels.min_kernel)
register_op("Any", _same, cpu=kernels.logical_kernel(np.any))
register_op("All", _same, cpu=kernels.logical_kernel(np.all))
register_op("ReduceLogSumExp", _same, cpu=kernels.logsumexp_kernel)
register_op("CountNonzero", _reduction_shape_fn(_attr_dtype), cpu=kernels.count_nonzero_kernel)
register_op("AllAxes", _all_axes_shape, cpu=lambda ctx, x: np.arange(np.ndim(x), dtype=np.int32))
register_op("ArgMax", _arg_shape, cpu=kernels.argmax_kernel)
register_op("ArgMin", _arg_shape, cpu=kernels.argmin_kernel)
register_op("Cumsum", op_builder.same_shape_fn, cpu=kernels.cumsum_kernel)
register_op("Cumprod", op_builder.same_shape_fn, cpu=kernels.cumprod_kernel)
for _op_type in ("Any", "All", "CountNonzero", "AllAxes", "ArgMax", "ArgMin"):
    not_differentiable(_op_type)


# -- building ------------------------------------------------------------------------------
def _reduce(op_type, input_tensor, axis, keepdims, name, accepted, allowed_text):
    """Builds `op_type(x, axes)` the way TF's `reduce_*` does."""
    x = convert.convert_to_tensor(input_tensor)
    keepdims = bool(keepdims) if keepdims is not None else False
    graph = x.graph
    with graph.as_default():
        axes = _all_axes(x) if axis is None else axis
        with graph.name_scope(name or op_type) as scope:
            axes = _index_tensor(axes, "reduction_indices")
            _check_dtype("input", x.dtype, accepted, allowed_text)
            output = apply_op(op_type, [x, axes], {"T": x.dtype.base_dtype, "Tidx": axes.dtype,
                                                   "keep_dims": keepdims}, name=scope)
    return _may_reduce_to_scalar(keepdims, axis, output)


def _check_bool_input(op_type, dtype):
    if dtype.base_dtype != dtypes.bool:
        raise TypeError("Input 'input' of '%s' Op has type %s that does not match expected type "
                        "of bool." % (op_type, dtype.base_dtype.name))


def _named(function, public_name, doc):
    function.__name__ = function.__qualname__ = public_name
    function.__doc__ = doc
    return function


def _make_reduction(public_name, op_type, accepted, allowed_text, doc):
    def reduction(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                  keep_dims=None):
        axis = deprecated_argument_lookup("axis", axis, "reduction_indices", reduction_indices)
        keepdims = deprecated_argument_lookup("keepdims", keepdims, "keep_dims", keep_dims)
        return _reduce(op_type, input_tensor, axis, keepdims, name, accepted, allowed_text)
    return _named(reduction, public_name, doc + _AXIS_DOC)


_AXIS_DOC = """

    `axis`: None (all axes), an int, a list of ints (negative counts from the end) or an
    int32/int64 tensor; `keepdims` keeps reduced axes with length 1. TF1 aliases:
    `reduction_indices` for `axis`, `keep_dims` for `keepdims`."""


reduce_sum = _make_reduction("reduce_sum", "Sum", _is_number_or_complex, _NUMBER_TYPES,
                             "The sum of the elements across `axis`, as `tf.reduce_sum`.")
reduce_prod = _make_reduction("reduce_prod", "Prod", _is_number_or_complex, _NUMBER_TYPES,
                              "The product of the elements across `axis`, as `tf.reduce_prod`.")
reduce_mean = _make_reduction(
    "reduce_mean", "Mean", _is_number_or_complex, _NUMBER_TYPES,
    "The mean across `axis`, as `tf.reduce_mean`; integer means truncate, like TF's.")
reduce_max = _make_reduction(
    "reduce_max", "Max", _is_number, _REAL_NUMBER_TYPES,
    "The maximum across `axis`, as `tf.reduce_max` (-inf / the dtype's min when empty).")
reduce_min = _make_reduction(
    "reduce_min", "Min", _is_number, _REAL_NUMBER_TYPES,
    "The minimum across `axis`, as `tf.reduce_min` (+inf / the dtype's max when empty).")


def _make_logical_reduction(public_name, op_type, doc):
    def reduction(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                  keep_dims=None):
        axis = deprecated_argument_lookup("axis", axis, "reduction_indices", reduction_indices)
        keepdims = deprecated_argument_lookup("keepdims", keepdims, "keep_dims", keep_dims)
        x = convert.convert_to_tensor(input_tensor)
        _check_bool_input(op_type, x.dtype)
        return _reduce(op_type, x, axis, keepdims, name, lambda d: True, "bool")
    return _named(reduction, public_name, doc + _AXIS_DOC)


reduce_any = _make_logical_reduction(
    "reduce_any", "Any", "The logical or of a bool tensor across `axis`, as `tf.reduce_any`.")
reduce_all = _make_logical_reduction(
    "reduce_all", "All", "The logical and of a bool tensor across `axis`, as `tf.reduce_all`.")


def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                     keep_dims=None):
    """log(sum(exp(x))) across `axis`, computed stably, as `tf.reduce_logsumexp`."""
    axis = deprecated_argument_lookup("axis", axis, "reduction_indices", reduction_indices)
    keepdims = deprecated_argument_lookup("keepdims", keepdims, "keep_dims", keep_dims)
    keepdims = bool(keepdims) if keepdims is not None else False
    graph = op_builder.graph_of([input_tensor])
    with graph.as_default(), graph.name_scope(name or "ReduceLogSumExp") as scope:
        x = convert.convert_to_tensor(input_tensor, name="input")
        axes = _index_tensor(_all_axes(x) if axis is None else axis, "reduction_indices")
        _check_dtype("x", x.dtype, lambda d: d.is_floating, _FLOAT_TYPES)
        output = apply_op("ReduceLogSumExp", [x, axes], {
            "T": x.dtype.base_dtype, "Tidx": axes.dtype, "keep_dims": keepdims}, name=scope)
    return _may_reduce_to_scalar(keepdims, axis, output)


def count_nonzero(input_tensor=None, axis=None, keepdims=None, dtype=dtypes.int64, name=None,
                  reduction_indices=None, keep_dims=None, input=None):  # noqa: A002 - TF's name
    """How many elements are not zero (not False, not "") across `axis`, as `tf.count_nonzero`."""
    input_tensor = deprecated_argument_lookup("input", input, "input_tensor", input_tensor)
    axis = deprecated_argument_lookup("axis", axis, "reduction_indices", reduction_indices)
    keepdims = deprecated_argument_lookup("keepdims", keepdims, "keep_dims", keep_dims)
    keepdims = bool(keepdims) if keepdims is not None else False
    dtype = dtypes.as_dtype(dtype)
    graph = op_builder.graph_of([input_tensor])
    with graph.as_default(), graph.name_scope(name or "count_nonzero") as scope:
        x = convert.convert_to_tensor(input_tensor, name="input")
        axes = _index_tensor(_all_axes(x) if axis is None else axis, "reduction_indices")
        output = apply_op("CountNonzero", [x, axes], {
            "T": x.dtype.base_dtype, "Tidx": axes.dtype, "keep_dims": keepdims, "dtype": dtype},
            name=scope)
    return _may_reduce_to_scalar(keepdims, axis, output)


# -- ArgMax / ArgMin -----------------------------------------------------------------------
def _arg_op(op_type, input_value, axis, output_type, name):
    if axis is None:
        axis = 0
    output_type = dtypes.as_dtype(output_type)
    if output_type not in _INDEX_TYPES:
        raise TypeError("Value passed to parameter 'output_type' has DataType %s not in list of "
                        "allowed values: int32, int64" % output_type.name)
    graph = op_builder.graph_of([input_value, axis])
    with graph.as_default(), graph.name_scope(name or op_type) as scope:
        refuse_none(input_value, "input")
        x = convert.convert_to_tensor(input_value, name="input")
        dimension = _index_tensor(axis, "dimension")
        _check_dtype("input", x.dtype, _is_number, _NUMBER_TYPES)
        return apply_op(op_type, [x, dimension], {
            "T": x.dtype.base_dtype, "Tidx": dimension.dtype, "output_type": output_type},
            name=scope)


def argmax(input, axis=None, name=None, dimension=None,  # noqa: A002 - TF's argument name
           output_type=dtypes.int64):
    """The index of the largest value along `axis` (default 0), as `tf.argmax`.

    Ties give the first index. `dimension` is TF1's name for `axis`; `output_type` is
    tf.int64 (default) or tf.int32.
    """
    axis = deprecated_argument_lookup("axis", axis, "dimension", dimension)
    return _arg_op("ArgMax", input, axis, output_type, name)


def argmin(input, axis=None, name=None, dimension=None,  # noqa: A002
           output_type=dtypes.int64):
    """The index of the smallest value along `axis` (default 0), as `tf.argmin`."""
    axis = deprecated_argument_lookup("axis", axis, "dimension", dimension)
    return _arg_op("ArgMin", input, axis, output_type, name)


# -- Cumsum / Cumprod ----------------------------------------------------------------------
def _scan(op_type, x, axis, exclusive, reverse, name):
    graph = op_builder.graph_of([x, axis])
    with graph.as_default(), graph.name_scope(name or op_type) as scope:
        x = convert.convert_to_tensor(x, name="x")
        axis = _index_tensor(axis, "axis")
        _check_dtype("x", x.dtype, _is_number_or_complex, _NUMBER_TYPES)
        return apply_op(op_type, [x, axis], {
            "T": x.dtype.base_dtype, "Tidx": axis.dtype, "exclusive": bool(exclusive),
            "reverse": bool(reverse)}, name=scope)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running sums along `axis`, as `tf.cumsum`.

    cumsum([a, b, c]) = [a, a + b, a + b + c]; exclusive=True gives [0, a, a + b];
    reverse=True sums from the end: [a + b + c, b + c, c].
    """
    return _scan("Cumsum", x, axis, exclusive, reverse, name)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running products along `axis`, as `tf.cumprod` (exclusive starts from 1)."""
    return _scan("Cumprod", x, axis, exclusive, reverse, name)
