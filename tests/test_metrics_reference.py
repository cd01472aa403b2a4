"""`tf.metrics` on tfteach and on TensorFlow (`tf.compat.v1`, graph mode, ref variables):
values after several update runs (weighted and not), the names of the returned tensors
and of the local variables, the collections, and the notes' classic error (an AUC run
without `tf.local_variables_initializer()`).
"""
import numpy as np
import pytest

import tfteach
from tf_reference import tensorflow_v1

pytest.importorskip("tensorflow")
pytestmark = pytest.mark.reference

R = np.random.RandomState(15)
BATCHES = [(R.randint(0, 2, 9), R.rand(9).astype(np.float32), R.rand(9).astype(np.float32))
           for _ in range(4)]
# Predictions exactly on the thresholds' ends and on a grid point (0.5 = 99/198).
BATCHES.append((np.array([1, 0, 1, 0, 1, 1, 0, 0, 1]),
                np.array([0.0, 1.0, 0.5, 0.5, 1.0, 0.0, 0.25, 0.75, 0.5], np.float32),
                np.array([1, 0, 2, 1, 1, 0.5, 1, 1, 3], np.float32)))


@pytest.fixture(scope="module")
def tf1():
    tf1 = tensorflow_v1()
    tf1.disable_resource_variables()
    return tf1


def _metrics(tf, labels, preds, weights):
    """Every metric once without and once with weights (each in its own scope)."""
    as_class = tf.cast(preds > 0.5, tf.int64)
    as_float = tf.cast(labels, tf.float32)
    built = {}
    for suffix, w in (("", None), ("_weighted", weights)):
        built["accuracy" + suffix] = tf.metrics.accuracy(labels, as_class, weights=w)
        built["auc" + suffix] = tf.metrics.auc(labels, preds, weights=w)
        built["mean" + suffix] = tf.metrics.mean(preds, weights=w)
        built["precision" + suffix] = tf.metrics.precision(labels, as_class, weights=w)
        built["recall" + suffix] = tf.metrics.recall(labels, as_class, weights=w)
        built["mse" + suffix] = tf.metrics.mean_squared_error(as_float, preds, weights=w)
        built["mae" + suffix] = tf.metrics.mean_absolute_error(as_float, preds, weights=w)
        built["mean_iou" + suffix] = tf.metrics.mean_iou(labels, as_class, 2, weights=w)
        built["true_negatives" + suffix] = tf.metrics.true_negatives(labels, as_class,
                                                                     weights=w)
    built["auc_pr"] = tf.metrics.auc(labels, preds, curve="PR")
    built["auc_pr_careful"] = tf.metrics.auc(labels, preds, curve="PR", num_thresholds=50,
                                             summation_method="careful_interpolation")
    built["auc_minoring"] = tf.metrics.auc(labels, preds, summation_method="minoring",
                                           num_thresholds=20)
    built["auc_majoring"] = tf.metrics.auc(labels, preds, summation_method="majoring",
                                           num_thresholds=20)
    built["auc_thresholds"] = tf.metrics.auc(labels, preds, thresholds=[0.3, 0.1, 0.6])
    built["auc_named"] = tf.metrics.auc(labels, preds, name="AUC")
    return built


def _run_metrics(tf):
    """Names, collections, the update ops' results per batch, and the final values."""
    graph = tf.Graph()
    with graph.as_default():
        labels = tf.placeholder(tf.int64, [None])
        preds = tf.placeholder(tf.float32, [None])
        weights = tf.placeholder(tf.float32, [None])
        built = _metrics(tf, labels, preds, weights)
        names = {k: (v.name, u.name) for k, (v, u) in built.items()}
        collections = ([v.name for v in tf.local_variables()],
                       [v.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)],
                       [v.name for v in tf.global_variables()],
                       [v.name for v in tf.trainable_variables()])
        with tf.Session(graph=graph) as sess:
            sess.run(tf.local_variables_initializer())
            updates = [sess.run({k: u for k, (v, u) in built.items()},
                                {labels: l, preds: p, weights: w}) for l, p, w in BATCHES]
            values = sess.run({k: v for k, (v, u) in built.items()})
            sess.run(tf.local_variables_initializer())      # resets every metric
            reset = sess.run({k: v for k, (v, u) in built.items()})
    return names, collections, updates, values, reset


@pytest.fixture(scope="module")
def both(tf1):
    return _run_metrics(tf1), _run_metrics(tfteach)


def _close(expected, actual, key):
    expected, actual = np.asarray(expected), np.asarray(actual)
    assert actual.dtype == expected.dtype, key
    assert actual.shape == expected.shape, key
    np.testing.assert_allclose(actual, expected, rtol=2e-6, atol=1e-6, err_msg=key)


def test_names_of_values_update_ops_and_variables_match_tensorflow(both):
    (tf_names, tf_collections, *_), (our_names, our_collections, *_) = both
    assert our_names == tf_names
    assert our_collections == tf_collections
    assert our_collections[2] == our_collections[3] == []      # nothing global


