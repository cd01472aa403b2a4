"""Decoding and encoding images (tf.image.decode_jpeg, decode_png, decode_gif,
decode_bmp, decode_image, encode_jpeg, encode_png, is_jpeg); also TF 1.15's tf.io names.

Encoded images are scalar string tensors: read a file with
`tf.gfile.FastGFile(path, 'rb').read()` and pass the bytes (or a string tensor).
"""
from tfteach.framework import dtypes
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.graph_functions import name_scope
from tfteach.image.colors import convert_image_dtype
from tfteach.ops import math_ops
from tfteach.ops.image import codec_ops
from tfteach.ops.typed_inputs import convert_fixed_type

__all__ = ["decode_jpeg", "decode_png", "decode_gif", "decode_bmp", "decode_image",
           "decode_and_crop_jpeg", "extract_jpeg_shape", "encode_jpeg", "encode_png",
           "is_jpeg"]


def _contents(contents):
    return convert_to_tensor(contents, dtypes.string, name="contents")


def _decode(op_type, contents, attrs, name, crop_window=None):
    """The `op_type` op on `contents`, its Python inputs made constants inside the op's
    name scope as TF's generated wrappers make them (`DecodeJpeg/contents`)."""
    with name_scope(name, op_type, [contents]) as scope:
        extra = ([] if crop_window is None else
                 [convert_to_tensor(crop_window, dtypes.int32, name="crop_window")])
        return codec_ops.decode(op_type, _contents(contents), attrs, scope,
                                extra_inputs=extra)


def _check_channels(channels, allowed, what):
    if channels not in allowed:
        raise ValueError("channels must be in (%s) for %s" % (", ".join(map(str, allowed)),
                                                              what))


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True,
                try_recover_truncated=False, acceptable_fraction=1, dct_method="",
                name=None):
    """JPEG bytes -> uint8 [height, width, channels] (0: as in the file, 1: grey,
    3: RGB); `ratio` 1, 2, 4 or 8 shrinks while decoding. Like TF 1.x it also decodes
    PNG and single-frame GIF bytes."""
    return _decode("DecodeJpeg", contents,
                   _jpeg_attrs(channels, ratio, fancy_upscaling, try_recover_truncated,
                               acceptable_fraction, dct_method), name)


def _jpeg_attrs(channels, ratio, fancy_upscaling, try_recover_truncated,
                acceptable_fraction, dct_method):
    if ratio not in (1, 2, 4, 8):
        raise ValueError("ratio must be 1, 2, 4, or 8")
    return {"channels": int(channels), "ratio": int(ratio),
            "fancy_upscaling": bool(fancy_upscaling),
            "try_recover_truncated": bool(try_recover_truncated),
            "acceptable_fraction": float(acceptable_fraction), "dct_method": dct_method}


def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="",
                         name=None):
    """decode_jpeg, then only the window crop_window = [y, x, height, width]."""
    return _decode("DecodeAndCropJpeg", contents,
                   _jpeg_attrs(channels, ratio, fancy_upscaling, try_recover_truncated,
                               acceptable_fraction, dct_method), name, crop_window)


def extract_jpeg_shape(contents, output_type=dtypes.int32, name=None):
    """[height, width, channels] of JPEG bytes, read from the header (nothing decoded)."""
    output_type = dtypes.as_dtype(output_type)
    if output_type not in (dtypes.int32, dtypes.int64):
        raise TypeError("Value for attr 'output_type' of %s is not in the list of allowed "
                        "values: int32, int64" % output_type.name)
    return _decode("ExtractJpegShape", contents, {"output_type": output_type}, name)


def decode_png(contents, channels=0, dtype=dtypes.uint8, name=None):
    """PNG bytes -> [height, width, channels] uint8 or uint16 (0: as in the file, which
    may be 2 for grey + alpha; 1: grey, 3: RGB, 4: RGBA)."""
    dtype = dtypes.as_dtype(dtype)
    if dtype not in (dtypes.uint8, dtypes.uint16):
        raise TypeError("Value for attr 'dtype' of %s is not in the list of allowed values: "
                        "uint8, uint16" % dtype.name)
    return _decode("DecodePng", contents, {"channels": int(channels), "dtype": dtype}, name)


