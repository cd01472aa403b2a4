"""How close two float results must be when they were computed in different orders.

A sum (a matmul, a convolution, a reduction, a gradient: each is one) computed in another
order — float32 against a float64 reference, split in halves or not, BLAS with another
CPU's kernels, TensorFlow against tfteach — rounds differently, and the difference is
proportional to the size of the *terms* summed, not to the result: where terms cancel,
the result is near zero but its rounding error is not. A pure relative tolerance
(`assert_allclose(rtol=...)`, whose `atol` defaults to 0) then fails on whichever entry
happens to land near zero on some machine: a flaky test, not a strict one.

`assert_close` compares with `rtol` and an absolute tolerance of `rtol * scale`, where
`scale` is the size of the terms: by default the largest |expected| of the array (the
values' own size), or what the caller passes (e.g. the reduction of |x| for a reduction
of x, the only honest scale for a single sum near zero).
"""
import numpy as np

__all__ = ["assert_close"]


def assert_close(actual, expected, rtol=1e-7, scale=None, err_msg=""):
    """|actual - expected| <= rtol * (|expected| + scale), elementwise; NaN equals NaN
    and infinities must match. `scale` may be an array (one size per result)."""
    actual = np.asarray(actual)
    expected_arr = np.asarray(expected)
    if scale is None:
        sizes = np.abs(expected_arr.astype(np.float64))
        sizes = sizes[np.isfinite(sizes)]
        scale = sizes.max() if sizes.size else 0.0
    scale = np.asarray(scale, dtype=np.float64)
    if scale.ndim == 0:
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * float(scale),
                                   err_msg=err_msg)
        return
    assert actual.shape == expected_arr.shape, (actual.shape, expected_arr.shape)
    a, e = actual.astype(np.float64), expected_arr.astype(np.float64)
    same = (a == e) | (np.isnan(a) & np.isnan(e))
    with np.errstate(invalid="ignore"):
        close = np.abs(a - e) <= rtol * (np.abs(e) + scale)
    bad = ~(same | close)
    if bad.any():
        raise AssertionError(
            "%s\nNot close (rtol=%g, atol=rtol * scale) at %d of %d entries; first at %s: "
            "actual %r, expected %r, scale %r"
            % (err_msg, rtol, int(bad.sum()), bad.size, np.argwhere(bad)[0].tolist(),
               a[bad][0], e[bad][0], np.broadcast_to(scale, bad.shape)[bad][0]))
