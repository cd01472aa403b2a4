"""tf.losses: NumPy references, TensorFlow differential tests (values, dtypes, names,
collections, errors) and gradients (finite differences and TF's values).

The NumPy references apply TF 1.15's documented reduction rules by hand: weights
broadcast to the losses' shape, then SUM_BY_NONZERO_WEIGHTS (the default) = weighted
sum / number of non-zero broadcast weights, and 0 when there are none.
"""
import numpy as np
import pytest

import tfteach as tf
import tfteach
from gradient_check import check_gradients, check_gradients_match_tensorflow
from tf_reference import errors_of_both, first_line, run_both, tensorflow_v1

RNG = np.random.RandomState(3)
LABELS = RNG.randn(4, 3).astype(np.float32)
PRED = RNG.randn(4, 3).astype(np.float32)
PROBS = RNG.uniform(0.05, 0.95, (4, 3)).astype(np.float32)
BINARY = (RNG.rand(4, 3) > 0.5).astype(np.float32)
ONEHOT = np.eye(3, dtype=np.float32)[[0, 2, 1, 2]]
SPARSE = np.array([0, 2, 1, 2], np.int32)
W_ROWS = np.array([[1.0], [0.0], [2.0], [0.5]], np.float32)     # [batch, 1]
W_FULL = RNG.choice([0.0, 1.0, 3.0], (4, 3)).astype(np.float32)
R = tf.losses.Reduction


def run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


# -- NumPy references ------------------------------------------------------------------------
def np_reduce(losses, weights=1.0, reduction="weighted_sum_by_nonzero_weights"):
    losses = np.asarray(losses, np.float64)
    w = np.broadcast_to(np.asarray(weights, np.float64), losses.shape)
    weighted = losses * w
    if reduction == R.NONE:
        return weighted
    total = weighted.sum()
    divisor = {R.SUM: 1.0, R.MEAN: w.sum(), R.SUM_OVER_BATCH_SIZE: losses.size,
               R.SUM_BY_NONZERO_WEIGHTS: np.count_nonzero(w)}[reduction]
    return 0.0 if divisor == 0 else total / divisor


def np_log_softmax(x):
    return x - np.logaddexp.reduce(x, axis=-1, keepdims=True)


def np_huber(e, delta):
    a = np.abs(e)
    return np.where(a <= delta, 0.5 * e ** 2, 0.5 * delta ** 2 + delta * (a - delta))


L64, P64 = LABELS.astype(np.float64), PRED.astype(np.float64)
CASES = {
    "mean_squared_error": (lambda w, r: tf.losses.mean_squared_error(LABELS, PRED, w, reduction=r),
                           (P64 - L64) ** 2),
    "absolute_difference": (lambda w, r: tf.losses.absolute_difference(LABELS, PRED, w,
                                                                       reduction=r),
                            np.abs(P64 - L64)),
    "huber_loss": (lambda w, r: tf.losses.huber_loss(LABELS, PRED, w, delta=0.7, reduction=r),
                   np_huber(P64 - L64, 0.7)),
    "log_loss": (lambda w, r: tf.losses.log_loss(BINARY, PROBS, w, reduction=r),
                 -BINARY * np.log(PROBS + 1e-7) - (1 - BINARY) * np.log(1 - PROBS + 1e-7)),
    "hinge_loss": (lambda w, r: tf.losses.hinge_loss(BINARY, PRED, w, reduction=r),
                   np.maximum(0, 1 - (2 * BINARY - 1) * P64)),
    "sigmoid_cross_entropy": (lambda w, r: tf.losses.sigmoid_cross_entropy(BINARY, PRED, w,
                                                                           reduction=r),
                              np.logaddexp(0, P64) - P64 * BINARY),
}


@pytest.mark.parametrize("reduction", [R.NONE, R.SUM, R.MEAN, R.SUM_OVER_BATCH_SIZE,
                                       R.SUM_BY_NONZERO_WEIGHTS])
