"""tf.estimator.inputs.numpy_input_fn: the batches TF 1.15 gives, checked against a plain
Python reading of the arrays (epochs one after another, batches across epoch ends, the
last one short), and TF's argument errors."""
import numpy as np
import pytest

import tfteach as tf


def all_batches(input_fn):
    batch = input_fn()
    out = []
    with tf.Session() as sess:
        try:
            while True:
                out.append(sess.run(batch))
        except tf.errors.OutOfRangeError:
            pass
    return out


def python_batches(n, batch_size, num_epochs):
    stream = [i for _ in range(num_epochs) for i in range(n)]
    return [stream[s:s + batch_size] for s in range(0, len(stream), batch_size)]


@pytest.mark.parametrize("n, batch_size, num_epochs", [(10, 4, 1), (7, 3, 2), (6, 3, 2),
                                                        (5, 8, 3)])
def test_batches_follow_the_arrays_across_epochs(n, batch_size, num_epochs):
    x = np.arange(n * 2, dtype=np.float64).reshape(n, 2)
    y = np.arange(n, dtype=np.int32) * 10
    batches = all_batches(tf.estimator.inputs.numpy_input_fn(
        {"a": x}, y, batch_size=batch_size, num_epochs=num_epochs, shuffle=False))
    expected = python_batches(n, batch_size, num_epochs)
    assert len(batches) == len(expected)
    for (features, labels), index in zip(batches, expected):
        np.testing.assert_array_equal(features["a"], x[index])
        np.testing.assert_array_equal(labels, y[index])
        assert features["a"].dtype == np.float64 and labels.dtype == np.int32


def test_shuffle_reads_each_epoch_as_a_permutation():
    n = 9
    batches = all_batches(tf.estimator.inputs.numpy_input_fn(
        {"i": np.arange(n)}, batch_size=3, num_epochs=2, shuffle=True))
    seen = np.concatenate([b["i"] for b in batches])
    assert sorted(seen[:n]) == list(range(n)) and sorted(seen[n:]) == list(range(n))


def test_x_array_and_y_dict():
    features, labels = tf.estimator.inputs.numpy_input_fn(
        np.arange(6.0), {"t": np.arange(6), "u": -np.arange(6)}, batch_size=4,
        shuffle=False)()
    assert isinstance(features, tf.Tensor) and set(labels) == {"t", "u"}
    with tf.Session() as sess:
        f, l_ = sess.run([features, labels])
    np.testing.assert_array_equal(f, [0.0, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(l_["u"], [0, -1, -2, -3])


def test_static_shapes():
    features = tf.estimator.inputs.numpy_input_fn(
        {"x": np.zeros((10, 3))}, batch_size=4, num_epochs=None, shuffle=False)()
    assert features["x"].shape.as_list() == [4, 3]      # every batch full: dequeue_many
    features = tf.estimator.inputs.numpy_input_fn(
        {"x": np.zeros((10, 3))}, batch_size=4, num_epochs=1, shuffle=False)()
    assert features["x"].shape.as_list() == [None, 3]   # the last may be short


def test_errors_as_tf():
    with pytest.raises(ValueError, match="shuffle must be provided and explicitly set as "
                                         "boolean"):
        tf.estimator.inputs.numpy_input_fn({"x": np.zeros(3)})
    with pytest.raises(ValueError, match="Length of tensors in x and y is mismatched"):
        tf.estimator.inputs.numpy_input_fn({"x": np.zeros(3)}, np.zeros(4), shuffle=False)
    with pytest.raises(ValueError, match="1 duplicate keys are found in both x and y"):
        tf.estimator.inputs.numpy_input_fn({"x": np.zeros(3)}, {"x": np.zeros(3)},
                                           shuffle=False)
    with pytest.raises(ValueError, match="x cannot be empty"):
        tf.estimator.inputs.numpy_input_fn({}, shuffle=False)


def test_pandas_input_fn_reads_the_columns():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [4, 5, 6]})
    features, labels = tf.estimator.inputs.pandas_input_fn(
        frame, pd.Series([7, 8, 9]), batch_size=2, shuffle=False)()
    with tf.Session() as sess:
        f, l_ = sess.run([features, labels])
    np.testing.assert_array_equal(f["b"], [4, 5])
    np.testing.assert_array_equal(l_, [7, 8])
