"""tf.SparseTensor (framework/sparse_tensor.py): the three tensors, static checks, fetch as
a SparseTensorValue, feed of a sparse placeholder, tf.sparse.to_dense. Expected values are
written out by hand (the dense matrices) or compared with TensorFlow (the reference
module test_sparse_tensor_reference.py)."""
import numpy as np
import pytest

import tfteach as tf


def test_parts_dtypes_names_and_static_shape():
    sp = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
    assert sp.indices.dtype == tf.int64 and sp.dense_shape.dtype == tf.int64
    assert sp.dtype == tf.float32 and sp.values.shape.as_list() == [2]
    assert sp.indices.name == "SparseTensor/indices:0"
    assert sp.shape.as_list() == [3, 4] and sp.op is sp.values.op
    assert str(sp).startswith('SparseTensor(indices=Tensor("SparseTensor/indices:0"')


@pytest.mark.parametrize("args,message", [
    (([0, 1], [1.0], [2]), "Shape (2,) must have rank 2"),
    (([[0]], [1.0, 2.0], [2]), "Dimensions 1 and 2 are not compatible"),
    (([[0]], [1.0], [2, 3]), "Dimensions 1 and 2 are not compatible"),
    (([[0]], [[1.0]], [2]), "Shape (1, 1) must have rank 1")])
def test_bad_parts_raise_tensorflows_value_errors(args, message):
    with pytest.raises(ValueError) as info:
        tf.SparseTensor(*args)
    assert str(info.value) == message


def test_fetch_returns_sparse_tensor_value_and_to_dense_fills_default():
    sp = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
    dense = tf.sparse.to_dense(sp, default_value=-1.0)
    with tf.Session() as sess:
        value, d = sess.run([sp, dense])
        assert sp.eval(session=sess).indices.tolist() == [[0, 0], [1, 2]]
    assert isinstance(value, tf.SparseTensorValue)
    assert value.indices.dtype == np.int64 and value.dense_shape.tolist() == [3, 4]
    np.testing.assert_array_equal(value.values, np.float32([1, 2]))
    np.testing.assert_array_equal(d, np.float32([[1, -1, -1, -1], [-1, -1, 2, -1],
                                                 [-1, -1, -1, -1]]))


def test_sparse_placeholder_takes_a_value_or_a_triple():
    sp = tf.sparse_placeholder(tf.int32, name="sp")
    assert [t.name for t in (sp.indices, sp.values, sp.dense_shape)] == [
        "sp/indices:0", "sp/values:0", "sp/shape:0"]
    dense = tf.sparse_tensor_to_dense(sp)
    expected = np.int32([[0, 7], [0, 0]])
    with tf.Session() as sess:
        got1 = sess.run(dense, {sp: tf.SparseTensorValue([[0, 1]], [7], [2, 2])})
        got2 = sess.run(dense, {sp: ([[0, 1]], [7], [2, 2])})
        back = sess.run(sp, {sp: ([[1, 0]], [3], [2, 2])})
        with pytest.raises(TypeError, match="SparseTensorValue"):
            sess.run(dense, {sp: [[0, 1]]})
    np.testing.assert_array_equal(got1, expected)
    np.testing.assert_array_equal(got2, expected)
    assert back.indices.tolist() == [[1, 0]] and back.values.tolist() == [3]


def test_sparse_placeholder_with_known_shape_has_static_shape():
    sp = tf.sparse_placeholder(tf.float32, shape=[3, 4])
    assert sp.shape.as_list() == [3, 4] and sp.indices.shape.as_list() == [None, 2]
    partly = tf.sparse_placeholder(tf.float32, shape=[3, None])
    assert partly.shape.ndims == 2 and partly.dense_shape.op.type == "Placeholder"


def test_to_dense_checks_indices_and_input_type():
    sp = tf.SparseTensor([[1, 0], [0, 0]], [1, 2], [2, 2])      # out of order
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = \[0,0\] "
                                                                 "is out of order"):
            sess.run(tf.sparse.to_dense(sp))
    with pytest.raises(TypeError, match="Input must be a SparseTensor."):
        tf.sparse.to_dense(tf.constant([1]))


def test_fetch_nested_with_dense_tensors():
    sp = tf.SparseTensor([[2]], ["x"], [3])
    c = tf.constant(5)
    with tf.Session() as sess:
        out = sess.run({"sp": sp, "pair": (c, sp)})
    assert out["pair"][0] == 5 and out["sp"].values.tolist() == [b"x"]
    assert out["pair"][1].indices.tolist() == [[2]]
