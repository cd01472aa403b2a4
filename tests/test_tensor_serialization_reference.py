"""tf.io.serialize_tensor against TensorFlow: the same bytes, and each parses the other's.
Skips without TensorFlow."""
import numpy as np
import pytest

from tests.tf_reference import run_both

pytestmark = pytest.mark.reference

ARRAYS = [np.float32([[1.5, 2.0], [-3.0, 0.25]]), np.int64([2 ** 40, -1]), np.int32(5),
          np.float64([]), np.array([b"a", b"bc"], dtype=object), np.bool_([True, False]),
          np.float16([0.5, 65504]), np.complex64([1 + 2j])]


@pytest.mark.parametrize("array", ARRAYS, ids=lambda a: str(a.dtype))
def test_serialized_bytes_equal_tensorflows_and_parse_back(array):
    def build(tf):
        dtype = tf.string if array.dtype == object else tf.as_dtype(array.dtype)
        s = tf.io.serialize_tensor(tf.constant(array, dtype))
        return [s, tf.io.parse_tensor(s, dtype)], None
    (theirs, their_back), (ours, our_back) = run_both(build)
    assert ours == theirs
    np.testing.assert_array_equal(our_back, their_back)
    assert np.asarray(our_back).dtype == np.asarray(their_back).dtype
