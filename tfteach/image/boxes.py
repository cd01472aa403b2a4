"""Bounding boxes (tf.image.draw_bounding_boxes, sample_distorted_bounding_box).

A box is [y_min, x_min, y_max, x_max] in fractions of the image's height and width.
"""
from tfteach.framework import dtypes
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.graph_functions import name_scope
from tfteach.ops.image import box_ops

__all__ = ["draw_bounding_boxes", "sample_distorted_bounding_box"]


def draw_bounding_boxes(images, boxes, name=None, colors=None):
    """Draws the boxes' outlines on a float batch [batch, height, width, depth]: box k
    of each image in colour k of the table (yellow, blue, red, ...) or of `colors`."""
    with name_scope(name, "DrawBoundingBoxes", [images, boxes]) as scope:
        images = convert_to_tensor(images, name="images")
        if images.dtype.base_dtype not in (dtypes.float32, dtypes.float16):
            raise TypeError("Value passed to parameter 'images' has DataType %s not in list "
                            "of allowed values: float32, half"
                            % images.dtype.base_dtype.name)
        boxes = convert_to_tensor(boxes, dtypes.float32, name="boxes")
        if colors is not None:
            colors = convert_to_tensor(colors, dtypes.float32, name="colors")
        return box_ops.draw_boxes(images, boxes, colors, name=scope)


def sample_distorted_bounding_box(image_size, bounding_boxes, seed=None, seed2=None,
                                  min_object_covered=0.1, aspect_ratio_range=None,
                                  area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """A random crop that covers at least `min_object_covered` of one of the boxes
    ([batch, N, 4] floats): (begin, size, bbox) for tf.slice and draw_bounding_boxes.

    The crop's aspect ratio is in `aspect_ratio_range` (default [0.75, 1.33]) and its
    area a fraction `area_range` (default [0.05, 1]) of the image; after `max_attempts`
    (default 100) failures it is the whole image.
    """
    with name_scope(name, "sample_distorted_bounding_box",
                    [image_size, bounding_boxes]) as scope:
        image_size = convert_to_tensor(image_size, name="image_size")
        if image_size.dtype.base_dtype not in (dtypes.uint8, dtypes.int8, dtypes.int16,
                                               dtypes.int32, dtypes.int64):
            raise TypeError("Value passed to parameter 'image_size' has DataType %s not in "
                            "list of allowed values: uint8, int8, int16, int32, int64"
                            % image_size.dtype.base_dtype.name)
        boxes = convert_to_tensor(bounding_boxes, dtypes.float32, name="bounding_boxes")
        covered = convert_to_tensor(min_object_covered, dtypes.float32,
                                    name="min_object_covered")
        # TF 1.x passes `seed` and `seed2` to the op as they are: the graph seed
        # (tf.set_random_seed) does not reach this op; (0, 0) draws fresh numbers
        attrs = {"seed": int(seed or 0), "seed2": int(seed2 or 0),
                 "aspect_ratio_range": [float(v) for v in (aspect_ratio_range
                                                           or (0.75, 1.33))],
                 "area_range": [float(v) for v in (area_range or (0.05, 1.0))],
                 "max_attempts": int(max_attempts or 100),
                 "use_image_if_no_bounding_boxes": bool(use_image_if_no_bounding_boxes)}
        return tuple(box_ops.sample_distorted_box(image_size, boxes, covered, attrs,
                                                  name=scope))
