"""kernels/cpu/philox.py on its own: Philox-4x32-10 against the known-answer vectors of
its authors (Random123's kat_vectors) and a plain-Python reference written from the
paper, the counter carried across 2**64 and 2**128, and the stream's reservations.
(tests/test_random_philox_reference.py compares the ops with TensorFlow itself.)"""
import threading

import numpy as np
import pytest

from tfteach.kernels.cpu import philox

MASK = 0xFFFFFFFF


def reference_block(counter, key):
    """Philox-4x32-10 (Salmon et al. 2011), in plain Python integers."""
    c, k = list(counter), list(key)
    for r in range(10):
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & MASK, (p0 >> 32) ^ c[3] ^ k[1], p0 & MASK]
        k = [(k[0] + 0x9E3779B9) & MASK, (k[1] + 0xBB67AE85) & MASK]
    return c


def words_of(value):
    return [(value >> shift) & MASK for shift in (0, 32, 64, 96)]


def ours(counter_value, key, blocks):
    return philox._words(np.array(key, np.uint64), np.array(words_of(counter_value),
                                                            np.uint64), blocks)


@pytest.mark.parametrize("counter, key, expected", [
    ([0, 0, 0, 0], [0, 0], "6627e8d5 e169c58d bc57ac4c 9b00dbd8"),
    ([MASK] * 4, [MASK] * 2, "408f276d 41c83b0e a20bc7c6 6d5451fd"),
    ([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344], [0xA4093822, 0x299F31D0],
     "d16cfe09 94fdcceb 5001e420 24126ea1")])
def test_known_answers(counter, key, expected):
    got = philox._words(np.array(key, np.uint64), np.array(counter, np.uint64), 1)[0]
    assert " ".join("%08x" % w for w in got) == expected
    assert " ".join("%08x" % w for w in reference_block(counter, key)) == expected


@pytest.mark.parametrize("start", [0, 12345, 2 ** 32 - 70, 2 ** 64 - 100, 2 ** 64 - 1,
                                   (7 << 64) + 2 ** 64 - 5, 2 ** 128 - 3])
@pytest.mark.parametrize("blocks", [1, 63, 64, 65, 200, 600])
def test_consecutive_counters_carry_as_128_bit_numbers(start, blocks):
    key = [0x12345678, 0x9ABCDEF0]
    got = ours(start, key, blocks)
    for i in range(blocks):
        counter = words_of((start + i) % 2 ** 128)
        assert list(got[i]) == reference_block(counter, key), (start, i)


def test_a_stream_reserves_256_counters_per_element_and_wraps_at_2_128():
    stream = philox.Stream(5, 2 ** 64 - 1)
    assert list(stream.key) == [5, 0]
    first = stream.reserve(3)
    assert [int(w) for w in first] == [0, 0, MASK, MASK]
    second = stream.reserve(1)
    assert [int(w) for w in second] == [768, 0, MASK, MASK]
    stream.counter = 2 ** 128 - 256
    stream.reserve(2)
    assert stream.counter == 256                 # (2**128 - 256 + 512) mod 2**128
    # negative seeds are read as TF reads int64 attributes: two's complement
    assert [int(w) for w in philox.Stream(-1, 0).key] == [MASK, MASK]


def test_unseeded_streams_differ():
    a, b = philox.Stream(0, 0), philox.Stream(0, 0)
    assert not np.array_equal(philox.uniform(a, (8,), np.float32),
                              philox.uniform(b, (8,), np.float32))


def test_threads_drawing_from_one_stream_get_disjoint_numbers():
    """Concurrent runs of one op reserve their own counters (TF's mutex): no two
    threads' draws overlap, and all of them together are the stream's first 8 draws."""
    stream = philox.Stream(3, 4)
    draws, go = [], threading.Barrier(8)

    def draw():
        go.wait()
        draws.append(philox.uniform(stream, (1000,), np.float32))
    threads = [threading.Thread(target=draw) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    again = philox.Stream(3, 4)
    expected = {philox.uniform(again, (1000,), np.float32).tobytes() for _ in range(8)}
    assert {d.tobytes() for d in draws} == expected


def test_uniform_values_are_the_low_bits_as_a_fraction():
    """A float32 is its word's 23 low bits over 2**23; a half 10 bits over 2**10; a
    double 52 bits of two words over 2**52 (TF's Uint32ToFloat and friends)."""
    key, start = [1, 2], 2 ** 40
    words = ours(start, key, 2).reshape(-1)
    floats = philox.uniform(_at(key, start), (8,), np.float32)
    np.testing.assert_array_equal(floats, (words & 0x7FFFFF) / np.float32(2 ** 23))
    halves = philox.uniform(_at(key, start), (8,), np.float16)
    np.testing.assert_array_equal(halves, ((words & 0x3FF) / 1024.0).astype(np.float16))
    doubles = philox.uniform(_at(key, start), (4,), np.float64)
    w = words.astype(np.uint64)
    mantissa = ((w[0::2] & 0xFFFFF) << np.uint64(32)) | w[1::2]
    np.testing.assert_array_equal(doubles, mantissa / 2.0 ** 52)


def _at(key, counter):
    stream = philox.Stream(key[0] | key[1] << 32, 0)
    stream.counter = counter
    return stream


def test_each_kernel_compiles_after_the_others_load_from_numbas_cache(tmp_path):
    """A fresh process loads one distribution's kernel from Numba's disk cache and then
    compiles another: each kernel must compile on its own (a generator shared by the
    kernels broke exactly this, in CI's fresh clone)."""
    import os
    import subprocess
    import sys
    first = ("import numpy as np\nfrom tfteach.kernels.cpu import philox\n"
             "print(philox.uniform(philox.Stream(1, 2), (9,), np.float32).sum())\n")
    then = first + (
        "s = philox.Stream(1, 2)\n"
        "for draw in (lambda: philox.uniform_int(s, (9,), 0, 10, np.int32),\n"
        "             lambda: philox.uniform_int(s, (9,), 0, 10, np.int64),\n"
        "             lambda: philox.uniform(s, (9,), np.float64),\n"
        "             lambda: philox.normal(s, (9,), np.float32),\n"
        "             lambda: philox.normal(s, (9,), np.float64),\n"
        "             lambda: philox.truncated_normal(s, (9,), np.float32)):\n"
        "    print(draw().sum())\n")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    for code in (first, then):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=env, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
