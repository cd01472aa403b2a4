"""The bounding-box ops: `DrawBoundingBoxes` / `DrawBoundingBoxesV2`, `CropAndResize`
and `SampleDistortedBoundingBoxV2` (kernels/cpu/image_boxes.py).

SampleDistortedBoundingBoxV2 is random: it draws from the op's generator in the session
(kernels/cpu/random_kernels.py), seeded by its `seed` and `seed2` attributes, so a
seeded op repeats its sequence in each new Session, but not TensorFlow's numbers.
"""
import numpy as np

from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.registry import gradient, not_differentiable, register_op
from tfteach.kernels.cpu import image_boxes as kernels
from tfteach.kernels.cpu.random_kernels import generator
from tfteach.kernels.cpu.shape_kernels import invalid_argument
from tfteach.ops.build_time_values import inferred_value
from tfteach.ops.op_builder import ShapeError, apply_op
from tfteach.runtime.placement import register_cpu_only

__all__ = ["draw_boxes", "crop_and_resize", "sample_distorted_box"]


def _rank(tensor, rank):
    if tensor.shape.ndims not in (None, rank):
        raise ShapeError("Shape must be rank %d but is rank %d" % (rank, tensor.shape.ndims))


def _draw_shape(op):
    images, boxes = op._inputs[:2]
    _rank(images, 4)
    _rank(boxes, 3)
    return [(images.dtype.base_dtype, images.shape)]


def _draw_kernel(ctx, images, boxes, colors=None):
    images, boxes = np.asarray(images), np.asarray(boxes)
    if images.ndim != 4:
        raise invalid_argument(ctx, "The rank of the images should be 4")
    depth = images.shape[3]
    if depth not in (1, 3, 4):
        raise invalid_argument(ctx, "Channel depth should be either 1 (GRY), 3 (RGB), or 4 "
                               "(RGBA)")
    if boxes.ndim != 3 or boxes.shape[2] != 4 or boxes.shape[0] != images.shape[0]:
        raise invalid_argument(ctx, "boxes must be 3-D [batch, num_boxes, 4]: %s"
                               % list(boxes.shape))
    if colors is None or np.size(colors) == 0:
        table = kernels.DEFAULT_COLORS.copy()
        if depth == 1:
            table[:, 0] = 1
    else:
        table = np.asarray(colors, np.float32)
        if table.ndim != 2 or table.shape[1] < depth:
            raise invalid_argument(ctx, "colors must be a 2-D tensor with at least %d "
                                   "columns" % depth)
    return kernels.draw_boxes(images, boxes, table)


register_op("DrawBoundingBoxes", _draw_shape, cpu=_draw_kernel)
register_op("DrawBoundingBoxesV2", _draw_shape, cpu=_draw_kernel)


def _crop_and_resize_shape(op):
    image, boxes, box_index, crop_size = op._inputs
    _rank(image, 4)
    _rank(boxes, 2)
    _rank(box_index, 1)
    _rank(crop_size, 1)
    size = inferred_value(crop_size)
    crop_h = crop_w = None
    if size is not None:
        crop_h, crop_w = (int(v) for v in np.ravel(size))
    num = boxes.shape[0].value if boxes.shape.ndims == 2 else None
    depth = image.shape[3].value if image.shape.ndims == 4 else None
    return [(dtypes.float32, tensor_shape.TensorShape([num, crop_h, crop_w, depth]))]