def decode_gif(contents, name=None):
    """GIF bytes -> uint8 [num_frames, height, width, 3]."""
    return _decode("DecodeGif", contents, {}, name)


def decode_bmp(contents, channels=0, name=None):
    """BMP bytes -> uint8 [height, width, channels]."""
    return _decode("DecodeBmp", contents, {"channels": int(channels)}, name)


def decode_image(contents, channels=None, dtype=dtypes.uint8, name=None,
                 expand_animations=True):
    """Any of JPEG, PNG, GIF, BMP -> an image of `dtype` (converted with
    convert_image_dtype). Its static shape is unknown (a GIF gives 4-D [frames, h, w, 3],
    the others 3-D), as in TF 1.15; `expand_animations=False` makes it 3-D."""
    with name_scope(name, "decode_image"):
        if channels not in (None, 0, 1, 3, 4):
            raise ValueError("channels must be in (None, 0, 1, 3, 4)")
        dtype = dtypes.as_dtype(dtype)
        raw = dtypes.uint16 if dtype == dtypes.uint16 else dtypes.uint8
        image = codec_ops.decode("DecodeImage", _contents(contents),
                                 {"channels": int(channels or 0), "dtype": raw,
                                  "expand_animations": bool(expand_animations)})
        return convert_image_dtype(image, dtype)


def encode_jpeg(image, format="", quality=95, progressive=False,  # noqa: A002 - TF's name
                optimize_size=False, chroma_downsampling=True, density_unit="in",
                x_density=300, y_density=300, xmp_metadata="", name=None):
    """uint8 [height, width, 1 or 3] -> JPEG bytes (a scalar string tensor).

    `image` is EncodeJpeg's fixed-type uint8 input, converted as TF's op_def_library
    converts one: a NumPy array or list becomes uint8 (`EncodeJpeg/image`), a tensor of
    another dtype is TF's TypeError ("Input 'image' of 'EncodeJpeg' Op has type float32
    that does not match expected type of uint8.")."""
    if format not in ("", "grayscale", "rgb"):
        raise ValueError("format must be '', 'grayscale' or 'rgb', got %r" % (format,))
    with name_scope(name, "EncodeJpeg", [image]) as scope:
        (image,) = convert_fixed_type("EncodeJpeg", [("image", image)], dtypes.uint8)
        return codec_ops.encode("EncodeJpeg", image,
                                {"format": format, "quality": int(quality),
                                 "progressive": bool(progressive),
                                 "optimize_size": bool(optimize_size),
                                 "chroma_downsampling": bool(chroma_downsampling),
                                 "density_unit": density_unit, "x_density": int(x_density),
                                 "y_density": int(y_density), "xmp_metadata": xmp_metadata},
                                scope)


def encode_jpeg_variable_quality(images, quality, name=None):
    """encode_jpeg with the quality a scalar int32 tensor (for random_jpeg_quality)."""
    images = convert_to_tensor(images, name="images")
    quality = convert_to_tensor(quality, dtypes.int32, name="quality")
    return codec_ops.encode("EncodeJpegVariableQuality", images, {}, name,
                            extra_inputs=[quality])


def encode_png(image, compression=-1, name=None):
    """uint8 or uint16 [height, width, 1..4] -> PNG bytes; compression -1 (zlib's
    default) or 0..9."""
    image = convert_to_tensor(image)         # (TF 1.15 converts it so: a Const)
    if image.dtype.base_dtype not in (dtypes.uint8, dtypes.uint16):
        raise TypeError("Value passed to parameter 'image' has DataType %s not in list of "
                        "allowed values: uint8, uint16" % image.dtype.base_dtype.name)
    return codec_ops.encode("EncodePng", image, {"compression": int(compression),
                                                 "T": image.dtype.base_dtype}, name)


def is_jpeg(contents, name=None):
    """A bool tensor: do the bytes start with JPEG's signature (FF D8 FF)?"""
    with name_scope(name, "is_jpeg"):
        substr = codec_ops.substr(_contents(contents), convert_to_tensor(0),
                                  convert_to_tensor(3))
        return math_ops.equal(substr, b"\xff\xd8\xff", name=name)
