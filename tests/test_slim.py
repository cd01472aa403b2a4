"""tf.contrib.slim / tf.contrib.layers layer functions: TF-Slim's names and defaults,
arg_scope, regularizers, batch norm updates, and outputs against NumPy."""
import numpy as np
import pytest

import tfteach as tf
from tests.test_layers import np_conv2d, np_pool
from tolerances import assert_close

slim = tf.contrib.slim
RNG = np.random.RandomState(7)


def names(variables):
    return [v.name for v in variables]


def session_with_init():
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    return sess


def test_slim_and_contrib_layers_are_the_same_functions():
    assert slim.conv2d is tf.contrib.layers.conv2d
    assert slim.fully_connected is tf.contrib.layers.fully_connected
    assert slim.flatten is tf.contrib.layers.flatten
    assert slim.l2_regularizer is tf.contrib.layers.l2_regularizer


def test_conv2d_defaults_same_padding_relu_and_names():
    x = tf.placeholder(tf.float32, [None, 6, 5, 3])
    a = slim.conv2d(x, 4, [3, 3])
    b = slim.conv2d(a, 2, 3, stride=2)
    assert a.name == "Conv/Relu:0" and b.name == "Conv_1/Relu:0"
    assert a.shape.as_list() == [None, 6, 5, 4] and b.shape.as_list() == [None, 3, 3, 2]
    assert names(tf.trainable_variables()) == [
        "Conv/weights:0", "Conv/biases:0", "Conv_1/weights:0", "Conv_1/biases:0"]
    assert tf.model_variables() == tf.global_variables()
    xv = RNG.randn(2, 6, 5, 3).astype(np.float32)
    with session_with_init() as sess:
        w0, b0, w1, b1 = sess.run(tf.trainable_variables())
        av, bv = sess.run([a, b], {x: xv})
    assert not np.any(b0)
    assert np.abs(w0).max() <= np.sqrt(6.0 / (27 + 36))          # xavier (glorot) uniform
    expected_a = np.maximum(np_conv2d(xv, w0, padding="SAME") + b0, 0)
    np.testing.assert_allclose(av, expected_a, rtol=1e-4, atol=1e-4)
    expected_b = np.maximum(np_conv2d(av, w1, strides=(2, 2), padding="SAME") + b1, 0)
    np.testing.assert_allclose(bv, expected_b, rtol=1e-4, atol=1e-4)


