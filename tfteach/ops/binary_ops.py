"""Elementwise arithmetic of two tensors: `tf.add`, `tf.multiply`, `tf.truediv`, ...

All of them broadcast like NumPy (static shapes with `broadcast_static_shape`, values
by the ufunc), need both inputs to have the same dtype (TF never promotes: `tf.add(1,
2.5)` is a TypeError), and keep that dtype — except `truediv`, which turns small ints
into float32 and int32/int64 into float64 first, as Python 3's `/` in TF 1.x.

Which function builds which op type follows TF 1.15: `tf.add` is `Add` but the `+`
operator builds `AddV2`; `/` is `truediv` (Cast + RealDiv); `tf.div` floors integers.
"""
import numpy as np

from tfteach.framework import convert, dtypes
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import register_op
from tfteach.kernels.cpu import elementwise
from tfteach.kernels.cpu.cwise import (dispatch_by_dtype, integer_division_kernel,
                                       quiet_add_kernel, quiet_ufunc_kernel, run_impl,
                                       ufunc_kernel)
from tfteach.kernels.cpu.power import integer_power_kernel
from tfteach.ops.op_builder import apply_op, broadcast_static_shape
from tfteach.ops.typed_inputs import convert_same_type

__all__ = ["add", "subtract", "multiply", "divide", "truediv", "div", "floordiv",
           "realdiv", "floormod", "mod", "truncatemod", "truncatediv", "pow", "maximum",
           "minimum", "squared_difference", "scalar_mul"]


# -- op registration ---------------------------------------------------------------------
def broadcasting_shape_fn(choose_kernel, output_dtype=None):
    """Shape fn of a binary elementwise op; also picks the op's kernel for its dtype."""
    def shape_fn(op):
        x, y = op._inputs
        dtype = x.dtype.base_dtype
        op._attrs["_impl"] = choose_kernel(dtype)
        shape = broadcast_static_shape(x.shape, y.shape)
        return [(output_dtype or dtype, shape)]
    return shape_fn


def _register(op_type, kernels_by_kind):
    register_op(op_type, broadcasting_shape_fn(dispatch_by_dtype(kernels_by_kind, op_type)),
                cpu=run_impl)


def _numpy_kernels(ufunc, strings=False, complex_too=False):
    """Floats quietly, ints/bools as they are; strings and complex numbers only where
    TF has kernels for them."""
    kernels = {"f": quiet_ufunc_kernel(ufunc),
               "iub" + ("O" if strings else ""): ufunc_kernel(ufunc)}
    if complex_too:
        kernels["c"] = quiet_ufunc_kernel(ufunc)
    return kernels


# Float adds take the per-channel bias fast path (`conv + b`; cwise.quiet_add_kernel).
_register("Add", dict(_numpy_kernels(np.add, strings=True, complex_too=True),
                      f=quiet_add_kernel()))
_register("AddV2", dict(_numpy_kernels(np.add, complex_too=True), f=quiet_add_kernel()))
_register("Sub", _numpy_kernels(np.subtract, complex_too=True))
_register("Mul", _numpy_kernels(np.multiply, complex_too=True))
_register("Maximum", _numpy_kernels(np.maximum))
_register("Minimum", _numpy_kernels(np.minimum))
# TF has RealDiv kernels for floats and complex numbers only.
_register("RealDiv", {"f": quiet_ufunc_kernel(np.true_divide),
                      "c": quiet_ufunc_kernel(np.true_divide)})
_register("FloorDiv", {"f": quiet_ufunc_kernel(elementwise.floor_div_real),
                       "iu": integer_division_kernel(np.floor_divide)})
_register("FloorMod", {"f": quiet_ufunc_kernel(elementwise.floor_mod_real),
                       "iu": integer_division_kernel(np.remainder)})
# Truncating division and C's `%` (np.fmod keeps the sign of x, like C).
_register("TruncateMod", {"f": quiet_ufunc_kernel(np.fmod),
                          "iu": integer_division_kernel(np.fmod)})


def _truncate_divide(x, y):
    # x - fmod(x, y) is an exact multiple of y, so floor division of it truncates.
    return np.floor_divide(x - np.fmod(x, y), y)


def _truncate_divide_real(x, y):
    return np.trunc(np.true_divide(x, y))


_register("TruncateDiv", {"f": quiet_ufunc_kernel(_truncate_divide_real),
                          "iu": integer_division_kernel(_truncate_divide)})
_register("Pow", {"f": quiet_ufunc_kernel(np.power), "iu": integer_power_kernel,
                  "c": quiet_ufunc_kernel(np.power)})


def _squared_difference_complex(x, y):
    # TF's complex SquaredDifference is (x - y) * conj(x - y) = |x - y|^2 (imaginary 0).
    d = np.subtract(x, y)
    return d * np.conj(d)


_register("SquaredDifference", {"f": quiet_ufunc_kernel(elementwise.squared_difference),
                                "iu": ufunc_kernel(elementwise.squared_difference),
                                "c": quiet_ufunc_kernel(_squared_difference_complex)})


# -- building ----------------------------------------------------------------------------
def binary_op(op_type, x, y, name, allowed, default_name=None):
    """Builds `op_type(x, y)` inside TF's name scope, with TF's input conversion."""
    with name_scope(name, default_name or op_type, [x, y]) as scope:
        x, y = convert_same_type(op_type, [("x", x), ("y", y)], allowed)
        return apply_op(op_type, [x, y], {"T": x.dtype.base_dtype}, scope)


