"""`tf.estimator.ModeKeys` and `tf.estimator.EstimatorSpec`: what a model_fn returns.

A model_fn builds the model for one mode and returns an EstimatorSpec saying what the
Estimator should run: `train_op` and `loss` to train, `loss` and `eval_metric_ops` (name
-> (value, update_op) pairs from tf.metrics) to evaluate, `predictions` to predict. The
checks and their messages are TF 1.15's.
"""
import collections

from tfteach.framework import graph as graph_lib
from tfteach.framework.operation import Operation
from tfteach.framework.tensor import Tensor

__all__ = ["ModeKeys", "EstimatorSpec"]


class ModeKeys:
    """The three modes a model_fn is called in."""
    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"


def _check_is_tensor_or_operation(x, name):
    if not isinstance(x, (Tensor, Operation)) and not hasattr(x, "op"):
        raise TypeError("{} must be Operation or Tensor, given: {}".format(name, x))


def _check_is_tensor(x, name):
    if not isinstance(x, Tensor) and not hasattr(x, "_as_graph_element"):
        raise TypeError("{} must be Tensor, given: {}".format(name, x))


def _as_tensor(x):
    """A Variable given where a Tensor is expected stands for its value."""
    return x.value() if not isinstance(x, (Tensor, Operation)) and hasattr(x, "value") else x


def _validate_train_op(train_op, mode):
    if train_op is None:
        if mode == ModeKeys.TRAIN:
            raise ValueError("Missing train_op.")
        return None
    _check_is_tensor_or_operation(train_op, "train_op")
    return train_op


def _validate_loss(loss, mode):
    if loss is None:
        if mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
            raise ValueError("Missing loss.")
        return None
    loss = _as_tensor(loss)
    _check_is_tensor(loss, "loss")
    shape = loss.get_shape()
    if shape.ndims is not None and shape.num_elements() != 1:
        raise ValueError("Loss must be scalar, given: {}".format(loss))
    if shape.ndims not in (None, 0):
        from tfteach.ops.array_ops import reshape
        loss = reshape(loss, [])
    return loss


def _validate_predictions(predictions, mode):
    if predictions is None:
        if mode == ModeKeys.PREDICT:
            raise ValueError("Missing predictions.")
        return {}
    if isinstance(predictions, dict):
        predictions = {k: _as_tensor(v) for k, v in predictions.items()}
        for key, value in predictions.items():
            _check_is_tensor(value, "predictions[{}]".format(key))
        return predictions
    predictions = _as_tensor(predictions)
    _check_is_tensor(predictions, "predictions")
    return predictions


def _validate_eval_metric_ops(eval_metric_ops):
    if eval_metric_ops is None:
        return {}
    if not isinstance(eval_metric_ops, dict):
        raise TypeError("eval_metric_ops must be a dict, given: {}".format(eval_metric_ops))
    for key, value in eval_metric_ops.items():
        if not isinstance(value, tuple) or len(value) != 2:
            raise TypeError("Values of eval_metric_ops must be (metric_value, update_op) "
                            "tuples, given: {} for key: {}".format(value, key))
        for part in value:
            _check_is_tensor_or_operation(part, "eval_metric_ops[{}]".format(key))
    return eval_metric_ops


def _check_default_graph(named_values):
    graph = graph_lib.get_default_graph()
    for name, value in named_values:
        if value is not None and getattr(value, "graph", graph) is not graph:
            raise ValueError("{} must be from the default graph.".format(name))


class EstimatorSpec(collections.namedtuple("EstimatorSpec", [
        "mode", "predictions", "loss", "train_op", "eval_metric_ops", "export_outputs",
        "training_chief_hooks", "training_hooks", "scaffold", "evaluation_hooks",
        "prediction_hooks"])):
    """Ops and objects returned from a model_fn and passed to an Estimator."""

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metric_ops=None,
                export_outputs=None, training_chief_hooks=None, training_hooks=None,
                scaffold=None, evaluation_hooks=None, prediction_hooks=None):
        if mode not in (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT):
            raise ValueError("mode={} unrecognized.".format(mode))
        train_op = _validate_train_op(train_op, mode)
        loss = _validate_loss(loss, mode)
        predictions = _validate_predictions(predictions, mode)
        eval_metric_ops = _validate_eval_metric_ops(eval_metric_ops)
        _check_default_graph([("loss", loss), ("train_op", train_op)] + (
            [("prediction values", v) for v in predictions.values()]
            if isinstance(predictions, dict) else [("prediction values", predictions)]))
        hooks = []
        for hook_list in (training_chief_hooks, training_hooks, evaluation_hooks,
                          prediction_hooks):
            hook_list = tuple(hook_list or [])
            from tfteach.train.session_run_hook import SessionRunHook
            for hook in hook_list:
                if not isinstance(hook, SessionRunHook):
                    raise TypeError("All hooks must be SessionRunHook instances, given: {}"
                                    .format(hook))
            hooks.append(hook_list)
        # export_outputs are accepted (for SavedModel export, which tfteach does not build).
        return super().__new__(cls, mode, predictions, loss, train_op, eval_metric_ops,
                               export_outputs, hooks[0], hooks[1], scaffold, hooks[2],
                               hooks[3])
