"""The resize ops (`ResizeBilinear`, `ResizeNearestNeighbor`, `ResizeBicubic`,
`ResizeArea`) and the gradients TF 1.15 has for them (all but area's: tf.gradients
through `ResizeArea` raises LookupError, as in TF).

Each takes a 4-D `images` tensor and a 1-D int32 `size` of two elements; the output is
`[batch, new_height, new_width, channels]`, float32 except for nearest neighbour, which
keeps the input's dtype. The shape function reads `size` when it is a constant, as TF's
`SetOutputToSizedImage` does. Kernels: kernels/cpu/image_resize.py.
"""
import numpy as np

from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.registry import gradient, not_differentiable, register_op
from tfteach.kernels.cpu import image_resize as kernels
from tfteach.kernels.cpu.shape_kernels import invalid_argument
from tfteach.ops.build_time_values import inferred_value
from tfteach.ops.op_builder import ShapeError, apply_op
from tfteach.runtime.placement import register_cpu_only

__all__ = ["resize", "RESIZE_OP_TYPES"]

RESIZE_OP_TYPES = ("ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic", "ResizeArea")
_REAL_TYPES = ("int8", "uint8", "int16", "uint16", "int32", "int64", "float16", "float32",
               "float64", "bfloat16")


def _check_rank(shape, rank):
    if shape.ndims is not None and shape.ndims != rank:
        raise ShapeError("Shape must be rank %d but is rank %d" % (rank, shape.ndims))


def sized_image_shape(images, size):
    """TF's SetOutputToSizedImage: [batch, size[0], size[1], channels]."""
    _check_rank(images.shape, 4)
    _check_rank(size.shape, 1)
    if size.shape.ndims == 1 and size.shape[0].value not in (None, 2):
        raise ShapeError("Dimension must be 2 but is %d" % size.shape[0].value)
    value = inferred_value(size)
    height = width = None
    if value is not None:
        height, width = (int(v) for v in np.ravel(value))
        if height < 0 or width < 0:
            raise ShapeError("Dimension %d must be >= 0" % min(height, width))
    batch, channels = (None, None) if images.shape.ndims is None else (
        images.shape[0].value, images.shape[3].value)
    return tensor_shape.TensorShape([batch, height, width, channels])


def _resize_shape(op):
    images, size = op._inputs
    dtype = images.dtype.base_dtype if op.type == "ResizeNearestNeighbor" else dtypes.float32
    return [(dtype, sized_image_shape(images, size))]


def _new_size(ctx, images, size):
    """TF's ImageResizerState checks; returns (out_height, out_width, scale_h, scale_w)."""
    images, size = np.asarray(images), np.asarray(size)
    if images.ndim != 4:
        raise invalid_argument(ctx, "input must be 4-dimensional%s" % list(images.shape))
    if size.ndim != 1:
        raise invalid_argument(ctx, "shape_t must be 1-dimensional%s" % list(size.shape))
    if size.size != 2:
        raise invalid_argument(ctx, "shape_t must have two elements%s" % list(size.shape))
    out_h, out_w = int(size[0]), int(size[1])
    _, in_h, in_w, _ = images.shape
    if out_h <= 0 or out_w <= 0:
        raise invalid_argument(ctx, "output dimensions must be positive")
    if in_h == 0 or in_w == 0:
        raise invalid_argument(ctx, "input image must be of non-zero size")
    align = ctx.attrs["align_corners"]
    if align and ctx.attrs.get("half_pixel_centers"):
        raise invalid_argument(ctx, "If half_pixel_centers is True, align_corners must be "
                               "False.")
    return (out_h, out_w, kernels.resize_scale(in_h, out_h, align),
            kernels.resize_scale(in_w, out_w, align))


def _real_input(images):
    # Numba compiles one loop per input dtype; bool/half inputs are read as float32.
    images = np.asarray(images)
    return images.astype(np.float32) if images.dtype in (np.bool_, np.float16) else images


def _bilinear_kernel(ctx, images, size):
    out_h, out_w, sh, sw = _new_size(ctx, images, size)
    return kernels.resize_bilinear(_real_input(images), out_h, out_w, sh, sw)


def _nearest_kernel(ctx, images, size):
    out_h, out_w, sh, sw = _new_size(ctx, images, size)
    return kernels.resize_nearest(np.asarray(images), out_h, out_w, sh, sw,
                                  ctx.attrs["align_corners"])


def _bicubic_kernel(ctx, images, size):
    out_h, out_w, sh, sw = _new_size(ctx, images, size)
    return kernels.resize_bicubic(_real_input(images), out_h, out_w, sh, sw)


def _area_kernel(ctx, images, size):
    out_h, out_w, sh, sw = _new_size(ctx, images, size)
    return kernels.resize_area(_real_input(images), out_h, out_w, sh, sw)


