"""What `compile` builds: the per-output losses, the metrics and (at the first training
step) the optimizer's update ops.

In graph mode (TF 1.15) they are graph nodes made once: a target placeholder per output
(`dense_1_target`; unknown rank for sparse labels), the loss under `loss/<output>_loss`
(the batch mean of the per-sample loss, times its loss weight, plus the layers'
regularization losses), the metrics under `metrics/`, and under `training/` the
optimizer's updates followed by the layers' own (BatchNormalization's moving
averages). Eagerly nothing is built; only the functions and names are kept.
"""
import tfteach as tf
from tfteach.keras import losses, metrics as metrics_mod

__all__ = ["prepare_eager", "resolve_losses", "build_training_graph", "train_ops"]


def prepare_eager(model):
    """Eagerly nothing is built: the losses and metric names are kept for the steps."""
    count = max(len(model.outputs), 1)
    model._loss_functions = resolve_losses(model, count)
    model.metrics_names = ["loss"]
    for fn in model._loss_functions[:1]:
        model.metrics_names += [metrics_mod.resolve(m, fn)[0] for m in model._metric_spec]
    model._target_is_sparse = [getattr(fn, "__name__", "") ==
                               "sparse_categorical_crossentropy"
                               for fn in model._loss_functions]


def resolve_losses(model, count):
    spec = model._loss_spec
    if isinstance(spec, dict):
        spec = [spec.get(name) for name in model.output_names]
    if not isinstance(spec, (list, tuple)):
        spec = [spec] * count
    if len(spec) != count:
        raise ValueError("When passing a list as loss, it should have one entry per "
                         "model outputs. The model has %d outputs, but you passed "
                         "loss=%s" % (count, model._loss_spec))
    return [losses.get(s) for s in spec]


def build_training_graph(model):
    loss_fns = resolve_losses(model, len(model.outputs))
    model._loss_functions = loss_fns
    weights = model._loss_weights or [1.] * len(model.outputs)
    model.targets, model.metrics_names, metric_tensors = [], ["loss"], []
    output_losses, model._target_is_sparse = [], []
    multi = len(model.outputs) > 1
    with tf.name_scope(None):
        for output, name, fn, weight in zip(model.outputs, model.output_names,
                                            loss_fns, weights):
            sparse = getattr(fn, "__name__", "") == "sparse_categorical_crossentropy"
            model._target_is_sparse.append(sparse)
            shape = None if sparse else [None] * output.get_shape().ndims
            target = tf.placeholder(output.dtype.base_dtype, shape=shape,
                                    name=name + "_target")
            model.targets.append(target)
            with tf.name_scope("loss"), tf.name_scope(name + "_loss"):
                output_loss = tf.reduce_mean(fn(target, output))
            output_losses.append(weight * output_loss if weight != 1 else output_loss)
            if multi:
                model.metrics_names.append(name + "_loss")
                metric_tensors.append(output_loss)
            with tf.name_scope("metrics"):
                for metric in model._metric_spec:
                    metric_name, metric_fn = metrics_mod.resolve(metric, fn,
                                                                 output.get_shape())
                    metric_tensors.append(tf.reduce_mean(metric_fn(target, output)))
                    model.metrics_names.append(name + "_" + metric_name if multi
                                              else metric_name)
        with tf.name_scope("loss"):
            total = output_losses[0] if len(output_losses) == 1 else \
                tf.add_n(output_losses)
            if model.losses:
                total = total + tf.add_n([tf.cast(l, total.dtype)
                                          for l in model.losses])
        model.total_loss = total
    model._metric_tensors = metric_tensors
    model._train_updates = None


def train_ops(model):
    if model._train_updates is None:
        with tf.name_scope(None), tf.name_scope("training"):
            updates = model.optimizer.get_updates(model.total_loss,
                                                 model.trainable_weights)
        model._train_updates = updates + model.updates
    return model._train_updates
