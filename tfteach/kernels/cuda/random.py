"""CUDA kernels of `RandomUniform`, `RandomStandardNormal` and `TruncatedNormal`: the
numbers TensorFlow's GPU kernels draw. CPU twin: kernels/cpu/philox.py.

TensorFlow's random kernels draw from a *counter-based* generator, Philox-4x32-10
(Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", 2011): four random 32-bit
words are a pure function of a 64-bit key and a 128-bit counter, so a GPU needs no shared
state: thread i computes the block its element comes from, at counter = the run's start
+ i's group. TensorFlow's GPU kernels use the same function, the same groups and the same
stream per op as its CPU kernels (philox.py says which), so a uniform is the CPU's
number, bit for bit, and so TF's. A normal is Box-Muller with the GPU's own `log`, `sin`
and `cos` (CUDA's math library, as TF's GPU kernels): within an ulp or so of the CPU's.

The op's stream (key, counter, how far it has gone) is the CPU kernels' `philox.Stream`
in `ctx.state`: each run continues it, a new Session starts it again, seed 0/0 is a
fresh random stream per Session. All 64-bit integer arithmetic stays below 2^64 (32-bit
numbers times 32-bit numbers), on a GPU or in the simulator.
"""
import math

import numpy as np
from numba import cuda

from tfteach.kernels.cpu import philox as cpu_philox
from tfteach.kernels.cpu.random_kernels import output_shape, stream
from tfteach.kernels.cuda import launch

__all__ = ["UNIFORM", "NORMAL", "TRUNCATED", "philox", "random_kernel", "uniform",
           "standard_normal", "truncated_normal"]

UNIFORM, NORMAL, TRUNCATED = 0, 1, 2
_ONE = np.uint64(1)
_TWO_PI = 2.0 * math.pi

# The round function and the bits-to-number conversions are the CPU kernels' own Python
# functions (philox.py), compiled for the GPU: one definition of TF's Philox-4x32-10
# (four random 32-bit words, as uint64, for a key and a 128-bit counter) for both.
philox = cuda.jit(device=True)(cpu_philox._block.py_func)
_float = cuda.jit(device=True)(cpu_philox._float.py_func)      # TF's Uint32ToFloat
_double = cuda.jit(device=True)(cpu_philox._double.py_func)    # TF's Uint64ToDouble
_plus = cuda.jit(device=True)(cpu_philox._skip.py_func)        # counter + n, 128 bits


@cuda.jit(device=True, cache=True)
def _word(w0, w1, w2, w3, j):
    if j == 0:
        return w0
    if j == 1:
        return w1
    if j == 2:
        return w2
    return w3


@cuda.jit(device=True, cache=True)
def _box_muller32(x0, x1, second):
    """TF's BoxMullerFloat, its first (sin) or `second` (cos) value."""
    u1 = _float(x0)
    if u1 < np.float32(1.0e-7):
        u1 = np.float32(1.0e-7)
    v1 = np.float32(_TWO_PI * float(_float(x1)))
    u2 = np.float32(math.sqrt(np.float32(-2.0) * np.float32(math.log(u1))))
    if second:
        return np.float32(math.cos(v1)) * u2
    return np.float32(math.sin(v1)) * u2


@cuda.jit(device=True, cache=True)
def _box_muller64(x0, x1, x2, x3, second):
    """TF's BoxMullerDouble, its first or `second` value."""
    u1 = _double(x0, x1)
    if u1 < 1.0e-7:
        u1 = 1.0e-7
    v1 = _TWO_PI * _double(x2, x3)
    u2 = math.sqrt(-2.0 * math.log(u1))
    if second:
        return math.cos(v1) * u2
    return math.sin(v1) * u2


@cuda.jit(device=True, cache=True)
def _truncated(k0, k1, c0, c1, c2, c3, wide, j):
    """Value j of a truncated-normal group whose words start at the counter (TF: the
    words one by one, pairs (float32) or quadruples (float64) through Box-Muller,
    values with |x| < 2 kept in order)."""
    kept = 0
    while True:
        w0, w1, w2, w3 = philox(k0, k1, c0, c1, c2, c3)
        c0, c1, c2, c3 = _plus(c0, c1, c2, c3, _ONE)
        if wide:
            pairs = 1
        else:
            pairs = 2
        for p in range(pairs):
            for second in range(2):
                if wide:
                    z = _box_muller64(w0, w1, w2, w3, second == 1)
                else:
                    z = float(_box_muller32(_word(w0, w1, w2, w3, 2 * p),
                                            _word(w0, w1, w2, w3, 2 * p + 1), second == 1))
                if abs(z) < 2.0:
                    if kept == j:
                        return z
                    kept += 1


@cuda.jit(cache=True)
def random_kernel(out, mode, k0, k1, c0, c1, c2, c3, wide):
    i = cuda.grid(1)
    if i < out.size:
        per_block = 2 if wide else 4             # values a block makes
        group = np.uint64(i // per_block)
        j = i % per_block
        if mode == TRUNCATED:
            # TF: group g's words start 256 (float32) / 128 (float64) blocks on
            steps = np.uint64(128) if wide else np.uint64(256)
            d0, d1, d2, d3 = _plus(c0, c1, c2, c3, group * steps)
            out[i] = _truncated(k0, k1, d0, d1, d2, d3, wide, j)
            return
        d0, d1, d2, d3 = _plus(c0, c1, c2, c3, group)
        w0, w1, w2, w3 = philox(k0, k1, d0, d1, d2, d3)
        if mode == UNIFORM:
            if wide:
                out[i] = _double(_word(w0, w1, w2, w3, 2 * j), _word(w0, w1, w2, w3, 2 * j + 1))
            else:
                out[i] = _float(_word(w0, w1, w2, w3, j))
        elif wide:
            out[i] = _box_muller64(w0, w1, w2, w3, j == 1)
        else:
            pair = j // 2
            out[i] = _box_muller32(_word(w0, w1, w2, w3, 2 * pair),
                                   _word(w0, w1, w2, w3, 2 * pair + 1), j % 2 == 1)


# -- host side ----------------------------------------------------------------------------------
def _random(mode):
    def kernel(ctx, shape):
        dims = output_shape(ctx, launch.on_host(shape))    # TF's checks (CPU twin)
        dtype = np.dtype(ctx.attrs["dtype"].np)
        if dtype not in launch.FLOAT_TYPES:
            raise launch.error(ctx, "tfteach has no GPU kernel for %s with dtype %s (only "
                               "float32 and float64)" % (ctx.op.type, dtype.name))
        out = launch.empty(dims, dtype)
        if out.size:
            op_stream = stream(ctx)               # the CPU kernels' stream, TF's rules
            counter = [np.uint64(w) for w in op_stream.reserve(out.size)]
            k0, k1 = (np.uint64(w) for w in op_stream.key)
            flat = out.reshape(out.size) if out.ndim != 1 else out
            random_kernel[launch.blocks_for(out.size), launch.THREADS](
                flat, mode, k0, k1, *counter, dtype == np.float64)
        return out
    return kernel


uniform = _random(UNIFORM)
standard_normal = _random(NORMAL)
truncated_normal = _random(TRUNCATED)
