"""Gradients of matrix products, sums of lists, casts, identities and selections.

MatMul: for z = a @ b, dL/da = g @ b^T and dL/db = a^T @ g (the transpose flags of the
forward op decide which operands get transposed: TF's four cases). BatchMatMulV2 does
the same per batch index, then sums over batch dimensions that were broadcast.
"""
from tfteach.framework import dtypes
from tfteach.framework.registry import gradient
from tfteach.ops import aggregate_ops, cast_ops, complex_ops, linalg_ops, where_ops  # noqa: F401
from tfteach.ops.broadcast_grad import BroadcastGradients
from tfteach.ops.constant_op import constant
from tfteach.ops.fill_ops import zeros_like

__all__ = []


def _mat_mul(a, b, transpose_a=False, transpose_b=False):
    return linalg_ops.matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b)


def _adjoint_mat_mul(a, b, transpose_a=False, transpose_b=False):
    """BatchMatMulV2's gradients use adjoints, as TF's (the same as transposes for real
    dtypes, the conjugate transposes for complex ones)."""
    return linalg_ops.matmul(a, b, adjoint_a=transpose_a, adjoint_b=transpose_b)


@gradient("MatMul")
def _mat_mul_grad(op, grad):
    # TF's convention for complex numbers: the gradient is the conjugate of the
    # derivative times grad, so the inputs are conjugated (no op for real dtypes).
    a, b = [complex_ops.conj(t) for t in op._inputs]
    t_a = op._attrs["transpose_a"]
    t_b = op._attrs["transpose_b"]
    if not t_a and not t_b:
        return [_mat_mul(grad, b, transpose_b=True), _mat_mul(a, grad, transpose_a=True)]
    if not t_a and t_b:
        return [_mat_mul(grad, b), _mat_mul(grad, a, transpose_a=True)]
    if t_a and not t_b:
        return [_mat_mul(b, grad, transpose_b=True), _mat_mul(a, grad)]
    return [_mat_mul(b, grad, transpose_a=True, transpose_b=True),
            _mat_mul(grad, a, transpose_a=True, transpose_b=True)]


@gradient("BatchMatMulV2")
def _batch_mat_mul_grad(op, grad):
    x, y = op._inputs
    adj_x = op._attrs["adj_x"]
    adj_y = op._attrs["adj_y"]
    if not adj_x:
        if not adj_y:
            grad_x = _adjoint_mat_mul(grad, y, transpose_b=True)
            grad_y = _adjoint_mat_mul(x, grad, transpose_a=True)
        else:
            grad_x = _adjoint_mat_mul(grad, y)
            grad_y = _adjoint_mat_mul(grad, x, transpose_a=True)
    else:
        if not adj_y:
            grad_x = _adjoint_mat_mul(y, grad, transpose_b=True)
            grad_y = _adjoint_mat_mul(x, grad)
        else:
            grad_x = _adjoint_mat_mul(y, grad, transpose_a=True, transpose_b=True)
            grad_y = _adjoint_mat_mul(grad, x, transpose_a=True, transpose_b=True)
    if x.shape.is_fully_defined() and y.shape.is_fully_defined() and x.shape == y.shape:
        return [grad_x, grad_y]
    # Compare batch dimensions only: give each side the other's matrix dims.
    x_dims = y_dims = None
    if x.shape.ndims is not None and y.shape.ndims is not None:
        xl, yl = x.shape.as_list(), y.shape.as_list()
        x_dims, y_dims = xl, yl[:-2] + xl[-2:]
    bcast = BroadcastGradients(x, y, x_dims=x_dims, y_dims=y_dims, matrix_dims=2)
    return [bcast.for_x(grad_x), bcast.for_y(grad_y)]


@gradient("AddN")
@gradient("AccumulateNV2")
def _add_n_grad(op, grad):
    return [grad] * len(op._inputs)


# TF's _CastGrad: the gradient flows back through casts among floats and complex types
# (complex -> float keeps the real part, so the gradient comes back as a real complex).
_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64,
           dtypes.complex128)


@gradient("Cast")
def _cast_grad(op, grad):
    source = op._inputs[0].dtype.base_dtype
    if source in _FLOATS and grad.dtype.base_dtype in _FLOATS:
        return [cast_ops.cast(grad, source)]
    return [None]


@gradient("Identity")
@gradient("PlaceholderWithDefault")
def _identity_grad(op, grad):
    return [grad]


@gradient("Select")
def _select_grad(op, grad):
    c, x = op._inputs[0], op._inputs[1]
    zeros = zeros_like(x)
    return [None, where_ops.where(c, grad, zeros), where_ops.where(c, zeros, grad)]


@gradient("SelectV2")
def _select_v2_grad(op, grad):
    c, x, y = op._inputs
    out = op._outputs[0]
    zeros = constant(0, dtype=grad.dtype.base_dtype, shape=[])
    gx = BroadcastGradients(x, out).for_x(where_ops.where_v2(c, grad, zeros))
    gy = BroadcastGradients(y, out).for_x(where_ops.where_v2(c, zeros, grad))
    return [None, gx, gy]