@pytest.mark.parametrize("weights", ["scalar", "rows", "full"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_elementwise_losses_against_numpy(name, weights, reduction):
    build, losses = CASES[name]
    w = {"scalar": 2.0, "rows": W_ROWS, "full": W_FULL}[weights]
    loss = build(w, reduction)
    assert loss.dtype == tf.float32
    assert loss.shape.as_list() == ([4, 3] if reduction == R.NONE else [])
    np.testing.assert_allclose(run(loss), np_reduce(losses, w, reduction), rtol=2e-6, atol=1e-6)


def test_softmax_losses_against_numpy():
    logits = PRED
    xent = -(ONEHOT * np_log_softmax(P64)).sum(1)
    smoothed = ONEHOT * 0.8 + 0.2 / 3
    xent_smooth = -(smoothed * np_log_softmax(P64)).sum(1)
    w = np.array([1.0, 0.0, 2.0, 1.0], np.float32)
    got = run([tf.losses.softmax_cross_entropy(ONEHOT, logits),
               tf.losses.softmax_cross_entropy(ONEHOT, logits, weights=w, label_smoothing=0.2),
               tf.losses.sparse_softmax_cross_entropy(SPARSE, logits),
               tf.losses.sparse_softmax_cross_entropy(SPARSE[:, None], logits, weights=w[:, None]),
               tf.losses.sigmoid_cross_entropy(BINARY, logits, label_smoothing=0.3)])
    np.testing.assert_allclose(got[0], xent.mean(), rtol=1e-6)
    np.testing.assert_allclose(got[1], np_reduce(xent_smooth, w), rtol=1e-6)
    np.testing.assert_allclose(got[2], xent.mean(), rtol=1e-6)
    np.testing.assert_allclose(got[3], np_reduce(xent, w), rtol=1e-6)
    z = BINARY * 0.7 + 0.15
    np.testing.assert_allclose(got[4], (np.logaddexp(0, P64) - P64 * z).mean(), rtol=1e-6)


def test_cosine_distance():
    a = LABELS / np.linalg.norm(LABELS, axis=1, keepdims=True)
    b = PRED / np.linalg.norm(PRED, axis=1, keepdims=True)
    loss = tf.losses.cosine_distance(a, b, axis=1)
    np.testing.assert_allclose(run(loss), np.mean(1 - (a * b).sum(1)), rtol=1e-6)
    with pytest.raises(ValueError, match="You must specify 'axis'"):
        tf.losses.cosine_distance(a, b)


def test_default_reduction_is_mean_over_nonzero_weights():
    assert R.SUM_OVER_NONZERO_WEIGHTS == R.SUM_BY_NONZERO_WEIGHTS == (
        "weighted_sum_by_nonzero_weights")
    # The doc example of tf.compat.v1.losses.mean_squared_error.
    loss = tf.losses.mean_squared_error([1, 2, 3], [1, 3, 5], weights=[0, 1, 0.25])
    assert run(loss) == pytest.approx(1.0)
    all_zero = tf.losses.mean_squared_error([1.0, 2.0], [3.0, 4.0], weights=[0.0, 0.0])
    assert run(all_zero) == 0.0


def test_float64_inputs_keep_their_dtype_where_tf_does():
    logits = P64
    assert tf.losses.softmax_cross_entropy(ONEHOT, logits).dtype == tf.float64
    assert tf.losses.mean_squared_error(L64, P64).dtype == tf.float32   # TF casts to float32


def test_losses_collection_and_total_loss():
    mse = tf.losses.mean_squared_error(LABELS, PRED)
    with tf.name_scope("head"):
        xent = tf.losses.softmax_cross_entropy(ONEHOT, PRED)
    hidden = tf.losses.absolute_difference(LABELS, PRED, loss_collection=None)
    assert tf.get_collection(tf.GraphKeys.LOSSES) == [mse, xent]
    assert tf.losses.get_losses() == [mse, xent]
    assert tf.losses.get_losses(scope="head") == [xent]
    reg = tf.multiply(0.5, tf.reduce_sum(tf.square(PRED)), name="reg")
    tf.add_to_collection(tf.GraphKeys.REGULARIZATION_LOSSES, reg)
    total = tf.losses.get_total_loss()
    assert total.name == "total_loss:0" and total.op.type == "AddN"
    no_reg = tf.losses.get_total_loss(add_regularization_losses=False, name="data_loss")
    reg_total = tf.losses.get_regularization_loss()
    assert reg_total.name == "total_regularization_loss:0"
    assert tf.losses.get_regularization_losses() == [reg]
    got = run([mse, xent, reg, total, no_reg, reg_total, hidden])
    assert got[3] == pytest.approx(got[0] + got[1] + got[2], rel=1e-6)
    assert got[4] == pytest.approx(got[0] + got[1], rel=1e-6)
    assert got[5] == got[2]
    tf.losses.add_loss(tf.constant(10.0))
    assert len(tf.losses.get_losses()) == 3


def test_regularization_loss_without_regularizers_is_zero():
    reg = tf.losses.get_regularization_loss()
    assert reg.op.type == "Const" and run(reg) == 0.0


def test_compute_weighted_loss():
    losses = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    loss = tf.losses.compute_weighted_loss(losses, weights=[[0.0], [1.0]])
    assert loss.name == "weighted_loss/value:0"
    assert run(loss) == pytest.approx(3.5)
    assert tf.get_collection("losses") == [loss]
    none = tf.losses.compute_weighted_loss(losses, 2.0, reduction=R.NONE)
    np.testing.assert_allclose(run(none), [[2, 4], [6, 8]])


def test_errors():
    with pytest.raises(ValueError, match="Invalid Reduction Key bogus."):
        tf.losses.mean_squared_error(LABELS, PRED, reduction="bogus")
    with pytest.raises(ValueError, match="labels must not be None."):
        tf.losses.mean_squared_error(None, PRED)
    with pytest.raises(ValueError, match=r"Shapes \(4, 3\) and \(4, 2\) are incompatible"):
        tf.losses.mean_squared_error(LABELS[:, :2], PRED)
    with pytest.raises(ValueError, match=r"weights can not be broadcast to values. values.rank=2. "
                                         r"weights.rank=1."):
        tf.losses.mean_squared_error(LABELS, PRED, weights=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="weights can not be broadcast to values. Mismatch at "
                                         "dim 0."):
        tf.losses.mean_squared_error(LABELS, PRED, weights=np.ones((2, 3)))


def test_weights_checked_at_run_time_when_shapes_are_unknown():
    w = tf.placeholder(tf.float32)
    p = tf.placeholder(tf.float32)
    loss = tf.losses.mean_squared_error(p, 2 * p, weights=w)
    assert run(loss, {p: np.ones((2, 3)), w: [[1.0], [0.0]]}) == pytest.approx(1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"assertion failed: \[weights can "
                                                             r"not be broadcast to values.\]"):
        run(loss, {p: np.ones(3), w: np.ones((3, 1))})


# tf.losses computes in float32 (it casts its inputs, as TF does), so its finite
# differences use a larger step and float32 tolerances; the ops' own float64 checks are in
# test_nn_losses.py (and DivNoNan's below).
FLOAT32_FD = dict(delta=1e-3, rtol=2e-3, atol=2e-4)


def test_loss_gradients():
    check_gradients(lambda t, p: t.losses.mean_squared_error(L64, p, weights=W_FULL), [P64],
                    **FLOAT32_FD)
    check_gradients(lambda t, p: t.losses.huber_loss(L64, p, delta=0.5), [P64], **FLOAT32_FD)
    check_gradients(lambda t, p: t.losses.log_loss(BINARY, p), [PROBS.astype(np.float64)],
                    **FLOAT32_FD)
    check_gradients(lambda t, x: t.losses.softmax_cross_entropy(ONEHOT, x, W_ROWS[:, 0],
                                                                label_smoothing=0.1), [P64],
                    **FLOAT32_FD)
    check_gradients(lambda t, x, y: t.losses.sparse_softmax_cross_entropy(y, x), [P64, SPARSE],
                    **FLOAT32_FD)
    check_gradients(lambda t, x: t.losses.sigmoid_cross_entropy(BINARY, x), [P64],
                    **FLOAT32_FD)
    # The weights are differentiable too (TF's note: stop_gradient them if they are data).
    check_gradients(lambda t, w: t.losses.absolute_difference(L64, P64, weights=w,
                                                              reduction=R.MEAN),
                    [W_ROWS.astype(np.float64) + 0.5], **FLOAT32_FD)


def test_div_no_nan():
    from tfteach.losses.safe_div import div_no_nan
    x = np.array([[1.0, -2.0, 3.0], [0.5, 0.0, 4.0]])
    y = np.array([2.0, 0.0, -0.5])
    q = div_no_nan(x, y)
    assert q.op.type == "DivNoNan" and q.shape.as_list() == [2, 3]
    np.testing.assert_array_equal(run(q), np.where(y == 0, 0.0, x / np.where(y == 0, 1, y)))
    np.testing.assert_array_equal(run(div_no_nan(0.0, 0.0)), 0.0)
    check_gradients(lambda t, a, b: div_no_nan(a, b), [x, np.array([2.0, 1.5, -0.5])])
    check_gradients(lambda t, a, b: div_no_nan(a, b), [x, np.array([[2.0], [0.7]])])


# -- against TensorFlow --------------------------------------------------------------------------
PROGRAMS = {
    "regression": lambda tf: [tf.losses.mean_squared_error(LABELS, PRED),
                              tf.losses.absolute_difference(LABELS, PRED, weights=W_ROWS),
                              tf.losses.huber_loss(LABELS, PRED * 3, delta=0.5,
                                                   reduction=tf.losses.Reduction.SUM),
                              tf.losses.log_loss(BINARY, PROBS, weights=W_FULL),
                              tf.losses.hinge_loss(BINARY, PRED, reduction="weighted_mean"),
                              tf.losses.cosine_distance(LABELS, PRED, axis=1,
                                                        reduction=tf.losses.Reduction.NONE)],
    "classification": lambda tf: [
        tf.losses.softmax_cross_entropy(ONEHOT, PRED, label_smoothing=0.1),
        tf.losses.softmax_cross_entropy(ONEHOT, PRED.astype(np.float64), weights=[1., 0., 2., 1.]),
        tf.losses.sparse_softmax_cross_entropy(SPARSE, PRED),
        tf.losses.sparse_softmax_cross_entropy(SPARSE[:, None], PRED, weights=W_ROWS),
        tf.losses.sigmoid_cross_entropy(BINARY, PRED, label_smoothing=0.2,
                                        reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE)],
    "total": lambda tf: [tf.losses.mean_squared_error(LABELS, PRED),
                         tf.losses.hinge_loss(BINARY, PRED),
                         tf.losses.get_total_loss(), tf.losses.get_regularization_loss()],
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_values_as_tensorflow(name):
    pytest.importorskip("tensorflow")
    expected, got = run_both(lambda tf: (PROGRAMS[name](tf), None))
    for e, g in zip(expected, got):
        assert np.asarray(g).dtype == np.asarray(e).dtype
        assert np.shape(g) == np.shape(e)
        np.testing.assert_allclose(g, e, rtol=3e-6, atol=1e-7)


# The op types tf.losses' own code builds. (Some constants and shape helpers are named
# differently by TF 2 than by TF 1.15 -- e.g. TF 2's reduce_sum adds Rank/range ops --
# so the comparison is limited to these.)
STRUCTURE_TYPES = {"DivNoNan", "NoOp", "Select", "Equal", "Sum", "Mul", "Sub", "Abs", "Log",
                   "Minimum", "Relu", "Squeeze", "SquaredDifference", "StopGradient", "AddN",
                   "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits",
                   "Cast", "Fill", "Assert"}


def _graph_summary(tf, fetch):
    with tf.Graph().as_default() as graph:
        out = fetch(tf)
        return ([(t.name, t.shape.as_list()) for t in out],
                [t.name for t in graph.get_collection("losses")],
                {op.name: op.type for op in graph.get_operations()
                 if op.type in STRUCTURE_TYPES})


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_names_and_collections_as_tensorflow(name):
    pytest.importorskip("tensorflow")
    ours = _graph_summary(tfteach, PROGRAMS[name])
    theirs = _graph_summary(tensorflow_v1(), PROGRAMS[name])
    assert ours == theirs


ERRORS = {
    "rank mismatch": lambda tf: tf.losses.mean_squared_error(LABELS, PRED, weights=[1., 2., 3.]),
    "dim mismatch": lambda tf: tf.losses.log_loss(BINARY, PROBS, weights=np.ones((2, 3))),
    "shape mismatch": lambda tf: tf.losses.mean_squared_error(LABELS[:, :2], PRED),
    "bad reduction": lambda tf: tf.losses.hinge_loss(BINARY, PRED, reduction="mean"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_same_errors_as_tensorflow(name):
    pytest.importorskip("tensorflow")
    expected, got = errors_of_both(lambda tf: (ERRORS[name](tf), None))
    assert type(got) is type(expected) is ValueError
    # TF 2 appends "Received weights=..." / "Key should be one of ..." to TF 1.15's text
    # and puts a comma between the shapes; compare up to the shapes.
    core = first_line(got).split(" values.shape=")[0].rstrip(".")
    assert first_line(expected).startswith(core)


GRADIENT_PROGRAMS = {
    "mse": (lambda tf, p: tf.losses.mean_squared_error(L64, p, weights=W_ROWS), [P64]),
    "huber": (lambda tf, p: tf.losses.huber_loss(L64, p, delta=0.3), [P64]),
    "xent": (lambda tf, x: tf.losses.softmax_cross_entropy(ONEHOT, x, label_smoothing=0.2),
             [P64]),
    "sparse": (lambda tf, x: tf.losses.sparse_softmax_cross_entropy(SPARSE, x,
                                                                    weights=W_ROWS), [P64]),
    "sigmoid": (lambda tf, x: tf.losses.sigmoid_cross_entropy(BINARY, x), [P64]),
}


@pytest.mark.parametrize("name", sorted(GRADIENT_PROGRAMS))
def test_gradients_match_tensorflow(name):
    build, inputs = GRADIENT_PROGRAMS[name]
    check_gradients_match_tensorflow(build, inputs, rtol=1e-6, atol=1e-8)
