"""tf.contrib: the regularizers of contrib.layers and the sequence losses of seq2seq /
legacy_seq2seq, with the course notes' worked numbers.

TensorFlow 2 has no tf.contrib, so the references are NumPy, from TF 1.15's documented
formulas (l1 = scale * sum|w|, l2 = scale * sum(w**2) / 2, sequence losses = weighted
sparse softmax cross entropy averaged by the summed weights + 1e-12).
"""
import numpy as np
import pytest

import tfteach as tf
from gradient_check import check_gradients
from tolerances import assert_close

W = np.array([[1.0, -2.0], [-3.0, 4.0]], np.float32)
# The notes' sequence example: 5 time steps (batch 1), 4 classes.
A = np.array([[0.1, 0.2, 0.3, 0.4], [0.2, 0.1, 0.4, 0.3], [0.4, 0.3, 0.2, 0.1],
              [0.3, 0.2, 0.1, 0.4], [0.1, 0.4, 0.3, 0.2]], np.float32)
B = np.array([1, 2, 1, 3, 3], np.int32)
W1 = np.ones(5, np.float32)
NOTES_PER_STEP = np.array([1.4425356, 1.2425356, 1.3425356, 1.2425356, 1.4425356], np.float32)


def run(fetches, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


def np_xent(logits, labels):
    logits = np.asarray(logits, np.float64)
    log_softmax = logits - np.logaddexp.reduce(logits, axis=-1, keepdims=True)
    return -np.take_along_axis(log_softmax, np.asarray(labels)[..., None], -1)[..., 0]


# -- regularizers ---------------------------------------------------------------------------------
def test_notes_worked_example():
    weights = tf.constant(W)
    l1 = tf.contrib.layers.l1_regularizer(.5)(weights)
    l2 = tf.contrib.layers.l2_regularizer(.5)(weights)
    assert run([l1, l2]) == [5.0, 7.5]
    assert l1.name == "l1_regularizer:0" and l2.name == "l2_regularizer:0"
    assert l1.dtype == l2.dtype == tf.float32 and l1.shape.ndims == 0


def test_notes_collection_pattern():
    # tf.add_to_collection('losses', l2_regularizer(lambda)(var)); tf.add_n(get_collection)
    var = tf.Variable(W)
    data_loss = tf.reduce_mean(tf.square(var))
    tf.add_to_collection("losses", data_loss)
    tf.add_to_collection("losses", tf.contrib.layers.l2_regularizer(0.5)(var))
    total = tf.add_n(tf.get_collection("losses"))
    assert run(total) == pytest.approx(7.5 + 7.5)
    assert tf.losses.get_total_loss().op.type == "AddN"    # the same collection


def test_l1_l2_and_sum_regularizers():
    weights = tf.constant(W)
    both = tf.contrib.layers.l1_l2_regularizer(0.5, 0.25)(weights)
    assert both.name == "l1_l2_regularizer:0" and both.op.type == "AddN"
    summed = tf.contrib.layers.sum_regularizer([tf.contrib.layers.l1_regularizer(1.0), None,
                                                tf.contrib.layers.l2_regularizer(1.0)])(weights)
    only_l2 = tf.contrib.layers.l1_l2_regularizer(0.0, 0.5)(weights)
    assert run([both, summed, only_l2]) == [5.0 + 3.75, 10.0 + 15.0, 7.5]
    assert tf.contrib.layers.sum_regularizer([None]) is None
    scoped = tf.contrib.layers.l2_regularizer(0.1, scope="decay")(weights)
    assert scoped.name == "decay:0"
    assert run(tf.contrib.layers.l2_regularizer(tf.constant(2.0))(weights)) == 30.0


def test_regularizer_scale_errors():
    with pytest.raises(ValueError, match="^scale cannot be an integer: 1$"):
        tf.contrib.layers.l1_regularizer(1)
    with pytest.raises(ValueError, match=r"^scale cannot be an integer: -1$"):
        tf.contrib.layers.l2_regularizer(-1)
    with pytest.raises(ValueError, match="^Setting a scale less than 0 on a regularizer: -1$"):
        tf.contrib.layers.l1_regularizer(-1.0)
    with pytest.raises(ValueError, match=r"^Setting a scale less than 0 on a regularizer: "
                                         r"-0.5\.$"):
        tf.contrib.layers.l2_regularizer(-0.5)
    with pytest.raises(ValueError, match="^scale_l2 cannot be an integer: 2$"):
        tf.contrib.layers.l1_l2_regularizer(1.0, 2)
    # A scale of 0 disables the regularizer: it returns None.
    assert tf.contrib.layers.l1_regularizer(0.0)(tf.constant(W)) is None
    assert tf.contrib.layers.l2_regularizer(0.)(tf.constant(W)) is None


def test_apply_regularization():
    w1 = tf.Variable(W, name="w1")
    w2 = tf.Variable(2 * W, name="w2")
    with pytest.raises(ValueError, match="No weights to regularize."):
        tf.contrib.layers.apply_regularization(tf.contrib.layers.l1_regularizer(0.5))
    tf.add_to_collection(tf.GraphKeys.WEIGHTS, w1)
    tf.add_to_collection(tf.GraphKeys.WEIGHTS, w2)
    penalty = tf.contrib.layers.apply_regularization(tf.contrib.layers.l1_regularizer(0.5))
    assert penalty.name == "get_regularization_penalty:0"
    assert tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES) == [penalty]
    only_w2 = tf.contrib.layers.apply_regularization(tf.contrib.layers.l2_regularizer(0.5), [w2])
    disabled = tf.contrib.layers.apply_regularization(tf.contrib.layers.l2_regularizer(0.0))
    assert run([penalty, only_w2, disabled]) == [15.0, 30.0, 0.0]
    assert run(tf.losses.get_regularization_loss()) == 45.0
    with pytest.raises(ValueError, match="regularizer must return a scalar Tensor instead of a "
                                         "Tensor with rank 2."):
        tf.contrib.layers.apply_regularization(lambda w: w * 2.0, [w1])


