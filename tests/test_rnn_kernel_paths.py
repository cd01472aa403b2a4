"""The shorter paths of the kernels an RNN step runs ~2,000 times (issue 20, docs/rnn.md
"Speed"): each gives the bits, dtypes, shapes and errors of the general path it skips
(NumPy's general function, or the kernel's own general code), odd inputs included."""
import numpy as np
import pytest

import tfteach as tf
from tfteach.errors import InvalidArgumentError
from tfteach.kernels.cpu import shape_kernels


def run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def same_bits(got, want):
    """Equal values, dtype and shape, floats compared bit for bit (-0.0, NaN payloads)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape,
                                                                  want.dtype, want.shape)
    if got.dtype.kind in "fc":
        got, want = got.view(np.uint8), want.view(np.uint8)
    np.testing.assert_array_equal(got, want)


def odd_floats(shape, dtype=np.float32, seed=0):
    """Random values with -0.0, inf and NaN among them."""
    x = np.random.RandomState(seed).randn(*shape).astype(dtype)
    flat = x.reshape(-1)
    for i, v in zip(range(0, flat.size, 7), (-0.0, np.inf, -np.inf, np.nan)):
        flat[i] = v
    return x


# -- ExpandDims: a reshape instead of np.expand_dims ----------------------------------------
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (0, 4), (2, 1, 3)])
@pytest.mark.parametrize("dim_dtype", [np.int32, np.int64])
def test_expand_dims_is_numpys_view_for_every_axis(shape, dim_dtype):
    x = odd_floats(shape) if shape else np.full((), -0.0, np.float32)
    for axis in range(-len(shape) - 1, len(shape) + 1):
        for dim in (np.array(axis, dim_dtype), np.array([axis], dim_dtype)):
            got = shape_kernels.expand_dims(None, x, dim)
            same_bits(got, np.expand_dims(x, axis))
            assert np.shares_memory(got, x) or x.size == 0      # a view, as before


def test_expand_dims_of_non_contiguous_and_int_inputs():
    x = np.arange(24, dtype=np.int64).reshape(4, 6)[:, ::2].T        # strided
    for axis in (0, 1, 2, -1, -3):
        same_bits(shape_kernels.expand_dims(None, x, np.int32(axis)), np.expand_dims(x, axis))
    same_bits(shape_kernels.expand_dims(None, [True, False], np.int32(-1)),
              np.array([[True], [False]]))


def test_expand_dims_errors_are_tensorflows():
    m = tf.constant(np.zeros((3, 4), np.float32))
    d = tf.placeholder(tf.int32)
    for bad in (3, -4):
        with pytest.raises(InvalidArgumentError) as info:
            run(tf.expand_dims(m, d), {d: bad})
        assert str(info.value).splitlines()[0] == (
            "Tried to expand dim index %d for tensor with 2 dimensions." % bad)
    with pytest.raises(InvalidArgumentError) as info:
        run(tf.expand_dims(m, d), {d: [0, 1]})
    assert str(info.value).splitlines()[0] == "'dim' must be a tensor with a single value"
