"""`div_no_nan(x, y)`: x / y, but 0 where y == 0 (TF's `DivNoNan` op).

tf.losses divides a summed loss by the number of examples that count (non-zero
weights); when none count the loss is 0, not 0 / 0 = nan. TensorFlow 1.15 exposes
this as `tf.div_no_nan`; tfteach defines it here, next to its main user.
"""
import numpy as np

from tfteach.framework import convert
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import register_op
from tfteach.kernels.cpu.cwise import incompatible_shapes
from tfteach.ops.binary_ops import broadcasting_shape_fn
from tfteach.ops.op_builder import apply_op
from tfteach.nn.nn_dtypes import check_dtype

__all__ = ["div_no_nan"]

_DIV_NO_NAN_TYPES = "float16, float32, float64, complex64, complex128"


def _div_no_nan_kernel(ctx, x, y):
    try:
        quotient = np.true_divide(x, y)
    except ValueError:
        raise incompatible_shapes(ctx, x, y) from None
    # np.where gives a 0-d array for scalars; keep the dtype of the quotient.
    return np.where(np.broadcast_to(y == 0, np.shape(quotient)),
                    quotient.dtype.type(0), quotient)


register_op("DivNoNan", broadcasting_shape_fn(lambda dtype: _div_no_nan_kernel),
            cpu=lambda ctx, x, y: _div_no_nan_kernel(ctx, x, y))


def div_no_nan(x, y, name=None):
    """x / y elementwise, and 0 wherever y is 0 (`DivNoNan`)."""
    with name_scope(name, "div_no_nan", [x, y]) as scope:
        x = convert.convert_to_tensor(x, name="x")
        y = convert.convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        check_dtype(x.dtype, _DIV_NO_NAN_TYPES, "x")
        return apply_op("DivNoNan", [x, y], {"T": x.dtype.base_dtype}, scope)
