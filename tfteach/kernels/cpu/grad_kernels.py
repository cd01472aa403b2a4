"""Kernels of the ops TensorFlow uses inside gradients of unary functions.

`SigmoidGrad(y, dy)` is `dy * y * (1 - y)`: the derivative written with the forward
op's *output* y, so the gradient never recomputes the function. Each is one Numba
ufunc (one pass over memory, where NumPy would make two or three temporaries).
"""
from tfteach.kernels.cpu.elementwise import LazyUfunc

__all__ = ["sigmoid_grad", "tanh_grad", "sqrt_grad", "rsqrt_grad", "reciprocal_grad"]


def _sigmoid_grad(y, dy):
    return dy * y * (1 - y)


def _tanh_grad(y, dy):
    return dy * (1 - y * y)


def _sqrt_grad(y, dy):
    # d sqrt(x) = 1 / (2 sqrt(x)) = 0.5 / y
    return dy * 0.5 / y


def _rsqrt_grad(y, dy):
    # d x^-1/2 = -1/2 x^-3/2 = -0.5 y^3
    return dy * -0.5 * y * y * y


def _reciprocal_grad(y, dy):
    # d 1/x = -1/x^2 = -y^2
    return -dy * y * y


sigmoid_grad = LazyUfunc(_sigmoid_grad)
tanh_grad = LazyUfunc(_tanh_grad)
sqrt_grad = LazyUfunc(_sqrt_grad)
rsqrt_grad = LazyUfunc(_rsqrt_grad)
reciprocal_grad = LazyUfunc(_reciprocal_grad)
