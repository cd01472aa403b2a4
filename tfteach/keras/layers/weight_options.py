"""The options a Keras layer takes for each of its weights: `<weight>_initializer`,
`<weight>_regularizer`, `<weight>_constraint` (Dense, Conv2D, the recurrent layers,
BatchNormalization, Embedding).

One place resolves them in `__init__` and writes them back in `get_config`, in Keras'
order: every initializer, every regularizer, the layer's activity_regularizer, every
constraint. Initializers and regularizers are resolved by Keras' `get` rule (so a bad
name fails as Keras fails, initializers first); constraints are kept as given and
written as None (tfteach has no `keras.constraints` to serialize them with).
"""
from tfteach.keras import initializers, regularizers
from tfteach.keras.serialization import serialize_object

__all__ = ["set_weight_options", "weight_options_config"]

_RESOLVE = {"initializer": initializers.get, "regularizer": regularizers.get,
            "constraint": lambda constraint: constraint}


def set_weight_options(layer, weights, arguments):
    """Set `layer.<weight>_<kind>` for each of `weights` ("kernel", "bias", ...) that
    `arguments` (the layer's `__init__` arguments: its `locals()`) names, resolved.

    The names set are remembered, by kind, for `weight_options_config`."""
    layer._weight_options = {}
    for kind, resolve in _RESOLVE.items():
        names = ["%s_%s" % (weight, kind) for weight in weights
                 if "%s_%s" % (weight, kind) in arguments]
        for name in names:
            setattr(layer, name, resolve(arguments[name]))
        layer._weight_options[kind] = names


def weight_options_config(layer, activity_regularizer=True):
    """The options `set_weight_options` set, serialized for `get_config`, with the
    layer's activity_regularizer after the regularizers (Keras' BatchNormalization
    config has none: activity_regularizer=False)."""
    options = layer._weight_options
    config = {name: serialize_object(getattr(layer, name))
              for name in options["initializer"]}
    config.update({name: regularizers.serialize(getattr(layer, name))
                   for name in options["regularizer"]})
    if activity_regularizer:
        config["activity_regularizer"] = regularizers.serialize(layer.activity_regularizer)
    config.update({name: None for name in options["constraint"]})
    return config
