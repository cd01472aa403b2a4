"""The colour ops with kernels of their own: `RGBToHSV`, `HSVToRGB`, `AdjustHue`,
`AdjustSaturation` and `AdjustContrastv2` (kernels/cpu/image_color.py).

TF 1.15 has no gradient for any of them: RGBToHSV and HSVToRGB are NotDifferentiable
(None), the adjustments raise LookupError in `tf.gradients`, as in 1.15.
"""
import numpy as np

from tfteach.framework.registry import not_differentiable, register_op
from tfteach.kernels.cpu import image_color as kernels
from tfteach.kernels.cpu.shape_kernels import invalid_argument
from tfteach.ops.op_builder import ShapeError, apply_op
from tfteach.runtime.placement import register_cpu_only

__all__ = ["color_op"]


def _last_dim_three_shape(op):
    images = op._inputs[0]
    shape = images.shape
    if shape.ndims is not None:
        if shape.ndims < 1:
            raise ShapeError("Shape must be at least rank 1 but is rank %d" % shape.ndims)
        last = shape[-1].value
        if last is not None and last != 3:
            raise ShapeError("Dimension must be 3 but is %d" % last)
    return [(images.dtype.base_dtype, shape)]


def _at_least_3d_shape(op):
    images = op._inputs[0]
    if images.shape.ndims is not None and images.shape.ndims < 3:
        raise ShapeError("Shape must be at least rank 3 but is rank %d" % images.shape.ndims)
    for scalar in op._inputs[1:]:
        if scalar.shape.ndims not in (None, 0):
            raise ShapeError("Shape must be rank 0 but is rank %d" % scalar.shape.ndims)
    return [(images.dtype.base_dtype, images.shape)]


def _pixels(ctx, images, what="input"):
    images = np.asarray(images)
    if images.ndim < 1 or images.shape[-1] != 3:
        raise invalid_argument(ctx, "%s must have 3 channels but input has only %d channels."
                               % (what, images.shape[-1] if images.ndim else 0))
    return images.reshape(-1, 3)


def _rgb_to_hsv_kernel(ctx, images):
    images = np.asarray(images)
    if images.ndim < 1:
        raise invalid_argument(ctx, "input must be at least 1D%s" % list(images.shape))
    return kernels.rgb_to_hsv(_pixels(ctx, images)).reshape(images.shape)


def _hsv_to_rgb_kernel(ctx, images):
    images = np.asarray(images)
    if images.ndim < 1:
        raise invalid_argument(ctx, "input must be at least 1D%s" % list(images.shape))
    return kernels.hsv_to_rgb(_pixels(ctx, images)).reshape(images.shape)


def _adjust_pixels(ctx, images, fn, factor):
    images = np.asarray(images)
    if images.ndim < 3:
        raise invalid_argument(ctx, "input must be at least 3-D, got shape%s"
                               % list(images.shape))
    if images.shape[-1] != 3:
        raise invalid_argument(ctx, "input must have 3 channels but instead has %d channels."
                               % images.shape[-1])
    if np.ndim(factor) != 0:
        raise invalid_argument(ctx, "delta must be scalar: %s" % list(np.shape(factor)))
    pixels = images.reshape(-1, 3).astype(np.float32, copy=False)
    return fn(pixels, np.float32(factor)).reshape(images.shape).astype(images.dtype)


def _adjust_hue_kernel(ctx, images, delta):
    return _adjust_pixels(ctx, images, kernels.adjust_hue, delta)


def _adjust_saturation_kernel(ctx, images, scale):
    return _adjust_pixels(ctx, images, kernels.adjust_saturation, scale)


def _adjust_contrast_kernel(ctx, images, factor):
    images = np.asarray(images)
    if images.ndim < 3:
        raise invalid_argument(ctx, "input must be at least 3-D, got shape%s"
                               % list(images.shape))
    if np.ndim(factor) != 0:
        raise invalid_argument(ctx, "contrast_factor must be scalar: %s"
                               % list(np.shape(factor)))
    shape = images.shape
    batched = images.astype(np.float32, copy=False).reshape((-1,) + shape[-3:])
    return kernels.adjust_contrast(batched, factor).reshape(shape).astype(images.dtype)


register_op("RGBToHSV", _last_dim_three_shape, cpu=_rgb_to_hsv_kernel)
register_op("HSVToRGB", _last_dim_three_shape, cpu=_hsv_to_rgb_kernel)
register_op("AdjustHue", _at_least_3d_shape, cpu=_adjust_hue_kernel)
register_op("AdjustSaturation", _at_least_3d_shape, cpu=_adjust_saturation_kernel)
register_op("AdjustContrastv2", _at_least_3d_shape, cpu=_adjust_contrast_kernel)
for _op_type in ("RGBToHSV", "HSVToRGB", "AdjustHue", "AdjustSaturation", "AdjustContrastv2"):
    register_cpu_only(_op_type)
# TF 1.15 marks these two NotDifferentiable (tf.gradients gives None; TF 2 later gave
# RGBToHSV a gradient); the three adjustments have no gradient at all, so tf.gradients
# through them raises LookupError, as in TF.
not_differentiable("RGBToHSV")
not_differentiable("HSVToRGB")


def color_op(op_type, images, *scalars, name=None):
    """One colour op on a float tensor `images` (and its scalar float32 arguments)."""
    if not images.dtype.is_floating:
        raise TypeError("Value passed to parameter 'images' has DataType %s not in list of "
                        "allowed values: float16, float32, float64"
                        % images.dtype.base_dtype.name)
    return apply_op(op_type, [images] + list(scalars), {"T": images.dtype.base_dtype}, name)
