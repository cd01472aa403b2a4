"""Cropping and padding (tf.image.crop_to_bounding_box, pad_to_bounding_box,
resize_image_with_crop_or_pad, central_crop, tf.random_crop), built from Slice and Pad
as in TF 1.15, so their gradients are those ops' gradients.

Arguments known at build time are checked at build time (TF's ValueError texts);
tensor arguments get TF's Assert ops, which fail the run with the same words.
"""
from tfteach.framework import dtypes
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.graph_functions import name_scope
from tfteach.image.checks import (as_batch, check_at_least_3d_image, image_dimensions,
                                  is_tensor)
from tfteach.ops import array_ops, control_flow_ops, math_ops, random_ops, reduction_ops

__all__ = ["central_crop", "crop_to_bounding_box", "pad_to_bounding_box",
           "resize_image_with_crop_or_pad", "resize_with_crop_or_pad", "random_crop"]


def _assert(cond, message):
    """TF's image _assert: an Assert op for a tensor condition, else a ValueError now."""
    if is_tensor(cond):
        return [control_flow_ops.Assert(cond, [message])]
    if not cond:
        raise ValueError(message)
    return []


def _set_static_shape(result, dims):
    result.set_shape([None if is_tensor(d) else d for d in dims])
    return result


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Pads with zeros: `offset_*` rows/columns on top/left, then to the target size."""
    with name_scope(None, "pad_to_bounding_box", [image]):
        image = convert_to_tensor(image, name="image")
        image, is_batch = as_batch(image)
        check_at_least_3d_image(image, require_static=False)
        batch, height, width, depth = image_dimensions(image, rank=4)
        after_width = target_width - offset_width - width
        after_height = target_height - offset_height - height
        checks = (_assert(offset_height >= 0, "offset_height must be >= 0")
                  + _assert(offset_width >= 0, "offset_width must be >= 0")
                  + _assert(after_width >= 0, "width must be <= target - offset")
                  + _assert(after_height >= 0, "height must be <= target - offset"))
        image = control_flow_ops.with_dependencies(checks, image) if checks else image
        paddings = array_ops.reshape(
            array_ops.stack([0, 0, offset_height, after_height, offset_width, after_width,
                             0, 0]), [4, 2])
        padded = _set_static_shape(array_ops.pad(image, paddings),
                                   [batch, target_height, target_width, depth])
        return padded if is_batch else array_ops.squeeze(padded, axis=[0])


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The part of the image whose top-left corner is (offset_height, offset_width), of
    size target_height x target_width."""
    with name_scope(None, "crop_to_bounding_box", [image]):
        image = convert_to_tensor(image, name="image")
        image, is_batch = as_batch(image)
        check_at_least_3d_image(image, require_static=False)
        batch, height, width, depth = image_dimensions(image, rank=4)
        checks = (_assert(offset_width >= 0, "offset_width must be >= 0.")
                  + _assert(offset_height >= 0, "offset_height must be >= 0.")
                  + _assert(target_width > 0, "target_width must be > 0.")
                  + _assert(target_height > 0, "target_height must be > 0.")
                  + _assert(width >= (target_width + offset_width),
                            "width must be >= target + offset.")
                  + _assert(height >= (target_height + offset_height),
                            "height must be >= target + offset."))
        image = control_flow_ops.with_dependencies(checks, image) if checks else image
        cropped = array_ops.slice(image, array_ops.stack([0, offset_height, offset_width, 0]),
                                  array_ops.stack([-1, target_height, target_width, -1]))
        cropped = _set_static_shape(cropped, [batch, target_height, target_width, depth])
        return cropped if is_batch else array_ops.squeeze(cropped, axis=[0])


def _max(x, y):
    return math_ops.maximum(x, y) if is_tensor(x) or is_tensor(y) else max(x, y)


def _min(x, y):
    return math_ops.minimum(x, y) if is_tensor(x) or is_tensor(y) else min(x, y)


