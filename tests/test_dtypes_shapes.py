"""dtypes, TensorShape/Dimension and TF1's value-conversion rules for constants."""
import numpy as np
import pytest

import tfteach as tf
from tfteach.framework import tensor_shape


@pytest.mark.parametrize("value, expected", [
    (tf.float32, tf.float32), ("float32", tf.float32), (np.float64, tf.float64),
    (np.dtype("int32"), tf.int32), ("int64", tf.int64), (np.bool_, tf.bool), (bool, tf.bool),
    ("string", tf.string), (np.uint8, tf.uint8), ("half", tf.float16), (1, tf.float32),
])
def test_as_dtype(value, expected):
    assert tf.as_dtype(value) == expected


def test_dtype_properties():
    assert tf.float32.is_floating and not tf.float32.is_integer
    assert tf.int32.is_integer and tf.uint8.is_unsigned
    assert tf.float32.as_numpy_dtype is np.float32
    assert tf.float32.c_name == "float" and tf.float64.c_name == "double"
    assert repr(tf.int64) == "tf.int64"
    assert tf.float32._as_ref.name == "float32_ref"
    assert tf.float32._as_ref.base_dtype == tf.float32
    assert tf.float32._as_ref != tf.float32
    assert tf.int8.min == -128 and tf.uint8.max == 255
    with pytest.raises(TypeError, match="Cannot convert value"):
        tf.as_dtype("complex256")


def test_dimension_and_shape_like_tf1():
    s = tf.TensorShape([None, 3])
    assert str(s) == "(?, 3)" and s.debug_string() == "[?,3]"
    assert isinstance(s[1], tf.Dimension) and s[1].value == 3
    assert s[0].value is None
    assert str(tf.TensorShape([4])) == "(4,)"
    assert str(tensor_shape.unknown_shape()) == "<unknown>"
    assert s.as_list() == [None, 3] and s.ndims == 2 and not s.is_fully_defined()
    assert s.is_compatible_with([7, 3]) and not s.is_compatible_with([7, 4])
    assert s.merge_with([7, None]).as_list() == [7, 3]
    assert tf.Dimension(3) + 2 == 5 and (tf.Dimension(None) + 2).value is None
    assert s.concatenate([5]).as_list() == [None, 3, 5]
    assert tf.TensorShape([2, 3]).num_elements() == 6
    with pytest.raises(ValueError, match="as_list\\(\\) is not defined on an unknown"):
        tensor_shape.unknown_shape().as_list()
    with pytest.raises(ValueError, match="must be >= 0"):
        tf.Dimension(-1)


@pytest.mark.parametrize("value, dtype", [
    (1.0, tf.float32), (1, tf.int32), (2 ** 40, tf.int64), (True, tf.bool),
    ([1, 2.5], tf.float32), ("hi", tf.string), (np.float64(1.0), tf.float64),
    (np.arange(3), tf.int64), ([[1, 2], [3, 4]], tf.int32),
])
def test_constant_dtype_inference(value, dtype):
    assert tf.constant(value).dtype == dtype


def test_constant_shape_fill_and_tf1_padding():
    with tf.Session() as sess:
        assert sess.run(tf.constant(7, shape=[2, 2])).tolist() == [[7, 7], [7, 7]]
        assert sess.run(tf.constant([1, 2], shape=[5])).tolist() == [1, 2, 2, 2, 2]
        assert sess.run(tf.constant([1, 2, 3, 4, 5, 6], shape=[2, 3])).tolist() == \
            [[1, 2, 3], [4, 5, 6]]
        assert sess.run(tf.constant(["a", "bc"])).tolist() == [b"a", b"bc"]
        assert sess.run(tf.constant("a")) == b"a"


def test_constant_errors():
    with pytest.raises(ValueError, match="Too many elements provided. Needed at most 2, "
                                        "but received 3"):
        tf.constant([1, 2, 3], shape=[2])
    with pytest.raises(TypeError, match="Expected int32, got 1.5 of type 'float' instead."):
        tf.constant(1.5, dtype=tf.int32)
    with pytest.raises(TypeError, match="Expected bool, got 1 of type 'int' instead."):
        tf.constant(1, dtype=tf.bool)
    with pytest.raises(ValueError, match="Argument must be a dense tensor"):
        tf.constant([[1, 2, 3], [1, 2]])
    with pytest.raises(TypeError, match="Expected Tensor's shape"):
        tf.constant([1, 2], shape=[2, 1], verify_shape=True)


def test_numpy_values_cast_silently_to_requested_dtype():
    t = tf.constant(np.array([1.7, 2.2]), dtype=tf.int32)
    assert t.dtype == tf.int32
    with tf.Session() as sess:
        assert sess.run(t).tolist() == [1, 2]


def test_convert_to_tensor_dtype_mismatch():
    t = tf.constant(1.0)
    assert tf.convert_to_tensor(t) is t
    with pytest.raises(ValueError, match="Tensor conversion requested dtype int32 for Tensor "
                                         "with dtype float32"):
        tf.convert_to_tensor(t, dtype=tf.int32)
    assert tf.convert_to_tensor([1, 2], preferred_dtype=tf.int64).dtype == tf.int64
    assert tf.convert_to_tensor([1.5], preferred_dtype=tf.int64).dtype == tf.float32
    with pytest.raises(TypeError, match="Failed to convert object of type"):
        tf.convert_to_tensor(object())


def test_shapes_convert_to_tensors_with_tf_1_15s_errors():
    # (test_array_reference.py compares the values and error classes with TensorFlow;
    # these are TF 1.15's words, which TF 2 reworded.)
    known = tf.TensorShape([2, 3])
    with tf.Graph().as_default(), tf.Session() as sess:
        as_tensor = tf.convert_to_tensor(known)
        assert as_tensor.op.name == "shape_as_tensor"
        assert sess.run(as_tensor).tolist() == [2, 3]
        assert tf.convert_to_tensor(tf.TensorShape([2 ** 31])).dtype == tf.int64
    partial = tf.placeholder(tf.float32, [None, 2]).shape
    with pytest.raises(ValueError, match=r"^Cannot convert a partially known TensorShape to "
                                         r"a Tensor: \(\?, 2\)$"):
        tf.convert_to_tensor(partial)
    with pytest.raises(ValueError, match=r"^Cannot convert an unknown Dimension to a Tensor: "
                                         r"\?$"):
        tf.convert_to_tensor(partial[0])
    with pytest.raises(TypeError, match="^Cannot convert a TensorShape to dtype: <dtype: "
                                        "'float32'>$"):
        tf.convert_to_tensor(known, tf.float32)
    with pytest.raises(ValueError, match=r"^Cannot convert a TensorShape to dtype int32; a "
                                         r"dimension is too large \(2147483648\)$"):
        tf.convert_to_tensor(tf.TensorShape([2 ** 31]), tf.int32)
