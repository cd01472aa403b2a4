"""Keras' steps when ops execute eagerly (`import tfteach.v2 as tf`, TF 2's way).

In graph mode (TF 1.15, the default) compile builds the loss and update ops once and
every step is a `sess.run`. Eagerly there is no graph: each training step runs the
model forward under a `GradientTape` with the learning phase True, takes the gradients
of the loss (plus the layers' regularization penalties) and lets the optimizer apply
them — the same Keras optimizers, whose assign ops now execute at once. Evaluation and
prediction run forward with the learning phase False. The numbers are the graph
mode's: the same kernels run, and a crossentropy of a softmax output computes from its
logits, as graph mode and TF's traced steps do (eager/producers.py).
"""
import contextlib

import numpy as np

import tfteach as tf
from tfteach.eager import producers
from tfteach.keras import backend, metrics as metrics_mod

__all__ = ["train_step", "test_step", "predict_step", "learning_phase_scope"]


@contextlib.contextmanager
def learning_phase_scope(value):
    previous = backend._EAGER_LEARNING_PHASE[0]
    backend._EAGER_LEARNING_PHASE[0] = bool(value)
    try:
        yield
    finally:
        backend._EAGER_LEARNING_PHASE[0] = previous


def _forward(model, inputs):
    arguments = [tf.convert_to_tensor(a) for a in inputs]
    outputs = model(arguments if len(arguments) > 1 else arguments[0])
    return outputs if isinstance(outputs, (list, tuple)) else [outputs]


def _loss_and_metrics(model, outputs, targets):
    total, metric_values = None, []
    for output, target, fn, weight in zip(outputs, targets, model._loss_functions,
                                          model._loss_weights or [1.] * len(outputs)):
        target = _like_output(tf.convert_to_tensor(target), output)
        loss = tf.reduce_mean(fn(target, output))
        total = weight * loss if total is None else total + weight * loss
        for metric in model._metric_spec:
            _, metric_fn = metrics_mod.resolve(metric, fn, output.shape)
            metric_values.append(tf.reduce_mean(metric_fn(target, output)))
    penalties = model.losses
    if penalties:
        total = total + tf.add_n([tf.cast(p, total.dtype) for p in penalties])
    return total, metric_values


def _like_output(target, output):
    """Labels (N,) for an output (N, 1) become (N, 1), as graph mode feeds them (and TF
    1.15 expands 1-D targets): a loss of (N,) and (N, 1) would broadcast to (N, N)."""
    rank = output.shape.ndims
    if rank is not None and target.shape.ndims == rank - 1 and \
            output.shape.as_list()[-1] == 1:
        return tf.expand_dims(target, -1)
    return target


def _numbers(total, metric_values):
    return [float(np.asarray(total))] + [float(np.asarray(m)) for m in metric_values]


def train_step(model, inputs, targets):
    with learning_phase_scope(True), producers.watching():
        with tf.GradientTape() as tape:
            outputs = _forward(model, inputs)
            total, metric_values = _loss_and_metrics(model, outputs, targets)
        params = model.trainable_weights
        grads = tape.gradient(total, params)
        if any(g is None for g in grads):
            raise ValueError("An operation has `None` for gradient: a trainable weight "
                             "does not reach the loss (%s)."
                             % [p.name for p, g in zip(params, grads) if g is None])
        model.optimizer.apply_gradients(zip(model.optimizer.clip(grads), params))
    return _numbers(total, metric_values)


def test_step(model, inputs, targets):
    with learning_phase_scope(False), producers.watching():
        outputs = _forward(model, inputs)
        return _numbers(*_loss_and_metrics(model, outputs, targets))


def predict_step(model, inputs):
    with learning_phase_scope(False):
        return [np.asarray(o) for o in _forward(model, inputs)]
