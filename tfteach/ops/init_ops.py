"""Initializers (`tf.zeros_initializer()`, `tf.glorot_uniform_initializer()`, ...).

An initializer is a recipe, not a value: `init(shape, dtype)` builds the ops that
compute a starting value, and `tf.get_variable` calls it inside the variable's
`Initializer` name scope. The formulas are TF 1.15's `init_ops.py` (V1 classes).
"""
import math
import types

import numpy as np

from tfteach.framework import dtypes
from tfteach.ops import variables
from tfteach.ops.constant_op import constant

__all__ = ["Initializer", "Zeros", "Ones", "Constant", "RandomUniform", "RandomNormal",
           "TruncatedNormal", "UniformUnitScaling", "VarianceScaling", "GlorotUniform",
           "GlorotNormal", "zeros_initializer", "ones_initializer", "constant_initializer",
           "random_uniform_initializer", "random_normal_initializer",
           "truncated_normal_initializer", "uniform_unit_scaling_initializer",
           "variance_scaling_initializer", "glorot_uniform_initializer",
           "glorot_normal_initializer", "he_normal", "he_uniform", "lecun_normal",
           "lecun_uniform", "initializers"]

# The standard deviation of a standard normal truncated to [-2, 2]
# (scipy.stats.truncnorm.std(a=-2, b=2)): dividing by it gives the truncated
# distribution the variance that variance scaling asks for.
TRUNCATED_NORMAL_STDDEV = .87962566103423978


def _float_dtype(dtype):
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError("Expected floating point type, got %s." % dtype)
    return dtype


def _random_ops():
    # Looked up when called: the random ops module is written after this one.
    from tfteach.ops import random_ops
    return random_ops


def _filled(value, shape, dtype, name):
    """`tf.zeros(shape)` / `tf.ones(shape)`: from the array module when it has them."""
    import tfteach
    make = getattr(tfteach, name, None)
    if make is not None:
        return make(shape, dtype)
    return constant(value, dtype=dtype, shape=shape, name=name)


def _compute_fans(shape):
    """(fan_in, fan_out) of a weight shape; conv kernels count their receptive field."""
    if len(shape) < 1:
        fan_in = fan_out = 1
    elif len(shape) == 1:
        fan_in = fan_out = shape[0]
    elif len(shape) == 2:
        fan_in, fan_out = shape
    else:
        receptive_field_size = 1
        for dim in shape[:-2]:
            receptive_field_size *= dim
        fan_in = shape[-2] * receptive_field_size
        fan_out = shape[-1] * receptive_field_size
    return int(fan_in), int(fan_out)


class Initializer:
    """Base class: `__call__(shape, dtype=None, partition_info=None)` builds the value."""

    def __call__(self, shape, dtype=None, partition_info=None):
        raise NotImplementedError

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class Zeros(Initializer):
    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return _filled(0, shape, dtypes.as_dtype(dtype or self.dtype), "zeros")

    def get_config(self):
        return {"dtype": self.dtype.name}


class Ones(Initializer):
    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return _filled(1, shape, dtypes.as_dtype(dtype or self.dtype), "ones")

    def get_config(self):
        return {"dtype": self.dtype.name}


class Constant(Initializer):
    """A fixed value; a list shorter than the shape is padded with its last element."""

    def __init__(self, value=0, dtype=dtypes.float32, verify_shape=False):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError("Invalid type for initial value: %s (expected Python scalar, "
                            "list or tuple of values, or numpy.ndarray)." % type(value))
        self.value = value
        self.dtype = dtypes.as_dtype(dtype)
        self._verify_shape = verify_shape

    def __call__(self, shape, dtype=None, partition_info=None, verify_shape=None):
        if verify_shape is None:
            verify_shape = self._verify_shape
        return constant(self.value, dtype=dtype or self.dtype, shape=shape,
                        verify_shape=verify_shape)

    def get_config(self):
        return {"value": self.value, "dtype": self.dtype.name}


class RandomUniform(Initializer):
    def __init__(self, minval=0, maxval=None, seed=None, dtype=dtypes.float32):
        self.minval = minval
        self.maxval = maxval
        self.seed = seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return _random_ops().random_uniform(shape, self.minval, self.maxval,
                                            dtype or self.dtype, seed=self.seed)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed,
                "dtype": self.dtype.name}


class RandomNormal(Initializer):
    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        self.mean = mean
        self.stddev = stddev
        self.seed = seed
        self.dtype = _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return _random_ops().random_normal(shape, self.mean, self.stddev,
                                           dtype or self.dtype, seed=self.seed)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed,
                "dtype": self.dtype.name}


