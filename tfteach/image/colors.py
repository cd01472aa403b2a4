"""Dtype conversion and colour adjustments (tf.image.convert_image_dtype, adjust_* and
random_*, per_image_standardization, rgb_to_grayscale, grayscale_to_rgb, rgb_to_hsv,
hsv_to_rgb), as TF 1.15's image_ops_impl builds them.

Images are floats in [0, 1] or integers in [0, MAX] of their dtype. The adjustments
convert an integer image to float32, adjust, and convert back with saturation.
"""
import numpy as np

from tfteach.framework import dtypes
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.graph_functions import name_scope
from tfteach.image.checks import check_at_least_3d_image, is_tensor
from tfteach.ops import (array_ops, cast_ops, control_flow_ops, math_ops, random_ops,
                         reduction_ops)
from tfteach.ops.constant_op import identity
from tfteach.ops.image import color_ops
from tfteach.ops.tensordot import tensordot

__all__ = ["convert_image_dtype", "adjust_brightness", "adjust_contrast", "adjust_gamma",
           "adjust_hue", "adjust_saturation", "random_brightness", "random_contrast",
           "random_hue", "random_saturation", "per_image_standardization",
           "rgb_to_grayscale", "grayscale_to_rgb", "rgb_to_hsv", "hsv_to_rgb",
           "adjust_jpeg_quality", "random_jpeg_quality"]


def _max_of(dtype):
    return np.iinfo(dtype.np).max


def _limits(dtype):
    info = np.iinfo(dtype.np) if dtype.is_integer else np.finfo(dtype.np)
    return info.min, info.max


