"""TF 1.15's static checks of image arguments (image_ops_impl's _Check3DImage,
_CheckAtLeast3DImage, _ImageDimensions), with its ValueError texts.

Only the static part is kept: where TF adds runtime Assert ops for dimensions unknown at
build time, tfteach leaves the check to the kernels (docs/image.md).
"""
from tfteach.framework.tensor import Tensor
from tfteach.ops import array_ops
from tfteach.ops.variables import Variable

__all__ = ["is_tensor", "check_3d_image", "check_at_least_3d_image", "image_dimensions",
           "as_batch", "check_rank_3_or_4"]


def is_tensor(x):
    return isinstance(x, (Tensor, Variable))


def check_3d_image(image, require_static=True):
    shape = image.get_shape()
    if shape.ndims not in (None, 3):
        raise ValueError("'image' (shape %s) must be three-dimensional." % shape)
    shape = shape.with_rank(3)
    if require_static and not shape.is_fully_defined():
        raise ValueError("'image' (shape %s) must be fully defined." % shape)
    if any(d == 0 for d in shape.as_list()):
        raise ValueError("all dims of 'image.shape' must be > 0: %s" % shape)


def check_at_least_3d_image(image, require_static=True):
    shape = image.get_shape()
    if shape.ndims is not None and shape.ndims < 3:
        raise ValueError("'image' must be at least three-dimensional.")
    if require_static and not shape.is_fully_defined():
        raise ValueError("'image' must be fully defined.")
    if shape.ndims is not None and any(d == 0 for d in shape.as_list()):
        raise ValueError("all dims of 'image.shape' must be > 0: %s" % shape)


def check_rank_3_or_4(image):
    ndims = image.get_shape().ndims
    if ndims not in (None, 3, 4):
        raise ValueError("'image' must have either 3 or 4 dimensions.")
    return ndims


def image_dimensions(image, rank):
    """The dims of `image`: Python ints where known, scalar int32 tensors elsewhere."""
    shape = image.get_shape()
    if shape.is_fully_defined():
        return shape.as_list()
    static = shape.with_rank(rank).as_list()
    dynamic = array_ops.unstack(array_ops.shape(image), rank)
    return [s if s is not None else d for s, d in zip(static, dynamic)]


def as_batch(image):
    """(4-D image, was it a batch): a 3-D (or unknown-rank) image gets a batch axis, as
    TF's crop and pad functions do before working on [batch, height, width, depth]."""
    ndims = image.get_shape().ndims
    if ndims == 3:
        return array_ops.expand_dims(image, 0), False
    if ndims is None:
        image = array_ops.expand_dims(image, 0)
        image.set_shape([None] * 4)
        return image, False
    if ndims != 4:
        raise ValueError("'image' must have either 3 or 4 dimensions.")
    return image, True
