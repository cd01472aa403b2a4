"""Differential tests: tf.layers against TensorFlow's tf.compat.v1.layers.

TF 2.21 keeps TF1's layers in the `tf_keras` package (legacy_tf_layers); in graph mode
with ref variables they build what TF 1.15 built. For the same program we compare the
variables (names, shapes, trainable), the REGULARIZATION_LOSSES and UPDATE_OPS
collections, the output tensors' names and static shapes, and the values computed from
the same (constant) initial weights. Skipped without tensorflow / tf_keras.
"""
import types

import numpy as np
import pytest

import tfteach
from tests.tf_reference import tensorflow_v1
from tolerances import assert_close

# tf_keras warns that tf.layers is deprecated at every call.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

RNG = np.random.RandomState(0)
X2 = RNG.randn(5, 4).astype(np.float32)
X3 = RNG.randn(2, 3, 4).astype(np.float32)
X4 = RNG.randn(2, 7, 6, 3).astype(np.float32)


@pytest.fixture(scope="module")
def tf1_layers():
    tf1 = tensorflow_v1()
    tf1.disable_resource_variables()
    pytest.importorskip("tf_keras")
    from tf_keras.src.legacy_tf_layers import convolutional, core, normalization, pooling
    names = {}
    for module in (core, convolutional, pooling, normalization):
        names.update({k: getattr(module, k) for k in dir(module) if not k.startswith("_")})
    return types.SimpleNamespace(**names)


def describe(tf, graph, fetch):
    """What the program built, in comparable form."""
    with graph.as_default():
        variables = [(v.name, v.get_shape().as_list(), v in tf.trainable_variables())
                     for v in tf.global_variables()]
        reg = [t.name for t in tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)]
        upd = [u.name for u in tf.get_collection(tf.GraphKeys.UPDATE_OPS)]
    outputs = {k: (t.name, t.get_shape().as_list()) for k, t in fetch.items()
               if hasattr(t, "get_shape") and not k.startswith("_")}
    return variables, reg, upd, outputs


def run(tf, layers, build, updates=0):
    """Build `build(tf, layers) -> (fetch dict, feed dict)`; run init, `updates` times the
    UPDATE_OPS, then the fetches."""
    graph = tf.Graph()
    with graph.as_default():
        fetch, feed = build(tf, layers)
        structure = describe(tf, graph, fetch)
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(updates):
                sess.run(tf.get_collection(tf.GraphKeys.UPDATE_OPS), feed)
            values = sess.run(fetch, feed)
    return structure, values


def compare(tf1_layers, build, updates=0, rtol=1e-5, atol=1e-5, check_names=True,
            check_values=True):
    (ref_struct, ref_vals) = run(tensorflow_v1(), tf1_layers, build, updates)
    (our_struct, our_vals) = run(tfteach, tfteach.layers, build, updates)
    if check_names:
        assert our_struct == ref_struct
    else:
        assert our_struct[0] == ref_struct[0]
    assert sorted(our_vals) == sorted(ref_vals)
    for key in ref_vals if check_values else ():
        np.testing.assert_allclose(our_vals[key], ref_vals[key], rtol=rtol, atol=atol,
                                   err_msg=key)
    return our_vals


def const(shape, seed):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)


# -- dense / flatten ---------------------------------------------------------------------
def test_dense_stack(tf1_layers):
    def build(tf, L):
        x = tf.placeholder(tf.float32, [None, 4])
        h = L.dense(x, 3, activation=tf.nn.relu,
                    kernel_initializer=tf.constant_initializer(const((4, 3), 1)),
                    bias_initializer=tf.constant_initializer(0.1))
        y = L.dense(h, 2, kernel_initializer=tf.constant_initializer(const((3, 2), 2)))
        z = L.dense(y, 2, use_bias=False, name="logits",
                    kernel_initializer=tf.constant_initializer(const((2, 2), 3)),
                    kernel_regularizer=lambda w: 0.5 * tf.reduce_sum(tf.square(w)),
                    bias_regularizer=lambda b: tf.reduce_sum(b))
        return {"h": h, "y": y, "z": z}, {x: X2}

    compare(tf1_layers, build)


def test_dense_rank3_input_uses_the_last_axis(tf1_layers):
    def build(tf, L):
        x = tf.placeholder(tf.float32, [None, 3, 4])
        y = L.dense(x, 5, kernel_initializer=tf.constant_initializer(const((4, 5), 3)))
        return {"y": y}, {x: X3}

    compare(tf1_layers, build, check_names=False)


