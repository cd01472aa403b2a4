"""The comparison helper of float results computed in different orders (tolerances.py)."""
import numpy as np
import pytest

from tolerances import assert_close


def test_a_cancellation_near_zero_passes_with_its_terms_size():
    terms = np.array([1.0, -1.0 + 3e-7, 2.0, -2.0], np.float32)
    reordered = np.float32(terms[0] + terms[2]) + np.float32(terms[1] + terms[3])
    exact = terms.astype(np.float64).sum()
    with pytest.raises(AssertionError):                 # a pure relative tolerance fails
        np.testing.assert_allclose(reordered, exact, rtol=1e-5)
    assert_close(reordered, exact, rtol=1e-5, scale=np.abs(terms).sum())


def test_a_real_difference_still_fails():
    with pytest.raises(AssertionError):
        assert_close([1.0, 2.0, 0.0], [1.0, 2.0, 1e-3], rtol=1e-5)   # default scale: 2
    with pytest.raises(AssertionError):
        assert_close([1.0, 0.5], [1.0, 0.4], rtol=1e-3, scale=np.array([1.0, 1.0]))
    with pytest.raises(AssertionError):
        assert_close([np.nan, 1.0], [0.0, 1.0], scale=np.array([1.0, 1.0]))
    assert_close([np.nan, 1.0], [np.nan, 1.0 + 1e-9], rtol=1e-6, scale=np.array([1.0, 1.0]))
