"""Complex numbers: `tf.complex`, `tf.real`, `tf.imag`, `tf.conj`, `tf.angle`, and the
modulus `tf.abs` takes of a complex tensor (`ComplexAbs`).

A complex64 holds two float32s, a complex128 two float64s (`dtype.real_dtype`). `Real`,
`Imag`, `Angle` and `ComplexAbs` return that real dtype. As in TF 1.15, the Python
functions pass real tensors through where the answer is obvious: `tf.real(x)` and
`tf.conj(x)` of a float tensor are `x` itself (no op), `tf.imag(x)` and `tf.angle(x)`
are `zeros_like(x)`. Gradients are in complex_grad.py (docs/complex.md).
"""
import numpy as np

from tfteach.framework import convert, dtypes
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import register_op
from tfteach.kernels.cpu.cwise import incompatible_shapes
from tfteach.ops.op_builder import apply_op, broadcast_static_shape

__all__ = ["complex", "real", "imag", "conj", "angle"]


# -- op registration ------------------------------------------------------------------------
def _complex_shape(op):
    real_t, imag_t = op._inputs
    return [(op._attrs["Tout"], broadcast_static_shape(real_t.shape, imag_t.shape))]


def _complex_kernel(ctx, real_part, imag_part):
    try:
        shape = np.broadcast_shapes(np.shape(real_part), np.shape(imag_part))
    except ValueError:
        raise incompatible_shapes(ctx, real_part, imag_part) from None
    out = np.empty(shape, ctx.attrs["Tout"].np)
    out.real[...] = real_part
    out.imag[...] = imag_part
    return out


def _to_real_shape(op):
    """Real, Imag, Angle, ComplexAbs: the input's shape, its real dtype (`Tout`)."""
    return [(op._attrs["Tout"], op._inputs[0].shape)]


def _real_kernel(ctx, x):
    return np.array(np.real(x), copy=True)       # a new buffer, never a view of x


def _imag_kernel(ctx, x):
    return np.array(np.imag(x), copy=True)


def _angle_kernel(ctx, x):
    return np.angle(x).astype(ctx.attrs["Tout"].np, copy=False)


def _complex_abs_kernel(ctx, x):
    return np.abs(x)       # hypot(re, im): no overflow for large parts, as TF's


def _same_dtype_shape(op):
    x = op._inputs[0]
    return [(x.dtype.base_dtype, x.shape)]


register_op("Complex", _complex_shape, cpu=_complex_kernel)
register_op("Real", _to_real_shape, cpu=_real_kernel)
register_op("Imag", _to_real_shape, cpu=_imag_kernel)
register_op("Angle", _to_real_shape, cpu=_angle_kernel)
register_op("ComplexAbs", _to_real_shape, cpu=_complex_abs_kernel)
register_op("Conj", _same_dtype_shape, cpu=lambda ctx, x: np.conj(x))


# -- building ---------------------------------------------------------------------------------
def complex(real, imag, name=None):  # noqa: A001 - TensorFlow's name
    """real + imag * 1j: two float32 tensors make a complex64, two float64 a complex128."""
    real = convert.convert_to_tensor(real, name="real")
    imag = convert.convert_to_tensor(imag, name="imag")
    with name_scope(name, "Complex", [real, imag]) as scope:
        input_types = (real.dtype.base_dtype, imag.dtype.base_dtype)
        if input_types == (dtypes.float64, dtypes.float64):
            tout = dtypes.complex128
        elif input_types == (dtypes.float32, dtypes.float32):
            tout = dtypes.complex64
        else:
            # TF 1.15's text (later TF words it differently).
            raise TypeError("real and imag have incorrect types: {} {}".format(
                real.dtype.base_dtype.name, imag.dtype.base_dtype.name))
        return apply_op("Complex", [real, imag], {"T": real.dtype.base_dtype, "Tout": tout},
                        scope)


def _to_real_op(op_type, x, scope):
    dtype = x.dtype.base_dtype
    return apply_op(op_type, [x], {"T": dtype, "Tout": dtype.real_dtype}, scope)


def real(input, name=None):  # noqa: A002 - TensorFlow's argument name
    """The real part of a complex tensor; a real tensor comes back itself."""
    with name_scope(name, "Real", [input]) as scope:
        x = convert.convert_to_tensor(input, name="input")
        if x.dtype.is_complex:
            return _to_real_op("Real", x, scope)
        return x


def imag(input, name=None):  # noqa: A002
    """The imaginary part of a complex tensor; zeros of a real one's dtype."""
    from tfteach.ops.fill_ops import zeros_like
    with name_scope(name, "Imag", [input]) as scope:
        x = convert.convert_to_tensor(input, name="input")
        if x.dtype.is_complex:
            return _to_real_op("Imag", x, scope)
        return zeros_like(x)


def angle(input, name=None):  # noqa: A002
    """The argument of each complex number, in (-pi, pi] (`Angle`, atan2(imag, real)).

    Of a real tensor, TF 1.15 returns zeros_like(input) (later TF returns pi for the
    negative numbers); tfteach follows 1.15.
    """
    from tfteach.ops.fill_ops import zeros_like
    with name_scope(name, "Angle", [input]) as scope:
        x = convert.convert_to_tensor(input, name="input")
        if x.dtype.is_complex:
            return _to_real_op("Angle", x, scope)
        return zeros_like(x)


def conj(x, name=None):
    """The complex conjugate; a real (float or integer) tensor comes back itself."""
    if convert.is_tensor(x) and (x.dtype.is_floating or x.dtype.is_integer):
        return x
    with name_scope(name, "Conj", [x]) as scope:
        x = convert.convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            return apply_op("Conj", [x], {"T": x.dtype.base_dtype}, scope)
        if x.dtype.is_floating or x.dtype.is_integer:
            return x
        raise TypeError("Expected numeric or variant tensor, got dtype %r" % x.dtype)
