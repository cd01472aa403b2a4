"""The heads of TF 1.15's canned Estimators: logits -> loss, predictions, metrics.

  binary      (n_classes=2) one logit; sigmoid cross-entropy; predictions logits,
              logistic, probabilities, class_ids, classes, all_class_ids, all_classes;
              metrics accuracy, accuracy_baseline, auc, auc_precision_recall,
              average_loss, label/mean, precision, prediction/mean, recall;
  multi-class n_classes logits; sparse softmax cross-entropy; metrics accuracy,
              average_loss;
  regression  label_dimension outputs; squared error; metrics average_loss, label/mean,
              prediction/mean.
The training loss is the per-example losses (times weight_column) reduced by
`loss_reduction`: TF 1.15's canned Estimators default to SUM over the batch (TF 2's to
SUM_OVER_BATCH_SIZE). `classes` are the class ids as strings (or label_vocabulary's).
"""
from tfteach.estimator.model_fn import EstimatorSpec, ModeKeys

__all__ = ["binary_or_multi_class_head", "regression_head"]


def _weights(features, weight_column):
    import tfteach as tf
    if weight_column is None:
        return 1.0
    key = weight_column if isinstance(weight_column, str) else weight_column.key
    if key not in features:
        raise ValueError("Feature {} is not in features dictionary.".format(key))
    return tf.reshape(tf.cast(features[key], tf.float32), [-1, 1])


def _labels_as_ids(labels, n_classes, label_vocabulary):
    """Labels [batch, 1] as int64 class ids, checked to lie in [0, n_classes)."""
    import tfteach as tf
    labels = tf.convert_to_tensor(labels)
    if labels.shape.ndims == 1:
        labels = tf.expand_dims(labels, -1)
    if labels.shape.ndims == 2 and labels.shape[1].value not in (None, 1):
        raise ValueError("Mismatched label shape. Classifier configured with n_classes=%s.  "
                         "Received %s. Suggested Fix: check your n_classes argument to the "
                         "estimator and/or the shape of your label."
                         % (n_classes, labels.shape[1].value))
    if label_vocabulary is not None:
        if labels.dtype != tf.string:
            raise ValueError("Labels dtype should be string if there is a vocabulary. "
                             "Given: {}".format(labels.dtype))
        vocabulary = tf.constant(list(label_vocabulary))
        matches = tf.equal(tf.expand_dims(labels, -1), vocabulary)
        found = tf.Assert(tf.reduce_all(tf.reduce_any(matches, -1)),
                          ["Labels must be in label_vocabulary"])
        with tf.control_dependencies([found]):
            return tf.argmax(tf.cast(matches, tf.int32), -1)
    if labels.dtype == tf.string:
        raise ValueError("Labels dtype should be integer. Instead got {}.".format(labels.dtype))
    labels = tf.cast(labels, tf.int64)
    checks = [tf.assert_less(labels, tf.constant(n_classes, tf.int64),
                             message="Labels must <= n_classes - 1"),
              tf.assert_non_negative(labels, message="Labels must >= 0")]
    with tf.control_dependencies(checks):
        return tf.identity(labels)


def _reduce(unreduced, weights, reduction):
    import tfteach as tf
    return tf.losses.compute_weighted_loss(unreduced, weights, reduction=reduction,
                                           loss_collection=None)


class _Head:
    """Common spec building: PREDICT needs only predictions; TRAIN adds the train_op."""

    def create_estimator_spec(self, features, mode, logits, labels=None, train_op_fn=None):
        import tfteach as tf
        predictions = self._predictions(logits)
        if mode == ModeKeys.PREDICT:
            return EstimatorSpec(mode, predictions=predictions)
        weights = _weights(features, self._weight_column)
        unreduced, processed_labels = self._unreduced_loss(logits, labels)
        loss = _reduce(unreduced, weights, self._loss_reduction)
        if mode == ModeKeys.EVAL:
            metrics = self._metrics(processed_labels, predictions, unreduced, weights)
            return EstimatorSpec(mode, predictions=predictions, loss=loss,
                                 eval_metric_ops=metrics)
        tf.summary.scalar("average_loss",
                          _reduce(unreduced, weights, tf.losses.Reduction.MEAN))
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            train_op = train_op_fn(loss)
        return EstimatorSpec(mode, predictions=predictions, loss=loss, train_op=train_op)


