"""`LinearClassifier` and `LinearRegressor` (TF 1.15): a linear model over feature columns.

Variables as TF names them: `linear/linear_model/<column>/weights` and
`linear/linear_model/bias_weights`, all zeros at the start. Default optimizer FTRL with
learning rate min(0.2, 1/sqrt(number of feature columns)), as TF 1.15.
"""
import math

from tfteach.estimator.canned import head as head_lib
from tfteach.estimator.canned import optimizers
from tfteach.estimator.estimator import Estimator

__all__ = ["LinearClassifier", "LinearRegressor"]

_LEARNING_RATE = 0.2


def _optimizer(optimizer, feature_columns):
    import tfteach as tf
    if optimizer == "Ftrl":
        return tf.train.FtrlOptimizer(
            learning_rate=min(_LEARNING_RATE, 1.0 / math.sqrt(len(feature_columns))))
    return optimizers.get_optimizer_instance(optimizer, learning_rate=_LEARNING_RATE)


class _LinearEstimator(Estimator):

    def __init__(self, head, feature_columns, model_dir, optimizer, config, warm_start_from,
                 sparse_combiner):
        import tfteach as tf
        from tfteach.feature_column import linear_model
        feature_columns = tuple(feature_columns or ())

        def model_fn(features, labels, mode, config):
            if not isinstance(features, dict):
                raise ValueError("features should be a dictionary of `Tensor`s. Given type: "
                                 "{}".format(type(features)))
            opt = _optimizer(optimizer, feature_columns)
            with tf.variable_scope("linear", values=tuple(features.values())):
                logits = linear_model(features, feature_columns, units=head.logits_dimension,
                                      sparse_combiner=sparse_combiner)

            def train_op_fn(loss):
                return opt.minimize(loss, global_step=tf.train.get_global_step())
            return head.create_estimator_spec(features, mode, logits, labels, train_op_fn)
        super().__init__(model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class LinearClassifier(_LinearEstimator):
    """Linear classifier model (TF 1.15's arguments and defaults)."""

    def __init__(self, feature_columns, model_dir=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, optimizer="Ftrl", config=None, partitioner=None,
                 warm_start_from=None, loss_reduction="weighted_sum", sparse_combiner="sum"):
        head = head_lib.binary_or_multi_class_head(n_classes, weight_column,
                                                   label_vocabulary, loss_reduction)
        super().__init__(head, feature_columns, model_dir, optimizer, config,
                         warm_start_from, sparse_combiner)


class LinearRegressor(_LinearEstimator):
    """Linear regressor model (TF 1.15's arguments and defaults)."""

    def __init__(self, feature_columns, model_dir=None, label_dimension=1, weight_column=None,
                 optimizer="Ftrl", config=None, partitioner=None, warm_start_from=None,
                 loss_reduction="weighted_sum", sparse_combiner="sum"):
        head = head_lib.regression_head(label_dimension, weight_column, loss_reduction)
        super().__init__(head, feature_columns, model_dir, optimizer, config,
                         warm_start_from, sparse_combiner)
