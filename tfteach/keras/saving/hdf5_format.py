"""Keras 2's HDF5 layout, so files move between tfteach and tf.keras/tf-keras.

    save_weights(path)            root attrs: layer_names, backend, keras_version
                                  /<layer>/  attr weight_names = [b'dense/kernel:0', ...]
                                  /<layer>/<weight name>  one dataset per weight
    save(path) / save_model       root attrs: keras_version, backend,
                                  model_config (JSON: class_name + config),
                                  training_config (JSON: loss, metrics, optimizer_config)
                                  /model_weights/  the save_weights layout

                                  /optimizer_weights/  the step counter and slots
                                  (Adam: iter, every m, every v), attr weight_names

Weights are matched by layer order (layers that have weights), or by layer name with
`by_name=True`, as Keras does. `load_model` compiles the model again and restores the
optimizer's state, so training goes on where it stopped.
"""
import json
import os
import warnings

import numpy as np

from tfteach.keras import backend

__all__ = ["save_weights", "load_weights", "save_model", "load_model"]

KERAS_VERSION = b"2.2.4-tf"      # what TF 1.15's tf.keras writes
HEADER_LIMIT = 64512             # HDF5's object header: big attrs are split in chunks


def _h5py():
    try:
        import h5py
    except ImportError as error:
        raise ImportError("`save_weights`/`save` need h5py: pip install h5py") from error
    return h5py


def _save_attr(group, name, values):
    values = np.asarray(values)
    chunks = max(1, int(np.ceil(values.nbytes / HEADER_LIMIT)))
    if chunks == 1:
        group.attrs[name] = values
        return
    for index, part in enumerate(np.array_split(values, chunks)):
        group.attrs["%s%d" % (name, index)] = part


def _load_attr(group, name):
    if name in group.attrs:
        values = list(group.attrs[name])
    else:
        values, index = [], 0
        while "%s%d" % (name, index) in group.attrs:
            values.extend(group.attrs["%s%d" % (name, index)])
            index += 1
    return [v.decode("utf8") if hasattr(v, "decode") else str(v) for v in values]


def _write_weights(group, layers):
    _save_attr(group, "layer_names", [layer.name.encode("utf8") for layer in layers])
    group.attrs["backend"] = b"tensorflow"
    group.attrs["keras_version"] = KERAS_VERSION
    for layer in layers:
        layer_group = group.create_group(layer.name)
        weights = layer.weights
        values = backend.batch_get_value(weights)
        names = [w.name.encode("utf8") for w in weights]
        _save_attr(layer_group, "weight_names", names)
        for name, value in zip(names, values):
            dataset = layer_group.create_dataset(name.decode("utf8"), value.shape,
                                                 dtype=value.dtype)
            dataset[()] = value


def _read_weights(group, layers, by_name=False):
    names = _load_attr(group, "layer_names")
    stored = {name: [np.asarray(group[name][w]) for w in
                     _load_attr(group[name], "weight_names")] for name in names}
    pairs = []
    if by_name:
        for layer in layers:
            values = stored.get(layer.name)
            if values is None:
                continue
            _check_count(layer, values, layer.name)
            pairs.extend(zip(layer.weights, values))
    else:
        with_weights = [layer for layer in layers if layer.weights]
        stored_names = [name for name in names if stored[name]]
        if len(stored_names) != len(with_weights):
            raise ValueError("You are trying to load a weight file containing %d layers "
                             "into a model with %d layers."
                             % (len(stored_names), len(with_weights)))
        for layer, name in zip(with_weights, stored_names):
            _check_count(layer, stored[name], name)
            pairs.extend(zip(layer.weights, stored[name]))
    for variable, value in pairs:
        expected = tuple(variable.get_shape().as_list())
        if expected != value.shape:
            raise ValueError("Shapes %s and %s are incompatible" % (expected, value.shape))
    backend.batch_set_value(pairs)


def _check_count(layer, values, name):
    if len(values) != len(layer.weights):
        raise ValueError("Layer #? (named \"%s\") expects %d weight(s), but the saved "
                         "weights have %d element(s)." % (layer.name, len(layer.weights),
                                                          len(values)))


def _open_for_writing(filepath, overwrite):
    if not overwrite and os.path.isfile(filepath):
        raise FileExistsError("%s exists and overwrite=False" % filepath)
    return _h5py().File(filepath, "w")


def save_weights(model, filepath, overwrite=True):
    with _open_for_writing(filepath, overwrite) as f:
        _write_weights(f, model.layers)


def load_weights(model, filepath, by_name=False):
    with _h5py().File(filepath, "r") as f:
        group = f["model_weights"] if "layer_names" not in f.attrs and \
            "model_weights" in f else f
        _read_weights(group, model.layers, by_name)


