"""CPU kernels of matrix products: `MatMul` and `BatchMatMulV2`.

Both call NumPy's `matmul` (BLAS for floats). What they add is TensorFlow's runtime
checks and messages, for shapes only known when placeholders are fed. Transposes are
NumPy views (no copy); BLAS reads them in place. Inside a step that runs convolutions
BLAS is one-threaded, and a large `MatMul` splits itself over two workers (two_workers.py).
"""
import numpy as np

from tfteach.framework.errors import InvalidArgumentError
from tfteach.kernels.cpu.cwise import shape_string
from tfteach.kernels.cpu.gemm_update import blas_operand, can_add_product
from tfteach.kernels.cpu.two_workers import split_matmul

__all__ = ["matmul_kernel", "batch_matmul_kernel", "DeferredProduct", "deferred_matmul_kernel",
           "summed_matmul_kernel"]


# Below this many multiply-adds a GEMM into the weights is slower than a product plus
# the update loop (measured: 500x10x100 28 vs 17 us, 256x256x64 60 vs 69 us).
MIN_DEFERRED_WORK = 1 << 22


def _error(ctx, message):
    return InvalidArgumentError(None, ctx.op, message)


def _operands(ctx, a, b):
    """The two matrices `MatMul` multiplies (transposes applied), checked as TF does."""
    attrs = ctx.attrs
    left = a.T if attrs["transpose_a"] else a
    right = b.T if attrs["transpose_b"] else b
    if left.shape[1] != right.shape[0]:
        raise _error(ctx, "Matrix size-incompatible: In[0]: %s, In[1]: %s"
                     % (shape_string(a), shape_string(b)))
    return left, right


def matmul_kernel(ctx, a, b):
    """a @ b of two matrices, either one transposed first (TF's `MatMul`)."""
    return split_matmul(*_operands(ctx, a, b))


class DeferredProduct:
    """left @ right, not computed yet: what a `MatMul` hands to the one update that
    consumes it when the plan fused the two (runtime/fusion.py). That update writes the
    product straight into the variable; anything else calls `compute()`."""

    __slots__ = ("left", "right", "shape", "dtype")
    stands_for_array = True     # a GPU's allocator charges it as the product (allocator.py)

    def __init__(self, left, right):
        self.left, self.right = blas_operand(left), blas_operand(right)
        self.shape = (left.shape[0], right.shape[1])
        self.dtype = left.dtype

    def compute(self):
        return split_matmul(self.left, self.right)


def deferred_matmul_kernel(ctx, a, b):
    """`MatMul` in a fused plan: the same checks, then a DeferredProduct where BLAS can
    write it into the update later (float32/64 operands of one dtype, a product large
    enough to gain from it), else the product."""
    left, right = _operands(ctx, a, b)
    if (left.ndim == right.ndim == 2 and left.dtype == right.dtype
            and left.size * right.shape[1] >= MIN_DEFERRED_WORK
            and can_add_product(left.dtype)):
        return DeferredProduct(left, right)
    return split_matmul(left, right)


def summed_matmul_kernel(ctx, a, b):
    """`MatMul` whose product its consumer only adds up with others (a loop's gradient of
    a captured weight, summed over the iterations: runtime/loop_runner.py): the same
    checks, then a DeferredProduct for float32/64 matrices, which the consumer multiplies
    together with the other iterations' in one GEMM."""
    left, right = _operands(ctx, a, b)
    if left.dtype == right.dtype and left.dtype in (np.float32, np.float64):
        return DeferredProduct(left, right)
    return split_matmul(left, right)


def _adjoint(m):
    transposed = np.swapaxes(m, -1, -2)
    return np.conj(transposed) if m.dtype.kind == "c" else transposed


def batch_matmul_kernel(ctx, x, y):
    """Matrix products over the last two axes, batch axes broadcast (`BatchMatMulV2`)."""
    adj_x, adj_y = ctx.attrs["adj_x"], ctx.attrs["adj_y"]
    for i, value in enumerate((x, y)):
        if np.ndim(value) < 2:
            raise _error(ctx, "In[%d] ndims must be >= 2: %d" % (i, np.ndim(value)))
    try:
        np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    except ValueError:
        raise _error(ctx, "In[0] and In[1] must have compatible batch dimensions: %s vs. %s"
                     % (shape_string(x), shape_string(y))) from None
    # adj_x / adj_y: the adjoint, the conjugate transpose (a transpose for real dtypes).
    left = _adjoint(x) if adj_x else x
    right = _adjoint(y) if adj_y else y
    if left.shape[-1] != right.shape[-2]:
        raise _error(ctx, "In[0] mismatch In[1] shape: %d vs. %d: %s %s %d %d"
                     % (left.shape[-1], right.shape[-2], shape_string(x), shape_string(y),
                        adj_x, adj_y))
    return np.matmul(left, right)
