"""Comparing results bit for bit: the optimizer's and the fast paths' promise."""
import numpy as np


def same_bits(got, want):
    """Asserts equal values, dtype and shape, floats compared bit for bit (-0.0, NaN
    payloads)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape,
                                                                  want.dtype, want.shape)
    if got.dtype.kind in "fc":
        got = np.ascontiguousarray(got).view(np.uint8)
        want = np.ascontiguousarray(want).view(np.uint8)
    np.testing.assert_array_equal(got, want)
