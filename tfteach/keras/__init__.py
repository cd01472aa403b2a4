"""`tf.keras` as TF 1.15 ships it, running in graph mode on tfteach's Session.

    model = tf.keras.Sequential([tf.keras.layers.Dense(10, activation="softmax",
                                                       input_shape=(784,))])
    model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
    model.fit(x, y, epochs=5, validation_split=0.1)

Everything a model builds is ordinary tfteach graph nodes in the default graph, run in
`tf.keras.backend.get_session()` (see docs/keras.md). For programs written against the
standalone `keras` package (`from keras.models import Sequential`), call
`tfteach.keras.install_as_keras()` first.
"""
import importlib.util
import sys

from tfteach.keras import (activations, backend, callbacks, datasets,  # noqa: F401
                           initializers, layers, losses, metrics, models, optimizers,
                           preprocessing, regularizers, utils)
from tfteach.keras.engine.input_layer import Input
from tfteach.keras.engine.sequential import Sequential
from tfteach.keras.engine.training import Model

__all__ = ["Sequential", "Model", "Input", "layers", "models", "optimizers", "losses",
           "metrics", "callbacks", "initializers", "activations", "regularizers",
           "backend", "utils", "datasets", "preprocessing", "install_as_keras"]

__version__ = "2.2.4-tf"      # the Keras version TF 1.15's tf.keras reports

_SUBMODULES = ["activations", "backend", "callbacks", "datasets", "datasets.mnist",
               "initializers", "layers", "losses", "metrics", "models", "optimizers",
               "preprocessing", "preprocessing.image", "regularizers", "utils"]


def install_as_keras():
    """Make `import keras` / `from keras.models import Sequential` use tfteach.keras.

    Refuses (ImportError) when a real `keras` package is installed, so it never hides
    one silently; in that case write `from tfteach.keras.models import Sequential`.
    """
    current = sys.modules.get("keras")
    if current is sys.modules[__name__]:
        return current
    if current is not None or importlib.util.find_spec("keras") is not None:
        raise ImportError("A real `keras` package is installed (%s); tfteach will not "
                          "shadow it. Import from tfteach.keras instead, e.g. "
                          "`from tfteach.keras.models import Sequential`."
                          % getattr(importlib.util.find_spec("keras"), "origin", "keras"))
    module = sys.modules[__name__]
    sys.modules["keras"] = module
    for name in _SUBMODULES:
        sys.modules["keras." + name] = sys.modules[__name__ + "." + name]
    return module
