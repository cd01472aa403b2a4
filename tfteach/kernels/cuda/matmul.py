"""CUDA kernel of `MatMul` (with transpose_a / transpose_b), tiled in shared memory.
CPU twin: kernels/cpu/linalg.py (NumPy's BLAS there).

C = A @ B, C[i, j] = sum_k A[i, k] * B[k, j]. One thread computes one C[i, j]; a block
of TILE x TILE threads computes a TILE x TILE tile of C. The naive kernel would read
each A and B element from global (slow) memory N times; here the block walks along k
one tile at a time:
  1. every thread loads one element of A's tile and one of B's into shared memory;
  2. `cuda.syncthreads()`: the whole tile is loaded before anyone uses it;
  3. every thread adds its row of A's tile times its column of B's tile;
  4. `cuda.syncthreads()` again: nobody overwrites the tile while another still reads.
So each global element is read once per tile instead of once per product (TILE times
fewer reads). Elements outside A or B (the last, partial tiles) load as 0.

Transposes cost nothing: a transposed A is read as A[k, i] instead of A[i, k].
Each product is accumulated in the input's dtype, in k order; BLAS sums in another
order, so float32 results differ from the CPU's in the last bits.
"""
import numpy as np
from numba import cuda

from tfteach.framework.errors import InvalidArgumentError
from tfteach.kernels.cpu.cwise import shape_string
from tfteach.kernels.cuda import launch

__all__ = ["TILE", "matmul_kernel", "matmul"]

TILE = 16                    # a 16 x 16 block: 256 threads


@cuda.jit(cache=True)
def matmul_kernel(c, a, b, transpose_a, transpose_b):
    a_tile = cuda.shared.array((TILE, TILE), c.dtype)
    b_tile = cuda.shared.array((TILE, TILE), c.dtype)
    ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
    i = cuda.blockIdx.y * TILE + ty                   # the row of C this thread computes
    j = cuda.blockIdx.x * TILE + tx                   # ... and its column
    m, n = c.shape
    depth = a.shape[0] if transpose_a else a.shape[1]
    # The running sum, in C's dtype (a plain `acc = 0.0` would be float64).
    acc = cuda.local.array(1, c.dtype)
    acc[0] = 0
    for k0 in range(0, depth, TILE):
        # 1. load A[i, k0 + tx] and B[k0 + ty, j] (0 outside the matrices)
        k = k0 + tx
        if i < m and k < depth:
            a_tile[ty, tx] = a[k, i] if transpose_a else a[i, k]
        else:
            a_tile[ty, tx] = 0
        k = k0 + ty
        if k < depth and j < n:
            b_tile[ty, tx] = b[j, k] if transpose_b else b[k, j]
        else:
            b_tile[ty, tx] = 0
        cuda.syncthreads()                            # 2.
        for kk in range(TILE):                        # 3.
            acc[0] += a_tile[ty, kk] * b_tile[kk, tx]
        cuda.syncthreads()                            # 4.
    if i < m and j < n:
        c[i, j] = acc[0]


def matmul(ctx, a, b):
    """TF's `MatMul` of two matrices on the GPU."""
    a, b = launch.on_device(a), launch.on_device(b)
    launch.check_float(ctx, a, b)
    ta, tb = bool(ctx.attrs["transpose_a"]), bool(ctx.attrs["transpose_b"])
    if a.ndim != 2 or b.ndim != 2:
        raise InvalidArgumentError(None, ctx.op, "In[0] and In[1] must be matrices: %s %s"
                                   % (shape_string(a), shape_string(b)))
    m, depth = (a.shape[1], a.shape[0]) if ta else a.shape
    depth_b, n = (b.shape[1], b.shape[0]) if tb else b.shape
    if depth != depth_b:
        raise InvalidArgumentError(None, ctx.op, "Matrix size-incompatible: In[0]: %s, "
                                   "In[1]: %s" % (shape_string(a), shape_string(b)))
    c = launch.empty((m, n), a.dtype)
    if m and n:
        if depth == 0:                                # an empty sum: zeros
            return launch.on_device(np.zeros((m, n), a.dtype))
        grid = (launch.blocks_for(n, TILE), launch.blocks_for(m, TILE))
        matmul_kernel[grid, (TILE, TILE)](c, a, b, ta, tb)
    return c
