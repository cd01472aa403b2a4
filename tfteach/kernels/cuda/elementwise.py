"""CUDA kernels of the elementwise ops: unary (`Exp`, `Relu`, ...), binary with
broadcasting (`Add`, `Mul`, `ReluGrad`, ...) and `Cast`. CPU twins: kernels/cpu/cwise.py,
elementwise.py and nn_kernels.py (there NumPy ufuncs do the work).

One thread computes one output element. Instead of one kernel per op, each kernel takes
an *op code* and `_unary` / `_binary` switch on it: the code is the same for every thread
of a launch, so the branch costs nothing on a GPU, and one compiled kernel per dtype
serves every op (fewer compilations, and a student reads every formula in one place).

The formulas spell out TensorFlow's answers at the edges (log(0) = -inf, sqrt(-1) =
nan): a GPU computes them anyway, but Numba's CUDA simulator runs this code as Python,
where math.log(0) raises.

Broadcasting (`_binary_kernel`), as in MiniTorch's `tensor_zip`: the output index i is
unravelled into coordinates of the output shape; each input is read at the position
sum(coordinate[d] * stride[d]) where its stride is 0 along the axes it is broadcast
over (its size is 1 there, or it has fewer axes).
"""
import math

import numpy as np
from numba import cuda

from tfteach.kernels.cpu.cwise import incompatible_shapes
from tfteach.kernels.cuda import launch

__all__ = ["UNARY", "BINARY", "unary", "binary", "cast", "unary_kernel", "binary_kernel",
           "broadcast_strides"]

# -- op codes ------------------------------------------------------------------------------------
UNARY = {"Neg": 0, "Abs": 1, "Square": 2, "Sqrt": 3, "Rsqrt": 4, "Exp": 5, "Log": 6,
         "Tanh": 7, "Sigmoid": 8, "Relu": 9, "Sign": 10, "Reciprocal": 11, "Log1p": 12}
BINARY = {"Add": 0, "AddV2": 0, "Sub": 1, "Mul": 2, "RealDiv": 3, "Maximum": 4,
          "Minimum": 5, "SquaredDifference": 6,
          # gradient ops: ReluGrad(gradients, features), SigmoidGrad(y, dy), TanhGrad(y, dy)
          "ReluGrad": 7, "SigmoidGrad": 8, "TanhGrad": 9}


@cuda.jit(device=True, cache=True)
def _unary(code, x):
    if code == 0:
        return -x
    if code == 1:
        return abs(x)
    if code == 2:
        return x * x
    if code == 3:                                   # sqrt(x < 0) is nan
        return math.sqrt(x) if x >= 0 else math.nan
    if code == 4:                                   # 1/sqrt(0) is inf
        if x > 0:
            return 1 / math.sqrt(x)
        return math.inf if x == 0 else math.nan
    if code == 5:
        return math.exp(x)
    if code == 6:                                   # log(0) = -inf, log(x < 0) = nan
        if x > 0:
            return math.log(x)
        return -math.inf if x == 0 else math.nan
    if code == 7:
        return math.tanh(x)
    if code == 8:                                   # never exp of a large positive number
        if x >= 0:
            return 1 / (1 + math.exp(-x))
        e = math.exp(x)
        return e / (1 + e)
    if code == 9:                                   # relu; NaN passes through (x > 0 false)
        return x if not x < 0 else 0.0
    if code == 10:                                  # sign(NaN) is 0, as TF 1.15
        if x > 0:
            return 1.0
        return -1.0 if x < 0 else 0.0
    if code == 11:
        return 1 / x if x != 0 else math.copysign(math.inf, x)
    if code == 12:                                  # log(1 + x), precise for tiny x
        if x > -1:
            return math.log1p(x)
        return -math.inf if x == -1 else math.nan
    return math.nan


