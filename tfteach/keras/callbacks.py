"""`tf.keras.callbacks`: objects `fit` calls at the start/end of training, epochs and
batches. `fit` always adds History (returned) and, when verbose, ProgbarLogger last.

Logs passed to `on_epoch_end` hold the epoch's mean 'loss' and metrics and, with
validation, 'val_loss' and 'val_<metric>'.
"""
import os
import warnings

import numpy as np

from tfteach.keras.utils.progbar import Progbar

__all__ = ["Callback", "History", "ProgbarLogger", "EarlyStopping", "ModelCheckpoint",
           "LambdaCallback", "CallbackList"]


class Callback:
    def __init__(self):
        self.model = None
        self.params = {}
        self.validation_data = None

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_train_begin(self, logs=None): pass
    def on_train_end(self, logs=None): pass
    def on_epoch_begin(self, epoch, logs=None): pass
    def on_epoch_end(self, epoch, logs=None): pass
    def on_batch_begin(self, batch, logs=None): pass
    def on_batch_end(self, batch, logs=None): pass
    def on_test_begin(self, logs=None): pass
    def on_test_end(self, logs=None): pass
    def on_predict_begin(self, logs=None): pass
    def on_predict_end(self, logs=None): pass

    # TF 1.15's names for the batch hooks during training call the old ones.
    def on_train_batch_begin(self, batch, logs=None):
        self.on_batch_begin(batch, logs)

    def on_train_batch_end(self, batch, logs=None):
        self.on_batch_end(batch, logs)


class CallbackList:
    def __init__(self, callbacks, model, params):
        self.callbacks = list(callbacks)
        for callback in self.callbacks:
            callback.set_model(model)
            callback.set_params(params)

    def call(self, hook, *args):
        for callback in self.callbacks:
            getattr(callback, hook)(*args)


class History(Callback):
    """`history.history['loss']`: one value per epoch, for every logged quantity."""

    def on_train_begin(self, logs=None):
        self.epoch = []
        self.history = {}

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)


class ProgbarLogger(Callback):
    """'Epoch 1/5' and Keras' progress bar (in a notebook it updates in place)."""

    def __init__(self, count_mode="samples", stateful_metrics=None):
        super().__init__()
        self.count_mode = count_mode          # "samples" or "steps": the bar's unit
        self.stateful_metrics = set(stateful_metrics or [])

    def on_train_begin(self, logs=None):
        self.verbose = self.params["verbose"]
        self.epochs = self.params["epochs"]

    def on_epoch_begin(self, epoch, logs=None):
        self.seen = 0
        if self.verbose:
            print("Epoch %d/%d" % (epoch + 1, self.epochs))
            self.progbar = Progbar(target=self.params["samples"], verbose=self.verbose,
                                   stateful_metrics=self.stateful_metrics,
                                   unit_name=self.count_mode[:-1])

    def on_batch_end(self, batch, logs=None):
        logs = logs or {}
        self.seen += logs.get("size", 0)
        self.log_values = [(k, logs[k]) for k in self.params["metrics"] if k in logs]
        if self.verbose and self.seen < self.params["samples"]:
            self.progbar.update(self.seen, self.log_values)

    def on_epoch_end(self, epoch, logs=None):
        # The last batch's values, then the validation results of the epoch's logs.
        logs = logs or {}
        values = list(getattr(self, "log_values", []))
        values += [(k, logs[k]) for k in self.params["metrics"]
                   if k.startswith("val_") and k in logs]
        if self.verbose:
            self.progbar.update(self.seen, values)


def _monitor_op(mode, monitor):
    if mode not in ("auto", "min", "max"):
        warnings.warn("mode %s is unknown, fallback to auto mode." % mode, RuntimeWarning)
        mode = "auto"
    if mode == "max" or (mode == "auto" and ("acc" in monitor
                                             or monitor.startswith("fmeasure"))):
        return np.greater
    return np.less


class EarlyStopping(Callback):
    """Stop when `monitor` has not improved by `min_delta` for `patience` epochs."""

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0,
                 mode="auto", baseline=None, restore_best_weights=False):
        super().__init__()
        self.monitor, self.patience, self.verbose = monitor, patience, verbose
        self.baseline, self.restore_best_weights = baseline, restore_best_weights
        self.monitor_op = _monitor_op(mode, monitor)
        self.min_delta = abs(min_delta) * (1 if self.monitor_op == np.greater else -1)
        self.stopped_epoch = 0

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = (self.baseline if self.baseline is not None else
                     (-np.inf if self.monitor_op == np.greater else np.inf))
        self.best_weights = None

    def on_epoch_end(self, epoch, logs=None):
        current = (logs or {}).get(self.monitor)
        if current is None:
            warnings.warn("Early stopping conditioned on metric `%s` which is not "
                          "available. Available metrics are: %s"
                          % (self.monitor, ",".join((logs or {}).keys())), RuntimeWarning)
            return
        if self.monitor_op(current - self.min_delta, self.best):
            self.best = current
            self.wait = 0
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = epoch
                self.model.stop_training = True
                if self.restore_best_weights and self.best_weights is not None:
                    if self.verbose > 0:
                        print("Restoring model weights from the end of the best epoch.")
                    self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print("Epoch %05d: early stopping" % (self.stopped_epoch + 1))


class ModelCheckpoint(Callback):
    """Save the model (or its weights) after each epoch, HDF5; `filepath` may hold
    `{epoch:02d}` and log names such as `{val_loss:.2f}`."""

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False,
                 save_weights_only=False, mode="auto", period=1, save_freq="epoch"):
        super().__init__()
        self.filepath, self.monitor, self.verbose = filepath, monitor, verbose
        self.save_best_only, self.save_weights_only = save_best_only, save_weights_only
        self.period = period
        self.monitor_op = _monitor_op(mode, monitor)
        self.best = -np.inf if self.monitor_op == np.greater else np.inf
        self.epochs_since_last_save = 0

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        self.epochs_since_last_save += 1
        if self.epochs_since_last_save < self.period:
            return
        self.epochs_since_last_save = 0
        filepath = self.filepath.format(epoch=epoch + 1, **logs)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                warnings.warn("Can save best model only with %s available, skipping."
                              % self.monitor, RuntimeWarning)
                return
            if not self.monitor_op(current, self.best):
                if self.verbose > 0:
                    print("\nEpoch %05d: %s did not improve from %0.5f"
                          % (epoch + 1, self.monitor, self.best))
                return
            if self.verbose > 0:
                print("\nEpoch %05d: %s improved from %0.5f to %0.5f, saving model to %s"
                      % (epoch + 1, self.monitor, self.best, current, filepath))
            self.best = current
        elif self.verbose > 0:
            print("\nEpoch %05d: saving model to %s" % (epoch + 1, filepath))
        directory = os.path.dirname(filepath)
        if directory:
            os.makedirs(directory, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(filepath, overwrite=True)
        else:
            self.model.save(filepath, overwrite=True)


class LambdaCallback(Callback):
    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_batch_begin=None,
                 on_batch_end=None, on_train_begin=None, on_train_end=None, **kwargs):
        super().__init__()
        for name, fn in (("on_epoch_begin", on_epoch_begin), ("on_epoch_end", on_epoch_end),
                         ("on_batch_begin", on_batch_begin), ("on_batch_end", on_batch_end),
                         ("on_train_begin", on_train_begin), ("on_train_end", on_train_end)):
            if fn is not None:
                setattr(self, name, fn)
