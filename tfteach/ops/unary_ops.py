"""Elementwise functions of one tensor: `tf.exp`, `tf.sqrt`, `tf.sigmoid`, `tf.sign`, ...

The output has the input's shape and dtype (bool for `is_nan`/`is_inf`/`is_finite`).
Each op accepts TF 1.15's dtypes: `tf.sqrt(4)` is a TypeError because 4 becomes an
int32 tensor and Sqrt is defined for floats only. Complex tensors have kernels for the
ops TF computes on them (exp, log, sqrt, square, sin, tanh, ...; docs/complex.md).
"""
import numpy as np

from tfteach.framework import convert, dtypes
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.kernels.cpu import complex_math, elementwise
from tfteach.kernels.cpu.cwise import (dispatch_by_dtype, quiet_ufunc_kernel, run_impl,
                                       ufunc_kernel)
from tfteach.ops.op_builder import apply_op
from tfteach.ops.typed_inputs import convert_same_type

__all__ = ["negative", "abs", "square", "sqrt", "rsqrt", "exp", "expm1", "log", "log1p",
           "sin", "cos", "tan", "asin", "acos", "atan", "tanh", "sigmoid", "sign", "round",
           "floor", "ceil", "reciprocal", "is_nan", "is_inf", "is_finite"]


def _unary_shape_fn(choose_kernel, output_dtype):
    def shape_fn(op):
        x = op._inputs[0]
        op._attrs["_impl"] = choose_kernel(x.dtype.base_dtype)
        return [(output_dtype or x.dtype.base_dtype, x.shape)]
    return shape_fn


def _register(op_type, ufunc, ints=False, output_dtype=None, complex_ufunc=None):
    """`ufunc` for floats (silently: log(0) is -inf without a warning) and, if TF has
    integer kernels for the op, for ints; `complex_ufunc` for complex64/complex128 where
    TF has a complex kernel. Any other dtype gets TF's "No OpKernel was registered"."""
    kernels = {"f": quiet_ufunc_kernel(ufunc)}
    if ints:
        kernels["iu"] = ufunc_kernel(ufunc)
    if complex_ufunc is not None:
        kernels["c"] = quiet_ufunc_kernel(complex_ufunc)
    register_op(op_type, _unary_shape_fn(dispatch_by_dtype(kernels, op_type), output_dtype),
                cpu=run_impl)


for _op_type, _ufunc, _complex in [("Neg", np.negative, np.negative),
                                   ("Abs", np.absolute, None),   # complex: ComplexAbs
                                   ("Square", np.square, np.square),
                                   ("Sign", elementwise.sign, complex_math.sign)]:
    _register(_op_type, _ufunc, ints=True, complex_ufunc=_complex)
for _op_type, _ufunc, _complex in [
        ("Sqrt", np.sqrt, np.sqrt), ("Rsqrt", elementwise.rsqrt, complex_math.rsqrt),
        ("Exp", np.exp, np.exp), ("Expm1", np.expm1, complex_math.expm1),
        ("Log", np.log, np.log), ("Log1p", np.log1p, complex_math.log1p),
        ("Sin", np.sin, np.sin), ("Cos", np.cos, np.cos), ("Tan", np.tan, np.tan),
        ("Asin", np.arcsin, np.arcsin), ("Acos", np.arccos, np.arccos),
        ("Atan", np.arctan, np.arctan), ("Tanh", np.tanh, np.tanh),
        ("Sigmoid", elementwise.sigmoid, complex_math.sigmoid),
        ("Floor", np.floor, None), ("Ceil", np.ceil, None),
        # np.rint rounds half to even: banker's rounding, as TF's Round.
        ("Round", np.rint, None),
        # TF has no integer kernel for Reciprocal (1/x of ints).
        ("Reciprocal", np.reciprocal, np.reciprocal)]:
    _register(_op_type, _ufunc, complex_ufunc=_complex)
for _op_type, _ufunc in [("IsNan", np.isnan), ("IsInf", np.isinf),
                         ("IsFinite", np.isfinite)]:
    _register(_op_type, _ufunc, output_dtype=dtypes.bool)
    not_differentiable(_op_type)
