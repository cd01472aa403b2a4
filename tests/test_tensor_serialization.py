"""tf.io.serialize_tensor / parse_tensor (ops/tensor_serialization.py): the TensorProto
bytes written out by hand from the proto's field numbers, round trips for every dtype an
Example would carry, and TF's errors."""
import numpy as np
import pytest

import tfteach as tf


def _run(t):
    with tf.Session() as sess:
        return sess.run(t)


def test_bytes_are_dtype_shape_and_raw_content():
    value = _run(tf.io.serialize_tensor(tf.constant([[1.5, 2.0]])))
    # field 1 dtype = 1 (DT_FLOAT); field 2 shape {dim {size 1} dim {size 2}};
    # field 4 tensor_content = the 8 little-endian bytes of the two floats.
    shape = b"\x12\x02\x08\x01" + b"\x12\x02\x08\x02"
    expected = (b"\x08\x01" + b"\x12" + bytes([len(shape)]) + shape + b"\x22\x08"
                + np.float32([1.5, 2.0]).tobytes())
    assert value == expected


@pytest.mark.parametrize("array", [np.arange(6, dtype=np.int64).reshape(2, 3),
                                   np.float64([[1e300, -0.0]]), np.uint8([0, 255]),
                                   np.array([b"a", b"", b"\xff"], dtype=object),
                                   np.zeros((0, 3), np.float32), np.float32(7.0)])
def test_round_trip(array):
    dtype = tf.string if array.dtype == object else tf.as_dtype(array.dtype)
    back = _run(tf.io.parse_tensor(tf.io.serialize_tensor(tf.constant(array, dtype)),
                                   dtype))
    assert np.asarray(back).shape == array.shape
    np.testing.assert_array_equal(back, array)


def test_bad_input():
    serialized = tf.serialize_tensor(tf.constant([1.0]))
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^Type mismatch between parsed tensor \(float\) and dtype "
                                 r"\(int32\)"):
            sess.run(tf.parse_tensor(serialized, tf.int32))
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="^Could not parse `serialized` as TensorProto"):
            sess.run(tf.parse_tensor(tf.constant(b"garbage\xff"), tf.int32))
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^Expected `serialized` to be a scalar, got shape: \[2\]"):
            sess.run(tf.parse_tensor(tf.stack([serialized, serialized]), tf.float32))
