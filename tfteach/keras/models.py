"""`tf.keras.models`: Sequential, Model, save_model, load_model, model_from_json."""
import json

from tfteach.keras.engine.sequential import Sequential
from tfteach.keras.engine.training import Model
from tfteach.keras.saving.hdf5_format import load_model

__all__ = ["Sequential", "Model", "save_model", "load_model", "model_from_json",
           "clone_model"]


def save_model(model, filepath, overwrite=True, include_optimizer=True, save_format=None):
    model.save(filepath, overwrite=overwrite, include_optimizer=include_optimizer)


def model_from_json(json_string, custom_objects=None):
    config = json.loads(json_string)
    cls = Sequential if config["class_name"] == "Sequential" else Model
    return cls.from_config(config["config"], custom_objects=custom_objects)


def clone_model(model, input_tensors=None):
    """A new model with the same layout and fresh weights (from its config)."""
    return type(model).from_config(model.get_config())
