"""Gradients of the complex-number ops (TF 1.15's math_grad.py and array_grad.py).

TF's convention: for a real loss L of a complex z, the gradient it returns is
dL/dRe(z) + i dL/dIm(z), the conjugate of the Wirtinger derivative times 2; for a
holomorphic f, grad_in = grad_out * conj(f'(z)). `Real` and `Imag` send a real
gradient back into the real or imaginary part; `Complex` splits one.
"""
from tfteach.framework.registry import gradient
from tfteach.ops import complex_ops, unary_ops
from tfteach.ops.broadcast_grad import BroadcastGradients
from tfteach.ops.constant_op import constant
from tfteach.ops.fill_ops import zeros_like

__all__ = []


@gradient("Real")
def _real_grad(op, grad):
    zero = constant(0, dtype=grad.dtype.base_dtype)
    return [complex_ops.complex(grad, zero)]


@gradient("Imag")
def _imag_grad(op, grad):
    zero = constant(0, dtype=grad.dtype.base_dtype)
    return [complex_ops.complex(zero, grad)]


@gradient("Complex")
def _complex_grad(op, grad):
    x, y = op._inputs
    bcast = BroadcastGradients(x, y)
    return [bcast.for_x(complex_ops.real(grad)), bcast.for_y(complex_ops.imag(grad))]


@gradient("Conj")
def _conj_grad(op, grad):
    return [complex_ops.conj(grad)]


@gradient("ComplexAbs")
def _complex_abs_grad(op, grad):
    """d|z| = z / |z| (0 at z = 0: div_no_nan), times the real grad."""
    # Imported here: tfteach.losses brings tfteach.nn (~40 ms) that `import tfteach`
    # does not need (docs/engine.md, "Lazy imports").
    from tfteach.losses.safe_div import div_no_nan
    z, modulus = op._inputs[0], op._outputs[0]
    return [div_no_nan(complex_ops.complex(grad, zeros_like(grad)) * z,
                       complex_ops.complex(modulus, zeros_like(modulus)))]


@gradient("Angle")
def _angle_grad(op, grad):
    """-grad / (imag + i real), TF's formula for d atan2(imag, real)."""
    x = op._inputs[0]
    re = complex_ops.real(x)
    im = complex_ops.imag(x)
    z = unary_ops.reciprocal(complex_ops.complex(im, re))
    zero = constant(0, dtype=grad.dtype.base_dtype)
    complex_grad = complex_ops.complex(grad, zero)
    return [-complex_grad * z]
