"""`DNNClassifier` and `DNNRegressor` (TF 1.15): a feed-forward network over feature columns.

Variables as TF names them: `dnn/input_from_feature_columns/input_layer/...` (embeddings),
`dnn/hiddenlayer_<i>/kernel|bias` (Glorot-uniform kernels, zero biases, ReLU by default),
`dnn/logits/kernel|bias`. Default optimizer Adagrad with learning rate 0.05; `dropout`
drops each hidden unit with that probability in training only. Each hidden layer gets
TF's summaries `<layer>/fraction_of_zero_values` and `<layer>/activation`.
"""
from tfteach.estimator.canned import head as head_lib
from tfteach.estimator.canned import optimizers
from tfteach.estimator.estimator import Estimator
from tfteach.estimator.model_fn import ModeKeys

__all__ = ["DNNClassifier", "DNNRegressor"]

_LEARNING_RATE = 0.05


def _add_hidden_layer_summary(value, tag):
    import tfteach as tf
    zero_fraction = tf.reduce_mean(tf.cast(tf.equal(value, 0.0), tf.float32),
                                   name="zero_fraction")
    tf.summary.scalar("%s/fraction_of_zero_values" % tag, zero_fraction)
    tf.summary.histogram("%s/activation" % tag, value)


def dnn_logits(features, mode, hidden_units, feature_columns, units, activation_fn,
               dropout, batch_norm):
    import tfteach as tf
    from tfteach.feature_column import input_layer
    with tf.variable_scope("input_from_feature_columns"):
        net = input_layer(features, feature_columns)
    for layer_id, num_hidden_units in enumerate(hidden_units):
        with tf.variable_scope("hiddenlayer_%d" % layer_id) as scope:
            net = tf.layers.dense(net, units=num_hidden_units, activation=activation_fn,
                                  kernel_initializer=tf.glorot_uniform_initializer(),
                                  name=scope)
            if dropout is not None and mode == ModeKeys.TRAIN:
                net = tf.layers.dropout(net, rate=dropout, training=True)
            if batch_norm:
                net = tf.layers.batch_normalization(net, momentum=0.999,
                                                    training=mode == ModeKeys.TRAIN,
                                                    name="batchnorm_%d" % layer_id)
        _add_hidden_layer_summary(net, scope.name)
    with tf.variable_scope("logits") as scope:
        logits = tf.layers.dense(net, units=units, activation=None,
                                 kernel_initializer=tf.glorot_uniform_initializer(),
                                 name=scope)
    _add_hidden_layer_summary(logits, scope.name)
    return logits


def _dnn_model_fn(features, labels, mode, head, hidden_units, feature_columns, optimizer,
                  activation_fn, dropout, batch_norm):
    import tfteach as tf
    if not isinstance(features, dict):
        raise ValueError("features should be a dictionary of `Tensor`s. Given type: {}"
                         .format(type(features)))
    optimizer = optimizers.get_optimizer_instance(optimizer, learning_rate=_LEARNING_RATE)
    with tf.variable_scope("dnn", values=tuple(features.values())):
        logits = dnn_logits(features, mode, hidden_units, feature_columns,
                            head.logits_dimension, activation_fn, dropout, batch_norm)

    def train_op_fn(loss):
        return optimizer.minimize(loss, global_step=tf.train.get_global_step())
    return head.create_estimator_spec(features, mode, logits, labels, train_op_fn)


class _DNNEstimator(Estimator):

    def __init__(self, head, hidden_units, feature_columns, model_dir, optimizer,
                 activation_fn, dropout, config, warm_start_from, batch_norm):
        import tfteach as tf
        activation_fn = tf.nn.relu if activation_fn is None else activation_fn
        feature_columns = tuple(feature_columns or ())
        hidden_units = tuple(hidden_units)

        def model_fn(features, labels, mode, config):
            return _dnn_model_fn(features, labels, mode, head, hidden_units, feature_columns,
                                 optimizer, activation_fn, dropout, batch_norm)
        super().__init__(model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class DNNClassifier(_DNNEstimator):
    """A classifier for TensorFlow DNN models (TF 1.15's arguments and defaults)."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, n_classes=2,
                 weight_column=None, label_vocabulary=None, optimizer="Adagrad",
                 activation_fn=None, dropout=None, input_layer_partitioner=None,
                 config=None, warm_start_from=None, loss_reduction="weighted_sum",
                 batch_norm=False):
        head = head_lib.binary_or_multi_class_head(n_classes, weight_column,
                                                   label_vocabulary, loss_reduction)
        super().__init__(head, hidden_units, feature_columns, model_dir, optimizer,
                         activation_fn, dropout, config, warm_start_from, batch_norm)


class DNNRegressor(_DNNEstimator):
    """A regressor for TensorFlow DNN models (TF 1.15's arguments and defaults)."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, label_dimension=1,
                 weight_column=None, optimizer="Adagrad", activation_fn=None, dropout=None,
                 input_layer_partitioner=None, config=None, warm_start_from=None,
                 loss_reduction="weighted_sum", batch_norm=False):
        head = head_lib.regression_head(label_dimension, weight_column, loss_reduction)
        super().__init__(head, hidden_units, feature_columns, model_dir, optimizer,
                         activation_fn, dropout, config, warm_start_from, batch_norm)