def _saturate_cast(value, dtype):
    """tf.saturate_cast, also from the small integer dtypes (int8/16, uint16) that
    tfteach's maximum/minimum do not take: those go through int64, which holds them
    exactly. A plain cast where every value of the input dtype fits already."""
    low, high = _limits(value.dtype)
    out_low, out_high = _limits(dtype)
    if value.dtype.is_integer and out_low <= low and high <= out_high:
        return math_ops.cast(value, dtype)
    if value.dtype.is_integer and value.dtype not in (dtypes.int32, dtypes.int64):
        value = math_ops.cast(value, dtypes.int64)
    return cast_ops.saturate_cast(value, dtype)


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Converts between image dtypes, scaling: floats are in [0, 1), integers in
    [0, MAX]. Integer -> integer shifts bits; float -> integer multiplies by MAX + 0.5
    and truncates (so 1.0 becomes MAX); `saturate=True` clips before casting (otherwise
    values outside the range wrap, as in TF)."""
    image = convert_to_tensor(image, name="image")
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    if not image.dtype.is_floating and not image.dtype.is_integer:
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype == image.dtype:
        return identity(image, name=name)
    with name_scope(name, "convert_image", [image]) as name:
        if image.dtype.is_integer and dtype.is_integer:
            scale_in, scale_out = _max_of(image.dtype), _max_of(dtype)
            if scale_in > scale_out:
                scale = (scale_in + 1) // (scale_out + 1)
                scaled = math_ops.floordiv(image, scale)
                if saturate:
                    return identity(_saturate_cast(scaled, dtype), name=name)
                return math_ops.cast(scaled, dtype, name=name)
            cast = _saturate_cast(image, dtype) if saturate else math_ops.cast(image, dtype)
            scale = (scale_out + 1) // (scale_in + 1)
            return math_ops.multiply(cast, scale, name=name)
        if image.dtype.is_floating and dtype.is_floating:
            return math_ops.cast(image, dtype, name=name)
        if image.dtype.is_integer:
            cast = math_ops.cast(image, dtype)
            scale = 1. / _max_of(image.dtype)
            return math_ops.multiply(cast, scale, name=name)
        scale = _max_of(dtype) + 0.5        # avoids rounding problems in the cast
        scaled = math_ops.multiply(image, scale)
        cast = cast_ops.saturate_cast if saturate else math_ops.cast
        return cast(scaled, dtype, name=name)


def _as_float(image):
    """(float image, original dtype): float16/float32 stay, others become float32."""
    image = convert_to_tensor(image, name="image")
    if image.dtype in (dtypes.float16, dtypes.float32):
        return image, image.dtype
    return convert_image_dtype(image, dtypes.float32), image.dtype


def adjust_brightness(image, delta):
    """Adds `delta` to every value (of the float image; integers are converted)."""
    with name_scope(None, "adjust_brightness", [image, delta]) as name:
        flt_image, orig_dtype = _as_float(image)
        adjusted = math_ops.add(flt_image, math_ops.cast(delta, flt_image.dtype), name=name)
        return convert_image_dtype(adjusted, orig_dtype, saturate=True)


def adjust_contrast(images, contrast_factor):
    """(x - mean) * contrast_factor + mean, the mean per image and channel."""
    with name_scope(None, "adjust_contrast", [images, contrast_factor]) as name:
        flt_images, orig_dtype = _as_float(images)
        factor = convert_to_tensor(contrast_factor, dtypes.float32, name="contrast_factor")
        adjusted = color_ops.color_op("AdjustContrastv2", flt_images, factor, name=name)
        return convert_image_dtype(adjusted, orig_dtype, saturate=True)


def adjust_gamma(image, gamma=1, gain=1):
    """Gamma correction: gain * (x / scale) ** gamma * scale, scale the dtype's range
    (TF 1.15's formula; the result is float32)."""
    with name_scope(None, "adjust_gamma", [image, gamma, gain]):
        image = convert_to_tensor(image, name="image")
        img = math_ops.cast(image, dtypes.float32)
        if is_tensor(gamma):
            check = control_flow_ops.Assert(math_ops.greater_equal(gamma, 0),
                                            ["Gamma should be a non-negative real number."])
            gamma = control_flow_ops.with_dependencies([check], gamma)
        elif gamma < 0:
            raise ValueError("Gamma should be a non-negative real number.")
        # TF 1.15's dtype.limits (clip_negative): (0, MAX) for integers, (0, 1) for floats
        high = _max_of(image.dtype) if image.dtype.is_integer else 1.0
        scale = convert_to_tensor(np.float32(high), dtypes.float32)
        return (img / scale) ** gamma * scale * gain


def adjust_hue(image, delta, name=None):
    """Turns the hue by `delta` (a fraction of the colour wheel, in [-1, 1])."""
    with name_scope(name, "adjust_hue", [image]):
        flt_image, orig_dtype = _as_float(image)
        delta = convert_to_tensor(delta, dtypes.float32, name="delta")
        adjusted = color_ops.color_op("AdjustHue", flt_image, delta)
        return convert_image_dtype(adjusted, orig_dtype)


def adjust_saturation(image, saturation_factor, name=None):
    """Multiplies the saturation (HSV's S) by `saturation_factor`, clipped to [0, 1]."""
    with name_scope(name, "adjust_saturation", [image]):
        flt_image, orig_dtype = _as_float(image)
        factor = convert_to_tensor(saturation_factor, dtypes.float32, name="scale")
        adjusted = color_ops.color_op("AdjustSaturation", flt_image, factor)
        return convert_image_dtype(adjusted, orig_dtype)


def random_brightness(image, max_delta, seed=None):
    """adjust_brightness by a delta uniform in [-max_delta, max_delta)."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


def random_contrast(image, lower, upper, seed=None):
    """adjust_contrast by a factor uniform in [lower, upper)."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    factor = random_ops.random_uniform([], lower, upper, seed=seed)
    return adjust_contrast(image, factor)


def random_hue(image, max_delta, seed=None):
    """adjust_hue by a delta uniform in [-max_delta, max_delta), max_delta <= 0.5."""
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_hue(image, delta)


def random_saturation(image, lower, upper, seed=None):
    """adjust_saturation by a factor uniform in [lower, upper)."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    factor = random_ops.random_uniform([], lower, upper, seed=seed)
    return adjust_saturation(image, factor)


def per_image_standardization(image):
    """(x - mean) / max(stddev, 1/sqrt(N)) per image: mean 0, variance 1 (float32)."""
    with name_scope(None, "per_image_standardization", [image]) as scope:
        image = convert_to_tensor(image, name="image")
        check_at_least_3d_image(image, require_static=False)
        num_pixels = reduction_ops.reduce_prod(array_ops.shape(image)[-3:])
        image = math_ops.cast(image, dtype=dtypes.float32)
        image_mean = reduction_ops.reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
        # TF 1.15: the variance as E[x^2] - E[x]^2, clipped at 0 (a relu) against rounding
        variance = (reduction_ops.reduce_mean(math_ops.square(image), axis=[-1, -2, -3],
                                              keepdims=True) - math_ops.square(image_mean))
        stddev = math_ops.sqrt(math_ops.maximum(variance, 0.0))
        # a uniform image (stddev 0) is divided by 1/sqrt(N) instead of 0
        min_stddev = math_ops.rsqrt(math_ops.cast(num_pixels, dtypes.float32))
        scale = math_ops.maximum(stddev, min_stddev)
        return math_ops.div(math_ops.subtract(image, image_mean), scale, name=scope)


def rgb_to_grayscale(images, name=None):
    """Luma: 0.2989 R + 0.5870 G + 0.1140 B, with a last dimension of 1."""
    with name_scope(name, "rgb_to_grayscale", [images]) as name:
        images = convert_to_tensor(images, name="images")
        orig_dtype = images.dtype
        flt_image = convert_image_dtype(images, dtypes.float32)
        rgb_weights = np.array([0.2989, 0.5870, 0.1140], np.float32)
        if flt_image.get_shape().is_fully_defined():
            gray_float = tensordot(flt_image, rgb_weights, [-1, -1])      # TF's graph
        else:
            # tfteach's tensordot wants known shapes (a decoded image's are not): the
            # same weighted sum as a product and a sum over the colour axis
            gray_float = reduction_ops.reduce_sum(flt_image * rgb_weights, axis=-1)
        gray_float = array_ops.expand_dims(gray_float, -1)
        return convert_image_dtype(gray_float, orig_dtype, name=name)


def grayscale_to_rgb(images, name=None):
    """Repeats the one channel of a grayscale image three times."""
    with name_scope(name, "grayscale_to_rgb", [images]) as name:
        images = convert_to_tensor(images, name="images")
        shape = images.get_shape()
        if shape.ndims is not None and shape.ndims < 2:
            raise ValueError("A grayscale image (shape %s) must be at least two-dimensional."
                             % shape)
        if shape.ndims is not None and shape[-1].value not in (None, 1):
            raise ValueError("Last dimension of a grayscale image should be size 1.")
        rank_1 = array_ops.expand_dims(array_ops.rank(images) - 1, 0)
        multiples = array_ops.concat([array_ops.ones(rank_1, dtype=dtypes.int32),
                                      array_ops.expand_dims(3, 0)], 0)
        rgb = array_ops.tile(images, multiples, name=name)
        if shape.ndims is not None:
            rgb.set_shape(shape[:-1].concatenate([3]))
        return rgb


def rgb_to_hsv(images, name=None):
    """RGB -> HSV, each in [0, 1] (float images)."""
    images = convert_to_tensor(images, name="images")
    return color_ops.color_op("RGBToHSV", images, name=name)


def hsv_to_rgb(images, name=None):
    """HSV -> RGB, each in [0, 1] (float images)."""
    images = convert_to_tensor(images, name="images")
    return color_ops.color_op("HSVToRGB", images, name=name)


def adjust_jpeg_quality(image, jpeg_quality, name=None):
    """The image after a JPEG round trip at `jpeg_quality` (0..100; an int or an int32
    tensor), in its own dtype: the artefacts of JPEG compression, as augmentation."""
    from tfteach.image import codecs
    with name_scope(name, "adjust_jpeg_quality", [image]):
        image = convert_to_tensor(image, name="image")
        orig_dtype = image.dtype
        image = convert_image_dtype(image, dtypes.uint8)
        if is_tensor(jpeg_quality):
            image = codecs.encode_jpeg_variable_quality(image, jpeg_quality)
        else:
            image = codecs.encode_jpeg(image, quality=jpeg_quality)
        image = codecs.decode_jpeg(image)
        return convert_image_dtype(image, orig_dtype)


def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None):
    """adjust_jpeg_quality at a quality uniform in [min_jpeg_quality, max_jpeg_quality)."""
    if (min_jpeg_quality < 0 or max_jpeg_quality < 0 or min_jpeg_quality > 100
            or max_jpeg_quality > 100):
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if min_jpeg_quality >= max_jpeg_quality:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")
    quality = random_ops.random_uniform([], min_jpeg_quality, max_jpeg_quality, seed=seed,
                                        dtype=dtypes.int32)
    return adjust_jpeg_quality(image, quality)