class TruncatedNormal(RandomNormal):
    """Normal values, redrawn when more than 2 standard deviations from the mean."""

    def __call__(self, shape, dtype=None, partition_info=None):
        return _random_ops().truncated_normal(shape, self.mean, self.stddev,
                                              dtype or self.dtype, seed=self.seed)


class UniformUnitScaling(Initializer):
    """Deprecated: uniform in ±sqrt(3 / fan_in) * factor."""

    def __init__(self, factor=1.0, seed=None, dtype=dtypes.float32):
        self.factor = factor
        self.seed = seed
        self.dtype = _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        scale_shape = partition_info.full_shape if partition_info is not None else shape
        input_size = 1.0
        for dim in scale_shape[:-1]:     # the last dimension is the output size
            input_size *= float(dim)
        input_size = max(input_size, 1.0)
        max_val = math.sqrt(3 / input_size) * self.factor
        return _random_ops().random_uniform(shape, -max_val, max_val, dtype or self.dtype,
                                            seed=self.seed)

    def get_config(self):
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


class VarianceScaling(Initializer):
    """Values whose variance is `scale / n`, n = fan_in, fan_out or their average.

    `truncated_normal` (`normal` is its old name) draws a normal truncated at 2 standard
    deviations, with stddev sqrt(scale / n) / 0.8796..., so that the *truncated* values
    have variance scale / n; `untruncated_normal` uses stddev sqrt(scale / n);
    `uniform` draws from ±sqrt(3 * scale / n).
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 dtype=dtypes.float32):
        if scale <= 0.:
            raise ValueError("`scale` must be positive float.")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError("Invalid `mode` argument:", mode)
        distribution = distribution.lower()
        if distribution not in {"normal", "uniform", "truncated_normal",
                                "untruncated_normal"}:
            raise ValueError("Invalid `distribution` argument:", distribution)
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self.seed = seed
        self.dtype = _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtype or self.dtype
        scale_shape = partition_info.full_shape if partition_info is not None else shape
        fan_in, fan_out = _compute_fans(scale_shape)
        scale = self.scale
        if self.mode == "fan_in":
            scale /= max(1., fan_in)
        elif self.mode == "fan_out":
            scale /= max(1., fan_out)
        else:
            scale /= max(1., (fan_in + fan_out) / 2.)
        random_ops = _random_ops()
        if self.distribution in ("normal", "truncated_normal"):
            stddev = math.sqrt(scale) / TRUNCATED_NORMAL_STDDEV
            return random_ops.truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.random_normal(shape, 0.0, math.sqrt(scale), dtype,
                                            seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return random_ops.random_uniform(shape, -limit, limit, dtype, seed=self.seed)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed, "dtype": self.dtype.name}


class GlorotUniform(VarianceScaling):
    """Uniform in ±sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio, 2010)."""

    def __init__(self, seed=None, dtype=dtypes.float32):
        super().__init__(scale=1.0, mode="fan_avg", distribution="uniform", seed=seed,
                         dtype=dtype)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


class GlorotNormal(VarianceScaling):
    """Truncated normal with stddev sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, seed=None, dtype=dtypes.float32):
        super().__init__(scale=1.0, mode="fan_avg", distribution="truncated_normal",
                         seed=seed, dtype=dtype)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


# TF 1.x exports the classes under these lower-case names.
zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
uniform_unit_scaling_initializer = UniformUnitScaling
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal


def lecun_normal(seed=None):
    return VarianceScaling(scale=1., mode="fan_in", distribution="truncated_normal", seed=seed)


def lecun_uniform(seed=None):
    return VarianceScaling(scale=1., mode="fan_in", distribution="uniform", seed=seed)


def he_normal(seed=None):
    return VarianceScaling(scale=2., mode="fan_in", distribution="truncated_normal", seed=seed)


def he_uniform(seed=None):
    return VarianceScaling(scale=2., mode="fan_in", distribution="uniform", seed=seed)


# `tf.initializers.*` (TF 1.15's namespace of the same initializers).
initializers = types.SimpleNamespace(
    zeros=Zeros, ones=Ones, constant=Constant, random_uniform=RandomUniform,
    random_normal=RandomNormal, truncated_normal=TruncatedNormal,
    uniform_unit_scaling=UniformUnitScaling, variance_scaling=VarianceScaling,
    glorot_uniform=GlorotUniform, glorot_normal=GlorotNormal, he_normal=he_normal,
    he_uniform=he_uniform, lecun_normal=lecun_normal, lecun_uniform=lecun_uniform,
    global_variables=variables.global_variables_initializer,
    local_variables=variables.local_variables_initializer,
    variables=variables.variables_initializer)