def _json_default(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if hasattr(obj, "get_config"):
        return {"class_name": type(obj).__name__, "config": obj.get_config()}
    if callable(obj):
        return obj.__name__
    raise TypeError("Not JSON Serializable: %s" % (obj,))


def _training_config(model):
    from tfteach.keras import optimizers
    if model.optimizer is None or isinstance(model.optimizer, optimizers.TFOptimizer):
        return None
    optimizer_config = optimizers.serialize(model.optimizer)
    if not optimizer_config["config"].get("decay"):
        optimizer_config["config"].pop("decay", None)
    return {"optimizer_config": optimizer_config, "loss": model.loss,
            "metrics": model._metric_spec, "weighted_metrics": None,
            "sample_weight_mode": None, "loss_weights": model._loss_weights}


def save_model(model, filepath, overwrite=True, include_optimizer=True):
    config = {"class_name": type(model).__name__, "config": model.get_config()}
    if type(model).__name__ not in ("Sequential", "Model"):
        raise NotImplementedError("Only Sequential and functional models can be saved "
                                  "whole; save a subclassed model's weights instead.")
    with _open_for_writing(filepath, overwrite) as f:
        f.attrs["keras_version"] = KERAS_VERSION
        f.attrs["backend"] = b"tensorflow"
        f.attrs["model_config"] = json.dumps(config, default=_json_default).encode("utf8")
        _write_weights(f.create_group("model_weights"), model.layers)
        training = _training_config(model) if include_optimizer and \
            getattr(model, "_compiled", False) else None
        if training is not None:
            f.attrs["training_config"] = json.dumps(training,
                                                    default=_json_default).encode("utf8")
            _write_optimizer_weights(f, model.optimizer)


def _write_optimizer_weights(f, optimizer):
    """Keras 2's `optimizer_weights` group: the step counter and the slots, in order."""
    weights = optimizer.weights
    if not weights:
        return                     # never trained: nothing to restore
    group = f.create_group("optimizer_weights")
    names = [w.name.encode("utf8") for w in weights]
    _save_attr(group, "weight_names", names)
    for name, value in zip(names, backend.batch_get_value(weights)):
        group.create_dataset(name.decode("utf8"), data=value)


def _read_optimizer_weights(f, model):
    """Restore the slots saved with the model, so training goes on where it stopped;
    a file whose optimizer state does not fit (another optimizer) only warns, as Keras."""
    if "optimizer_weights" not in f:
        return
    group = f["optimizer_weights"]
    values = [np.asarray(group[n]) for n in _load_attr(group, "weight_names")]
    optimizer = model.optimizer
    if not hasattr(optimizer, "_create_all_weights"):
        return
    optimizer._create_all_weights(model.trainable_weights)
    try:
        optimizer.set_weights(values)
    except ValueError as error:
        warnings.warn("Error in loading the saved optimizer state. As a result, your "
                      "model is starting with a freshly initialized optimizer. (%s)"
                      % error)


def _decode(value):
    return value.decode("utf8") if hasattr(value, "decode") else value


def load_model(filepath, custom_objects=None, compile=True):  # noqa: A002 - Keras' name
    """The model saved by `model.save` (here or by tf.keras), compiled if it was."""
    from tfteach.keras import optimizers
    from tfteach.keras.engine.sequential import Sequential
    from tfteach.keras.engine.training import Model
    with _h5py().File(filepath, "r") as f:
        raw = f.attrs.get("model_config")
        if raw is None:
            raise ValueError("No model found in config file.")
        config = json.loads(_decode(raw))
        cls = Sequential if config["class_name"] == "Sequential" else Model
        model = cls.from_config(config["config"], custom_objects=custom_objects)
        _read_weights(f["model_weights"], model.layers)
        training = f.attrs.get("training_config")
        if compile and training is not None:
            training = json.loads(_decode(training))
            optimizer = optimizers.get(training["optimizer_config"])
            model.compile(optimizer=optimizer, loss=_loss_spec(training["loss"]),
                          metrics=[_metric_spec(m) for m in training.get("metrics") or []],
                          loss_weights=training.get("loss_weights"))
            _read_optimizer_weights(f, model)
    return model


def _loss_spec(loss):
    """A newer Keras saves a loss as {"class_name": ..., "config": ...}; keep names."""
    if isinstance(loss, dict) and "class_name" in loss and "config" in loss:
        return {"class_name": loss["class_name"], "config": {
            k: v for k, v in loss["config"].items() if k in ("from_logits", "name")}}
    if isinstance(loss, list):
        return [_loss_spec(l) for l in loss]
    return loss


def _metric_spec(metric):
    if isinstance(metric, dict):
        return metric.get("config", {}).get("name", metric.get("class_name"))
    return metric
