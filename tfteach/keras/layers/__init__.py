"""`tf.keras.layers`: the layer classes, and `deserialize` for saved configs."""
from tfteach.keras.engine.base_layer import InputSpec, Layer
from tfteach.keras.engine.input_layer import Input, InputLayer
from tfteach.keras.layers.convolutional import (Conv2D, Conv2DTranspose,  # noqa: F401
                                                Convolution2D, Convolution2DTranspose)
from tfteach.keras.layers.core import Activation, Dense, Dropout, Flatten, Reshape
from tfteach.keras.layers.embeddings import Embedding
from tfteach.keras.layers.merge import Add, Concatenate, add, concatenate
from tfteach.keras.layers.normalization import BatchNormalization
from tfteach.keras.layers import recurrent  # noqa: F401
from tfteach.keras.layers.recurrent import GRU, LSTM, SimpleRNN
from tfteach.keras.layers.pooling import (AveragePooling2D, AvgPool2D,  # noqa: F401
                                          GlobalAveragePooling2D, GlobalAvgPool2D,
                                          MaxPool2D, MaxPooling2D)

__all__ = ["Layer", "InputSpec", "Input", "InputLayer", "Dense", "Activation", "Flatten",
           "Reshape", "Dropout", "Conv2D", "Conv2DTranspose", "MaxPooling2D", "MaxPool2D",
           "AveragePooling2D", "GlobalAveragePooling2D", "BatchNormalization",
           "Embedding", "SimpleRNN", "LSTM", "GRU", "Add", "Concatenate", "add",
           "concatenate", "deserialize"]


def _classes():
    from tfteach.keras.engine.sequential import Sequential
    from tfteach.keras.engine.training import Model
    found = {name: obj for name, obj in globals().items()
             if isinstance(obj, type) and issubclass(obj, Layer)}
    found.update(Sequential=Sequential, Model=Model, Functional=Model)
    return found


def deserialize(entry, custom_objects=None):
    """A layer from `{"class_name": ..., "config": {...}}` (a saved model's entry)."""
    classes = _classes()
    classes.update(custom_objects or {})
    name = entry["class_name"]
    if name not in classes:
        raise ValueError("Unknown layer:" + name)
    return classes[name].from_config(entry["config"])