def test_regularizer_gradients():
    w = np.array([[0.7, -1.3], [2.1, -0.4]])
    check_gradients(lambda t, x: t.contrib.layers.l2_regularizer(0.3)(x), [w])
    check_gradients(lambda t, x: t.contrib.layers.l1_l2_regularizer(0.2, 0.7)(x), [w])
    # d/dw [0.5 * sum|w| + 0.5 * sum(w**2) / 2] = 0.5 * sign(w) + 0.5 * w
    x = tf.constant(w)
    grad = tf.gradients([tf.contrib.layers.l1_regularizer(0.5)(x),
                         tf.contrib.layers.l2_regularizer(0.5)(x)], x)[0]
    np.testing.assert_allclose(run(grad), 0.5 * np.sign(w) + 0.5 * w)


# -- sequence losses -------------------------------------------------------------------------------
def test_notes_sequence_loss_by_example():
    loss = tf.contrib.legacy_seq2seq.sequence_loss_by_example([A], [B], [W1])
    got = run(loss)
    assert got.dtype == np.float32 and loss.shape.as_list() == [5]
    np.testing.assert_array_equal(got, NOTES_PER_STEP)
    assert str(got) == "[1.4425356 1.2425356 1.3425356 1.2425356 1.4425356]"


def test_notes_sequence_loss():
    logits = tf.expand_dims(A, 0)
    targets = tf.expand_dims(B, 0)
    weights = tf.expand_dims(W1, 0)
    mean = tf.contrib.seq2seq.sequence_loss(logits, targets, weights)
    per_step = tf.contrib.seq2seq.sequence_loss(logits, targets, weights,
                                                average_across_timesteps=False)
    got = run([mean, per_step])
    assert got[0] == np.float32(1.3425356) and str(got[0]) == "1.3425356"
    np.testing.assert_array_equal(got[1], NOTES_PER_STEP)
    assert mean.shape.ndims == 0 and per_step.shape.as_list() == [5]


LOGITS = np.random.RandomState(5).randn(3, 4, 6).astype(np.float32)
TARGETS = np.random.RandomState(6).randint(0, 6, (3, 4)).astype(np.int32)
MASK = np.array([[1, 1, 1, 1], [1, 1, 0, 0], [1, 0, 0, 0]], np.float32)