def resize_image_with_crop_or_pad(image, target_height, target_width):
    """Crops the centre, or pads evenly with zeros, to target_height x target_width."""
    with name_scope(None, "resize_image_with_crop_or_pad", [image]):
        image = convert_to_tensor(image, name="image")
        image, is_batch = as_batch(image)
        check_at_least_3d_image(image, require_static=False)
        checks = (_assert(target_width > 0, "target_width must be > 0.")
                  + _assert(target_height > 0, "target_height must be > 0."))
        image = control_flow_ops.with_dependencies(checks, image) if checks else image
        if is_tensor(target_height) and checks:
            target_height = control_flow_ops.with_dependencies(checks, target_height)
        if is_tensor(target_width) and checks:
            target_width = control_flow_ops.with_dependencies(checks, target_width)
        _, height, width, _ = image_dimensions(image, rank=4)
        width_diff = target_width - width
        offset_crop_width = _max(-width_diff // 2, 0)
        offset_pad_width = _max(width_diff // 2, 0)
        height_diff = target_height - height
        offset_crop_height = _max(-height_diff // 2, 0)
        offset_pad_height = _max(height_diff // 2, 0)
        cropped = crop_to_bounding_box(image, offset_crop_height, offset_crop_width,
                                       _min(target_height, height), _min(target_width, width))
        resized = pad_to_bounding_box(cropped, offset_pad_height, offset_pad_width,
                                      target_height, target_width)
        return resized if is_batch else array_ops.squeeze(resized, axis=[0])


resize_with_crop_or_pad = resize_image_with_crop_or_pad


def central_crop(image, central_fraction):
    """The central `central_fraction` (in (0, 1]) of the image along height and width."""
    with name_scope(None, "central_crop", [image]):
        image = convert_to_tensor(image, name="image")
        if central_fraction <= 0.0 or central_fraction > 1.0:
            raise ValueError("central_fraction must be within (0, 1]")
        if central_fraction == 1.0:
            return image
        check_at_least_3d_image(image, require_static=False)
        rank = image.get_shape().ndims
        if rank != 3 and rank != 4:
            raise ValueError("`image` should either be a Tensor with rank = 3 or rank = 4. "
                             "Had rank = {}.".format(rank))
        first = 0 if rank == 3 else 1
        dims = []
        for axis in (first, first + 1):
            static = image.get_shape()[axis].value
            if static is not None:
                size = float(static)
                start = int((size - size * central_fraction) / 2)
                dims.append((static, start, static - start * 2, False))
            else:
                size = math_ops.cast(array_ops.shape(image)[axis], dtypes.float64)
                start = math_ops.cast((size - size * central_fraction) / 2, dtypes.int32)
                dims.append((None, start, array_ops.shape(image)[axis] - start * 2, True))
        (_, h_start, h_size, h_dyn), (_, w_start, w_size, w_dyn) = dims
        if rank == 3:
            begin = array_ops.stack([h_start, w_start, 0])
            size = array_ops.stack([h_size, w_size, -1])
        else:
            begin = array_ops.stack([0, h_start, w_start, 0])
            size = array_ops.stack([-1, h_size, w_size, -1])
        image_shape = image.get_shape()
        image = array_ops.slice(image, begin, size)
        spatial = [None if h_dyn else h_size, None if w_dyn else w_size]
        if rank == 3:
            image.set_shape(spatial + [image_shape[2]])
        else:
            image.set_shape([image_shape[0]] + spatial + [image_shape[3]])
        return image


def random_crop(value, size, seed=None, name=None):
    """A random `size`-shaped slice of `value` (tf.random_crop): each offset uniform."""
    with name_scope(name, "random_crop", [value, size]) as name:
        value = convert_to_tensor(value, name="value")
        size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        shape = array_ops.shape(value)
        check = control_flow_ops.Assert(
            reduction_ops.reduce_all(math_ops.greater_equal(shape, size)),
            ["Need value.shape >= size, got ", shape, size], summarize=1000)
        shape = control_flow_ops.with_dependencies([check], shape)
        limit = shape - size + 1
        offset = math_ops.mod(
            random_ops.random_uniform(array_ops.shape(shape), dtype=size.dtype,
                                      maxval=size.dtype.max, seed=seed), limit)
        return array_ops.slice(value, offset, size, name=name)
