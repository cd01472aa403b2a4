"""`tf.contrib.layers.xavier_initializer` and contrib's `variance_scaling_initializer`.

Contrib's variance scaling predates `tf.variance_scaling_initializer` and has its own
arguments and constants (TF 1.15's contrib/layers/python/layers/initializers.py):

    n = fan_in, fan_out or their average (mode 'FAN_IN' / 'FAN_OUT' / 'FAN_AVG')
    uniform=True:  U(-limit, limit), limit = sqrt(3 * factor / n)
    uniform=False: truncated normal with stddev sqrt(1.3 * factor / n)

xavier_initializer() is factor 1, FAN_AVG, uniform: the same distribution as
tf.glorot_uniform_initializer (limit sqrt(6 / (fan_in + fan_out))).
"""
import math

from tfteach.framework import dtypes

__all__ = ["xavier_initializer", "xavier_initializer_conv2d",
           "variance_scaling_initializer"]


def xavier_initializer(uniform=True, seed=None, dtype=dtypes.float32):
    """Glorot & Bengio (2010): keeps activation variance about equal across layers."""
    return variance_scaling_initializer(factor=1.0, mode="FAN_AVG", uniform=uniform,
                                        seed=seed, dtype=dtype)


xavier_initializer_conv2d = xavier_initializer


def variance_scaling_initializer(factor=2.0, mode="FAN_IN", uniform=False, seed=None,
                                 dtype=dtypes.float32):
    """A function (shape, dtype, partition_info) -> initial value tensor (see above)."""
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise TypeError("Cannot create initializer for non-floating point type.")
    if mode not in ["FAN_IN", "FAN_OUT", "FAN_AVG"]:
        raise TypeError("Unknown mode %s [FAN_IN, FAN_OUT, FAN_AVG]" % mode)

    def _initializer(shape, dtype=dtype, partition_info=None):
        from tfteach.ops import random_ops
        dtype = dtypes.as_dtype(dtype)
        if not dtype.is_floating:
            raise TypeError("Cannot create initializer for non-floating point type.")
        shape = list(shape)
        # Conv kernels [kh, kw, in, out] count the receptive field in both fans.
        if shape:
            fan_in = float(shape[-2]) if len(shape) > 1 else float(shape[-1])
            fan_out = float(shape[-1])
        else:
            fan_in = fan_out = 1.0
        for dim in shape[:-2]:
            fan_in *= float(dim)
            fan_out *= float(dim)
        n = {"FAN_IN": fan_in, "FAN_OUT": fan_out, "FAN_AVG": (fan_in + fan_out) / 2.0}[mode]
        if uniform:
            limit = math.sqrt(3.0 * factor / n)
            return random_ops.random_uniform(shape, -limit, limit, dtype, seed=seed)
        return random_ops.truncated_normal(shape, 0.0, math.sqrt(1.3 * factor / n), dtype,
                                           seed=seed)

    return _initializer