not_differentiable("Sign")
not_differentiable("Round")
not_differentiable("Floor")
not_differentiable("Ceil")


def unary_op(op_type, x, name, allowed, converts_first=False):
    """`converts_first`: TF's Python wrapper converts x itself before the op definition
    does (tf.sigmoid, tf.sign), so None is convert_to_tensor's bare ValueError."""
    with name_scope(name, op_type, [x]) as scope:
        if converts_first:
            x = convert.convert_to_tensor(x, name="x")
        x, = convert_same_type(op_type, [("x", x)], allowed)
        return apply_op(op_type, [x], {"T": x.dtype.base_dtype}, scope)


def negative(x, name=None):
    """-x (`Neg`)."""
    return unary_op("Neg", x, name, "unary")


def abs(x, name=None):  # noqa: A001 - TensorFlow's name
    """|x| (`Abs`). The absolute value of the most negative int wraps, as in TF.

    Of a complex tensor: its modulus, a real tensor (`ComplexAbs`, complex_ops.py)."""
    with name_scope(name, "Abs", [x]) as scope:
        x = convert.convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            dtype = x.dtype.base_dtype
            return apply_op("ComplexAbs", [x], {"T": dtype, "Tout": dtype.real_dtype}, scope)
        return unary_op("Abs", x, scope, "abs")


def square(x, name=None):
    return unary_op("Square", x, name, "unary")


def sqrt(x, name=None):
    return unary_op("Sqrt", x, name, "float_or_complex")


def rsqrt(x, name=None):
    """1 / sqrt(x) (`Rsqrt`)."""
    return unary_op("Rsqrt", x, name, "float_or_complex")


def exp(x, name=None):
    return unary_op("Exp", x, name, "float_or_complex")


def expm1(x, name=None):
    """exp(x) - 1, accurate for small x (`Expm1`)."""
    return unary_op("Expm1", x, name, "float_or_complex")


def log(x, name=None):
    """The natural logarithm (`Log`)."""
    return unary_op("Log", x, name, "float_or_complex")


def log1p(x, name=None):
    """log(1 + x), accurate for small x (`Log1p`)."""
    return unary_op("Log1p", x, name, "float_or_complex")


def sin(x, name=None):
    return unary_op("Sin", x, name, "float_or_complex")


def cos(x, name=None):
    return unary_op("Cos", x, name, "float_or_complex")


def tan(x, name=None):
    return unary_op("Tan", x, name, "float_or_complex")


def asin(x, name=None):
    return unary_op("Asin", x, name, "float_or_complex")


def acos(x, name=None):
    return unary_op("Acos", x, name, "float_or_complex")


def atan(x, name=None):
    return unary_op("Atan", x, name, "float_or_complex")


def tanh(x, name=None):
    return unary_op("Tanh", x, name, "float_or_complex")


def sigmoid(x, name=None):
    """1 / (1 + exp(-x)) (`Sigmoid`)."""
    return unary_op("Sigmoid", x, name, "float_or_complex", converts_first=True)


def sign(x, name=None):
    """-1, 0 or 1 by the sign of x; 0 for NaN (`Sign`, TF 1.15)."""
    return unary_op("Sign", x, name, "unary", converts_first=True)


def round(x, name=None):  # noqa: A001 - TensorFlow's name
    """Rounds half to even (banker's rounding); integers come back unchanged, no op."""
    x = convert.convert_to_tensor(x, name="x")
    if x.dtype.is_integer:
        return x
    return unary_op("Round", x, name, "unary")


def floor(x, name=None):
    return unary_op("Floor", x, name, "float")


def ceil(x, name=None):
    return unary_op("Ceil", x, name, "float")


def reciprocal(x, name=None):
    """1 / x (`Reciprocal`)."""
    return unary_op("Reciprocal", x, name, "unary")


def is_nan(x, name=None):
    return unary_op("IsNan", x, name, "float")


def is_inf(x, name=None):
    return unary_op("IsInf", x, name, "float")


def is_finite(x, name=None):
    return unary_op("IsFinite", x, name, "float")
