"""`tf.keras.callbacks`: objects `fit` calls at the start/end of training, epochs and
batches. `fit` always adds History (returned) and, when verbose, ProgbarLogger last.

Logs passed to `on_epoch_end` hold the epoch's mean 'loss' and metrics and, with
validation, 'val_loss' and 'val_<metric>'.
"""
import collections
import csv
import os
import warnings

import numpy as np

from tfteach.keras import backend
from tfteach.keras.utils.progbar import Progbar

__all__ = ["Callback", "History", "ProgbarLogger", "EarlyStopping", "ModelCheckpoint",
           "LambdaCallback", "LearningRateScheduler", "ReduceLROnPlateau", "CSVLogger",
           "TerminateOnNaN", "CallbackList"]


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


class LearningRateScheduler(Callback):
    """At each epoch's start, `optimizer.lr = schedule(epoch, lr)` (or `schedule(epoch)`,
    Keras' older form); the epoch's logs get 'lr' (TF 1.15's callback)."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch, logs=None):
        if not hasattr(self.model.optimizer, "lr"):
            raise ValueError('Optimizer must have a "lr" attribute.')
        try:  # new API
            lr = float(backend.get_value(self.model.optimizer.lr))
            lr = self.schedule(epoch, lr)
        except TypeError:  # the old API: schedule(epoch)
            lr = self.schedule(epoch)
        if not isinstance(lr, (float, np.float32, np.float64)):
            raise ValueError('The output of the "schedule" function should be float.')
        backend.set_value(self.model.optimizer.lr, lr)
        if self.verbose > 0:
            print("\nEpoch %05d: LearningRateScheduler reducing learning rate to %s."
                  % (epoch + 1, lr))

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["lr"] = backend.get_value(self.model.optimizer.lr)


class ReduceLROnPlateau(Callback):
    """Multiply the learning rate by `factor` when `monitor` has not improved by
    `min_delta` for `patience` epochs, then wait `cooldown` epochs (TF 1.15's)."""

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0,
                 mode="auto", min_delta=1e-4, cooldown=0, min_lr=0, **kwargs):
        super().__init__()
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        if "epsilon" in kwargs:
            min_delta = kwargs.pop("epsilon")
            warnings.warn("`epsilon` argument is deprecated and will be removed, use "
                          "`min_delta` instead.")
        self.monitor, self.factor, self.min_lr = monitor, factor, min_lr
        self.min_delta, self.patience, self.verbose = min_delta, patience, verbose
        self.cooldown, self.mode = cooldown, mode
        self._reset()

    def _reset(self):
        if self.mode not in ("auto", "min", "max"):
            warnings.warn("Learning Rate Plateau Reducing mode %s is unknown, fallback to "
                          "auto mode." % self.mode)
            self.mode = "auto"
        if self.mode == "min" or (self.mode == "auto" and "acc" not in self.monitor):
            self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
            self.best = np.inf
        else:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
            self.best = -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def in_cooldown(self):
        return self.cooldown_counter > 0

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        logs["lr"] = backend.get_value(self.model.optimizer.lr)
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn("Reduce LR on plateau conditioned on metric `%s` which is not "
                          "available. Available metrics are: %s"
                          % (self.monitor, ",".join(logs.keys())))
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = float(backend.get_value(self.model.optimizer.lr))
                if old_lr > self.min_lr:
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    backend.set_value(self.model.optimizer.lr, new_lr)
                    if self.verbose > 0:
                        print("\nEpoch %05d: ReduceLROnPlateau reducing learning rate to "
                              "%s." % (epoch + 1, new_lr))
                    self.cooldown_counter = self.cooldown
                    self.wait = 0


class CSVLogger(Callback):
    """One CSV row per epoch: 'epoch', then the logs' keys in sorted order."""

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.sep, self.filename, self.append = separator, filename, append
        self.writer = self.keys = None
        self.append_header = True

    def on_train_begin(self, logs=None):
        mode = "w"
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename) as f:
                    self.append_header = not bool(len(f.readline()))
            mode = "a"
        self.csv_file = open(self.filename, mode, newline="\n")

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}

        def handle_value(k):
            if isinstance(k, str):
                return k
            if isinstance(k, collections.abc.Iterable) and not (
                    isinstance(k, np.ndarray) and k.ndim == 0):
                return '"[%s]"' % ", ".join(map(str, k))
            return k
        if self.keys is None:
            self.keys = sorted(logs.keys())
        if self.model.stop_training:
            # NA for what the last epoch lacks, so that CSV readers do not fail
            logs = dict((k, logs[k]) if k in logs else (k, "NA") for k in self.keys)
        if not self.writer:
            class CustomDialect(csv.excel):
                delimiter = self.sep
            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + self.keys,
                                         dialect=CustomDialect)
            if self.append_header:
                self.writer.writeheader()
        row = collections.OrderedDict({"epoch": epoch})
        row.update((key, handle_value(logs[key])) for key in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        self.csv_file.close()
        self.writer = None


class TerminateOnNaN(Callback):
    """Stop training at a batch whose loss is NaN or infinite."""

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and (np.isnan(loss) or np.isinf(loss)):
            print("Batch %d: Invalid loss, terminating training" % batch)
            self.model.stop_training = True