@cuda.jit(device=True, cache=True)
def _binary(code, x, y):
    if code == 0:
        return x + y
    if code == 1:
        return x - y
    if code == 2:
        return x * y
    if code == 3:                                   # x / 0 is +-inf or nan, never an error
        if y != 0:
            return x / y
        if x == 0 or x != x:
            return math.nan
        return math.copysign(math.inf, x) * math.copysign(1.0, y)
    if code == 4:                                   # NaN wins, as in TF's Maximum
        return x if x > y or x != x else y
    if code == 5:
        return x if x < y or x != x else y
    if code == 6:
        d = x - y
        return d * d
    if code == 7:                                   # ReluGrad: the gradient where x > 0
        return x if y > 0 else x * 0
    if code == 8:                                   # SigmoidGrad: dy * y * (1 - y)
        return y * x * (1 - x)
    if code == 9:                                   # TanhGrad: dy * (1 - y^2)
        return y * (1 - x * x)
    return math.nan


# -- kernels --------------------------------------------------------------------------------------
@cuda.jit(cache=True)
def unary_kernel(out, x, code):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = _unary(code, x[i])


@cuda.jit(cache=True)
def binary_kernel(out, a, b, code, shape, a_strides, b_strides):
    """out[i] = op(a[...], b[...]) with a and b read at i's coordinates (broadcast)."""
    i = cuda.grid(1)
    if i < out.size:
        rest = i
        pa = 0
        pb = 0
        for d in range(shape.size - 1, -1, -1):   # unravel i, last axis fastest
            coordinate = rest % shape[d]
            rest = rest // shape[d]
            pa += coordinate * a_strides[d]
            pb += coordinate * b_strides[d]
        out[i] = _binary(code, a[pa], b[pb])


@cuda.jit(cache=True)
def cast_kernel(out, x):
    # The conversion happens in the store, by C's rules as in TF's Cast: float -> int
    # truncates toward zero, number -> bool is x != 0, bool -> number is 0 or 1.
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i]


# -- host side -------------------------------------------------------------------------------------
def broadcast_strides(shape, out_shape):
    """Element strides for reading an array of `shape` at the coordinates of `out_shape`:
    0 along broadcast axes (size 1, or missing on the left)."""
    strides = launch.strides_of(shape)
    pad = len(out_shape) - len(shape)
    out = [0] * pad
    for d, size in enumerate(shape):
        out.append(0 if size == 1 else strides[d])
    return np.asarray(out, np.int64)


def _flat(x):
    return x.reshape(x.size) if x.ndim != 1 else x


def unary(ctx, x):
    """The GPU kernel of every op in UNARY: `ctx.op.type` names the formula."""
    x = launch.on_device(x)
    launch.check_float(ctx, x)
    out = launch.empty(x.shape, x.dtype)
    if x.size:
        unary_kernel[launch.blocks_for(x.size), launch.THREADS](
            _flat(out), _flat(x), UNARY[ctx.op.type])
    return out


def binary(ctx, a, b):
    """The GPU kernel of every op in BINARY, with NumPy/TensorFlow broadcasting."""
    a, b = launch.on_device(a), launch.on_device(b)
    launch.check_float(ctx, a, b)
    try:
        out_shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise incompatible_shapes(ctx, a, b) from None
    out = launch.empty(out_shape, a.dtype)
    n = int(np.prod(out_shape, dtype=np.int64))
    if n:
        shape = np.asarray(out_shape if out_shape else (1,), np.int64)
        a_strides = broadcast_strides(a.shape, shape) if out_shape else np.zeros(1, np.int64)
        b_strides = broadcast_strides(b.shape, shape) if out_shape else np.zeros(1, np.int64)
        binary_kernel[launch.blocks_for(n), launch.THREADS](
            _flat(out), _flat(a), _flat(b), BINARY[ctx.op.type],
            cuda.to_device(shape), cuda.to_device(a_strides), cuda.to_device(b_strides))
    return out


def cast(ctx, x):
    """`Cast` between float32, float64, int32, int64 and bool on the GPU."""
    x = launch.on_device(x)
    target = np.dtype(ctx.attrs["DstT"].np)
    allowed = (np.float32, np.float64, np.int32, np.int64, np.bool_)
    for dtype in (np.dtype(x.dtype), target):
        if dtype not in [np.dtype(t) for t in allowed]:
            raise launch.error(ctx, "tfteach has no GPU kernel for Cast from %s to %s"
                               % (np.dtype(x.dtype).name, target.name))
    out = launch.empty(x.shape, target)
    if x.size:
        cast_kernel[launch.blocks_for(x.size), launch.THREADS](_flat(out), _flat(x))
    return out