@pytest.mark.parametrize("flags", [(True, True, False, False), (False, True, False, False),
                                   (True, False, False, False), (False, False, False, False),
                                   (False, False, True, True), (False, False, True, False),
                                   (False, False, False, True)])
def test_sequence_loss_reductions(flags):
    avg_t, avg_b, sum_t, sum_b = flags
    loss = tf.contrib.seq2seq.sequence_loss(
        tf.constant(LOGITS), tf.constant(TARGETS), tf.constant(MASK),
        average_across_timesteps=avg_t, average_across_batch=avg_b,
        sum_over_timesteps=sum_t, sum_over_batch=sum_b)
    xent = np_xent(LOGITS, TARGETS) * MASK
    if avg_t and avg_b:
        expected = xent.sum() / (MASK.sum() + 1e-12)
    elif sum_t and sum_b:
        expected = xent.sum() / (np.count_nonzero(MASK) + 1e-12)
    elif avg_t or avg_b:
        axis = 0 if avg_b else 1
        expected = xent.sum(axis) / (MASK.sum(axis) + 1e-12)
    elif sum_t or sum_b:
        axis = 0 if sum_b else 1
        expected = xent.sum(axis) / (np.count_nonzero(MASK, axis) + 1e-12)
    else:
        expected = xent
    np.testing.assert_allclose(run(loss), expected, rtol=1e-6)


def test_legacy_sequence_loss():
    steps = [LOGITS[:, t] for t in range(4)]
    targets = [TARGETS[:, t] for t in range(4)]
    weights = [MASK[:, t] for t in range(4)]
    xent = np_xent(LOGITS, TARGETS) * MASK
    per_example = xent.sum(1) / (MASK.sum(1) + 1e-12)
    got = run([tf.contrib.legacy_seq2seq.sequence_loss_by_example(steps, targets, weights),
               tf.contrib.legacy_seq2seq.sequence_loss_by_example(
                   steps, targets, weights, average_across_timesteps=False),
               tf.contrib.legacy_seq2seq.sequence_loss(steps, targets, weights),
               tf.contrib.legacy_seq2seq.sequence_loss(steps, targets, weights,
                                                       average_across_batch=False)])
    assert_close(got[0], per_example, rtol=1e-6)
    assert_close(got[1], xent.sum(1), rtol=1e-6)
    np.testing.assert_allclose(got[2], per_example.sum() / 3, rtol=1e-6)
    np.testing.assert_allclose(got[3], per_example.sum(), rtol=1e-6)


def test_custom_softmax_loss_function():
    def loss_fn(labels, logits):
        return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits) * 2
    loss = tf.contrib.seq2seq.sequence_loss(tf.constant(LOGITS), tf.constant(TARGETS),
                                            tf.constant(MASK), softmax_loss_function=loss_fn)
    expected = 2 * (np_xent(LOGITS, TARGETS) * MASK).sum() / MASK.sum()
    np.testing.assert_allclose(run(loss), expected, rtol=1e-6)


def test_sequence_loss_errors():
    with pytest.raises(ValueError, match=r"Logits must be a \[batch_size x sequence_length x "
                                         r"logits\] tensor"):
        tf.contrib.seq2seq.sequence_loss(tf.constant(A), tf.constant(B), tf.constant(W1))
    with pytest.raises(ValueError, match="average_across_timesteps and sum_over_timesteps "
                                         "cannot be set to True at same time."):
        tf.contrib.seq2seq.sequence_loss(tf.constant(LOGITS), tf.constant(TARGETS),
                                         tf.constant(MASK), sum_over_timesteps=True)
    with pytest.raises(ValueError, match="Lengths of logits, weights, and targets must be the "
                                         "same 1, 1, 2."):
        tf.contrib.legacy_seq2seq.sequence_loss_by_example([A], [B, B], [W1])


def test_sequence_loss_gradients():
    logits = LOGITS.astype(np.float64)
    mask = MASK.astype(np.float64)
    check_gradients(lambda t, x, y: t.contrib.seq2seq.sequence_loss(x, y, mask), [logits, TARGETS])
    check_gradients(lambda t, x, y: t.contrib.legacy_seq2seq.sequence_loss(
        [x[:, 0], x[:, 1]], [y[:, 0], y[:, 1]], [mask[:, 0], mask[:, 1]]), [logits, TARGETS])
