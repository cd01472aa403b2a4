"""TensorFlow's own random numbers: Philox-4x32-10 and the distributions TF draws from it.

TensorFlow's `RandomUniform`, `RandomUniformInt`, `RandomStandardNormal` and
`TruncatedNormal` kernels (random_op.cc, philox_random.h, random_distributions.h) draw
from a counter-based generator: 128 random bits are a pure function of a 64-bit key
and a 128-bit counter (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
2011). This module computes the same function and the same distributions, so a seeded
op gives TensorFlow's numbers, bit for bit (tests/test_random_philox_reference.py):
`tf.random_normal([2, 3], seed=1)` prints TF's `[[-0.8113182 1.4845988 0.06532937] ...]`.

What TF does, and so does this:
- an op's stream starts at key = `seed`, counter = `seed2` << 64 (both 0: two random
  64-bit numbers, a fresh stream per Session);
- each run takes the counter where it is and moves it on by 256 per output element
  (`ReserveRandomOutputs(size, 256)`), so every run draws new numbers;
- output group g (4 floats, 2 doubles, 4 int32, 2 int64) comes from the block at
  counter + g; a truncated normal's group g starts at counter + g * 256 (g * 128 for
  doubles) and takes 32-bit words one by one, rejecting values with |x| >= 2;
- a float is its 23 low bits as a mantissa in [1, 2), minus 1 (here the same number as
  `bits * 2**-23`, exact), a double 52 bits of two words, a half 10 bits;
- a normal pair is Box-Muller on two words (on four for doubles): the logarithm, sine
  and cosine are the C library's (Numba calls them as TF's kernels do), the product
  `2 * pi * u` is taken in double precision and rounded once, as C++ evaluates it.

The kernels are Numba functions that release the GIL, compiled (or loaded from Numba's
cache) at the first draw: `import tfteach` does not import Numba (lazy_jit.py).
"""
import math
import secrets
import threading

import numpy as np

from tfteach.kernels.cpu.lazy_jit import njit     # Numba imported at the first draw

__all__ = ["Stream", "uniform", "uniform_int", "normal", "truncated_normal",
           "RESERVED_PER_OUTPUT"]

RESERVED_PER_OUTPUT = 256      # counter steps a run reserves per output element
_MASK = 0xFFFFFFFF
_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)    # the round multipliers
_W0, _W1 = np.uint64(0x9E3779B9), np.uint64(0xBB67AE85)    # the key's step per round
_M32 = np.uint64(_MASK)
_S32 = np.uint64(32)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_TWO_PI = 2.0 * math.pi
_EPSILON32 = np.float32(1.0e-7)
_SCALE23 = np.float32(2.0 ** -23)
_SCALE10 = np.float32(2.0 ** -10)
_SCALE52 = 2.0 ** -52
_TRUNCATE = 2.0


class Stream:
    """One op's place in TF's Philox stream, in one Session (TF's GuardedPhiloxRandom):
    its key, and `counter`, where the next run starts (an int < 2**128)."""

    __slots__ = ("key", "counter", "lock")

    def __init__(self, seed, seed2):
        if seed == 0 and seed2 == 0:        # not seeded: random seeds, as TF's New64()
            seed, seed2 = secrets.randbits(64), secrets.randbits(64)
        seed &= (1 << 64) - 1               # int64 attrs, read as TF's uint64
        self.key = np.array([seed & _MASK, seed >> 32], np.uint64)
        self.counter = (seed2 & ((1 << 64) - 1)) << 64
        # Two runs at once each reserve their own numbers (TF holds a mutex here too).
        self.lock = threading.Lock()

    def reserve(self, elements):
        """The counter a run of `elements` outputs starts from (as 4 words), the stream
        moved on past it."""
        with self.lock:
            start = self.counter
            self.counter = (start + elements * RESERVED_PER_OUTPUT) & ((1 << 128) - 1)
        return np.array([(start >> shift) & _MASK for shift in (0, 32, 64, 96)], np.uint64)


# -- the generator -------------------------------------------------------------------------
@njit(cache=True, nogil=True, inline="always")
def _block(k0, k1, c0, c1, c2, c3):
    """Philox-4x32-10 of one counter: four 32-bit words (as uint64)."""
    for _ in range(10):
        p0 = _M0 * c0
        p1 = _M1 * c2
        c0, c1, c2, c3 = ((p1 >> _S32) ^ c1 ^ k0, p1 & _M32,
                          (p0 >> _S32) ^ c3 ^ k1, p0 & _M32)
        k0 = (k0 + _W0) & _M32
        k1 = (k1 + _W1) & _M32
    return c0, c1, c2, c3


