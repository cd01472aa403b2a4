"""tf.nn.dropout, embedding_lookup, top_k and in_top_k."""
import numpy as np
import pytest

import tfteach as tf
from gradient_check import check_gradients


def run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


# -- dropout -------------------------------------------------------------------------------------
def test_dropout_statistics_and_scaling():
    x = tf.ones([200, 500])
    y = tf.nn.dropout(x, keep_prob=0.8)
    got = run(y)
    kept = got != 0
    # kept values are scaled by 1 / keep_prob; 100000 draws: the fraction is 0.8 +- 0.005
    np.testing.assert_allclose(got[kept], np.float32(1) / np.float32(0.8), rtol=1e-6)
    assert abs(kept.mean() - 0.8) < 0.005
    assert abs(got.mean() - 1.0) < 0.01                   # the expected sum is unchanged
    rate = run(tf.nn.dropout(x, rate=0.3))
    assert abs((rate != 0).mean() - 0.7) < 0.005


def test_dropout_builds_tf_1_15_graph():
    x = tf.placeholder(tf.float32, [None, 10])
    y = tf.nn.dropout(x, keep_prob=0.5)
    assert y.name == "dropout/mul_1:0" and y.shape.as_list() == [None, 10]
    types = {op.name: op.type for op in tf.get_default_graph().get_operations()}
    for name, kind in [("dropout/Shape", "Shape"), ("dropout/random_uniform/RandomUniform",
                                                    "RandomUniform"),
                       ("dropout/GreaterEqual", "GreaterEqual"), ("dropout/Cast", "Cast"),
                       ("dropout/truediv", "RealDiv"), ("dropout/mul", "Mul")]:
        assert types[name] == kind


def test_dropout_keeps_the_static_shape_with_a_keep_prob_of_unknown_rank():
    # the notes' `keep_prob = tf.placeholder(tf.float32)` has no shape: x / keep_prob
    # broadcasts to an unknown shape, and TF 1.15 sets x's shape back (a dense layer
    # after the dropout needs its width)
    x = tf.placeholder(tf.float32, [None, 512])
    keep_prob = tf.placeholder(tf.float32)
    assert tf.nn.dropout(x, keep_prob).shape.as_list() == [None, 512]
    assert tf.nn.dropout(x, rate=keep_prob).shape.as_list() == [None, 512]
    h = tf.layers.dense(tf.nn.dropout(x, keep_prob), 3)
    assert h.shape.as_list() == [None, 3]
    got = run(tf.nn.dropout(tf.ones([2, 4]), keep_prob), {keep_prob: 0.5})
    assert got.shape == (2, 4) and set(np.unique(got)) <= {0.0, 2.0}


def test_keep_prob_one_is_identity_and_placeholder_keep_prob():
    x = tf.constant([1.0, 2.0])
    assert tf.nn.dropout(x, keep_prob=1) is x
    assert tf.nn.dropout(x, keep_prob=1.0) is x
    assert tf.nn.dropout(x, rate=0.0) is x
    keep = tf.placeholder(tf.float32)
    y = tf.nn.dropout(tf.ones([1000]), keep_prob=keep)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {keep: 1.0}), np.ones(1000))
        half = sess.run(y, {keep: 0.5})
        assert set(np.unique(half)) == {0.0, 2.0}


def test_dropout_seeds():
    a = tf.nn.dropout(tf.ones([100]), keep_prob=0.5, seed=7)
    b = tf.nn.dropout(tf.ones([100]), keep_prob=0.5, seed=7)
    with tf.Session() as sess:
        first_a, second_a = sess.run(a), sess.run(a)
        first_b = sess.run(b)
    with tf.Session() as sess:
        again = sess.run(a)
    np.testing.assert_array_equal(first_a, first_b)      # same seeds, same mask
    np.testing.assert_array_equal(first_a, again)        # a new session starts again
    assert not np.array_equal(first_a, second_a)         # each run draws a new mask


def test_noise_shape_broadcasts_the_mask():
    got = run(tf.nn.dropout(tf.ones([50, 40]), keep_prob=0.5, noise_shape=[50, 1]))
    assert all(len(set(row)) == 1 for row in got)        # whole rows kept or dropped
    assert 0 < (got[:, 0] != 0).sum() < 50


def test_dropout_errors():
    with pytest.raises(ValueError, match=r"rate must be a scalar tensor or a float in the "
                                         r"range \[0, 1\), got -0.5"):
        tf.nn.dropout(tf.ones([2]), keep_prob=1.5)
    with pytest.raises(ValueError, match="Cannot specify both 'keep_prob' and 'rate'"):
        tf.nn.dropout(tf.ones([2]), keep_prob=0.5, rate=0.5)
    with pytest.raises(ValueError, match="You must provide a rate to dropout"):
        tf.nn.dropout(tf.ones([2]))
    with pytest.raises(ValueError, match="x has to be a floating point tensor"):
        tf.nn.dropout(tf.constant([1, 2]), keep_prob=0.5)
    with pytest.raises(ValueError, match="keep_prob must be a floating point number"):
        tf.nn.dropout(tf.ones([2]), keep_prob="half")