def _crop_and_resize_kernel(ctx, image, boxes, box_index, crop_size):
    image, boxes = np.asarray(image), np.asarray(boxes, np.float32)
    box_index, crop_size = np.asarray(box_index), np.asarray(crop_size)
    if image.ndim != 4:
        raise invalid_argument(ctx, "input image must be 4-D%s" % list(image.shape))
    if image.shape[1] <= 0 or image.shape[2] <= 0:
        raise invalid_argument(ctx, "image dimensions must be positive")
    if boxes.ndim != 2 or boxes.shape[1] != 4 or box_index.shape != (boxes.shape[0],):
        raise invalid_argument(ctx, "box_index has incompatible shape")
    if crop_size.shape != (2,):
        raise invalid_argument(ctx, "crop_size must be a length-2 vector, got %d"
                               % crop_size.size)
    crop_h, crop_w = int(crop_size[0]), int(crop_size[1])
    if crop_h <= 0 or crop_w <= 0:
        raise invalid_argument(ctx, "crop dimensions must be positive")
    if np.any((box_index < 0) | (box_index >= image.shape[0])):
        raise invalid_argument(ctx, "box_index has values outside [0, batch_size)")
    if image.dtype in (np.bool_, np.float16):
        image = image.astype(np.float32)
    return kernels.crop_and_resize(image, boxes, box_index.astype(np.int64), crop_h, crop_w,
                                   ctx.attrs["method"] == "bilinear",
                                   np.float32(ctx.attrs["extrapolation_value"]))


register_op("CropAndResize", _crop_and_resize_shape, cpu=_crop_and_resize_kernel)


def _grad_image_shape(op):
    grads, boxes, box_index, image_size = op._inputs
    _rank(grads, 4)
    value = inferred_value(image_size)
    shape = (tensor_shape.unknown_shape(4) if value is None
             else tensor_shape.TensorShape([int(v) for v in np.ravel(value)]))
    return [(op._attrs["T"], shape)]


def _grad_image_kernel(ctx, grads, boxes, box_index, image_size):
    image_size = [int(v) for v in np.ravel(image_size)]
    if len(image_size) != 4:
        raise invalid_argument(ctx, "image_size must be a 4-D vector, got %d elements"
                               % len(image_size))
    result = kernels.crop_and_resize_grad_image(
        np.asarray(grads, np.float32), np.asarray(boxes, np.float32),
        np.asarray(box_index).astype(np.int64), tuple(image_size),
        ctx.attrs["method"] == "bilinear")
    return result.astype(ctx.attrs["T"].np, copy=False)


def _grad_boxes_shape(op):
    grads, image, boxes, box_index = op._inputs
    return [(dtypes.float32, boxes.shape)]


def _grad_boxes_kernel(ctx, grads, image, boxes, box_index):
    image = np.asarray(image)
    if image.dtype in (np.bool_, np.float16):
        image = image.astype(np.float32)
    return kernels.crop_and_resize_grad_boxes(
        np.asarray(grads, np.float32), image, np.asarray(boxes, np.float32),
        np.asarray(box_index).astype(np.int64))


register_op("CropAndResizeGradImage", _grad_image_shape, cpu=_grad_image_kernel)
register_op("CropAndResizeGradBoxes", _grad_boxes_shape, cpu=_grad_boxes_kernel)


@gradient("CropAndResize")
def _crop_and_resize_grad(op, grad):
    """TF's: the image's gradient (float images only) and the boxes' (from bilinear
    sampling, even for the nearest method); none for the indices and the size."""
    from tfteach.ops import array_ops
    image, boxes, box_index, _ = op.inputs
    if image.shape.is_fully_defined():
        image_size = convert_to_tensor(np.array(image.shape.as_list(), np.int32))
    else:
        image_size = array_ops.shape(image)
    grad_image = None
    if image.dtype.base_dtype in (dtypes.float16, dtypes.float32, dtypes.float64):
        grad_image = apply_op("CropAndResizeGradImage", [grad, boxes, box_index, image_size],
                              {"T": image.dtype.base_dtype, "method": op.get_attr("method")})
    grad_boxes = apply_op("CropAndResizeGradBoxes", [grad, image, boxes, box_index],
                          {"T": image.dtype.base_dtype, "method": "bilinear"})
    return [grad_image, grad_boxes, None, None]


def _sample_shape(op):
    image_size, boxes, min_covered = op._inputs
    _rank(image_size, 1)
    _rank(boxes, 3)
    _rank(min_covered, 0)
    if image_size.shape.ndims == 1 and image_size.shape[0].value not in (None, 3):
        raise ShapeError("Dimension must be 3 but is %d" % image_size.shape[0].value)
    if boxes.shape.ndims == 3 and boxes.shape[2].value not in (None, 4):
        raise ShapeError("Dimension must be 4 but is %d" % boxes.shape[2].value)
    dtype = image_size.dtype.base_dtype
    return [(dtype, tensor_shape.TensorShape([3])), (dtype, tensor_shape.TensorShape([3])),
            (dtypes.float32, tensor_shape.TensorShape([1, 1, 4]))]


