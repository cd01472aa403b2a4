"""Resizing (tf.image.resize_images / resize, resize_bilinear, ..., crop_and_resize).

TF 1.15's `resize_images` (also `tf.image.resize` in 1.x) calls the legacy kernels
(`half_pixel_centers=False`); TF 2's `tf.image.resize` is a different function with
half-pixel centres and no `align_corners`. tfteach follows 1.15 (docs/image.md).
"""
from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.graph_functions import name_scope
from tfteach.image.checks import image_dimensions
from tfteach.ops import array_ops, math_ops
from tfteach.ops.image import box_ops, resize_ops
from tfteach.ops.op_builder import constant_value

__all__ = ["ResizeMethod", "resize_images", "resize", "resize_bilinear",
           "resize_nearest_neighbor", "resize_bicubic", "resize_area", "crop_and_resize",
           "resize_image_with_pad"]


class ResizeMethod:
    """The `method` argument of resize_images (the notes' method=0..3)."""
    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


_OP_OF_METHOD = dict(zip((ResizeMethod.BILINEAR, ResizeMethod.NEAREST_NEIGHBOR,
                          ResizeMethod.BICUBIC, ResizeMethod.AREA),
                         resize_ops.RESIZE_OP_TYPES))


def _size_dims(size):
    value = constant_value(size)
    if value is None:
        return None, None
    height, width = (int(v) for v in value.ravel())
    return height, width


def resize_images(images, size, method=ResizeMethod.BILINEAR, align_corners=False,
                  preserve_aspect_ratio=False, name=None):
    """Resizes [batch,] height, width, channels images to `size` = [new_height, new_width].

    The result is float32, except with NEAREST_NEIGHBOR (the input's dtype) and when the
    size is already `size` (the input itself, as in TF).
    """
    with name_scope(name, "resize", [images, size]):
        images = convert_to_tensor(images, name="images")
        if images.get_shape().ndims is None:
            raise ValueError("'images' contains no shape.")
        is_batch = True
        if images.get_shape().ndims == 3:
            is_batch = False
            images = array_ops.expand_dims(images, 0)
        elif images.get_shape().ndims != 4:
            raise ValueError("'images' must have either 3 or 4 dimensions.")
        _, height, width, _ = images.get_shape().as_list()
        try:
            size = convert_to_tensor(size, dtypes.int32, name="size")
        except (TypeError, ValueError):
            raise ValueError("'size' must be a 1-D int32 Tensor") from None
        if not size.get_shape().is_compatible_with(tensor_shape.TensorShape([2])):
            raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, "
                             "new_width")
        if method not in _OP_OF_METHOD:
            raise ValueError("Resize method is not implemented.")
        if preserve_aspect_ratio:
            _, current_height, current_width, _ = image_dimensions(images, rank=4)
            factor_h = (math_ops.cast(size[0], dtypes.float32)
                        / math_ops.cast(current_height, dtypes.float32))
            factor_w = (math_ops.cast(size[1], dtypes.float32)
                        / math_ops.cast(current_width, dtypes.float32))
            factor = math_ops.minimum(factor_h, factor_w)
            new_h = math_ops.cast(math_ops.round(
                factor * math_ops.cast(current_height, dtypes.float32)), dtypes.int32)
            new_w = math_ops.cast(math_ops.round(
                factor * math_ops.cast(current_width, dtypes.float32)), dtypes.int32)
            size = convert_to_tensor(array_ops.stack([new_h, new_w]), dtypes.int32,
                                     name="size")
        new_height, new_width = _size_dims(size)
        if (None not in (new_height, new_width, height, width)
                and (height, width) == (new_height, new_width)):
            return images if is_batch else array_ops.squeeze(images, axis=[0])
        images = resize_ops.resize(_OP_OF_METHOD[method], images, size, align_corners)
        images.set_shape([None, new_height, new_width, None])
        return images if is_batch else array_ops.squeeze(images, axis=[0])


resize = resize_images       # TF 1.x: tf.image.resize is resize_images