def test_dropout_gradient_uses_the_same_mask():
    x = tf.constant(np.ones((5, 6)))
    y = tf.nn.dropout(x, keep_prob=0.5, seed=1)
    g = tf.gradients(tf.reduce_sum(y), x)[0]
    with tf.Session() as sess:
        value, grad = sess.run([y, g])
    np.testing.assert_array_equal(grad, value)           # d(x * mask * 2)/dx = mask * 2


# -- embedding_lookup ------------------------------------------------------------------------------
def test_embedding_lookup_rows_and_gradient():
    table = np.arange(15, dtype=np.float32).reshape(5, 3)
    ids = np.array([[4, 0], [2, 2]])
    y = tf.nn.embedding_lookup(table, ids)
    assert y.name == "embedding_lookup/Identity:0" and y.shape.as_list() == [2, 2, 3]
    np.testing.assert_array_equal(run(y), table[ids])
    v = tf.Variable(table)
    z = tf.nn.embedding_lookup([v], [1, 1, 3])
    g = tf.gradients(tf.reduce_sum(z), v)[0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(z), table[[1, 1, 3]])
        want = np.zeros((5, 3))
        want[1] = 2
        want[3] = 1
        np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(g)), want)
    check_gradients(lambda tf, p: tf.nn.embedding_lookup(p, [0, 2, 2]),
                    [np.random.RandomState(0).randn(3, 2)])


def test_embedding_lookup_max_norm_and_errors():
    table = np.array([[3.0, 4.0], [0.3, 0.4]], np.float32)
    np.testing.assert_allclose(run(tf.nn.embedding_lookup(table, [0, 1], max_norm=1.0)),
                               [[0.6, 0.8], [0.3, 0.4]], rtol=1e-6)
    with pytest.raises(ValueError, match="Need at least one param"):
        tf.nn.embedding_lookup([], [0])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 7 is not in"):
        run(tf.nn.embedding_lookup(table, [0, 7]))


# -- top_k / in_top_k ----------------------------------------------------------------------------
def test_top_k_values_indices_and_ties():
    x = np.array([[1.0, 3.0, 3.0, 2.0], [0.5, -1.0, 7.0, 0.5]], np.float32)
    result = tf.nn.top_k(x, k=3)
    assert result.values.shape.as_list() == [2, 3] and result.indices.dtype == tf.int32
    values, indices = run(result)
    np.testing.assert_array_equal(indices, [[1, 2, 3], [2, 0, 3]])   # ties: lower index first
    np.testing.assert_array_equal(values, [[3, 3, 2], [7, 0.5, 0.5]])
    default = run(tf.nn.top_k(np.arange(5)))
    assert default.values.tolist() == [4] and default.indices.tolist() == [4]
    with pytest.raises(ValueError, match="input must have last dimension >= k = 5 but is 4"):
        tf.nn.top_k(x, 5)
    k = tf.placeholder(tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Had 4, needed 9"):
        run(tf.nn.top_k(x, k), {k: 9})


def test_top_k_gradient():
    x = np.random.RandomState(1).randn(3, 6)
    check_gradients(lambda tf, x: tf.nn.top_k(x, 4).values, [x])
    check_gradients(lambda tf, x: tf.nn.top_k(x, 2).values, [x], shapes=[[None, 6]])


def test_in_top_k():
    p = np.array([[0.1, 0.8, 0.1], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3], [np.nan, 1, 0]],
                 np.float32)
    got = run(tf.nn.in_top_k(p, [1, 0, 0, 1], 1))
    np.testing.assert_array_equal(got, [True, False, False, False])   # NaN row: False
    got = run(tf.nn.in_top_k(p[:2], np.array([0, 1], np.int64), 2))
    np.testing.assert_array_equal(got, [True, True])                  # 0.1 ties 0.1: in
    assert run(tf.nn.in_top_k(p[:1], [5], 1)).tolist() == [False]     # out of range
    y = tf.nn.in_top_k(p, [0, 1, 2, 0], 2)
    assert y.dtype == tf.bool and y.name == "in_top_k_3/InTopKV2:0" and y.shape.as_list() == [4]
    with pytest.raises(TypeError, match="DataType float64 not in list of allowed values: "
                                        "float32"):
        tf.nn.in_top_k(p.astype(np.float64), [0, 1, 2, 0], 1)