class _ClassificationHead(_Head):

    def __init__(self, n_classes, weight_column, label_vocabulary, loss_reduction):
        if n_classes is None or n_classes < 2:
            raise ValueError("n_classes must be > 1 for classification: %s" % n_classes)
        if label_vocabulary is not None:
            if not isinstance(label_vocabulary, (list, tuple)):
                raise ValueError("label_vocabulary should be a list or a tuple. Given type: "
                                 "{}".format(type(label_vocabulary)))
            if len(label_vocabulary) != n_classes:
                raise ValueError("Length of label_vocabulary ({}) must equal n_classes ({})."
                                 .format(len(label_vocabulary), n_classes))
        self._n_classes, self._weight_column = n_classes, weight_column
        self._label_vocabulary, self._loss_reduction = label_vocabulary, loss_reduction
        self.logits_dimension = 1 if n_classes == 2 else n_classes

    def _class_names(self):
        import tfteach as tf
        names = self._label_vocabulary or [str(i) for i in range(self._n_classes)]
        return tf.constant([n.encode() if isinstance(n, str) else n for n in names])

    def _predictions(self, logits):
        import tfteach as tf
        if self._n_classes == 2:
            logistic = tf.sigmoid(logits, name="logistic")
            probabilities = tf.concat([1.0 - logistic, logistic], 1, name="probabilities")
            two_class_logits = tf.concat([tf.zeros_like(logits), logits], 1)
            class_ids = tf.expand_dims(tf.argmax(two_class_logits, 1), -1, name="class_ids")
        else:
            probabilities = tf.nn.softmax(logits, name="probabilities")
            class_ids = tf.expand_dims(tf.argmax(logits, 1), -1, name="class_ids")
        batch = tf.shape(logits)[:1]
        all_class_ids = tf.tile(tf.expand_dims(tf.range(self._n_classes), 0),
                                tf.concat([batch, [1]], 0), name="all_class_ids")
        predictions = {"logits": logits, "probabilities": probabilities,
                       "class_ids": class_ids,
                       "classes": tf.gather(self._class_names(), class_ids, name="classes"),
                       "all_class_ids": all_class_ids,
                       "all_classes": tf.gather(self._class_names(), all_class_ids,
                                                name="all_classes")}
        if self._n_classes == 2:
            predictions["logistic"] = logistic
        return predictions

    def _unreduced_loss(self, logits, labels):
        import tfteach as tf
        ids = _labels_as_ids(labels, self._n_classes, self._label_vocabulary)
        if self._n_classes == 2:
            loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.cast(ids, tf.float32),
                                                           logits=logits)
        else:
            loss = tf.expand_dims(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=tf.reshape(ids, [-1]), logits=logits), -1)
        return loss, ids

    def _metrics(self, labels, predictions, unreduced, weights):
        import tfteach as tf
        weights = None if isinstance(weights, float) else weights
        metrics = {
            "accuracy": tf.metrics.accuracy(labels, predictions["class_ids"], weights,
                                            name="accuracy"),
            "average_loss": tf.metrics.mean(unreduced, weights, name="average_loss")}
        if self._n_classes == 2:
            float_labels = tf.cast(labels, tf.float32)
            label_mean = tf.metrics.mean(float_labels, weights, name="label/mean")
            metrics.update({
                "precision": tf.metrics.precision(labels, predictions["class_ids"], weights,
                                                  name="precision"),
                "recall": tf.metrics.recall(labels, predictions["class_ids"], weights,
                                            name="recall"),
                "prediction/mean": tf.metrics.mean(predictions["logistic"], weights,
                                                   name="prediction/mean"),
                "label/mean": label_mean,
                "accuracy_baseline": tuple(tf.maximum(t, 1.0 - t) for t in label_mean),
                "auc": tf.metrics.auc(float_labels, predictions["logistic"], weights,
                                      curve="ROC", name="auc"),
                "auc_precision_recall": tf.metrics.auc(
                    float_labels, predictions["logistic"], weights, curve="PR",
                    name="auc_precision_recall")})
        return metrics


class _RegressionHead(_Head):

    def __init__(self, label_dimension, weight_column, loss_reduction):
        if label_dimension < 1:
            raise ValueError("Invalid label_dimension %s." % label_dimension)
        self.logits_dimension = label_dimension
        self._weight_column, self._loss_reduction = weight_column, loss_reduction

    def _predictions(self, logits):
        return {"predictions": logits}

    def _unreduced_loss(self, logits, labels):
        import tfteach as tf
        labels = tf.cast(tf.convert_to_tensor(labels), tf.float32)
        labels = tf.reshape(labels, [-1, self.logits_dimension])
        return tf.squared_difference(labels, logits), labels

    def _metrics(self, labels, predictions, unreduced, weights):
        import tfteach as tf
        weights = None if isinstance(weights, float) else weights
        return {"average_loss": tf.metrics.mean(unreduced, weights, name="average_loss"),
                "prediction/mean": tf.metrics.mean(predictions["predictions"], weights,
                                                   name="prediction/mean"),
                "label/mean": tf.metrics.mean(labels, weights, name="label/mean")}


def binary_or_multi_class_head(n_classes, weight_column, label_vocabulary, loss_reduction):
    return _ClassificationHead(n_classes, weight_column, label_vocabulary, loss_reduction)


def regression_head(label_dimension, weight_column, loss_reduction):
    return _RegressionHead(label_dimension, weight_column, loss_reduction)