@njit(cache=True, nogil=True, inline="always")
def _next(c0, c1, c2, c3):
    """The counter plus one (TF's SkipOne: 128 bits, carried word by word)."""
    c0 = (c0 + _ONE) & _M32
    if c0 == 0:
        c1 = (c1 + _ONE) & _M32
        if c1 == 0:
            c2 = (c2 + _ONE) & _M32
            if c2 == 0:
                c3 = (c3 + _ONE) & _M32
    return c0, c1, c2, c3


@njit(cache=True, nogil=True, inline="always")
def _skip(c0, c1, c2, c3, count):
    """The counter plus `count` (TF's Skip(uint64))."""
    low = count & _M32
    high = count >> _S32
    c0 = c0 + low
    if c0 > _M32:
        c0 &= _M32
        high += _ONE
    c1 = c1 + high
    if c1 > _M32:
        c1 &= _M32
        c2 = (c2 + _ONE) & _M32
        if c2 == 0:
            c3 = (c3 + _ONE) & _M32
    return c0, c1, c2, c3


@njit(cache=True, nogil=True, inline="always")
def _float(word):
    """TF's Uint32ToFloat: the 23 low bits as the mantissa of [1, 2), minus 1."""
    return np.float32(word & np.uint64(0x7FFFFF)) * _SCALE23


@njit(cache=True, nogil=True, inline="always")
def _double(high, low):
    """TF's Uint64ToDouble: 20 bits of `high` and 32 of `low` as the mantissa."""
    return np.float64(((high & np.uint64(0xFFFFF)) << _S32) | low) * _SCALE52


@njit(cache=True, nogil=True, inline="always")
def _box_muller32(x0, x1):
    """TF's BoxMullerFloat: two normal floats from two words."""
    u1 = _float(x0)
    if u1 < _EPSILON32:
        u1 = _EPSILON32
    v1 = np.float32(_TWO_PI * np.float64(_float(x1)))       # 2.0f * M_PI * u in double
    u2 = np.float32(math.sqrt(np.float32(-2.0) * np.float32(math.log(u1))))
    return np.float32(math.sin(v1)) * u2, np.float32(math.cos(v1)) * u2


@njit(cache=True, nogil=True, inline="always")
def _box_muller64(x0, x1, x2, x3):
    """TF's BoxMullerDouble: two normal doubles from four words."""
    u1 = _double(x0, x1)
    if u1 < 1.0e-7:
        u1 = 1.0e-7
    v1 = _TWO_PI * _double(x2, x3)
    u2 = math.sqrt(-2.0 * math.log(u1))
    return math.sin(v1) * u2, math.cos(v1) * u2


# -- many blocks at once ---------------------------------------------------------------------
_LANES = 64     # blocks computed side by side: lanes of the CPU's vector unit
_TILE = 256     # blocks a distribution takes at a time (4 KiB of words: in the L1 cache)


@njit(cache=True, nogil=True)
def _tile(key, counter, first, count, out):
    """Into out[:count]: the 4 words (uint32) of the blocks at counter + first + i. The
    blocks go through the rounds `_LANES` at a time, one array per word, so the compiler
    runs the rounds on vector registers (~4x faster than one block at a time); where the
    counter's low 64 bits would carry, block by block."""
    k0, k1 = key[0], key[1]
    c0, c1, c2, c3 = _skip(counter[0], counter[1], counter[2], counter[3], np.uint64(first))
    low = c0 | (c1 << _S32)
    if low > np.uint64(0xFFFFFFFFFFFFFFFF) - np.uint64(count - 1):
        for i in range(count):
            w = _block(k0, k1, c0, c1, c2, c3)
            c0, c1, c2, c3 = _next(c0, c1, c2, c3)
            for j in range(4):
                out[i, j] = np.uint32(w[j])
        return
    a0 = np.empty(_LANES, np.uint32)
    a1 = np.empty(_LANES, np.uint32)
    a2 = np.empty(_LANES, np.uint32)
    a3 = np.empty(_LANES, np.uint32)
    for start in range(0, count, _LANES):
        lanes = min(_LANES, count - start)
        for j in range(lanes):
            x = low + np.uint64(start + j)
            a0[j] = np.uint32(x & _M32)
            a1[j] = np.uint32(x >> _S32)
            a2[j] = np.uint32(c2)
            a3[j] = np.uint32(c3)
        q0, q1 = k0, k1
        for _ in range(10):
            for j in range(lanes):
                p0 = _M0 * np.uint64(a0[j])
                p1 = _M1 * np.uint64(a2[j])
                b1 = a1[j]
                b3 = a3[j]
                a0[j] = np.uint32(p1 >> _S32) ^ b1 ^ np.uint32(q0)
                a1[j] = np.uint32(p1 & _M32)
                a2[j] = np.uint32(p0 >> _S32) ^ b3 ^ np.uint32(q1)
                a3[j] = np.uint32(p0 & _M32)
            q0 = (q0 + _W0) & _M32
            q1 = (q1 + _W1) & _M32
        for j in range(lanes):
            out[start + j, 0] = a0[j]
            out[start + j, 1] = a1[j]
            out[start + j, 2] = a2[j]
            out[start + j, 3] = a3[j]


