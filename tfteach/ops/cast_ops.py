"""Changing a tensor's dtype: `tf.cast`, `tf.saturate_cast`, `tf.to_float`, ...

Casting follows C++'s conversions, as TF's Cast kernel does: float -> int truncates
toward zero (-1.7 -> -1), anything -> bool is `x != 0` (NaN -> True), bool -> number is
0 or 1. Out-of-range values wrap or saturate as the CPU does; `saturate_cast` clamps
first so they cannot.
"""
import numpy as np

from tfteach.framework import convert, dtypes
from tfteach.framework.errors import UnimplementedError
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import register_op
from tfteach.framework.tensor import Tensor
from tfteach.kernels.cpu.cwise import run_impl
from tfteach.ops.binary_ops import maximum, minimum
from tfteach.ops.op_builder import apply_op

__all__ = ["cast", "saturate_cast", "to_float", "to_double", "to_int32", "to_int64"]


def _astype_kernel(target):
    # From integers or bools NumPy warns only of an overflow into float16 (checked for
    # every pair of int/bool and numeric types): no errstate for the rest (~1 µs a Cast).
    quiet_from_integers = np.dtype(target) != np.float16

    def kernel(ctx, x):
        if quiet_from_integers and x.dtype.kind in "biu":
            return x.astype(target)
        with np.errstate(all="ignore"):     # NaN -> int: TF gives INT_MIN without a word
            return x.astype(target)
    return kernel


def _from_complex_kernel(target):
    """complex -> real keeps the real part, as TF's Cast (NumPy would warn first)."""
    def kernel(ctx, x):
        with np.errstate(all="ignore"):
            return np.real(x).astype(target)
    return kernel


def _unsupported_cast_kernel(ctx, x):
    raise UnimplementedError(None, ctx.op, "Cast %s to %s is not supported" % (
        ctx.attrs["SrcT"].c_name, ctx.attrs["DstT"].c_name))


def _cast_shape(op):
    source, target = op._attrs["SrcT"], op._attrs["DstT"]
    if dtypes.string in (source, target):
        op._attrs["_impl"] = _unsupported_cast_kernel
    elif source.is_complex and not target.is_complex:
        op._attrs["_impl"] = _from_complex_kernel(target.np)
    else:
        op._attrs["_impl"] = _astype_kernel(target.np)
    return [(target, op._inputs[0].shape)]


register_op("Cast", _cast_shape, cpu=run_impl)


def cast(x, dtype, name=None):
    """`x` as `dtype`; a tensor that already has it comes back itself (no op)."""
    base_type = dtypes.as_dtype(dtype).base_dtype
    if isinstance(x, Tensor) and base_type == x.dtype:
        return x
    with name_scope(name, "Cast", [x]) as scope:
        x = convert.convert_to_tensor(x, name="x")
        if x.dtype.base_dtype != base_type:
            x = apply_op("Cast", [x], {"SrcT": x.dtype.base_dtype, "DstT": base_type,
                                       "Truncate": False}, scope)
        return x


def saturate_cast(value, dtype, name=None):
    """Casts, clamping values to the range of `dtype` first (1e10 -> int32 max)."""
    with name_scope(name, "saturate_cast", [value]) as scope:
        value = convert.convert_to_tensor(value, name="value")
        dtype = dtypes.as_dtype(dtype).base_dtype
        if value.dtype.min < dtype.min:
            value = maximum(value, convert.convert_to_tensor(
                _representable(dtype.min, value.dtype), name="min"))
        if value.dtype.max > dtype.max:
            value = minimum(value, convert.convert_to_tensor(
                _representable(dtype.max, value.dtype), name="max"))
        return cast(value, dtype, name=scope)


def _representable(limit, dtype):
    """`limit` in `dtype`, moved toward 0 if rounding would push it out of range.

    (float32(2**31 - 1) rounds up to 2**31, which no longer fits an int32; TF 1.15 had
    that bug, later TF versions and tfteach step down to the next float.)
    """
    value = np.array(limit, dtype=dtype.base_dtype.np)
    if dtype.is_floating and abs(float(value)) > abs(limit):
        value = np.nextafter(value, np.zeros_like(value))
    return value


def to_float(x, name="ToFloat"):
    return cast(x, dtypes.float32, name=name)


def to_double(x, name="ToDouble"):
    return cast(x, dtypes.float64, name=name)


def to_int32(x, name="ToInt32"):
    return cast(x, dtypes.int32, name=name)


def to_int64(x, name="ToInt64"):
    return cast(x, dtypes.int64, name=name)
