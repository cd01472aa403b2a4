"""`tf.metrics` without TensorFlow: values against NumPy formulas written here, the local
variables, and the notes' error and its fix (seed E11)."""
import numpy as np
import pytest

import tfteach as tf
from tfteach.errors import FailedPreconditionError, InvalidArgumentError

R = np.random.RandomState(4)
LABELS = [R.randint(0, 2, 12) for _ in range(3)]
PREDS = [R.rand(12).astype(np.float32) for _ in range(3)]


def _numpy_auc(labels, preds, num_thresholds=200, eps=1e-6):
    """TF's trapezoidal ROC AUC, written from its definition."""
    inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    thresholds = np.array([-1e-7] + inner + [1 + 1e-7], np.float32)
    above = preds[None, :] > thresholds[:, None]
    positive = labels.astype(bool)[None, :]
    tp = np.sum(above & positive, 1)
    fn = np.sum(~above & positive, 1)
    tn = np.sum(~above & ~positive, 1)
    fp = np.sum(above & ~positive, 1)
    tpr = (tp + eps) / (tp + fn + eps)
    fpr = fp / (fp + tn + eps)
    return np.sum((fpr[:-1] - fpr[1:]) * (tpr[:-1] + tpr[1:]) / 2)


def _stream(build):
    labels = tf.placeholder(tf.int64, [None])
    preds = tf.placeholder(tf.float32, [None])
    value, update_op = build(labels, preds)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        for l, p in zip(LABELS, PREDS):
            sess.run(update_op, {labels: l, preds: p})
        return sess.run(value)


def test_auc_streams_over_batches():
    got = _stream(lambda l, p: tf.metrics.auc(l, p))
    expected = _numpy_auc(np.concatenate(LABELS), np.concatenate(PREDS))
    np.testing.assert_allclose(got, expected, rtol=1e-5)


def test_accuracy_precision_recall_stream_over_batches():
    labels, preds = np.concatenate(LABELS), np.concatenate(PREDS) > 0.5
    def build(l, p):
        metrics = [tf.metrics.accuracy(l, tf.cast(p > 0.5, tf.int64)),
                   tf.metrics.precision(l, p > 0.5), tf.metrics.recall(l, p > 0.5)]
        return [v for v, _ in metrics], [u for _, u in metrics]
    got = _stream(build)
    tp = np.sum(preds & (labels == 1))
    expected = [np.mean(preds == labels), tp / np.sum(preds), tp / np.sum(labels == 1)]
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_weighted_mean_and_mean_squared_error():
    values = tf.constant([1.0, 2.0, 3.0, 4.0])
    weights = tf.constant([[0.0], [1.0], [2.0], [1.0]])      # rank+1: squeezed as TF does
    mean, mean_update = tf.metrics.mean(values, weights)
    mse, mse_update = tf.metrics.mean_squared_error([0.0, 0.0, 1.0, 1.0], values)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(mean) == 0.0               # count 0: div_no_nan gives 0
        sess.run([mean_update, mse_update])
        sess.run([mean_update, mse_update])
        got = sess.run([mean, mse])
    np.testing.assert_allclose(got, [(2 + 6 + 4) / 4, (1 + 4 + 4 + 9) / 4], rtol=1e-6)


def test_metric_variables_are_local_only():
    tf.metrics.auc([1, 0], tf.constant([0.3, 0.6]))
    names = [v.name for v in tf.local_variables()]
    assert names == ["auc/true_positives:0", "auc/false_negatives:0",
                     "auc/true_negatives:0", "auc/false_positives:0"]
    assert tf.global_variables() == [] and tf.trainable_variables() == []
    assert [v.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)] == names
    assert tf.local_variables()[0].shape.as_list() == [200]


def test_notes_error_and_its_fix():
    """Seed E11: an AUC needs local_variables_initializer() too."""
    auc, update_op = tf.metrics.auc([1, 0, 1], tf.constant([0.9, 0.2, 0.4]))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(FailedPreconditionError,
                           match="Attempting to use uninitialized value auc/true_positives"
                           ) as info:
            sess.run(update_op)
        assert "tf.local_variables_initializer()" in info.value.hint
        sess.run(tf.group(tf.global_variables_initializer(),
                          tf.local_variables_initializer()))
        sess.run(update_op)
        np.testing.assert_allclose(sess.run(auc), _numpy_auc(np.array([1, 0, 1]),
                                                             np.array([0.9, 0.2, 0.4])),
                                   rtol=1e-5)


def test_mean_iou_against_numpy():
    labels = np.array([0, 1, 2, 2, 1, 0, 2])
    preds = np.array([0, 2, 2, 2, 1, 1, 0])
    value, update_op = tf.metrics.mean_iou(tf.constant(labels), tf.constant(preds),
                                           num_classes=4)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        cm = sess.run(update_op)
        got = sess.run(value)
    expected_cm = np.zeros((4, 4))
    np.add.at(expected_cm, (labels, preds), 1)
    np.testing.assert_array_equal(cm, expected_cm)
    diag = np.diag(expected_cm)
    union = expected_cm.sum(0) + expected_cm.sum(1) - diag
    np.testing.assert_allclose(got, np.mean(diag[union > 0] / union[union > 0]), rtol=1e-6)


def test_python_lists_fail_as_in_tensorflow():
    # TF's auc reads predictions.dtype before converting anything (AttributeError too).
    with pytest.raises(AttributeError, match="'list' object has no attribute 'dtype'"):
        tf.metrics.auc([1, 0], [0.3, 0.6])


def test_confusion_matrix_checks_its_ids():
    with tf.Session() as sess:
        with pytest.raises(InvalidArgumentError, match="`labels` out of bound"):
            sess.run(tf.confusion_matrix([0, 3], [0, 1], num_classes=3))
        np.testing.assert_array_equal(sess.run(tf.confusion_matrix([0, 2], [0, 1])),
                                      [[1, 0, 0], [0, 0, 0], [0, 1, 0]])
