"""kernels/cpu/transposed_copy.py: OpenBLAS's out-of-place transpose gives the copy
np.ascontiguousarray(w.T) gives, bit for bit, special values included."""
import numpy as np
import pytest

from thread_helpers import run_in_threads
from tfteach.kernels.cpu import openblas, transposed_copy as tc


def _specials(w):
    """w with NaNs (two payloads, both signs), infinities, signed zeros, subnormals and
    the largest and smallest normals written over some of its elements."""
    info = np.finfo(w.dtype)
    specials = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, info.tiny / 4,
                         -info.tiny / 8, info.max, -info.max, info.tiny], w.dtype)
    bits = specials.view(np.uint32 if w.dtype == np.float32 else np.uint64)
    bits[1] |= 0x5                      # a NaN with a payload of its own
    flat = w.reshape(-1)
    picks = np.random.RandomState(1).choice(flat.size, size=min(flat.size, 200),
                                            replace=False)
    flat[picks] = np.resize(specials, picks.size)
    return w


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(156, 512), (256, 512), (512, 512), (784, 500),
                                   (1, 5000), (5000, 1), (64, 64), (3, 4097), (33, 129)])
def test_the_copy_is_numpys_bit_for_bit(dtype, shape):
    w = _specials(np.random.RandomState(0).standard_normal(shape).astype(dtype))
    expected = np.ascontiguousarray(w.T)
    got = tc.transposed_copy(w)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    assert got.flags.c_contiguous and got.flags.writeable and got.flags.owndata
    assert got.tobytes() == expected.tobytes()
    assert not np.shares_memory(got, w)


def test_the_openblas_path_is_the_one_taken_here():
    """With NumPy's OpenBLAS wheel (this project's), large matrices go through omatcopy:
    otherwise the test above would only check NumPy against itself."""
    if openblas.blas_int() is None:
        pytest.skip("NumPy's BLAS here is not the OpenBLAS of its wheels")
    calls = []
    real = tc._omatcopy(np.dtype(np.float32))

    def counting(*args):
        calls.append(args[2:4])
        return real(*args)
    tc._FOUND[np.dtype(np.float32)] = counting
    try:
        w = np.arange(300 * 70, dtype=np.float32).reshape(300, 70)
        assert tc.transposed_copy(w).tobytes() == np.ascontiguousarray(w.T).tobytes()
    finally:
        tc._FOUND[np.dtype(np.float32)] = real
    assert calls == [(300, 70)]


@pytest.mark.parametrize("w", [
    np.ones((0, 5000), np.float32),                         # empty
    np.arange(20, dtype=np.float32).reshape(4, 5),          # small: NumPy's copy
    np.arange(100 * 80, dtype=np.float16).reshape(100, 80),  # no omatcopy for float16
    np.arange(100 * 80, dtype=np.int32).reshape(100, 80),
    np.arange(100 * 80, dtype=np.complex64).reshape(100, 80),
    np.arange(200 * 90, dtype=np.float32).reshape(90, 200).T,   # not C-contiguous
    np.arange(200 * 90, dtype=np.float32).reshape(90, 200)[:, ::2],
    np.arange(200 * 90, dtype=np.float64).reshape(200, 90).astype(">f8"),  # big-endian
    np.frombuffer(bytearray(1 + 4 * 300 * 70), np.float32, 300 * 70, 1).reshape(300, 70),
], ids=["empty", "small", "float16", "int32", "complex64", "transposed_view", "strided",
        "big_endian", "misaligned"])
def test_everything_else_is_copied_by_numpy(w):
    got = tc.transposed_copy(w)
    expected = np.ascontiguousarray(w.T)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    assert got.flags.c_contiguous
    assert got.tobytes() == expected.tobytes()


def test_threads_copying_at_once_each_get_their_own_matrix():
    rng = np.random.RandomState(2)
    matrices = [rng.standard_normal((256 + i, 512)).astype(np.float32) for i in range(4)]
    expected = [np.ascontiguousarray(w.T).tobytes() for w in matrices]
    failures = []

    def copy_many(i):
        for _ in range(50):
            if tc.transposed_copy(matrices[i]).tobytes() != expected[i]:
                failures.append(i)
    run_in_threads(copy_many, 4)
    assert failures == []
