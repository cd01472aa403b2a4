"""The codec ops: `DecodeJpeg`, `DecodePng`, `DecodeGif`, `DecodeBmp`, `DecodeImage`,
`EncodeJpeg`, `EncodePng` (kernels/cpu/image_codecs.py, on Pillow), and `Substr`, which
`tf.image.is_jpeg` reads the first bytes of a string with.

Encoded images are scalar string tensors (tfteach's string dtype holds Python bytes).
"""
import numpy as np

from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.kernels.cpu import image_codecs as kernels
from tfteach.kernels.cpu.shape_kernels import invalid_argument
from tfteach.ops.op_builder import ShapeError, apply_op
from tfteach.runtime.placement import register_cpu_only

__all__ = ["decode", "encode", "substr"]

DECODE_OP_TYPES = ("DecodeJpeg", "DecodePng", "DecodeGif", "DecodeBmp", "DecodeImage")


def _scalar_input(tensor):
    if tensor.shape.ndims not in (None, 0):
        raise ShapeError("Shape must be rank 0 but is rank %d" % tensor.shape.ndims)


def _decode_shape(op):
    _scalar_input(op._inputs[0])
    attrs = op._attrs
    dtype = attrs.get("dtype", dtypes.uint8)
    channels = attrs.get("channels", 0) or None
    if op.type == "DecodeGif":
        return [(dtype, tensor_shape.TensorShape([None, None, None, 3]))]
    if op.type == "DecodeImage" and attrs.get("expand_animations", True):
        return [(dtype, tensor_shape.unknown_shape())]
    return [(dtype, tensor_shape.TensorShape([None, None, channels]))]


def _encode_shape(op):
    image = op._inputs[0]
    if image.shape.ndims not in (None, 3):
        raise ShapeError("Shape must be rank 3 but is rank %d" % image.shape.ndims)
    return [(dtypes.string, tensor_shape.scalar())]


for _op_type in DECODE_OP_TYPES:
    register_op(_op_type, _decode_shape, cpu=kernels.decode_kernel)
register_op("EncodeJpeg", _encode_shape, cpu=kernels.encode_jpeg_kernel)
register_op("EncodePng", _encode_shape, cpu=kernels.encode_png_kernel)


def _variable_quality_shape(op):
    if op._inputs[1].shape.ndims not in (None, 0):
        raise ShapeError("Shape must be rank 0 but is rank %d" % op._inputs[1].shape.ndims)
    return _encode_shape(op)


def _extract_shape_shape(op):
    _scalar_input(op._inputs[0])
    return [(op._attrs["output_type"], tensor_shape.TensorShape([3]))]


def _decode_and_crop_shape(op):
    _scalar_input(op._inputs[0])
    window = op._inputs[1]
    if window.shape.ndims not in (None, 1):
        raise ShapeError("Shape must be rank 1 but is rank %d" % window.shape.ndims)
    channels = op._attrs.get("channels", 0) or None
    return [(dtypes.uint8, tensor_shape.TensorShape([None, None, channels]))]


register_op("EncodeJpegVariableQuality", _variable_quality_shape,
            cpu=kernels.encode_jpeg_variable_quality_kernel)
register_op("ExtractJpegShape", _extract_shape_shape, cpu=kernels.extract_jpeg_shape_kernel)
register_op("DecodeAndCropJpeg", _decode_and_crop_shape,
            cpu=kernels.decode_and_crop_jpeg_kernel)


def _substr_shape(op):
    text, pos, length = op._inputs
    return [(dtypes.string, text.shape)]


def _substr_kernel(ctx, text, pos, length):
    text = np.asarray(text, dtype=object)
    if np.ndim(pos) != 0 or np.ndim(length) != 0:
        raise invalid_argument(ctx, "tfteach's Substr takes a scalar pos and len")
    pos, length = int(pos), int(length)
    out = np.empty(text.shape, dtype=object)
    for index, value in np.ndenumerate(text):
        value = value.encode() if isinstance(value, str) else bytes(value)
        if not -len(value) <= pos <= len(value):
            raise invalid_argument(ctx, "pos %d out of range for string b'%s' at index %d"
                                   % (pos, value.decode("latin-1"),
                                      int(np.ravel_multi_index(index, text.shape))
                                      if text.ndim else 0))
        start = pos if pos >= 0 else len(value) + pos
        out[index] = value[start:start + max(length, 0)]
    return out


register_op("Substr", _substr_shape, cpu=_substr_kernel)
for _op_type in DECODE_OP_TYPES + ("EncodeJpeg", "EncodePng", "Substr",
                                   "EncodeJpegVariableQuality", "ExtractJpegShape",
                                   "DecodeAndCropJpeg"):
    register_cpu_only(_op_type)
    not_differentiable(_op_type)


def decode(op_type, contents, attrs, name=None, extra_inputs=()):
    return apply_op(op_type, [contents] + list(extra_inputs), attrs, name)


def encode(op_type, image, attrs, name=None, extra_inputs=()):
    return apply_op(op_type, [image] + list(extra_inputs), attrs, name)


def substr(text, pos, length, name=None):
    return apply_op("Substr", [text, pos, length], {"T": pos.dtype.base_dtype,
                                                    "unit": "BYTE"}, name)
