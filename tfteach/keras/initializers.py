"""`tf.keras.initializers`: TF's initializer classes under Keras' names.

Keras' default for kernels is `glorot_uniform` (not `tf.get_variable`'s default, which is
also glorot_uniform, but `tf.layers`-style code often passes others); biases start at
zeros. Saved configs carry the class name and its arguments (`{"seed": null}`).
"""
from tfteach.keras.serialization import deserialize, serialize_object
from tfteach.ops import init_ops

__all__ = ["Initializer", "Zeros", "Ones", "Constant", "RandomNormal", "RandomUniform",
           "TruncatedNormal", "VarianceScaling", "GlorotUniform", "GlorotNormal", "Orthogonal",
           "he_normal", "he_uniform", "lecun_normal", "lecun_uniform", "get",
           "serialize", "deserialize_initializer"]

Initializer = init_ops.Initializer


def _without_dtype(cls):
    """A subclass whose saved config leaves out `dtype` (Keras 2 files have none)."""
    def get_config(self):
        config = cls.get_config(self)
        config.pop("dtype", None)
        return config
    return type(cls.__name__, (cls,), {"get_config": get_config,
                                       "__doc__": cls.__doc__})


Zeros = _without_dtype(init_ops.Zeros)
Ones = _without_dtype(init_ops.Ones)
Constant = _without_dtype(init_ops.Constant)


# Keras' random initializers default to a small spread (±0.05, stddev 0.05), not TF's.
class RandomNormal(_without_dtype(init_ops.RandomNormal)):
    def __init__(self, mean=0.0, stddev=0.05, seed=None, dtype="float32"):
        super().__init__(mean=mean, stddev=stddev, seed=seed, dtype=dtype)


class RandomUniform(_without_dtype(init_ops.RandomUniform)):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None, dtype="float32"):
        super().__init__(minval=minval, maxval=maxval, seed=seed, dtype=dtype)


class TruncatedNormal(_without_dtype(init_ops.TruncatedNormal)):
    def __init__(self, mean=0.0, stddev=0.05, seed=None, dtype="float32"):
        super().__init__(mean=mean, stddev=stddev, seed=seed, dtype=dtype)

VarianceScaling = _without_dtype(init_ops.VarianceScaling)
GlorotUniform = _without_dtype(init_ops.GlorotUniform)
GlorotNormal = _without_dtype(init_ops.GlorotNormal)


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times `gain` (Saxe et al.): the QR decomposition of a
    normal random matrix, signs fixed so the result is uniformly distributed.

    tfteach has no QR op, so the matrix is drawn with NumPy when the variable is
    created (seeded by `seed`) and stored in the graph as its initial value."""

    def __init__(self, gain=1.0, seed=None, dtype="float32"):
        self.gain, self.seed = float(gain), seed
        self.dtype = dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        import numpy as np
        import tfteach as tf
        if len(shape) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional")
        rows = int(np.prod(shape[:-1]))
        cols = shape[-1]
        flat = np.random.RandomState(self.seed).normal(
            size=(max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(flat)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        values = (self.gain * q[:rows, :cols]).reshape(shape)
        return tf.constant(values, dtype=dtype or self.dtype)

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed}


def he_normal(seed=None):
    return VarianceScaling(2.0, "fan_in", "truncated_normal", seed=seed)


def he_uniform(seed=None):
    return VarianceScaling(2.0, "fan_in", "uniform", seed=seed)


def lecun_normal(seed=None):
    return VarianceScaling(1.0, "fan_in", "truncated_normal", seed=seed)


def lecun_uniform(seed=None):
    return VarianceScaling(1.0, "fan_in", "uniform", seed=seed)


_OBJECTS = {
    "zeros": Zeros, "Zeros": Zeros, "ones": Ones, "Ones": Ones,
    "constant": Constant, "Constant": Constant,
    "random_normal": RandomNormal, "RandomNormal": RandomNormal,
    "random_uniform": RandomUniform, "RandomUniform": RandomUniform,
    "uniform": RandomUniform, "normal": RandomNormal,
    "truncated_normal": TruncatedNormal, "TruncatedNormal": TruncatedNormal,
    "variance_scaling": VarianceScaling, "VarianceScaling": VarianceScaling,
    "glorot_uniform": GlorotUniform, "GlorotUniform": GlorotUniform,
    "glorot_normal": GlorotNormal, "GlorotNormal": GlorotNormal,
    "orthogonal": Orthogonal, "Orthogonal": Orthogonal,
    "he_normal": he_normal, "he_uniform": he_uniform,
    "lecun_normal": lecun_normal, "lecun_uniform": lecun_uniform,
}
zeros, ones, constant = Zeros, Ones, Constant
glorot_uniform, glorot_normal = GlorotUniform, GlorotNormal
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal


def get(identifier):
    if identifier is None:
        return None
    if callable(identifier) and not isinstance(identifier, (str, dict)):
        return identifier
    obj = deserialize(identifier, _OBJECTS, "initializer")
    return obj() if callable(obj) and not isinstance(obj, Initializer) else obj


def serialize(initializer):
    return serialize_object(initializer)


deserialize_initializer = get
