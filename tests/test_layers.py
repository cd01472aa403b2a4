"""tf.layers: outputs against NumPy computed from the layer's own variables (fetched
from the session), names, collections, reuse, regularizers, dropout and batch norm's
UPDATE_OPS, and a small CNN that learns a toy problem."""
import numpy as np
import pytest

import tfteach as tf
from tolerances import assert_close

RNG = np.random.RandomState(42)


def names(variables):
    return [v.name for v in variables]


def session_with_init():
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    return sess


# -- NumPy references ------------------------------------------------------------------------
def same_padding(size, k, s):
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return out, total // 2


def np_conv2d(x, w, strides=(1, 1), padding="VALID", dilation=(1, 1)):
    """NHWC cross-correlation, as tf.nn.conv2d."""
    kh, kw = [(k - 1) * d + 1 for k, d in zip(w.shape[:2], dilation)]
    n, h, wd, _ = x.shape
    if padding == "SAME":
        oh, top = same_padding(h, kh, strides[0])
        ow, left = same_padding(wd, kw, strides[1])
    else:
        oh, ow, top, left = -(-(h - kh + 1) // strides[0]), -(-(wd - kw + 1) // strides[1]), 0, 0
    padded = np.zeros((n, h + kh, wd + kw, x.shape[3]), x.dtype)
    padded[:, top:top + h, left:left + wd] = x
    out = np.zeros((n, oh, ow, w.shape[3]), np.float64)
    for i in range(oh):
        for j in range(ow):
            for a in range(w.shape[0]):
                for b in range(w.shape[1]):
                    patch = padded[:, i * strides[0] + a * dilation[0],
                                   j * strides[1] + b * dilation[1]]
                    out[:, i, j] += patch @ w[a, b]
    return out


def np_conv2d_transpose(y, w, out_hw, strides, padding):
    """The gradient of np_conv2d with respect to its input (kernel [kh, kw, out, in])."""
    n, hy, wy, _ = y.shape
    (ho, wo), (kh, kw) = out_hw, w.shape[:2]
    top = same_padding(ho, kh, strides[0])[1] if padding == "SAME" else 0
    left = same_padding(wo, kw, strides[1])[1] if padding == "SAME" else 0
    out = np.zeros((n, ho, wo, w.shape[2]))
    for i in range(hy):
        for j in range(wy):
            for a in range(kh):
                for b in range(kw):
                    r, c = i * strides[0] - top + a, j * strides[1] - left + b
                    if 0 <= r < ho and 0 <= c < wo:
                        out[:, r, c] += y[:, i, j] @ w[a, b].T
    return out


def np_pool(x, k, s, padding, op):
    n, h, w, c = x.shape
    if padding == "SAME":
        oh, top = same_padding(h, k[0], s[0])
        ow, left = same_padding(w, k[1], s[1])
    else:
        oh, ow, top, left = (h - k[0]) // s[0] + 1, (w - k[1]) // s[1] + 1, 0, 0
    out = np.zeros((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * s[0] - top, j * s[1] - left
            win = x[:, max(r0, 0):r0 + k[0], max(c0, 0):c0 + k[1]]
            out[:, i, j] = win.max(axis=(1, 2)) if op == "max" else win.mean(axis=(1, 2))
    return out


# -- dense -----------------------------------------------------------------------------------
def test_dense_output_is_activation_of_x_kernel_plus_bias():
    x = tf.placeholder(tf.float32, [None, 4])
    y = tf.layers.dense(x, 3, activation=tf.nn.relu,
                        bias_initializer=tf.random_normal_initializer())
    z = tf.layers.dense(y, 2)
    assert y.name == "dense/Relu:0" and z.name == "dense_1/BiasAdd:0"
    assert y.shape.as_list() == [None, 3]
    assert names(tf.trainable_variables()) == [
        "dense/kernel:0", "dense/bias:0", "dense_1/kernel:0", "dense_1/bias:0"]
    assert names(tf.global_variables()) == names(tf.trainable_variables())
    xv = RNG.randn(5, 4).astype(np.float32)
    with session_with_init() as sess:
        k0, b0, k1, b1 = sess.run(tf.trainable_variables())
        yv, zv = sess.run([y, z], {x: xv})
    assert not np.any(b1)                              # bias starts at zero
    np.testing.assert_allclose(yv, np.maximum(xv @ k0 + b0, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(zv, yv @ k1 + b1, rtol=1e-5, atol=1e-6)


def test_dense_default_kernel_is_glorot_uniform():
    x = tf.placeholder(tf.float32, [None, 300])
    tf.layers.dense(x, 200)
    with session_with_init() as sess:
        kernel = sess.run(tf.trainable_variables()[0])
    limit = np.sqrt(6.0 / 500)
    assert np.abs(kernel).max() <= limit
    assert np.abs(kernel).max() > 0.95 * limit
    assert abs(kernel.std() - limit / np.sqrt(3)) < 0.01


def test_dense_on_rank3_input_applies_the_kernel_to_the_last_axis():
    x = tf.placeholder(tf.float32, [None, 3, 4])
    y = tf.layers.dense(x, 5, use_bias=False)
    assert y.shape.as_list() == [None, 3, 5]
    assert names(tf.global_variables()) == ["dense/kernel:0"]
    xv = RNG.randn(2, 3, 4).astype(np.float32)
    with session_with_init() as sess:
        kernel, yv = sess.run([tf.global_variables()[0], y], {x: xv})
    np.testing.assert_allclose(yv, xv @ kernel, rtol=1e-5, atol=1e-6)


def test_dense_layer_object_properties_and_second_call():
    x = tf.placeholder(tf.float32, [None, 4])
    layer = tf.layers.Dense(3, activation="relu", name="fc")
    assert layer.name == "fc" and not layer.built
    y1 = layer(x)
    y2 = layer.apply(x * 2.0)
    assert layer.built and layer.scope_name == "fc"
    assert names(layer.trainable_variables) == ["fc/kernel:0", "fc/bias:0"]
    assert layer.weights == layer.variables == [layer.kernel, layer.bias]
    assert layer.non_trainable_weights == []
    assert y1.name == "fc/Relu:0" and y2.name == "fc/Relu_1:0"
    assert len(tf.global_variables()) == 2
    unnamed = [tf.layers.Dense(2), tf.layers.Dense(2)]
    assert [l.name for l in unnamed] == ["dense", "dense_1"]


def test_dense_errors():
    with pytest.raises(ValueError, match="last dimension of the inputs to `Dense`"):
        tf.layers.dense(tf.placeholder(tf.float32, [None, None]), 3)
    with pytest.raises(TypeError, match="Keyword argument not understood"):
        tf.layers.Dense(3, bogus=1)
    with pytest.raises(ValueError, match="Unknown activation"):
        tf.layers.Dense(3, activation="nope")


def test_trainable_false_keeps_variables_out_of_trainable_variables():
    x = tf.placeholder(tf.float32, [None, 4])
    layer = tf.layers.Dense(3, trainable=False)
    layer(x)
    assert tf.trainable_variables() == []
    assert names(tf.global_variables()) == ["dense/kernel:0", "dense/bias:0"]
    assert layer.trainable_weights == [] and len(layer.non_trainable_weights) == 2


# -- reuse -----------------------------------------------------------------------------------
def test_reuse_true_shares_and_reuse_none_refuses():
    x = tf.placeholder(tf.float32, [None, 4])
    a = tf.layers.dense(x, 3, name="fc")
    b = tf.layers.dense(x, 3, name="fc", reuse=True)
    assert len(tf.global_variables()) == 2
    assert b.name == "fc_1/BiasAdd:0"           # new ops, same variables
    with pytest.raises(ValueError, match="Variable fc/kernel already exists"):
        tf.layers.dense(x, 3, name="fc")
    with pytest.raises(ValueError, match="Variable other/kernel does not exist"):
        tf.layers.dense(x, 3, name="other", reuse=True)
    with pytest.raises(ValueError, match="Trying to share variable fc/kernel"):
        tf.layers.dense(x, 4, name="fc", reuse=True)
    xv = RNG.randn(3, 4)
    with session_with_init() as sess:
        av, bv = sess.run([a, b], {x: xv})
    np.testing.assert_array_equal(av, bv)


def test_auto_reuse_in_a_function_and_scope_reuse():
    def net(inp):
        with tf.variable_scope("net", reuse=tf.AUTO_REUSE):
            h = tf.layers.dense(inp, 4, activation=tf.nn.tanh, name="hidden")
            return tf.layers.dense(h, 1, name="out")

    x1 = tf.placeholder(tf.float32, [None, 2])
    x2 = tf.placeholder(tf.float32, [None, 2])
    y1, y2 = net(x1), net(x2)
    assert names(tf.global_variables()) == [
        "net/hidden/kernel:0", "net/hidden/bias:0", "net/out/kernel:0", "net/out/bias:0"]
    with tf.variable_scope("enc"):
        tf.layers.dense(x1, 2)
    with tf.variable_scope("enc", reuse=True):
        tf.layers.dense(x2, 2)           # unnamed: 'enc/dense' again, shared
    with tf.variable_scope("enc") as scope:
        scope.reuse_variables()
        tf.layers.dense(x2, 2)
    assert len(tf.global_variables()) == 6
    xv = RNG.randn(3, 2)
    with session_with_init() as sess:
        v1, v2 = sess.run([y1, y2], {x1: xv, x2: xv})
    np.testing.assert_array_equal(v1, v2)


# -- regularizers ----------------------------------------------------------------------------
def test_kernel_regularizer_adds_a_loss_once():
    x = tf.placeholder(tf.float32, [None, 4])
    reg = tf.contrib.layers.l2_regularizer(0.1)
    tf.layers.dense(x, 3, kernel_regularizer=reg, name="fc")
    tf.layers.dense(x, 3, kernel_regularizer=reg, name="fc", reuse=True)
    tf.layers.dense(x, 2, bias_regularizer=reg)
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert [t.name for t in losses] == ["fc/kernel/Regularizer/l2_regularizer:0",
                                        "dense/bias/Regularizer/l2_regularizer:0"]
    total = tf.losses.get_regularization_loss()
    with session_with_init() as sess:
        kernel = sess.run(tf.global_variables()[0])
        bias = sess.run(tf.global_variables()[3])
        np.testing.assert_allclose(sess.run(total),
                                   0.1 * (np.sum(kernel ** 2) + np.sum(bias ** 2)) / 2,
                                   rtol=1e-5)


# -- flatten / dropout -----------------------------------------------------------------------
def test_flatten_static_and_dynamic_shapes():
    x = tf.placeholder(tf.float32, [None, 2, 3, 4])
    y = tf.placeholder(tf.float32, [None, None, 4])
    fx, fy = tf.layers.flatten(x), tf.layers.flatten(y)
    assert fx.shape.as_list() == [None, 24] and fy.shape.as_list() == [None, None]
    assert fx.name == "flatten/Reshape:0"
    xv, yv = RNG.randn(5, 2, 3, 4), RNG.randn(2, 3, 4)
    with tf.Session() as sess:
        a, b = sess.run([fx, fy], {x: xv, y: yv})
    np.testing.assert_array_equal(a, xv.reshape(5, -1).astype(np.float32))
    np.testing.assert_array_equal(b, yv.reshape(2, -1).astype(np.float32))


def test_dropout_training_flag():
    x = tf.ones([200, 50])
    off = tf.layers.dropout(x, rate=0.4)                 # training defaults to False
    on = tf.layers.dropout(x, rate=0.4, training=True)
    is_training = tf.placeholder_with_default(False, [])
    switched = tf.layers.dropout(x, rate=0.4, training=is_training)
    static = tf.layers.dropout(x, rate=0.4, training=tf.constant(True))
    graph_ops = [op.type for op in tf.get_default_graph().get_operations()]
    assert graph_ops.count("Switch") > 0               # only the placeholder needs a cond
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(off), np.ones((200, 50)))
        for values in sess.run([on, static]) + [sess.run(switched, {is_training: True})]:
            assert set(np.unique(values)) <= {0.0, np.float32(1 / 0.6)}
            assert abs((values == 0).mean() - 0.4) < 0.03
        np.testing.assert_array_equal(sess.run(switched), np.ones((200, 50)))
    with pytest.raises(TypeError):
        tf.layers.dropout(x, training="yes")


# -- convolutions and pooling ----------------------------------------------------------------
@pytest.mark.parametrize("kw,np_kw", [
    (dict(kernel_size=3), dict(padding="VALID")),
    (dict(kernel_size=(3, 2), strides=2, padding="same"), dict(strides=(2, 2), padding="SAME")),
    (dict(kernel_size=2, strides=(1, 2), padding="SAME"), dict(strides=(1, 2), padding="SAME")),
    (dict(kernel_size=3, dilation_rate=2), dict(dilation=(2, 2), padding="VALID")),
])
def test_conv2d_matches_numpy(kw, np_kw):
    x = tf.placeholder(tf.float32, [None, 8, 7, 3])
    y = tf.layers.conv2d(x, 4, activation=tf.nn.relu,
                         bias_initializer=tf.random_normal_initializer(), **kw)
    k = kw["kernel_size"]
    k = (k, k) if isinstance(k, int) else k
    assert names(tf.trainable_variables()) == ["conv2d/kernel:0", "conv2d/bias:0"]
    assert tf.trainable_variables()[0].shape.as_list() == list(k) + [3, 4]
    xv = RNG.randn(2, 8, 7, 3).astype(np.float32)
    with session_with_init() as sess:
        kernel, bias = sess.run(tf.trainable_variables())
        yv = sess.run(y, {x: xv})
    expected = np.maximum(np_conv2d(xv, kernel, **np_kw) + bias, 0)
    assert y.shape.as_list() == [None] + list(expected.shape[1:])
    np.testing.assert_allclose(yv, expected, rtol=1e-4, atol=1e-4)


def test_conv2d_channels_first_equals_channels_last():
    x = RNG.randn(2, 6, 5, 3).astype(np.float32)
    nhwc = tf.layers.conv2d(tf.constant(x), 2, 3, padding="same", name="a",
                            kernel_initializer=tf.constant_initializer(RNG.randn(3, 3, 3, 2)),
                            bias_initializer=tf.constant_initializer([1.0, -1.0]))
    nchw = tf.layers.conv2d(tf.constant(x.transpose(0, 3, 1, 2)), 2, 3, padding="same",
                            data_format="channels_first", name="b")
    assert nchw.shape.as_list() == [2, 2, 6, 5]
    with session_with_init() as sess:
        sess.run(tf.assign(tf.global_variables()[2], tf.global_variables()[0]))
        sess.run(tf.assign(tf.global_variables()[3], tf.global_variables()[1]))
        a, b = sess.run([nhwc, nchw])
    np.testing.assert_allclose(b.transpose(0, 2, 3, 1), a, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kernel,strides,padding", [
    (3, 2, "same"), ((2, 3), (2, 1), "valid"), (2, 1, "valid")])
def test_conv2d_transpose_matches_numpy(kernel, strides, padding):
    x = tf.placeholder(tf.float32, [None, 4, 5, 3])
    y = tf.layers.conv2d_transpose(x, 2, kernel, strides=strides, padding=padding)
    k = (kernel, kernel) if isinstance(kernel, int) else kernel
    s = (strides, strides) if isinstance(strides, int) else strides
    assert tf.trainable_variables()[0].shape.as_list() == list(k) + [2, 3]
    out_hw = [n * st + (max(kk - st, 0) if padding == "valid" else 0)
              for n, st, kk in zip((4, 5), s, k)]
    assert y.shape.as_list() == [None] + out_hw + [2]
    xv = RNG.randn(2, 4, 5, 3).astype(np.float32)
    with session_with_init() as sess:
        kernel_v, bias_v = sess.run(tf.trainable_variables())
        yv = sess.run(y, {x: xv})
    expected = np_conv2d_transpose(xv, kernel_v, out_hw, s, padding.upper()) + bias_v
    np.testing.assert_allclose(yv, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("padding", ["valid", "same"])
def test_pooling_matches_numpy(padding):
    x = tf.placeholder(tf.float32, [None, 7, 6, 2])
    mx = tf.layers.max_pooling2d(x, 2, 2, padding=padding)
    av = tf.layers.average_pooling2d(x, (3, 2), (2, 1), padding=padding.upper())
    assert mx.name == "max_pooling2d/MaxPool:0" and av.name == "average_pooling2d/AvgPool:0"
    assert tf.global_variables() == []
    xv = RNG.randn(3, 7, 6, 2).astype(np.float32)
    with tf.Session() as sess:
        m, a = sess.run([mx, av], {x: xv})
    p = padding.upper()
    np.testing.assert_allclose(m, np_pool(xv, (2, 2), (2, 2), p, "max"), rtol=1e-6)
    np.testing.assert_allclose(a, np_pool(xv, (3, 2), (2, 1), p, "avg"), rtol=1e-5, atol=1e-6)
    assert mx.shape.as_list()[1:] == list(m.shape[1:])


def test_conv_argument_errors():
    x = tf.placeholder(tf.float32, [None, 8, 8, 3])
    with pytest.raises(ValueError, match="padding"):
        tf.layers.conv2d(x, 2, 3, padding="full")
    with pytest.raises(ValueError, match="data_format"):
        tf.layers.conv2d(x, 2, 3, data_format="NHWC")
    with pytest.raises(ValueError, match="kernel_size"):
        tf.layers.conv2d(x, 2, (3, 3, 3))
    with pytest.raises(ValueError, match="channel dimension"):
        tf.layers.conv2d(tf.placeholder(tf.float32, [None, 8, 8, None]), 2, 3)


# -- batch normalization ---------------------------------------------------------------------
def test_batch_norm_variables_and_collections():
    x = tf.placeholder(tf.float32, [None, 4])
    tf.layers.batch_normalization(x, training=True)
    tf.layers.batch_normalization(x)                    # inference: no updates
    assert names(tf.global_variables())[:4] == [
        "batch_normalization/gamma:0", "batch_normalization/beta:0",
        "batch_normalization/moving_mean:0", "batch_normalization/moving_variance:0"]
    assert names(tf.trainable_variables()) == [
        "batch_normalization/gamma:0", "batch_normalization/beta:0",
        "batch_normalization_1/gamma:0", "batch_normalization_1/beta:0"]
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert [op.name for op in updates] == ["batch_normalization/AssignMovingAvg",
                                           "batch_normalization/AssignMovingAvg_1"]


def test_batch_norm_moving_averages_change_only_when_update_ops_run():
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.layers.batch_normalization(x, training=True, momentum=0.9)
    mean_var, var_var = tf.global_variables()[2:4]
    xv = (RNG.randn(16, 3) * [1, 2, 3] + [5, -1, 0]).astype(np.float32)
    with session_with_init() as sess:
        yv = sess.run(y, {x: xv})                         # training output only
        np.testing.assert_array_equal(sess.run(mean_var), np.zeros(3))
        np.testing.assert_array_equal(sess.run(var_var), np.ones(3))
        sess.run(tf.get_collection(tf.GraphKeys.UPDATE_OPS), {x: xv})
        m, v = sess.run([mean_var, var_var])
    mu, var = xv.mean(0), xv.var(0)
    np.testing.assert_allclose(yv, (xv - mu) / np.sqrt(var + 1e-3), rtol=1e-4, atol=1e-4)
    assert_close(m, 0.1 * mu, rtol=1e-5, scale=0.1 * np.abs(xv).mean(0))   # channel 3: ~0
    np.testing.assert_allclose(v, 0.9 + 0.1 * var, rtol=1e-5)


def test_batch_norm_inference_uses_moving_statistics():
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.layers.batch_normalization(
        x, moving_mean_initializer=tf.constant_initializer([1.0, -2.0]),
        moving_variance_initializer=tf.constant_initializer([4.0, 0.25]),
        gamma_initializer=tf.constant_initializer(3.0),
        beta_initializer=tf.constant_initializer(0.5), epsilon=0.0)
    xv = RNG.randn(5, 2).astype(np.float32)
    with session_with_init() as sess:
        yv = sess.run(y, {x: xv})
    np.testing.assert_allclose(yv, 3 * (xv - [1, -2]) / np.sqrt([4, 0.25]) + 0.5, rtol=1e-5)


def test_batch_norm_fused_4d_training_tracks_unbiased_variance():
    x = tf.placeholder(tf.float32, [None, 3, 4, 2])
    y = tf.layers.batch_normalization(x, training=True, momentum=0.5, center=False)
    assert names(tf.global_variables()) == [
        "batch_normalization/gamma:0", "batch_normalization/moving_mean:0",
        "batch_normalization/moving_variance:0"]
    xv = RNG.randn(2, 3, 4, 2).astype(np.float32) * 2 + 1
    with session_with_init() as sess:
        yv, _ = sess.run([y, tf.get_collection(tf.GraphKeys.UPDATE_OPS)], {x: xv})
        m, v = sess.run(tf.global_variables()[1:])
    flat = xv.reshape(-1, 2)
    np.testing.assert_allclose(yv, (xv - flat.mean(0)) / np.sqrt(flat.var(0) + 1e-3),
                               rtol=1e-4, atol=1e-4)
    assert_close(m, 0.5 * flat.mean(0), rtol=1e-5, scale=0.5 * np.abs(flat).mean(0))
    np.testing.assert_allclose(v, 0.5 + 0.5 * flat.var(0, ddof=1), rtol=1e-5)


@pytest.mark.parametrize("shape,axis", [([None, 3], -1), ([None, 2, 3, 3], 1),
                                        ([None, 2, 3, 3], 3), ([None, 3, 2], 1)])
def test_batch_norm_training_placeholder(shape, axis):
    x = tf.placeholder(tf.float32, shape)
    training = tf.placeholder(tf.bool, [])
    y = tf.layers.batch_normalization(x, axis=axis, training=training, momentum=0.0)
    moving = tf.global_variables()[2:]
    xv = RNG.randn(*([4] + shape[1:])).astype(np.float32) + 3
    reduce = tuple(i for i in range(len(shape)) if i != axis % len(shape))
    keep = [1 if i in reduce else -1 for i in range(len(shape))]
    mu, var = xv.mean(reduce), xv.var(reduce)
    with session_with_init() as sess:
        update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        infer, _ = sess.run([y, update_ops], {x: xv, training: False})
        np.testing.assert_allclose(infer, xv / np.sqrt(1 + 1e-3), rtol=1e-5)
        np.testing.assert_allclose(sess.run(moving[0]), 0 * mu)     # unchanged
        train, _ = sess.run([y, update_ops], {x: xv, training: True})
        np.testing.assert_allclose(
            train, (xv - mu.reshape(keep)) / np.sqrt(var.reshape(keep) + 1e-3),
            rtol=1e-4, atol=1e-4)
        assert_close(sess.run(moving[0]), mu, rtol=1e-5,
                     scale=np.abs(xv).mean(reduce))            # momentum 0


def test_update_ops_with_control_dependencies_train_and_learn_statistics():
    x = tf.placeholder(tf.float32, [None, 2])
    target = tf.placeholder(tf.float32, [None, 1])
    h = tf.layers.batch_normalization(x, training=True)
    loss = tf.reduce_mean(tf.square(tf.layers.dense(h, 1) - target))
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    moving_mean = tf.global_variables()[2]
    xv = (RNG.randn(32, 2) + [10, -4]).astype(np.float32)
    yv = xv[:, :1] - xv[:, 1:]
    with session_with_init() as sess:
        for _ in range(300):
            sess.run(train_op, {x: xv, target: yv})
        np.testing.assert_allclose(sess.run(moving_mean), [10, -4], atol=0.5)


# -- a small CNN learns --------------------------------------------------------------------
def test_small_cnn_learns_bar_orientation():
    rng = np.random.RandomState(0)
    images = rng.rand(64, 8, 8, 1).astype(np.float32) * 0.3
    labels = rng.randint(0, 2, 64)
    for img, label in zip(images, labels):
        pos = rng.randint(1, 7)
        if label:
            img[:, pos, 0] += 1.0              # vertical bar
        else:
            img[pos, :, 0] += 1.0              # horizontal bar
    x = tf.placeholder(tf.float32, [None, 8, 8, 1])
    y = tf.placeholder(tf.int32, [None])
    training = tf.placeholder_with_default(False, [])
    h = tf.layers.conv2d(x, 4, 3, padding="same", activation=tf.nn.relu)
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.layers.batch_normalization(h, training=training, momentum=0.8)
    h = tf.layers.dropout(tf.layers.flatten(h), rate=0.2, training=training)
    logits = tf.layers.dense(h, 2)
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train_op = tf.train.AdamOptimizer(0.02).minimize(loss)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1, output_type=tf.int32),
                                               y), tf.float32))
    with session_with_init() as sess:
        first = sess.run(loss, {x: images, y: labels})
        for _ in range(60):
            sess.run(train_op, {x: images, y: labels, training: True})
        last, acc = sess.run([loss, accuracy], {x: images, y: labels})
    assert last < 0.5 * first
    assert acc > 0.9
