"""CPU kernels of matrix products: `MatMul` and `BatchMatMulV2`.

Both call NumPy's `matmul` (BLAS for floats). What they add is TensorFlow's runtime
checks and messages, for shapes only known when placeholders are fed. Transposes are
NumPy views (no copy); BLAS reads them in place.

A large float product is split by rows of the result into two halves, each computed
by one-threaded BLAS on its own thread (conv_parallel.over_batch, the convolutions'
scheme). OpenBLAS's own threads wait for each other after every block, and on a
machine where another process wants a core — a shared Binder pod, a notebook beside a
test run — a product then takes many times longer (measured: 50x3136 @ 3136x1024,
17 ms with OpenBLAS's two threads against 5 ms on one).
"""
import numpy as np

from tfteach.framework.errors import InvalidArgumentError
from tfteach.kernels.cpu.conv_parallel import over_batch
from tfteach.kernels.cpu.cwise import shape_string

__all__ = ["matmul_kernel", "batch_matmul_kernel"]


def _error(ctx, message):
    return InvalidArgumentError(None, ctx.op, message)


def matmul_kernel(ctx, a, b):
    """a @ b of two matrices, either one transposed first (TF's `MatMul`)."""
    attrs = ctx.attrs
    left = a.T if attrs["transpose_a"] else a
    right = b.T if attrs["transpose_b"] else b
    if left.shape[1] != right.shape[0]:
        raise _error(ctx, "Matrix size-incompatible: In[0]: %s, In[1]: %s"
                     % (shape_string(a), shape_string(b)))
    return product(left, right)


# Below this many multiply-adds, handing half to a thread costs more than it saves.
MIN_SPLIT_WORK = 4_000_000
_BLAS_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def product(left, right):
    """left @ right of two matrices; large float products in two halves of rows."""
    rows, inner = left.shape
    cols = right.shape[1]
    work = rows * inner * cols
    if (work < MIN_SPLIT_WORK or rows < 2 or left.dtype != right.dtype or
            left.dtype not in _BLAS_FLOATS):
        return np.matmul(left, right)
    out = np.empty((rows, cols), left.dtype)

    def half(lo, hi):
        np.matmul(left[lo:hi], right, out=out[lo:hi])
    over_batch(half, rows, work)
    return out


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
    left = np.swapaxes(x, -1, -2) if adj_x else x
    right = np.swapaxes(y, -1, -2) if adj_y else y
    if left.shape[-1] != right.shape[-2]:
        raise _error(ctx, "In[0] mismatch In[1] shape: %d vs. %d: %s %s %d %d"
                     % (left.shape[-1], right.shape[-2], shape_string(x), shape_string(y),
                        adj_x, adj_y))
    return np.matmul(left, right)