def _sample_kernel(ctx, image_size, boxes, min_covered):
    image_size, boxes = np.asarray(image_size), np.asarray(boxes, np.float32)
    attrs = ctx.attrs
    if image_size.ndim != 1:
        raise invalid_argument(ctx, "image_size must be 1-dimensional%s"
                               % list(image_size.shape))
    if image_size.size != 3:
        raise invalid_argument(ctx, "image_size must contain 3 values")
    if boxes.ndim != 3:
        raise invalid_argument(ctx, "input boxes must be 3-dimensional [batch, num_boxes, "
                               "coords]: %s" % list(boxes.shape))
    if boxes.shape[2] != 4:
        raise invalid_argument(ctx, "bounding boxes must have shape [4] or [*, 4], got %s"
                               % list(boxes.shape))
    boxes = boxes.reshape(-1, 4)
    if boxes.size == 0 and not attrs["use_image_if_no_bounding_boxes"]:
        raise invalid_argument(ctx, "No bounding boxes provided as input. One must enable "
                               "use_image_if_no_bounding_boxes if you wish to not provide "
                               "any bounding boxes.")
    for value in boxes.ravel():
        if not 0 <= value <= 1:
            raise invalid_argument(ctx, "All bounding box coordinates must be in [0.0, 1.0]: "
                                   "%g" % value)
    height, width = int(image_size[0]), int(image_size[1])
    if height <= 0 or width <= 0:
        raise invalid_argument(ctx, "image height and width must be positive, got [%d, %d]"
                               % (height, width))
    min_covered = np.float32(min_covered)
    if min_covered < 0:
        raise invalid_argument(ctx, "min_object_covered must be non-negative: %g"
                               % min_covered)
    x0, y0, x1, y1 = kernels.sample_crop(generator(ctx), height, width, boxes, min_covered,
                                         attrs["aspect_ratio_range"], attrs["area_range"],
                                         attrs["max_attempts"])
    dtype = image_size.dtype
    begin = np.array([y0, x0, 0], dtype)
    size = np.array([y1 - y0, x1 - x0, -1], dtype)
    box = np.array([[[y0 / height, x0 / width, y1 / height, x1 / width]]], np.float32)
    return begin, size, box


register_op("SampleDistortedBoundingBoxV2", _sample_shape, cpu=_sample_kernel, stateful=True)

for _op_type in ("DrawBoundingBoxes", "DrawBoundingBoxesV2", "CropAndResize",
                 "CropAndResizeGradImage", "CropAndResizeGradBoxes",
                 "SampleDistortedBoundingBoxV2"):
    register_cpu_only(_op_type)
for _op_type in ("DrawBoundingBoxes", "DrawBoundingBoxesV2", "SampleDistortedBoundingBoxV2"):
    not_differentiable(_op_type)
# CropAndResizeGradImage/Boxes have no gradient in TF 1.15 (none registered): a second
# derivative raises LookupError rather than a silent zero.


def draw_boxes(images, boxes, colors=None, name=None):
    if colors is None:
        return apply_op("DrawBoundingBoxes", [images, boxes], {"T": images.dtype.base_dtype},
                        name)
    return apply_op("DrawBoundingBoxesV2", [images, boxes, colors],
                    {"T": images.dtype.base_dtype}, name)


def crop_and_resize(image, boxes, box_index, crop_size, method, extrapolation_value, name):
    return apply_op("CropAndResize", [image, boxes, box_index, crop_size],
                    {"T": image.dtype.base_dtype, "method": method,
                     "extrapolation_value": float(extrapolation_value)}, name)


def sample_distorted_box(image_size, boxes, min_covered, attrs, name=None):
    attrs = dict(attrs, T=image_size.dtype.base_dtype)
    return apply_op("SampleDistortedBoundingBoxV2", [image_size, boxes, min_covered], attrs,
                    name)
