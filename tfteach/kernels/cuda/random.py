"""CUDA kernels of `RandomUniform`, `RandomStandardNormal` and `TruncatedNormal`.
CPU twin: kernels/cpu/random_kernels.py (TensorFlow's Philox-4x32-10 there, philox.py).

A GPU cannot share one generator between thousands of threads, so it uses a
*counter-based* generator: random bits are a pure function bits(key, counter), and
thread i simply evaluates it at counter = start + i. Nothing is shared, nothing is
stored, and the same (key, counter) always gives the same bits. The function is
Philox-2x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", 2011):
ten rounds of a 32 x 32 -> 64-bit multiply whose high half is mixed into the other
counter word, with a key that changes every round. (TensorFlow, and tfteach's CPU
kernels, use its bigger sibling Philox-4x32-10.)

So the *numbers differ from the CPU's* for the same seed — only the rules are the
same: (seed, seed2) fixes the stream (key from `seed`, counter start from `seed2`, as
the CPU twin does); each `sess.run` continues it (the op's count of numbers drawn so far
lives in `ctx.state`, private to the op in one Session, so a new Session starts over);
seed == seed2 == 0 means a fresh random key per Session.

From bits to numbers: uniform = the top 24 bits / 2^24 (float32) or 53 bits from both
output words / 2^53 (float64), in [0, 1); normal = Box-Muller on the two words; the
truncated normal redraws (with the next key) every value beyond 2 standard deviations.
All 64-bit integer arithmetic stays below 2^64 (32-bit numbers times 32-bit numbers),
so nothing overflows, on a GPU or in the simulator.
"""
import math
import os
import threading

import numpy as np
from numba import cuda

from tfteach.kernels.cpu.random_kernels import TRUNCATION_STDDEVS, output_shape
from tfteach.kernels.cuda import launch

__all__ = ["UNIFORM", "NORMAL", "TRUNCATED", "philox", "random_kernel", "uniform",
           "standard_normal", "truncated_normal"]

UNIFORM, NORMAL, TRUNCATED = 0, 1, 2
_MULTIPLIER = np.uint64(0xD256D193)     # Philox-2x32's round multiplier
_KEY_STEP = np.uint64(0x9E3779B9)       # the key's increment per round (golden ratio)
_MASK = np.uint64(0xFFFFFFFF)
_32 = np.uint64(32)
_ONE = np.uint64(1)


@cuda.jit(device=True, cache=True)
def philox(key, counter):
    """Philox-2x32-10: two random 32-bit words (as uint64) for a 64-bit counter."""
    c0 = counter & _MASK
    c1 = counter >> _32
    k = key & _MASK
    for _ in range(10):
        product = _MULTIPLIER * c0                      # < 2^64: no overflow
        c0 = ((product >> _32) ^ k ^ c1) & _MASK
        c1 = product & _MASK
        k = (k + _KEY_STEP) & _MASK
    return c0, c1


@cuda.jit(device=True, cache=True)
def _normal(key, counter):
    """One standard normal number (Box-Muller) from the counter's two words."""
    w0, w1 = philox(key, counter)
    u1 = (float(w0) + 1.0) / 4294967296.0               # in (0, 1]: log(u1) is finite
    u2 = float(w1) / 4294967296.0
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


@cuda.jit(cache=True)
def random_kernel(out, mode, key, start, wide):
    i = cuda.grid(1)
    if i < out.size:
        counter = start + np.uint64(i)
        if mode == UNIFORM:
            w0, w1 = philox(key, counter)
            if wide:                                    # float64: 53 random bits
                out[i] = (float(w0 >> np.uint64(5)) * 67108864.0 +
                          float(w1 >> np.uint64(6))) / 9007199254740992.0
            else:                                       # float32: 24 random bits
                out[i] = float(w0 >> np.uint64(8)) / 16777216.0
        elif mode == NORMAL:
            out[i] = _normal(key, counter)
        else:
            z = _normal(key, counter)
            attempt = key
            while abs(z) > TRUNCATION_STDDEVS:          # ~4.6% of the draws: redraw
                attempt = (attempt + _ONE) & _MASK
                z = _normal(attempt, counter)
            out[i] = z


# -- host side ----------------------------------------------------------------------------------
# Two session threads drawing from one op at once must get different counters.
_STREAM_LOCK = threading.Lock()


def _stream(ctx, count):
    """(key, start counter) for the next `count` numbers of this op in this Session."""
    state = ctx.state
    with _STREAM_LOCK:
        if "key" not in state:
            seed, seed2 = int(ctx.attrs["seed"]), int(ctx.attrs["seed2"])
            if seed == 0 and seed2 == 0:         # not seeded: a fresh stream per Session
                seed, seed2 = (int.from_bytes(os.urandom(4), "little"),
                               int.from_bytes(os.urandom(4), "little"))
            state["key"] = np.uint64(seed & 0xFFFFFFFF)
            state["drawn"] = (seed2 & 0xFFFFFFFF) << 32   # seed2 picks the counter's start
        start = state["drawn"]
        state["drawn"] = (start + count) % (1 << 64)
        return state["key"], np.uint64(start)


def _random(mode):
    def kernel(ctx, shape):
        dims = output_shape(ctx, launch.on_host(shape))    # TF's checks (CPU twin)
        dtype = np.dtype(ctx.attrs["dtype"].np)
        if dtype not in launch.FLOAT_TYPES:
            raise launch.error(ctx, "tfteach has no GPU kernel for %s with dtype %s (only "
                               "float32 and float64)" % (ctx.op.type, dtype.name))
        out = launch.empty(dims, dtype)
        if out.size:
            key, start = _stream(ctx, out.size)
            flat = out.reshape(out.size) if out.ndim != 1 else out
            random_kernel[launch.blocks_for(out.size), launch.THREADS](
                flat, mode, key, start, dtype == np.float64)
        return out
    return kernel


uniform = _random(UNIFORM)
standard_normal = _random(NORMAL)
truncated_normal = _random(TRUNCATED)
