"""The integer kernel of `Pow`: x ** y, where a negative exponent is an error.

NumPy's integer power already refuses negative exponents (with a ValueError whose text
is TF's plus a period); TF's kernel says it as an InvalidArgumentError. Overflow wraps
silently, as in TensorFlow's C++.
"""
import numpy as np

from tfteach.framework.errors import InvalidArgumentError
from tfteach.kernels.cpu.cwise import incompatible_shapes

__all__ = ["integer_power_kernel"]


def integer_power_kernel(ctx, x, y):
    try:
        return np.power(x, y)
    except ValueError as e:
        if "negative integer powers" in str(e):
            raise InvalidArgumentError(
                None, ctx.op, "Integers to negative integer powers are not allowed") from None
        raise incompatible_shapes(ctx, x, y) from None