def test_named_layers_reuse_and_auto_reuse(tf1_layers):
    def build(tf, L):
        x = tf.placeholder(tf.float32, [None, 4])
        a = L.dense(x, 3, name="fc")
        b = L.dense(x, 3, name="fc", reuse=True)

        def tower(inp):
            with tf.variable_scope("tower", reuse=tf.AUTO_REUSE):
                return L.dense(L.dense(inp, 3, name="h"), 2, name="out")

        c, d = tower(x), tower(x * 2.0)
        with tf.variable_scope("model"):
            e = L.dense(x, 2)
        with tf.variable_scope("model", reuse=True):
            f = L.dense(x, 2)                  # 'model/dense' again: shared
        return {"a": a, "b": b, "c": c, "d": d, "e": e, "f": f,
                "_same": tf.reduce_max(tf.abs(a - b))}, {x: X2}

    # Random initial weights: compare the structure, and that shared means shared.
    vals = compare(tf1_layers, build, check_values=False)
    assert vals["_same"] == 0.0
    assert_close(vals["e"], vals["f"])


def test_layer_object_called_twice_shares_variables(tf1_layers):
    def build(tf, L):
        x = tf.placeholder(tf.float32, [None, 4])
        layer = L.Dense(3, name="shared")
        y1, y2 = layer(x), layer(x + 1.0)
        other = L.Dense(3)
        return {"y1": y1, "y2": y2, "y3": other(x)}, {x: X2}

    ours = compare(tf1_layers, build, check_values=False)
    assert ours["y1"].shape == (5, 3)


def test_flatten(tf1_layers):
    def build(tf, L):
        x = tf.placeholder(tf.float32, [None, 7, 6, 3])
        y = tf.placeholder(tf.float32, [None, None, 3])
        return {"flat": L.flatten(x), "dyn": L.flatten(y),
                "cf": L.flatten(x, data_format="channels_first")}, {x: X4, y: X3[:, :, :3]}

    compare(tf1_layers, build)


def test_activity_regularizer(tf1_layers):
    def build(tf, L):
        x = tf.placeholder(tf.float32, [None, 4])
        L.dense(x, 3, activity_regularizer=lambda a: tf.reduce_sum(tf.abs(a)),
                kernel_initializer=tf.constant_initializer(const((4, 3), 4)))
        loss = tf.add_n(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))
        return {"loss": loss}, {x: X2}

    compare(tf1_layers, build, check_names=False)


# -- convolutions and pooling ------------------------------------------------------------
@pytest.mark.parametrize("kw", [
    dict(filters=4, kernel_size=3),
    dict(filters=2, kernel_size=(3, 2), strides=2, padding="same"),
    dict(filters=2, kernel_size=3, strides=(2, 1), padding="SAME", activation="relu"),
    dict(filters=3, kernel_size=2, dilation_rate=2, padding="valid", use_bias=False),
])
def test_conv2d(tf1_layers, kw):
    def build(tf, L):
        x = tf.placeholder(tf.float32, [None, 7, 6, 3])
        args = dict(kw)
        if args.get("activation") == "relu":
            args["activation"] = tf.nn.relu
        k = args.get("kernel_size")
        k = (k, k) if isinstance(k, int) else k
        init = tf.constant_initializer(const(k + (3, args["filters"]), 5))
        y = L.conv2d(x, kernel_initializer=init,
                     bias_initializer=tf.constant_initializer(0.25), **args)
        return {"y": y}, {x: X4}

    # A dilated convolution is one Conv2D op with `dilations` here; TF wraps it in
    # SpaceToBatchND / BatchToSpaceND, so only its output's op name differs.
    compare(tf1_layers, build, rtol=1e-4, atol=1e-4,
            check_names="dilation_rate" not in kw)


def test_conv2d_channels_first_builds_the_same_variables(tf1_layers):
    def describe_only(tf, L):
        graph = tf.Graph()
        with graph.as_default():
            x = tf.placeholder(tf.float32, [None, 3, 7, 6])
            y = L.conv2d(x, 4, 3, data_format="channels_first", padding="same",
                         kernel_regularizer=lambda w: tf.reduce_sum(w))
            z = L.max_pooling2d(y, 2, 2, data_format="channels_first")
            t = L.conv2d_transpose(z, 2, 3, strides=2, data_format="channels_first")
            return describe(tf, graph, {"y": y, "z": z, "t": t})

    assert describe_only(tfteach, tfteach.layers) == describe_only(tensorflow_v1(),
                                                                   tf1_layers)


