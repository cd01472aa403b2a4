"""Differential tests: tf.nn on tfteach and on TensorFlow (`tf.compat.v1`, graph mode).

Values, dtypes, static shapes, tensor names, error classes and messages, and gradient
values. TF 2.x's compat.v1 differs from TF 1.15 (the specification) in a few texts
and wrappers; those comparisons are left out, with the reason.
"""
import numpy as np
import pytest

import tfteach
from gradient_check import check_gradients_match_tensorflow
from tf_reference import errors_of_both, first_line, run_both, tensorflow_v1

pytest.importorskip("tensorflow")

RNG = np.random.RandomState(7)
LOGITS = RNG.randn(5, 4).astype(np.float32)
LOGITS3 = RNG.randn(2, 3, 4).astype(np.float32)
ONEHOT = np.eye(4, dtype=np.float32)[[1, 0, 3, 3, 2]]
SOFT = np.abs(RNG.randn(5, 4)).astype(np.float32)
SOFT /= SOFT.sum(1, keepdims=True)
SPARSE = np.array([1, 0, 3, 3, 2], np.int32)
MIXED = np.array([[-3.5, -1.0, -0.25, 0.0], [0.5, 2.0, 6.0, 9.0]], np.float32)


PROGRAMS = {
    "activations": lambda tf: [tf.nn.relu(MIXED), tf.nn.relu6(MIXED), tf.nn.elu(MIXED),
                               tf.nn.selu(MIXED), tf.nn.softplus(MIXED), tf.nn.softsign(MIXED),
                               tf.nn.leaky_relu(MIXED), tf.nn.leaky_relu(MIXED, alpha=0.01),
                               tf.nn.sigmoid(MIXED), tf.nn.tanh(MIXED),
                               tf.nn.crelu(MIXED)],
    "activations_float64": lambda tf: [f(MIXED.astype(np.float64)) for f in (
        tf.nn.relu, tf.nn.relu6, tf.nn.elu, tf.nn.selu, tf.nn.softplus, tf.nn.softsign)],
    "relu_int": lambda tf: [tf.nn.relu(tf.constant([-2, 3])), tf.nn.relu6(tf.constant([-2, 9])),
                            tf.nn.leaky_relu(tf.constant([-10, 10]))],
    "softmax": lambda tf: [tf.nn.softmax(LOGITS), tf.nn.log_softmax(LOGITS),
                           tf.nn.softmax(LOGITS3, axis=1), tf.nn.log_softmax(LOGITS3, dim=0),
                           tf.nn.softmax(np.array([1000.0, 0.0], np.float32))],
    "softmax_half": lambda tf: tf.nn.softmax(LOGITS.astype(np.float16)),
    "xent_v1": lambda tf: tf.nn.softmax_cross_entropy_with_logits(labels=SOFT, logits=LOGITS),
    "xent_v2": lambda tf: tf.nn.softmax_cross_entropy_with_logits_v2(labels=ONEHOT,
                                                                     logits=LOGITS),
    "xent_3d_axis": lambda tf: [
        tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.nn.softmax(LOGITS3), logits=LOGITS3),
        tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.nn.softmax(LOGITS3, axis=1),
                                                   logits=LOGITS3, axis=1)],
    "xent_float64": lambda tf: tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=SOFT.astype(np.float64), logits=LOGITS.astype(np.float64)),
    "sparse_xent": lambda tf: [
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=SPARSE, logits=LOGITS),
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=SPARSE.astype(np.int64),
                                                       logits=LOGITS.astype(np.float64)),
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[[0, 1, 3], [2, 2, 1]],
                                                       logits=LOGITS3)],
    "sigmoid_xent": lambda tf: tf.nn.sigmoid_cross_entropy_with_logits(labels=SOFT,
                                                                       logits=LOGITS * 30),
    "weighted_xent": lambda tf: tf.nn.weighted_cross_entropy_with_logits(
        labels=ONEHOT, logits=LOGITS * 10, pos_weight=2.5),
    "l2_loss": lambda tf: [tf.nn.l2_loss(LOGITS), tf.nn.l2_loss(LOGITS.astype(np.float64)),
                           tf.nn.l2_loss([[1.0, -2.0], [-3.0, 4.0]])],
    "notes_sequence_example": lambda tf: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=[1, 2, 1, 3, 3], logits=np.array(
            [[0.1, 0.2, 0.3, 0.4], [0.2, 0.1, 0.4, 0.3], [0.4, 0.3, 0.2, 0.1],
             [0.3, 0.2, 0.1, 0.4], [0.1, 0.4, 0.3, 0.2]], np.float32)),
}


def _program(fetch):
    def build(tf):
        result = fetch(tf)
        return result, None
    return build


def _as_list(x):
    return x if isinstance(x, list) else [x]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_values_dtypes_and_shapes(name):
    expected, got = run_both(_program(PROGRAMS[name]))
    for e, g in zip(_as_list(expected), _as_list(got)):
        e, g = np.asarray(e), np.asarray(g)
        assert g.dtype == e.dtype and g.shape == e.shape
        # float32: TF's Eigen and tfteach may round the last bit differently (tfteach
        # computes softmax rows in float64, rounded once).
        tol = {np.float16: 2e-3, np.float32: 2e-6}.get(e.dtype.type, 1e-12)
        np.testing.assert_allclose(g, e, rtol=tol, atol=tol)


def _names(tf, fetch):
    with tf.Graph().as_default():
        return [(t.name, t.shape.as_list(), t.dtype.name) for t in _as_list(fetch(tf))]


@pytest.mark.parametrize("name", ["xent_v1", "xent_v2", "xent_3d_axis", "sparse_xent",
                                  "sigmoid_xent", "l2_loss", "softmax", "activations"])