@njit(cache=True, nogil=True)
def _words(key, counter, blocks):
    """The words of `blocks` consecutive blocks from `counter`, (blocks, 4) uint32."""
    out = np.empty((blocks, 4), np.uint32)
    for first in range(0, blocks, _TILE):
        _tile(key, counter, first, min(_TILE, blocks - first), out[first:])
    return out


# -- the distributions (out: a flat array the size of the output) ---------------------------
# Each takes the words of _TILE blocks at a time into a small buffer and makes its values
# from them: one pass over the output, the words never leave the L1 cache. (The tile loop
# is written out in each: a Numba generator shared by them breaks Numba's disk cache, a
# caller compiled after another one loaded from the cache fails with a KeyError.)
@njit(cache=True, nogil=True)
def _fill_uniform(key, counter, out, mantissa_bits):
    """Floats in [0, 1): 4 a block (float32 and half: `mantissa_bits` 23 or 10)."""
    n = out.size
    buf = np.empty((_TILE, 4), np.uint32)
    words = buf.reshape(-1)
    scale = _SCALE23 if mantissa_bits == 23 else _SCALE10
    mask = np.uint32((1 << mantissa_bits) - 1)
    for first in range(0, (n + 3) // 4, _TILE):
        base = 4 * first
        count = min(_TILE, (n + 3) // 4 - first)
        _tile(key, counter, first, count, buf)
        for i in range(min(4 * count, n - base)):
            out[base + i] = np.float32(words[i] & mask) * scale


@njit(cache=True, nogil=True)
def _fill_uniform64(key, counter, out):
    n = out.size
    buf = np.empty((_TILE, 4), np.uint32)
    words = buf.reshape(-1)
    for first in range(0, (n + 1) // 2, _TILE):
        base = 2 * first
        count = min(_TILE, (n + 1) // 2 - first)
        _tile(key, counter, first, count, buf)
        for i in range(min(2 * count, n - base)):
            out[base + i] = _double(np.uint64(words[2 * i]), np.uint64(words[2 * i + 1]))


@njit(cache=True, nogil=True)
def _fill_int32(key, counter, low, span, out):
    """lo + word % (hi - lo), 4 a block (TF's UniformDistribution<int32>)."""
    n = out.size
    words = _words(key, counter, (n + 3) // 4).reshape(-1)
    for i in range(n):
        out[i] = low + np.int64(np.uint64(words[i]) % span)


@njit(cache=True, nogil=True)
def _fill_int64(key, counter, low, span, out):
    """lo + (two words as 64 bits) % (hi - lo), 2 a block (TF's <int64>), with int64's
    wrap-around, as C++'s."""
    n = out.size
    words = _words(key, counter, (n + 1) // 2).reshape(-1)
    for i in range(n):
        bits = np.uint64(words[2 * i]) | (np.uint64(words[2 * i + 1]) << _S32)
        out[i] = np.int64(np.uint64(low) + bits % span)


@njit(cache=True, nogil=True)
def _fill_normal32(key, counter, out):
    """Box-Muller pairs, 4 floats a block."""
    n = out.size
    buf = np.empty((_TILE, 4), np.uint32)
    words = buf.reshape(-1)
    for first in range(0, (n + 3) // 4, _TILE):
        base = 4 * first
        count = min(_TILE, (n + 3) // 4 - first)
        _tile(key, counter, first, count, buf)
        for i in range(0, min(4 * count, n - base), 2):
            f0, f1 = _box_muller32(np.uint64(words[i]), np.uint64(words[i + 1]))
            out[base + i] = f0
            if base + i + 1 < n:
                out[base + i + 1] = f1


@njit(cache=True, nogil=True)
def _fill_normal64(key, counter, out):
    """Box-Muller on four words, 2 doubles a block."""
    n = out.size
    buf = np.empty((_TILE, 4), np.uint32)
    words = buf.reshape(-1)
    for first in range(0, (n + 1) // 2, _TILE):
        base = 2 * first
        count = min(_TILE, (n + 1) // 2 - first)
        _tile(key, counter, first, count, buf)
        for i in range(0, min(2 * count, n - base), 2):
            j = 2 * i
            d0, d1 = _box_muller64(np.uint64(words[j]), np.uint64(words[j + 1]),
                                   np.uint64(words[j + 2]), np.uint64(words[j + 3]))
            out[base + i] = d0
            if base + i + 1 < n:
                out[base + i + 1] = d1


@njit(cache=True, nogil=True)
def _fill_truncated32(key, counter, out):
    """Groups of 4, group g from the block at counter + 256 g on, word by word (TF's
    SingleSampleAdapter), Box-Muller pairs kept where |x| < 2."""
    k0, k1 = key[0], key[1]
    n = out.size
    for start in range(0, n, 4):
        c0, c1, c2, c3 = _skip(counter[0], counter[1], counter[2], counter[3],
                               np.uint64(start // 4) * np.uint64(256))
        w = (_ZERO, _ZERO, _ZERO, _ZERO)
        used = 4                              # the adapter starts with no words
        pair = np.empty(2, np.uint64)
        got = 0
        want = min(4, n - start)
        while got < want:
            for k in range(2):
                if used == 4:
                    w = _block(k0, k1, c0, c1, c2, c3)
                    c0, c1, c2, c3 = _next(c0, c1, c2, c3)
                    used = 0
                pair[k] = w[used]
                used += 1
            f0, f1 = _box_muller32(pair[0], pair[1])
            if abs(f0) < _TRUNCATE:
                out[start + got] = f0
                got += 1
                if got == want:
                    break
            if abs(f1) < _TRUNCATE:
                out[start + got] = f1
                got += 1


@njit(cache=True, nogil=True)
def _fill_truncated64(key, counter, out):
    """Groups of 2, group g from counter + 128 g on, four words a Box-Muller pair."""
    k0, k1 = key[0], key[1]
    n = out.size
    for start in range(0, n, 2):
        c0, c1, c2, c3 = _skip(counter[0], counter[1], counter[2], counter[3],
                               np.uint64(start // 2) * np.uint64(128))
        got = 0
        want = min(2, n - start)
        while got < want:
            # four words are one whole block: the adapter's buffer is always used up
            w = _block(k0, k1, c0, c1, c2, c3)
            c0, c1, c2, c3 = _next(c0, c1, c2, c3)
            d0, d1 = _box_muller64(w[0], w[1], w[2], w[3])
            if abs(d0) < _TRUNCATE:
                out[start + got] = d0
                got += 1
                if got == want:
                    break
            if abs(d1) < _TRUNCATE:
                out[start + got] = d1
                got += 1


# -- what the kernels call ----------------------------------------------------------------
def _draw(stream, shape, dtype, fill32, fill64):
    size = int(np.prod(shape, dtype=np.int64))
    counter = stream.reserve(size)
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        out = np.empty(size, np.float64)
        fill64(stream.key, counter, out)
        return out.reshape(shape)
    out = np.empty(size, np.float32)
    fill32(stream.key, counter, out)
    # a half: the float rounded to nearest, as Eigen::half(float) (a uniform's is exact)
    return out.reshape(shape).astype(dtype, copy=False)


def uniform(stream, shape, dtype):
    """`RandomUniform`: [0, 1) of `dtype` (float16, float32 or float64)."""
    bits = 10 if np.dtype(dtype) == np.float16 else 23

    def fill32(key, counter, out):
        _fill_uniform(key, counter, out, bits)
    return _draw(stream, shape, dtype, fill32, _fill_uniform64)


def uniform_int(stream, shape, low, high, dtype):
    """`RandomUniformInt`: [low, high) of int32 or int64 (low < high, or no elements)."""
    size = int(np.prod(shape, dtype=np.int64))
    counter = stream.reserve(size)
    if np.dtype(dtype) == np.int32:
        out = np.empty(size, np.int32)
        span = np.uint64((int(high) - int(low)) & _MASK)
        _fill_int32(stream.key, counter, np.int64(low), span, out)
    else:
        out = np.empty(size, np.int64)
        span = np.uint64((int(high) - int(low)) & ((1 << 64) - 1))
        _fill_int64(stream.key, counter, np.int64(low), span, out)
    return out.reshape(shape)


def normal(stream, shape, dtype):
    """`RandomStandardNormal` of `dtype` (a half is the float rounded)."""
    return _draw(stream, shape, dtype, _fill_normal32, _fill_normal64)


def truncated_normal(stream, shape, dtype):
    """`TruncatedNormal`: normal values with |x| < 2."""
    return _draw(stream, shape, dtype, _fill_truncated32, _fill_truncated64)