@pytest.mark.parametrize("kw", [
    dict(filters=2, kernel_size=3, strides=2, padding="same"),
    dict(filters=3, kernel_size=(2, 3), strides=(2, 1), padding="valid"),
    dict(filters=2, kernel_size=2, strides=1),
])
def test_conv2d_transpose(tf1_layers, kw):
    def build(tf, L):
        x = tf.placeholder(tf.float32, [None, 7, 6, 3])
        k = kw["kernel_size"]
        k = (k, k) if isinstance(k, int) else k
        init = tf.constant_initializer(const(k + (kw["filters"], 3), 6))
        y = L.conv2d_transpose(x, kernel_initializer=init,
                               bias_initializer=tf.constant_initializer(-0.5), **kw)
        return {"y": y}, {x: X4}

    compare(tf1_layers, build, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("padding", ["valid", "same"])
def test_pooling(tf1_layers, padding):
    def build(tf, L):
        x = tf.placeholder(tf.float32, [None, 7, 6, 3])
        return {"max": L.max_pooling2d(x, 2, 2, padding=padding),
                "avg": L.average_pooling2d(x, (3, 2), (2, 1), padding=padding),
                "named": L.max_pooling2d(x, 3, 1, name="pool")}, {x: X4}

    compare(tf1_layers, build)


# -- batch normalization -----------------------------------------------------------------
def test_batch_norm_dense_training_updates(tf1_layers):
    def build(tf, L):
        x = tf.placeholder(tf.float32, [None, 4])
        y = L.batch_normalization(x, training=True, momentum=0.9,
                                  gamma_regularizer=lambda g: tf.reduce_sum(g))
        scope = "batch_normalization/"
        moving = [v for v in tf.global_variables() if v.name.startswith(scope + "moving")]
        return {"y": y, "mean": moving[0], "var": moving[1]}, {x: X2 * 3 + 1}

    compare(tf1_layers, build, updates=3)


def test_batch_norm_inference_and_named(tf1_layers):
    def build(tf, L):
        x = tf.placeholder(tf.float32, [None, 4])
        y = L.batch_normalization(x, name="bn", center=False,
                                  moving_mean_initializer=tf.constant_initializer(0.5),
                                  moving_variance_initializer=tf.constant_initializer(2.))
        return {"y": y}, {x: X2}

    compare(tf1_layers, build)


@pytest.mark.parametrize("axis", [-1, 1])
def test_batch_norm_fused_4d(tf1_layers, axis):
    def build(tf, L):
        x = tf.placeholder(tf.float32, [None, 7, 6, 3])
        y = L.batch_normalization(x, axis=axis, training=True, epsilon=1e-3)
        moving = [v for v in tf.global_variables() if "moving" in v.name]
        return {"y": y, "mean": moving[0], "var": moving[1]}, {x: X4 * 2 - 1}

    compare(tf1_layers, build, updates=2, rtol=1e-4, atol=1e-4, check_names=False)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_training_tensor_fed_like_a_python_bool(tf1_layers, training):
    # TF 2.21's legacy layers cannot build the tf.cond update with ref variables, so
    # TensorFlow gets the Python bool and tfteach a bool placeholder fed that value.
    def build(tf, L):
        x = tf.placeholder(tf.float32, [None, 4])
        x4 = tf.placeholder(tf.float32, [None, 7, 6, 3])
        feed = {x: X2 + 2, x4: X4}
        flag = training
        if tf is tfteach:
            flag = tf.placeholder(tf.bool, [])
            feed[flag] = training
        y = L.batch_normalization(x, training=flag)
        y4 = L.batch_normalization(x4, training=flag)
        moving = [v for v in tf.global_variables() if "moving" in v.name]
        fetch = {"y": y, "y4": y4}
        fetch.update({"m%d" % i: v for i, v in enumerate(moving)})
        return fetch, feed

    (ref_struct, ref_vals) = run(tensorflow_v1(), tf1_layers, build, updates=2)
    (our_struct, our_vals) = run(tfteach, tfteach.layers, build, updates=2)
    assert our_struct[0] == ref_struct[0]
    for key in ref_vals:
        np.testing.assert_allclose(our_vals[key], ref_vals[key], rtol=1e-4, atol=1e-4,
                                   err_msg=key)