def test_update_results_after_each_batch_match_tensorflow(both):
    (_, _, tf_updates, _, _), (_, _, our_updates, _, _) = both
    for batch, (expected, actual) in enumerate(zip(tf_updates, our_updates)):
        assert sorted(actual) == sorted(expected)
        for key in expected:
            _close(expected[key], actual[key], "%s after batch %d" % (key, batch))


def test_final_values_and_reset_match_tensorflow(both):
    (_, _, _, tf_values, tf_reset), (_, _, _, our_values, our_reset) = both
    for key in tf_values:
        _close(tf_values[key], our_values[key], key)
        _close(tf_reset[key], our_reset[key], key + " after reset")


def _error_of(tf, build):
    graph = tf.Graph()
    with graph.as_default():
        fetch, feed, initialize = build(tf)
        with tf.Session(graph=graph) as sess:
            if initialize:
                sess.run(tf.local_variables_initializer())
            try:
                sess.run(fetch, feed)
            except Exception as e:  # noqa: BLE001 - the exception is what we compare
                return e
    return None


def _auc_program(initialize, predictions=(0.2, 0.4)):
    def build(tf):
        labels = tf.placeholder(tf.int64, [None])
        preds = tf.placeholder(tf.float32, [None])
        _, update_op = tf.metrics.auc(labels, preds)
        with tf.control_dependencies([tf.global_variables_initializer()]):
            update_op = tf.identity(update_op)
        return update_op, {labels: [1, 0], preds: list(predictions)}, initialize
    return build


def test_auc_without_local_variables_initializer_is_tfs_error(tf1):
    """The notes' error: only global_variables_initializer() was run."""
    theirs = _error_of(tf1, _auc_program(initialize=False))
    ours = _error_of(tfteach, _auc_program(initialize=False))
    assert type(theirs).__name__ == type(ours).__name__ == "FailedPreconditionError"
    # TF names whichever of the four counts its threads read first; tfteach the first.
    pattern = ("Attempting to use uninitialized value "
               "auc/(true_positives|false_negatives|true_negatives|false_positives)")
    assert __import__("re").search(pattern, str(theirs))
    assert str(ours).startswith("Attempting to use uninitialized value auc/true_positives")
    assert "local_variables_initializer()" in str(ours.hint)
    assert isinstance(ours, tfteach.errors.FailedPreconditionError)


def test_auc_of_predictions_outside_0_1_is_tfs_assertion(tf1):
    build = _auc_program(initialize=True, predictions=(0.2, 1.5))
    theirs, ours = _error_of(tf1, build), _error_of(tfteach, build)
    assert type(theirs).__name__ == type(ours).__name__ == "InvalidArgumentError"
    for error in (theirs, ours):
        assert ("assertion failed: [predictions must be in [0, 1]] [Condition x <= y did "
                "not hold element-wise:]" in str(error))


@pytest.mark.parametrize("build", [
    lambda tf: tf.metrics.auc([1, 0], [0.2, 0.3], curve="XY"),
    lambda tf: tf.metrics.accuracy([1, 0, 1], [1, 0]),
    lambda tf: tf.metrics.precision([[1, 0]], [[1, 0], [0, 1]]),
], ids=["auc_curve", "accuracy_shapes", "precision_shapes"])
def test_bad_arguments_raise_tfs_error_class(tf1, build):
    errors = []
    for tf in (tf1, tfteach):
        with tf.Graph().as_default():
            with pytest.raises(ValueError) as info:
                build(tf)
            errors.append(info.value)
    assert len(errors) == 2


def _graph_ops(tf):
    """(name, type) of every op the metrics build, but the run-time assertions' insides
    (TF 2.x guards each Assert with a cond; tfteach and TF 1.15's string data do not)
    and constants (the Select's scalar 0 is `e` in TF, `t_1` in tfteach)."""
    graph = tf.Graph()
    with graph.as_default():
        labels = tf.placeholder(tf.int64, [None])
        preds = tf.placeholder(tf.float32, [None])
        weights = tf.placeholder(tf.float32, [None])
        _metrics(tf, labels, preds, weights)
    return [(op.name, op.type) for op in graph.get_operations()
            if "assert" not in op.name.lower() and op.type != "Const"]


def test_every_op_name_and_type_matches_tensorflow(tf1):
    assert _graph_ops(tfteach) == _graph_ops(tf1)


def test_diag_ops_match_tensorflow():
    """mean_iou reads the confusion matrix's diagonal with TF's DiagPart."""
    from tf_reference import errors_of_both, run_both
    x = np.arange(36.0).reshape(2, 3, 2, 3)
    expected, actual = run_both(lambda tf: ([tf.diag_part(x), tf.diag([[1, 2], [3, 4]]),
                                             tf.diag_part(tf.diag([1.5, -2.0]))], None))
    for e, a in zip(expected, actual):
        assert a.dtype == e.dtype and a.shape == e.shape
        np.testing.assert_array_equal(a, e)
    tf_error, our_error = errors_of_both(lambda tf: (tf.diag_part(
        tf.placeholder_with_default(np.ones((2, 3)), [None, None])), None))
    assert type(our_error).__name__ == type(tf_error).__name__ == "InvalidArgumentError"