def test_same_tensor_names_and_static_shapes(name):
    assert _names(tfteach, PROGRAMS[name]) == _names(tensorflow_v1(), PROGRAMS[name])


def test_same_static_shapes_with_unknown_batch():
    def fetch(tf):
        x = tf.placeholder(tf.float32, [None, 4])
        y = tf.placeholder(tf.int32, [None])
        z = tf.placeholder(tf.float32, [None, 4])
        return [tf.nn.softmax_cross_entropy_with_logits_v2(labels=z, logits=x),
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x),
                tf.nn.softmax(x), tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x)]
    assert _names(tfteach, fetch) == _names(tensorflow_v1(), fetch)


ERRORS = {
    "softmax_scalar": lambda tf: tf.nn.softmax(tf.constant(1.0)),
    "softmax_int": lambda tf: tf.nn.softmax(tf.constant([1, 2])),
    "elu_int": lambda tf: tf.nn.elu(tf.constant([1, 2])),
    "l2_loss_int": lambda tf: tf.nn.l2_loss(tf.constant([1, 2])),
    "xent_class_mismatch": lambda tf: tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=ONEHOT[:, :3], logits=LOGITS),
    "sparse_float_labels": lambda tf: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=SPARSE.astype(np.float32), logits=LOGITS),
    "sparse_out_of_range": lambda tf: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=[1, 10, 2], logits=np.zeros((3, 10), np.float32)),
    "sparse_negative": lambda tf: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=[1, -1, 2], logits=np.zeros((3, 10), np.float32)),
    "sigmoid_shapes": lambda tf: tf.nn.sigmoid_cross_entropy_with_logits(labels=SOFT[0],
                                                                         logits=LOGITS),
}
# Where TF 2.x reworded TF 1.15's message, only the error class is compared.
CLASS_ONLY = {"sigmoid_shapes"}


def core_message(exc):
    """TF 2's runtime errors start with 'Graph execution error:'; its build-time shape
    errors print the NodeDef where TF 1 printed `'NAME' (op: 'TYPE')`: the part before."""
    text = str(exc)
    if text.startswith("Graph execution error"):
        lines = text.splitlines()
        return lines[next(i for i, line in enumerate(lines) if line.startswith("Node: ")) + 1]
    return first_line(exc).split(" for '")[0]


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_same_errors(name):
    expected, got = errors_of_both(_program(ERRORS[name]))
    assert expected is not None and got is not None
    assert type(got).__name__ == type(expected).__name__
    if name not in CLASS_ONLY:
        assert core_message(got) == core_message(expected)


def test_tf1_keyword_rule():
    # TF 1.15's `_sentinel` check; TF 2.x dropped it, so compare with the 1.15 text.
    for fn in ("softmax_cross_entropy_with_logits", "sparse_softmax_cross_entropy_with_logits",
               "sigmoid_cross_entropy_with_logits"):
        with pytest.raises(ValueError) as info:
            getattr(tfteach.nn, fn)(ONEHOT, LOGITS)
        assert str(info.value) == ("Only call `%s` with named arguments (labels=..., "
                                   "logits=..., ...)" % fn)


GRADIENTS = {
    "relu_family": (lambda tf, x: [tf.nn.relu(x), tf.nn.relu6(x * 4), tf.nn.elu(x),
                                   tf.nn.selu(x), tf.nn.softplus(x), tf.nn.softsign(x),
                                   tf.nn.leaky_relu(x, 0.3)], [MIXED.astype(np.float64) + 0.1]),
    "softmax": (lambda tf, x: [tf.nn.softmax(x), tf.nn.log_softmax(x),
                               tf.nn.softmax(x, axis=0)], [LOGITS.astype(np.float64)]),
    "xent_v1": (lambda tf, l, x: tf.nn.softmax_cross_entropy_with_logits(labels=l, logits=x),
                [SOFT.astype(np.float64), LOGITS.astype(np.float64)]),
    "xent_v2": (lambda tf, l, x: tf.nn.softmax_cross_entropy_with_logits_v2(labels=l, logits=x),
                [SOFT.astype(np.float64), LOGITS.astype(np.float64)]),
    "xent_v2_3d": (lambda tf, x: tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=tf.nn.softmax(x * 0.5), logits=x, axis=1), [LOGITS3.astype(np.float64)]),
    "sparse_xent": (lambda tf, x, y: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=y, logits=x), [LOGITS.astype(np.float64), SPARSE]),
    "sigmoid_xent": (lambda tf, l, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=l,
                                                                              logits=x),
                     [SOFT.astype(np.float64), np.vstack([LOGITS, np.zeros((1, 4))]
                                                         )[1:].astype(np.float64)]),
    "weighted_xent": (lambda tf, l, x: tf.nn.weighted_cross_entropy_with_logits(
        labels=l, logits=x, pos_weight=3.0), [SOFT.astype(np.float64),
                                              LOGITS.astype(np.float64)]),
    "l2_loss": (lambda tf, x: tf.nn.l2_loss(x), [LOGITS.astype(np.float64)]),
}


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_gradients_match_tensorflow(name):
    build, inputs = GRADIENTS[name]
    check_gradients_match_tensorflow(build, inputs, rtol=1e-10, atol=1e-12)


def test_xent_second_derivative_matches_tensorflow():
    def build(tf, x):
        loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=SOFT.astype(np.float64),
                                                          logits=x)
        return tf.gradients(loss, x)[0] * np.arange(20.0).reshape(5, 4)
    check_gradients_match_tensorflow(build, [LOGITS.astype(np.float64)], rtol=1e-10,
                                     atol=1e-12)