def _resizer(op_type):
    def resize_fn(images, size, align_corners=False, name=None, half_pixel_centers=False):
        if half_pixel_centers:
            raise NotImplementedError("tfteach's resize kernels are TF 1.15's legacy ones "
                                      "(half_pixel_centers=False)")
        images = convert_to_tensor(images, name="images")
        size = convert_to_tensor(size, dtypes.int32, name="size")
        return resize_ops.resize(op_type, images, size, align_corners, name=name)
    resize_fn.__name__ = "resize_" + {"ResizeBilinear": "bilinear",
                                      "ResizeNearestNeighbor": "nearest_neighbor",
                                      "ResizeBicubic": "bicubic", "ResizeArea": "area"}[op_type]
    resize_fn.__doc__ = "The %s op on a 4-D batch of images." % op_type
    return resize_fn


resize_bilinear = _resizer("ResizeBilinear")
resize_nearest_neighbor = _resizer("ResizeNearestNeighbor")
resize_bicubic = _resizer("ResizeBicubic")
resize_area = _resizer("ResizeArea")


def crop_and_resize(image, boxes, box_ind=None, crop_size=None, method="bilinear",
                    extrapolation_value=0, name=None, box_indices=None):
    """Crops the normalised `boxes` ([y1, x1, y2, x2]) out of the images `box_ind` names,
    each resized to `crop_size` (bilinear or nearest); float32 [num_boxes, h, w, depth]."""
    if box_ind is None:
        box_ind = box_indices
    if method not in ("bilinear", "nearest"):
        raise ValueError("method must be 'bilinear' or 'nearest', got %r" % (method,))
    with name_scope(name, "CropAndResize", [image, boxes, box_ind, crop_size]) as scope:
        image = convert_to_tensor(image, name="image")
        boxes = convert_to_tensor(boxes, dtypes.float32, name="boxes")
        box_ind = convert_to_tensor(box_ind, dtypes.int32, name="box_ind")
        crop_size = convert_to_tensor(crop_size, dtypes.int32, name="crop_size")
        return box_ops.crop_and_resize(image, boxes, box_ind, crop_size, method,
                                       extrapolation_value, scope)


def resize_image_with_pad(image, target_height, target_width,
                          method=ResizeMethod.BILINEAR, align_corners=False):
    """Resizes keeping the aspect ratio until the image fits target_height x
    target_width, then pads it with zeros to that size (TF 1.15's arithmetic)."""
    from tfteach.image.checks import as_batch, check_at_least_3d_image, is_tensor
    from tfteach.image.crops import pad_to_bounding_box

    def max_(x, y):
        return math_ops.maximum(x, y) if is_tensor(x) or is_tensor(y) else max(x, y)

    with name_scope(None, "resize_image_with_pad", [image]):
        image = convert_to_tensor(image, name="image")
        image, is_batch = as_batch(image)
        check_at_least_3d_image(image, require_static=False)
        for value, what in ((target_width, "target_width"), (target_height,
                                                               "target_height")):
            if not is_tensor(value) and value <= 0:
                raise ValueError("%s must be > 0." % what)
        _, height, width, _ = image_dimensions(image, rank=4)
        f_height = math_ops.cast(height, dtypes.float32)
        f_width = math_ops.cast(width, dtypes.float32)
        f_target_height = math_ops.cast(target_height, dtypes.float32)
        f_target_width = math_ops.cast(target_width, dtypes.float32)
        # the ratio by which the image must shrink (or grow) to fit the target
        ratio = max_(f_width / f_target_width, f_height / f_target_height)
        resized_height_float = f_height / ratio
        resized_width_float = f_width / ratio
        resized_height = math_ops.cast(math_ops.floor(resized_height_float), dtypes.int32)
        resized_width = math_ops.cast(math_ops.floor(resized_width_float), dtypes.int32)
        padding_height = (f_target_height - resized_height_float) / 2
        padding_width = (f_target_width - resized_width_float) / 2
        p_height = max_(0, math_ops.cast(math_ops.floor(padding_height), dtypes.int32))
        p_width = max_(0, math_ops.cast(math_ops.floor(padding_width), dtypes.int32))
        resized = resize_images(image, array_ops.stack([resized_height, resized_width]),
                                method, align_corners=align_corners)
        padded = pad_to_bounding_box(resized, p_height, p_width, target_height, target_width)
        return padded if is_batch else array_ops.squeeze(padded, axis=[0])

