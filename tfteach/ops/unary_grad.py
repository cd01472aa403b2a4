"""Gradients of the elementwise functions of one tensor (exp, log, tanh, sigmoid, ...).

Each is TF 1.15's formula, built from the same ops so the graph reads the same:
`d/dx exp(x) = exp(x)` becomes `gradients/Exp_grad/mul = grad * Exp:0`. Where TF
uses a dedicated op (`SigmoidGrad`, `TanhGrad`, `SqrtGrad`, `RsqrtGrad`,
`ReciprocalGrad`), so does tfteach; those take the forward *output* y.
"""
from tfteach.framework import registry
from tfteach.framework.registry import gradient, register_op
from tfteach.kernels.cpu import complex_math, grad_kernels
from tfteach.kernels.cpu.cwise import ufunc_kernel
from tfteach.ops import binary_ops, complex_ops, unary_ops
from tfteach.ops.constant_op import constant
from tfteach.ops.fill_ops import zeros
from tfteach.ops.op_builder import apply_op, same_shape_fn
from tfteach.ops.shape_ops import shape

__all__ = []


# -- the *Grad ops -------------------------------------------------------------------------
def _register_grad_op(op_type, ufunc, derivative_of_y):
    """`ufunc(y, dy)` for real dtypes; for complex ones dy * conj(f'(x)), with f'(x)
    written from y by `derivative_of_y` (TF's complex *Grad functors)."""
    real_kernel = ufunc_kernel(ufunc)
    complex_kernel = ufunc_kernel(complex_math.conj_grad(derivative_of_y))

    def kernel(ctx, y, dy):
        if y.dtype.kind == "c":
            return complex_kernel(ctx, y, dy)
        return real_kernel(ctx, y, dy)
    register_op(op_type, same_shape_fn, cpu=kernel)


def _sigmoid_derivative(y):
    return y * (1 - y)


def _tanh_derivative(y):
    return 1 - y * y


def _sqrt_derivative(y):
    return 0.5 / y          # conj(0.5 / y) = 0.5 / conj(y), TF's SqrtGrad


def _rsqrt_derivative(y):
    return -0.5 * y * y * y


def _reciprocal_derivative(y):
    return -(y * y)


_register_grad_op("SigmoidGrad", grad_kernels.sigmoid_grad, _sigmoid_derivative)
_register_grad_op("TanhGrad", grad_kernels.tanh_grad, _tanh_derivative)
_register_grad_op("SqrtGrad", grad_kernels.sqrt_grad, _sqrt_derivative)
_register_grad_op("RsqrtGrad", grad_kernels.rsqrt_grad, _rsqrt_derivative)
_register_grad_op("ReciprocalGrad", grad_kernels.reciprocal_grad, _reciprocal_derivative)


def _grad_op(op_type, y, dy):
    return apply_op(op_type, [y, dy], {"T": y.dtype.base_dtype}, name=op_type)


# -- gradients -------------------------------------------------------------------------------
# TF's convention for complex x: the gradient is grad times the *conjugate* of f'(x)
# (math_grad.py conjugates x, or y, first). `conj` of a real tensor is the tensor itself,
# so for real dtypes these graphs have no Conj op.
def _conj_input(op):
    return complex_ops.conj(op._inputs[0])


@gradient("Neg")
def _neg_grad(op, grad):
    return [-grad]


@gradient("Abs")
def _abs_grad(op, grad):
    return [grad * unary_ops.sign(op._inputs[0])]


@gradient("Square")
def _square_grad(op, grad):
    x = _conj_input(op)
    two = constant(2.0, dtype=x.dtype.base_dtype)
    return [binary_ops.multiply(grad, binary_ops.multiply(x, two))]


@gradient("Sqrt")
def _sqrt_grad(op, grad):
    return [_grad_op("SqrtGrad", op._outputs[0], grad)]


@gradient("Rsqrt")
def _rsqrt_grad(op, grad):
    return [_grad_op("RsqrtGrad", op._outputs[0], grad)]


@gradient("Reciprocal")
def _reciprocal_grad(op, grad):
    return [_grad_op("ReciprocalGrad", op._outputs[0], grad)]


@gradient("Tanh")
def _tanh_grad(op, grad):
    return [_grad_op("TanhGrad", op._outputs[0], grad)]


@gradient("Sigmoid")
def _sigmoid_grad(op, grad):
    return [_grad_op("SigmoidGrad", op._outputs[0], grad)]


@gradient("Exp")
def _exp_grad(op, grad):
    return [grad * complex_ops.conj(op._outputs[0])]


@gradient("Expm1")
def _expm1_grad(op, grad):
    return [grad * unary_ops.exp(_conj_input(op))]


@gradient("Log")
def _log_grad(op, grad):
    return [grad * unary_ops.reciprocal(_conj_input(op))]


@gradient("Log1p")
def _log1p_grad(op, grad):
    return [grad * unary_ops.reciprocal(1 + _conj_input(op))]


@gradient("Sin")
def _sin_grad(op, grad):
    return [grad * unary_ops.cos(_conj_input(op))]


@gradient("Cos")
def _cos_grad(op, grad):
    return [-grad * unary_ops.sin(_conj_input(op))]


@gradient("Tan")
def _tan_grad(op, grad):
    secx = unary_ops.reciprocal(unary_ops.cos(_conj_input(op)))
    return [unary_ops.square(secx) * grad]


def _one_minus_square_root(op, grad):
    x2 = unary_ops.square(_conj_input(op))
    one = constant(1, dtype=grad.dtype.base_dtype)
    den = unary_ops.sqrt(binary_ops.subtract(one, x2))
    return unary_ops.reciprocal(den)


@gradient("Asin")
def _asin_grad(op, grad):
    return [grad * _one_minus_square_root(op, grad)]


@gradient("Acos")
def _acos_grad(op, grad):
    inv = _one_minus_square_root(op, grad)
    return [-grad * inv]


@gradient("Atan")
def _atan_grad(op, grad):
    x2 = unary_ops.square(_conj_input(op))
    one = constant(1, dtype=grad.dtype.base_dtype)
    return [grad * unary_ops.reciprocal(binary_ops.add_v2(one, x2))]


# TF: the derivative of sign is 0 everywhere it exists (Round/Floor/Ceil give None).
registry.get_op_def("Sign").differentiable = True


@gradient("Sign")
def _sign_grad(op, grad):
    x = op._inputs[0]
    return [zeros(shape(x), dtype=x.dtype.base_dtype)]


# -- second derivatives: gradients of the *Grad ops (TF's formulas) ---------------------------
@gradient("SigmoidGrad")
def _sigmoid_grad_grad(op, grad):
    y, dy = op._inputs
    gb = grad * dy
    return [gb - 2.0 * gb * y, _grad_op("SigmoidGrad", y, grad)]


@gradient("TanhGrad")
def _tanh_grad_grad(op, grad):
    y, dy = op._inputs
    return [grad * -2.0 * dy * y, _grad_op("TanhGrad", y, grad)]


@gradient("SqrtGrad")
def _sqrt_grad_grad(op, grad):
    y = op._inputs[0]
    ga = grad / y
    return [-ga * op._outputs[0], 0.5 * ga]


@gradient("RsqrtGrad")
def _rsqrt_grad_grad(op, grad):
    y, dy = op._inputs
    return [-1.5 * grad * dy * unary_ops.square(y), _grad_op("RsqrtGrad", y, grad)]


@gradient("ReciprocalGrad")
def _reciprocal_grad_grad(op, grad):
    y, dy = op._inputs
    return [-2.0 * grad * dy * y, _grad_op("ReciprocalGrad", y, grad)]
