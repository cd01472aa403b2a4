"""Colour spaces YIQ and YUV, and measures of images: total_variation, psnr,
image_gradients, sobel_edges — TF 1.15's compositions of array, math and conv ops
(so their gradients are those ops' gradients)."""
import numpy as np

from tfteach.framework import dtypes
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.graph_functions import name_scope
from tfteach.image.colors import convert_image_dtype
from tfteach.ops import array_ops, math_ops, reduction_ops
from tfteach.ops.constant_op import identity
from tfteach.ops.tensordot import tensordot

__all__ = ["rgb_to_yiq", "yiq_to_rgb", "rgb_to_yuv", "yuv_to_rgb", "total_variation",
           "psnr", "image_gradients", "sobel_edges"]

# TF's matrices: a pixel row vector [r, g, b] times the matrix
_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
               [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021],
               [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
               [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _colour_matrix(images, matrix):
    images = convert_to_tensor(images, name="images")
    kernel = convert_to_tensor(np.array(matrix, images.dtype.np), name="kernel")
    if images.get_shape().is_fully_defined():
        ndims = images.get_shape().ndims
        return tensordot(images, kernel, axes=[[ndims - 1], [0]])     # TF's graph
    # tfteach's tensordot wants known shapes: the same product on the pixels as rows
    pixels = array_ops.reshape(images, [-1, 3])
    return array_ops.reshape(math_ops.matmul(pixels, kernel), array_ops.shape(images))


def rgb_to_yiq(images):
    """RGB -> YIQ (Y the luma, I and Q the colour), on float images."""
    return _colour_matrix(images, _RGB_TO_YIQ)


def yiq_to_rgb(images):
    return _colour_matrix(images, _YIQ_TO_RGB)


def rgb_to_yuv(images):
    """RGB -> YUV (Y the luma, U and V the colour), on float images."""
    return _colour_matrix(images, _RGB_TO_YUV)


def yuv_to_rgb(images):
    return _colour_matrix(images, _YUV_TO_RGB)


def total_variation(images, name=None):
    """The sum of the absolute differences of neighbouring pixels (down and right): one
    number per image, a measure of noise (a loss term to make images smooth)."""
    with name_scope(name, "total_variation"):
        images = convert_to_tensor(images, name="images")
        ndims = images.get_shape().ndims
        if ndims == 3:
            rows = images[1:, :, :] - images[:-1, :, :]
            cols = images[:, 1:, :] - images[:, :-1, :]
            axis = None
        elif ndims == 4:
            rows = images[:, 1:, :, :] - images[:, :-1, :, :]
            cols = images[:, :, 1:, :] - images[:, :, :-1, :]
            axis = [1, 2, 3]
        else:
            raise ValueError("'images' must be either 3 or 4-dimensional.")
        return (reduction_ops.reduce_sum(math_ops.abs(rows), axis=axis)
                + reduction_ops.reduce_sum(math_ops.abs(cols), axis=axis))


def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio of two images (or batches) in dB:
    20 log10(max_val) - 10 log10(mean squared error), per image."""
    with name_scope(name, "PSNR", [a, b]):
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b")
        shape_a, shape_b = a.get_shape(), b.get_shape()
        if shape_a.ndims is not None and shape_b.ndims is not None:
            if not shape_a[-3:].is_compatible_with(shape_b[-3:]):
                raise ValueError("Shapes must be compatible: %s and %s" % (shape_a, shape_b))
        # everything in float32, max_val scaled as the images are
        max_val = convert_image_dtype(math_ops.cast(max_val, a.dtype), dtypes.float32)
        a = convert_image_dtype(a, dtypes.float32)
        b = convert_image_dtype(b, dtypes.float32)
        mse = reduction_ops.reduce_mean(math_ops.squared_difference(a, b), [-3, -2, -1])
        value = math_ops.subtract(20 * math_ops.log(max_val) / math_ops.log(10.0),
                                  np.float32(10 / np.log(10)) * math_ops.log(mse),
                                  name="psnr")
        return identity(value)


def image_gradients(image):
    """(dy, dx) of a batch [batch, h, w, d]: I(y+1, x) - I(y, x) and I(y, x+1) - I(y, x),
    zero in the last row / column, each the image's shape."""
    if image.get_shape().ndims != 4:
        raise ValueError("image_gradients expects a 4D tensor [batch_size, h, w, d], not %s."
                         % image.get_shape())
    image_shape = array_ops.shape(image)
    batch_size, height, width, depth = array_ops.unstack(image_shape)
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    zeros = array_ops.zeros(array_ops.stack([batch_size, 1, width, depth]), image.dtype)
    dy = array_ops.reshape(array_ops.concat([dy, zeros], 1), image_shape)
    zeros = array_ops.zeros(array_ops.stack([batch_size, height, 1, depth]), image.dtype)
    dx = array_ops.reshape(array_ops.concat([dx, zeros], 2), image_shape)
    return dy, dx


def sobel_edges(image):
    """Sobel's vertical and horizontal edge maps of a batch [batch, h, w, d], as
    [batch, h, w, d, 2] (a depthwise convolution of the reflect-padded image)."""
    from tfteach import nn
    image = convert_to_tensor(image, name="image")
    static_shape = image.get_shape()
    image_shape = array_ops.shape(image)
    kernels = [[[-1, -2, -1], [0, 0, 0], [1, 2, 1]], [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]]
    kernels = np.expand_dims(np.transpose(np.asarray(kernels), (1, 2, 0)), -2)
    filters = array_ops.tile(convert_to_tensor(kernels.astype(image.dtype.np)),
                             array_ops.stack([1, 1, image_shape[-1], 1]),
                             name="sobel_filters")
    padded = array_ops.pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    output = nn.depthwise_conv2d(padded, filters, [1, 1, 1, 1], "VALID")
    output = array_ops.reshape(output, array_ops.concat([image_shape, [2]], 0))
    if static_shape.ndims is not None:
        output.set_shape(static_shape.concatenate([2]))
    return output
