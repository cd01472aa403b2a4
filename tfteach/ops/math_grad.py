"""Registers the gradients of the math ops (imported by `tfteach` for that effect).

One module per family, each with TF 1.15's formulas:
- binary_grad:    add, sub, mul, div, floormod, pow, maximum/minimum, squared_difference,
                  and the affine parts of the random ops (ScaleShift, UniformRange)
- unary_grad:     neg, abs, square, sqrt, exp, log, trig, tanh, sigmoid, sign, ...
- linalg_grad:    matmul, batch matmul, add_n, cast, identity, select/where
- reduction_grad: sum, mean, max, min, prod, logsumexp, cumsum, cumprod
- complex_grad:   complex, real, imag, conj, angle, complex abs (TF's conjugate convention)
`broadcast_grad` holds the shared rule that sums a gradient back to an input's shape.
"""
from tfteach.ops import binary_grad, complex_grad, linalg_grad, reduction_grad  # noqa: F401
from tfteach.ops import unary_grad  # noqa: F401

__all__ = []