def add(x, y, name=None):
    """x + y elementwise (`Add`; also concatenates strings)."""
    return binary_op("Add", x, y, name, "add")


def add_v2(x, y, name=None):
    """The op of the `+` operator: `AddV2`, or `Add` for strings (TF 1.15)."""
    x = convert.convert_to_tensor(x, name="x")
    if x.dtype.base_dtype == dtypes.string:
        return binary_op("Add", x, y, name, "add")
    return binary_op("AddV2", x, y, name, "add_v2")


def subtract(x, y, name=None):
    return binary_op("Sub", x, y, name, "binary_more")


def multiply(x, y, name=None):
    return binary_op("Mul", x, y, name, "binary_more")


def realdiv(x, y, name=None):
    """x / y for floats (`RealDiv`)."""
    return binary_op("RealDiv", x, y, name, "binary_more")


def floordiv(x, y, name=None):
    """floor(x / y), rounding toward -inf for ints and floats (`FloorDiv`)."""
    return binary_op("FloorDiv", x, y, name, "binary_more", default_name="floordiv")


def truncatediv(x, y, name=None):
    """x / y rounded toward zero, as C's integer division (`TruncateDiv`)."""
    return binary_op("TruncateDiv", x, y, name, "binary_more")


def floormod(x, y, name=None):
    """The remainder of floor division: it has the sign of y (`FloorMod`, `tf.mod`)."""
    return binary_op("FloorMod", x, y, name, "mod")


mod = floormod


def truncatemod(x, y, name=None):
    """C's remainder, with the sign of x (`TruncateMod`)."""
    return binary_op("TruncateMod", x, y, name, "mod")


def pow(x, y, name=None):  # noqa: A001 - TensorFlow's name
    """x ** y elementwise; integers to negative powers are an error (`Pow`)."""
    return binary_op("Pow", x, y, name, "pow")


def maximum(x, y, name=None):
    return binary_op("Maximum", x, y, name, "max_min")


def minimum(x, y, name=None):
    return binary_op("Minimum", x, y, name, "max_min")


def squared_difference(x, y, name=None):
    """(x - y) * (x - y) elementwise (`SquaredDifference`)."""
    return binary_op("SquaredDifference", x, y, name, "squared_difference")


# -- the three divisions ------------------------------------------------------------------
# TF 1.x's `/` (Python 3) converts integers to floats first: the table of TF 1.15.
_TRUEDIV_TABLE = {
    dtypes.uint8: dtypes.float32, dtypes.int8: dtypes.float32,
    dtypes.uint16: dtypes.float64, dtypes.int16: dtypes.float32,
    dtypes.int32: dtypes.float64, dtypes.int64: dtypes.float64,
    dtypes.float16: None, dtypes.float32: None, dtypes.float64: None,
    dtypes.complex64: None, dtypes.complex128: None,
}


def _same_dtype_pair(x, y, y_dtype_from_x):
    x = convert.convert_to_tensor(x, name="x")
    y = convert.convert_to_tensor(y, name="y",
                                  dtype=x.dtype.base_dtype if y_dtype_from_x else None)
    if x.dtype.base_dtype != y.dtype.base_dtype:
        raise TypeError("x and y must have the same dtype, got %r != %r"
                        % (x.dtype.base_dtype, y.dtype.base_dtype))
    return x, y


def truediv(x, y, name=None):
    """x / y as Python 3 divides: integers are cast to float first (`tf.truediv`)."""
    from tfteach.ops.cast_ops import cast
    with name_scope(name, "truediv", [x, y]) as scope:
        x, y = _same_dtype_pair(x, y, y_dtype_from_x=False)
        dtype = x.dtype.base_dtype
        if dtype not in _TRUEDIV_TABLE:
            raise TypeError("Invalid dtype %r in __truediv__" % dtype)
        float_dtype = _TRUEDIV_TABLE[dtype]
        if float_dtype is not None:
            x = cast(x, float_dtype)
            y = cast(y, float_dtype)
        return binary_op("RealDiv", x, y, scope, "binary_more")


def div(x, y, name=None):
    """Python 2's `/` (deprecated in TF 1.x): floor division for ints, true for floats."""
    with name_scope(name, "div", [x, y]) as scope:
        x, y = _same_dtype_pair(x, y, y_dtype_from_x=True)
        if x.dtype.is_floating or x.dtype.is_complex:
            return binary_op("RealDiv", x, y, scope, "binary_more")
        return binary_op("FloorDiv", x, y, scope, "binary_more")


def divide(x, y, name=None):
    """x / y with the `/` operator's rules (`tf.divide`).

    TF 1.15 returns a Python number for two Python numbers; tfteach (like later TF)
    converts `x` to a tensor first, so the result can always be run in a Session.
    """
    if name is not None:
        return truediv(x, y, name)
    if not convert.is_tensor(x):
        x = convert.convert_to_tensor(
            x, dtype=y.dtype.base_dtype if convert.is_tensor(y) else None)
    return x / y


def scalar_mul(scalar, x, name=None):
    """scalar * x, where `scalar` must be 0-D (`tf.scalar_mul`)."""
    x = convert.convert_to_tensor(x, name="x")
    scalar = convert.convert_to_tensor(scalar, dtype=x.dtype.base_dtype, name="scalar")
    shape = scalar.shape
    if shape.ndims == 0:
        return multiply(scalar, x, name)
    raise ValueError("Only scalar multiply works, got shape %s" % shape)
