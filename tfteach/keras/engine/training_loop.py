"""The epoch loop shared by `fit` (NumPy arrays) and `fit_generator` (batches from a
generator such as ImageDataGenerator.flow): callbacks, the progress bar, validation.

An epoch is a sequence of batches `(inputs, targets)`; each runs the training step
(`sess.run` of the loss, the metrics and the update ops with the learning phase True).
The epoch's logs hold the sample-weighted means of the loss and metrics over its
batches (what TF 1.15's averaged loss and stateful metrics report), then the
validation results as `val_<name>`.
"""
import numpy as np

from tfteach.keras import backend, callbacks as cbks

__all__ = ["fit_loop"]


def fit_loop(model, epoch_batches, epochs, target, unit, verbose, callbacks, validate,
             initial_epoch=0, validation_freq=1, extra_info=None, loss_per_step=False,
             batch_size=None):
    """`epoch_batches(epoch)` yields (inputs, targets) lists; `target` is the number of
    samples (unit 'sample') or steps (unit 'step') of an epoch; `validate()` returns
    the validation means or None. `loss_per_step`: the epoch's loss is the mean of the
    batches' losses (TF 1.15's graph loop over a Dataset), not a mean per sample."""
    names = list(model.metrics_names)
    if not backend.executing_eagerly():
        model._train_ops()
        backend.get_session()     # initializes the optimizer's new variables
    model.history = cbks.History()
    callback_list = [cbks.Callback()] + list(callbacks or []) + [model.history]
    if verbose:
        callback_list.append(cbks.ProgbarLogger(count_mode=unit + "s",
                                                stateful_metrics=names[1:]))
    shown = names + (["val_" + n for n in names] if validate is not None else [])
    # TF 1.15's callback params (a Dataset's or generator's batch_size is None).
    callback_list = cbks.CallbackList(callback_list, model, {
        "batch_size": batch_size, "epochs": epochs,
        "steps": target if unit == "step" else None, "samples": target, "verbose": verbose,
        "do_validation": validate is not None, "metrics": shown})
    if verbose and extra_info:
        print(extra_info)
    model.stop_training = False
    callback_list.call("on_train_begin", {})
    for epoch in range(initial_epoch, epochs):
        callback_list.call("on_epoch_begin", epoch, {})
        totals, seen, step_losses = np.zeros(len(names)), 0, []
        for index, (inputs, targets) in enumerate(epoch_batches(epoch)):
            size = len(inputs[0])
            callback_list.call("on_train_batch_begin", index, {"batch": index,
                                                               "size": size})
            values = np.asarray(model._train_step(inputs, targets), dtype=np.float64)
            totals += values * size
            seen += size
            step_losses.append(values[0])
            # metrics are shown as running means over the epoch (TF 1.15's stateful
            # metrics); the progress bar averages the loss itself.
            logs = {"batch": index, "size": size if unit == "sample" else 1,
                    names[0]: float(values[0])}
            logs.update({n: float(v) for n, v in zip(names[1:], totals[1:] / seen)})
            callback_list.call("on_train_batch_end", index, logs)
            if model.stop_training:
                break
        logs = {n: float(v) for n, v in zip(names, totals / max(seen, 1))}
        if loss_per_step and step_losses:
            # (its metrics are stateful: per sample, as here)
            logs[names[0]] = float(np.mean(step_losses))
        if validate is not None and (epoch + 1) % validation_freq == 0:
            logs.update({"val_" + n: float(v) for n, v in zip(names, validate())})
        callback_list.call("on_epoch_end", epoch, logs)
        if model.stop_training:
            break
    callback_list.call("on_train_end", {})
    return model.history