def test_fully_connected_defaults_and_linear_output():
    x = tf.placeholder(tf.float32, [None, 4])
    h = slim.fully_connected(x, 3)
    y = slim.fully_connected(h, 2, activation_fn=None, biases_initializer=None,
                             scope="logits")
    assert h.name == "fully_connected/Relu:0" and y.name == "logits/MatMul:0"
    assert names(tf.global_variables()) == [
        "fully_connected/weights:0", "fully_connected/biases:0", "logits/weights:0"]
    xv = RNG.randn(5, 4).astype(np.float32)
    with session_with_init() as sess:
        w, b, w2 = sess.run(tf.global_variables())
        hv, yv = sess.run([h, y], {x: xv})
    np.testing.assert_allclose(hv, np.maximum(xv @ w + b, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(yv, hv @ w2, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="num_outputs type"):
        slim.fully_connected(x, 2.0)


def test_reuse_by_scope():
    x = tf.placeholder(tf.float32, [None, 4])
    a = slim.fully_connected(x, 3, scope="fc")
    b = slim.fully_connected(x, 3, scope="fc", reuse=True)
    assert len(tf.global_variables()) == 2
    with tf.variable_scope("tower", reuse=tf.AUTO_REUSE):
        slim.conv2d(tf.zeros([1, 4, 4, 1]), 2, 3, scope="c")
        slim.conv2d(tf.zeros([1, 4, 4, 1]), 2, 3, scope="c")
    assert len(tf.global_variables()) == 4
    with session_with_init() as sess:
        av, bv = sess.run([a, b], {x: np.ones((2, 4))})
    np.testing.assert_array_equal(av, bv)


def test_arg_scope_sets_defaults_and_calls_override():
    x = tf.placeholder(tf.float32, [None, 8, 8, 1])
    with slim.arg_scope([slim.conv2d], padding="VALID", activation_fn=None,
                        weights_initializer=tf.ones_initializer()):
        a = slim.conv2d(x, 2, 3)                          # scope defaults
        b = slim.conv2d(x, 2, 3, padding="SAME")          # the call wins
        with slim.arg_scope([slim.conv2d], stride=2) as inner:
            c = slim.conv2d(x, 2, 3)                      # inner adds to outer
    d = slim.conv2d(x, 2, 3)                              # scope over: slim's defaults
    with slim.arg_scope(inner):
        e = slim.conv2d(x, 2, 3)                          # a saved scope re-entered
    assert a.shape.as_list() == [None, 6, 6, 2] and a.name == "Conv/BiasAdd:0"
    assert b.shape.as_list() == [None, 8, 8, 2]
    assert c.shape.as_list() == [None, 3, 3, 2]
    assert d.shape.as_list() == [None, 8, 8, 2] and d.op.type == "Relu"
    assert e.shape.as_list() == [None, 3, 3, 2] and e.op.type == "BiasAdd"
    with session_with_init() as sess:
        np.testing.assert_array_equal(sess.run(tf.global_variables()[0]), np.ones((3, 3, 1, 2)))


def test_arg_scope_errors_and_user_functions():
    with pytest.raises(ValueError, match="not decorated with @add_arg_scope"):
        with slim.arg_scope([tf.nn.relu], name="r"):
            pass
    with pytest.raises(TypeError, match="list_ops_or_scope"):
        with slim.arg_scope(slim.conv2d, padding="SAME"):
            pass
    with pytest.raises(ValueError, match="kwargs must be empty"):
        with slim.arg_scope({}, padding="SAME"):
            pass

    @slim.add_arg_scope
    def scaled(value, factor=1.0):
        return value * factor

    with slim.arg_scope([scaled], factor=3.0):
        assert scaled(2.0) == 6.0 and scaled(2.0, factor=0.5) == 1.0
    assert scaled(2.0) == 2.0
    with slim.arg_scope({scaled: {"factor": 3.0}}):      # the notes' "[ ??? ]" dict form:
        assert scaled(2.0) == 2.0                        # silently nothing, as in TF-Slim
    assert slim.has_arg_scope(scaled) and not slim.has_arg_scope(tf.nn.relu)


def test_weights_regularizer_in_arg_scope_goes_to_regularization_losses():
    x = tf.placeholder(tf.float32, [None, 8, 8, 1])
    with slim.arg_scope([slim.conv2d, slim.fully_connected],
                        weights_regularizer=slim.l2_regularizer(0.01)):
        h = slim.flatten(slim.max_pool2d(slim.conv2d(x, 2, 3), 2))
        slim.fully_connected(h, 3, weights_regularizer=None)
        slim.fully_connected(h, 3)
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert [t.name for t in losses] == ["Conv/kernel/Regularizer/l2_regularizer:0",
                                        "fully_connected_1/kernel/Regularizer/l2_regularizer:0"]
    total = tf.losses.get_regularization_loss()
    with session_with_init() as sess:
        w_conv = sess.run(slim.get_variables_by_name("weights")[0])
        w_fc = sess.run(slim.get_variables("fully_connected_1", suffix="weights")[0])
        np.testing.assert_allclose(sess.run(total),
                                   0.01 * (np.sum(w_conv ** 2) + np.sum(w_fc ** 2)) / 2,
                                   rtol=1e-5)


def test_pools_flatten_and_dropout_defaults():
    x = tf.placeholder(tf.float32, [None, 7, 6, 2])
    mp = slim.max_pool2d(x, [3, 3])                      # stride 2, VALID
    ap = slim.avg_pool2d(x, 2, stride=1, padding="SAME")
    flat = slim.flatten(mp)
    assert mp.name == "MaxPool2D/MaxPool:0" and ap.name == "AvgPool2D/AvgPool:0"
    assert flat.name == "Flatten/flatten/Reshape:0" and flat.shape.as_list() == [None, 12]
    ones = tf.ones([100, 100])
    dropped = slim.dropout(ones, keep_prob=0.8)          # is_training defaults to True
    kept = slim.dropout(ones, is_training=False)
    xv = RNG.randn(2, 7, 6, 2).astype(np.float32)
    with tf.Session() as sess:
        m, a, d, k = sess.run([mp, ap, dropped, kept], {x: xv})
    np.testing.assert_allclose(m, np_pool(xv, (3, 3), (2, 2), "VALID", "max"), rtol=1e-6)
    np.testing.assert_allclose(a, np_pool(xv, (2, 2), (1, 1), "SAME", "avg"), rtol=1e-5,
                               atol=1e-6)
    assert abs((d == 0).mean() - 0.2) < 0.03 and np.allclose(d[d > 0], 1.25)
    np.testing.assert_array_equal(k, np.ones((100, 100)))
    with pytest.raises(ValueError, match="NCHW or NHWC"):
        slim.max_pool2d(x, 2, data_format="channels_last")


def test_batch_norm_as_normalizer_fn():
    x = tf.placeholder(tf.float32, [None, 4, 4, 2])
    y = slim.conv2d(x, 3, 3, normalizer_fn=slim.batch_norm,
                    normalizer_params={"is_training": True, "decay": 0.5})
    assert names(tf.global_variables()) == [
        "Conv/weights:0", "Conv/BatchNorm/beta:0", "Conv/BatchNorm/moving_mean:0",
        "Conv/BatchNorm/moving_variance:0"]
    assert names(tf.trainable_variables()) == ["Conv/weights:0", "Conv/BatchNorm/beta:0"]
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert [u.name for u in updates] == ["Conv/BatchNorm/AssignMovingAvg",
                                         "Conv/BatchNorm/AssignMovingAvg_1"]
    xv = RNG.randn(3, 4, 4, 2).astype(np.float32)
    with session_with_init() as sess:
        w = sess.run(tf.global_variables()[0])
        yv, _ = sess.run([y, updates], {x: xv})
        moving_mean = sess.run(tf.global_variables()[2])
    conv = np_conv2d(xv, w, padding="SAME").reshape(-1, 3)
    normalized = (conv - conv.mean(0)) / np.sqrt(conv.var(0) + 1e-3)
    np.testing.assert_allclose(yv.reshape(-1, 3), np.maximum(normalized, 0), rtol=1e-3,
                               atol=1e-3)
    np.testing.assert_allclose(moving_mean, 0.5 * conv.mean(0), rtol=1e-4, atol=1e-5)


def test_batch_norm_2d_updates_in_place_or_in_update_ops():
    x = tf.placeholder(tf.float32, [None, 3])
    xv = (RNG.randn(8, 3) * 2 + 1).astype(np.float32)
    in_place = slim.batch_norm(x, decay=0.0, updates_collections=None, scale=True)
    collected = slim.batch_norm(x, decay=0.0, is_training=True, scope="bn2")
    inference = slim.batch_norm(x, is_training=False, scope="bn3")
    assert [u.name for u in tf.get_collection(tf.GraphKeys.UPDATE_OPS)] == [
        "bn2/AssignMovingAvg", "bn2/AssignMovingAvg_1"]
    assert names(slim.get_model_variables("BatchNorm")) == [
        "BatchNorm/gamma:0", "BatchNorm/beta:0", "BatchNorm/moving_mean:0",
        "BatchNorm/moving_variance:0"]
    with session_with_init() as sess:
        out = sess.run(in_place, {x: xv})             # its updates ran with it
        sess.run(collected, {x: xv})                  # bn2's did not ...
        assert not sess.run(slim.get_variables("bn2/moving_mean")[0]).any()
        sess.run(tf.get_collection(tf.GraphKeys.UPDATE_OPS), {x: xv})   # ... until now
        mean, var = sess.run(slim.get_variables("BatchNorm/moving"))
        mean2 = sess.run(slim.get_variables("bn2/moving_mean")[0])
        inferred = sess.run(inference, {x: xv})
    np.testing.assert_allclose(out, (xv - xv.mean(0)) / np.sqrt(xv.var(0) + 1e-3),
                               rtol=1e-4, atol=1e-4)
    assert_close(mean, xv.mean(0), rtol=1e-5, scale=np.abs(xv).mean(0))  # decay 0: batch's
    np.testing.assert_allclose(var, xv.var(0, ddof=1), rtol=1e-5)  # unbiased (fused op)
    assert_close(mean2, xv.mean(0), rtol=1e-5, scale=np.abs(xv).mean(0))
    np.testing.assert_allclose(inferred, xv / np.sqrt(1 + 1e-3), rtol=1e-5)


def test_collections_arguments():
    x = tf.placeholder(tf.float32, [None, 4])
    y = slim.fully_connected(x, 2, variables_collections=["mine"],
                             outputs_collections="outs", scope="fc")
    slim.fully_connected(x, 2, variables_collections={"weights": ["w_only"]})
    assert names(tf.get_collection("mine")) == ["fc/weights:0", "fc/biases:0"]
    assert names(tf.get_collection("w_only")) == ["fully_connected/weights:0"]
    assert tf.get_collection("outs") == [y] and y.alias == "fc"


def test_variable_and_model_variable():
    with slim.arg_scope([slim.model_variable], initializer=tf.ones_initializer()):
        w = slim.model_variable("w", shape=[2])
    v = slim.variable("v", shape=[3], trainable=False, collections=["extra"])
    assert tf.model_variables() == [w] and tf.trainable_variables() == [w]
    assert tf.get_collection("extra") == [v] and v not in tf.global_variables()
    with tf.Session() as sess:
        sess.run(w.initializer)
        np.testing.assert_array_equal(sess.run(w), [1.0, 1.0])


def test_xavier_and_contrib_variance_scaling():
    w = tf.get_variable("w", [200, 300],
                        initializer=tf.contrib.layers.xavier_initializer())
    n = tf.get_variable("n", [400, 500],
                        initializer=tf.contrib.layers.variance_scaling_initializer())
    with session_with_init() as sess:
        wv, nv = sess.run([w, n])
    limit = np.sqrt(6.0 / 500)
    assert np.abs(wv).max() <= limit and np.abs(wv).max() > 0.95 * limit
    # contrib's normal: truncated at 2 stddev, stddev sqrt(1.3 * 2 / fan_in) before truncation.
    stddev = np.sqrt(1.3 * 2.0 / 400)
    assert np.abs(nv).max() <= 2 * stddev
    assert abs(nv.std() - 0.88 * stddev) < 0.02 * stddev
    with pytest.raises(TypeError, match="non-floating"):
        tf.contrib.layers.xavier_initializer(dtype=tf.int32)


def test_slim_mlp_trains():
    rng = np.random.RandomState(1)
    xv = rng.randn(128, 2).astype(np.float32)
    yv = (xv[:, 0] * xv[:, 1] > 0).astype(np.int32)              # XOR of the signs
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.placeholder(tf.int32, [None])
    with slim.arg_scope([slim.fully_connected],
                        weights_regularizer=slim.l2_regularizer(1e-4)):
        h = slim.fully_connected(x, 16)
        h = slim.fully_connected(h, 16)
        logits = slim.fully_connected(h, 2, activation_fn=None)
    tf.losses.sparse_softmax_cross_entropy(y, logits)
    loss = tf.losses.get_total_loss()
    train_op = tf.train.AdamOptimizer(0.05).minimize(loss)
    with session_with_init() as sess:
        first = sess.run(loss, {x: xv, y: yv})
        for _ in range(150):
            sess.run(train_op, {x: xv, y: yv})
        last = sess.run(loss, {x: xv, y: yv})
    assert last < 0.3 * first


def test_the_notes_inception_module():
    # The notes' Inception-v3 'Mixed_7c' block (depths divided by 32 to stay quick).
    import tfteach.contrib.slim as slim_module
    assert slim_module is slim
    input_x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    with slim.arg_scope([slim.conv2d, slim.max_pool2d, slim.avg_pool2d], stride=1,
                        padding="SAME"):
        net = input_x
        with tf.variable_scope("Mixed_7c"):
            with tf.variable_scope("Branch_0"):
                branch_0 = slim.conv2d(net, 10, 1, scope="Conv2d_0a_1x1")
            with tf.variable_scope("Branch_1"):
                branch_1 = slim.conv2d(net, 12, 1, scope="Conv2d_0a_1x1")
                branch_1 = tf.concat([
                    slim.conv2d(branch_1, 12, [1, 3], scope="Conv2d_0b_1x3"),
                    slim.conv2d(branch_1, 12, [3, 1], scope="Conv2d_0c_3x1")], 3)
            with tf.variable_scope("Branch_3"):
                branch_3 = slim.avg_pool2d(net, 3, scope="AvgPool_0a_3x3")
                branch_3 = slim.conv2d(branch_3, 6, 1, scope="Conv2d_0b_1x1")
            net = tf.concat([branch_0, branch_1, branch_3], 3)
    assert net.shape.as_list() == [None, 28, 28, 10 + 24 + 6]
    assert branch_3.op.inputs[0].op.inputs[0].op.inputs[0].name == \
        "Mixed_7c/Branch_3/AvgPool_0a_3x3/AvgPool:0"
    assert "Mixed_7c/Branch_1/Conv2d_0b_1x3/weights:0" in names(tf.global_variables())
    assert tf.global_variables()[2].shape.as_list() == [1, 1, 1, 12]
    with session_with_init() as sess:
        out = sess.run(net, {input_x: RNG.rand(2, 28, 28, 1)})
    assert out.shape == (2, 28, 28, 40) and (out >= 0).all()