for _op_type, _kernel in zip(RESIZE_OP_TYPES, (_bilinear_kernel, _nearest_kernel,
                                               _bicubic_kernel, _area_kernel)):
    register_op(_op_type, _resize_shape, cpu=_kernel)
    register_cpu_only(_op_type)


# -- gradients -------------------------------------------------------------------------------
def _bilinear_grad_shape(op):
    grads, original = op._inputs
    _check_rank(grads.shape, 4)
    _check_rank(original.shape, 4)
    return [(original.dtype.base_dtype, original.shape)]


def _scattering_kernel(scatter):
    """The kernel of a gradient op (grads, original_image) -> d original_image."""
    def kernel(ctx, grads, original):
        grads, original = np.asarray(grads), np.asarray(original)
        _, in_h, in_w, _ = original.shape
        align = ctx.attrs["align_corners"]
        out_h, out_w = grads.shape[1:3]
        result = scatter(grads.astype(np.float32, copy=False), in_h, in_w,
                         kernels.resize_scale(in_h, out_h, align),
                         kernels.resize_scale(in_w, out_w, align))
        return result.astype(original.dtype, copy=False)
    return kernel


_bilinear_grad_kernel = _scattering_kernel(kernels.resize_bilinear_grad)
_bicubic_grad_kernel = _scattering_kernel(kernels.resize_bicubic_grad)


def _nearest_grad_shape(op):
    grads, size = op._inputs
    return [(grads.dtype.base_dtype, sized_image_shape(grads, size))]


def _nearest_grad_kernel(ctx, grads, size):
    grads, size = np.asarray(grads), np.asarray(size)
    in_h, in_w = int(size[0]), int(size[1])
    align = ctx.attrs["align_corners"]
    out_h, out_w = grads.shape[1:3]
    return kernels.resize_nearest_grad(grads, in_h, in_w,
                                       kernels.resize_scale(in_h, out_h, align),
                                       kernels.resize_scale(in_w, out_w, align), align)


register_op("ResizeBilinearGrad", _bilinear_grad_shape, cpu=_bilinear_grad_kernel)
register_op("ResizeBicubicGrad", _bilinear_grad_shape, cpu=_bicubic_grad_kernel)
register_op("ResizeNearestNeighborGrad", _nearest_grad_shape, cpu=_nearest_grad_kernel)
# No gradient of their own, as in TF 1.15 (image_grad.py registers none): a second
# derivative through a resize raises TF's LookupError. Marking them not_differentiable
# would instead give a silent zero.
for _op_type in ("ResizeBilinearGrad", "ResizeBicubicGrad", "ResizeNearestNeighborGrad"):
    register_cpu_only(_op_type)


def _attrs(op):
    return {"align_corners": op.get_attr("align_corners"),
            "half_pixel_centers": op.get_attr("half_pixel_centers")}


def _scattering_gradient(grad_op_type):
    """TF's gradient of ResizeBilinear / ResizeBicubic: only float32/float64 images get
    one (None for the others, as in TF)."""
    def gradient_fn(op, grad):
        original = op.inputs[0]
        if original.dtype.base_dtype not in (dtypes.float32, dtypes.float64):
            return [None, None]
        attrs = dict(_attrs(op), T=original.dtype.base_dtype)
        return [apply_op(grad_op_type, [grad, original], attrs), None]
    return gradient_fn


gradient("ResizeBilinear")(_scattering_gradient("ResizeBilinearGrad"))
gradient("ResizeBicubic")(_scattering_gradient("ResizeBicubicGrad"))


@gradient("ResizeNearestNeighbor")
def _resize_nearest_grad(op, grad):
    from tfteach.ops import array_ops
    image = op.inputs[0]
    if image.shape.ndims == 4 and image.shape[1:3].is_fully_defined():
        size = convert_to_tensor(np.array(image.shape[1:3].as_list(), np.int32))
    else:
        size = array_ops.shape(image)[1:3]
    attrs = dict(_attrs(op), T=grad.dtype.base_dtype)
    return [apply_op("ResizeNearestNeighborGrad", [grad, size], attrs), None]


def resize(op_type, images, size, align_corners=False, name=None):
    """One resize op on a 4-D `images` tensor and an int32 `size` tensor."""
    if images.dtype.base_dtype.name not in _REAL_TYPES:
        raise TypeError("Value passed to parameter 'images' has DataType %s not in list of "
                        "allowed values: %s" % (images.dtype.base_dtype.name,
                                                ", ".join(_REAL_TYPES)))
    return apply_op(op_type, [images, size],
                    {"T": images.dtype.base_dtype, "align_corners": bool(align_corners),
                     "half_pixel_centers": False}, name)
