"""CPU kernels of the image codecs: DecodeJpeg, DecodePng, DecodeGif, DecodeBmp,
DecodeImage, DecodeAndCropJpeg, ExtractJpegShape, EncodeJpeg,
EncodeJpegVariableQuality and EncodePng, on Pillow (libjpeg-turbo, zlib).

As in TF 1.15, the three decoders share one kernel that looks at the file's signature:
`decode_jpeg` also decodes PNGs and single-frame GIFs, `decode_png` JPEGs ("since the
interface is the same", TF's docs). Errors are TF's InvalidArgumentError with TF's words.

What differs from TensorFlow (docs/image.md): JPEG pixels may differ by a few levels
(Pillow decodes with libjpeg's accurate integer DCT and does not take TF's
`dct_method`/`fancy_upscaling` hints), and encoded bytes are not TF's bytes (another
encoder) although they decode to the same pixels (PNG) or nearly (JPEG).
"""
import io
import warnings

import numpy as np

from tfteach.io import png_format
from tfteach.kernels.cpu.shape_kernels import invalid_argument

__all__ = ["decode_kernel", "encode_jpeg_kernel", "encode_png_kernel", "file_format",
           "extract_jpeg_shape_kernel", "decode_and_crop_jpeg_kernel",
           "encode_jpeg_variable_quality_kernel"]

_JPEG, _PNG, _GIF, _BMP = "jpeg", "png", "gif", "bmp"
_MODES = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}


def _pillow():
    from PIL import Image
    return Image


def file_format(data):
    """'jpeg', 'png', 'gif', 'bmp' or None, from the first bytes, as TF's ClassifyFileFormat."""
    if data[:3] == b"\xff\xd8\xff":
        return _JPEG
    if data[:8] == png_format.SIGNATURE:
        return _PNG
    if data[:3] == b"GIF":
        return _GIF
    if data[:2] == b"BM":
        return _BMP
    return None


def _c_escape(data):
    """absl's CEscape, which TF uses to show the first bytes of an unknown file."""
    special = {9: "\\t", 10: "\\n", 13: "\\r", 34: '\\"', 39: "\\'", 92: "\\\\"}
    return "".join(special.get(b, chr(b) if 32 <= b < 127 else "\\%03o" % b) for b in data)


def _format_text(data):
    if not data:
        return "empty file"
    return "unknown format starting with '%s'" % _c_escape(data[:16])


def _contents(ctx, contents):
    contents = np.asarray(contents, dtype=object)
    if contents.ndim != 0:
        raise invalid_argument(ctx, "contents must be scalar, got shape %s"
                               % list(contents.shape))
    value = contents.item()
    return value.encode() if isinstance(value, str) else bytes(value)


def _open(data):
    image = _pillow().open(io.BytesIO(data))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        image.load()
    return image


def _mode_for(image, channels):
    if channels:
        return _MODES[channels]
    if image.mode in _MODES.values():
        return image.mode
    if image.mode == "P":
        return "RGBA" if "transparency" in image.info else "RGB"
    if image.mode in ("1",):
        return "L"
    if image.mode.startswith("I") or image.mode == "F":
        return "I"
    return "RGB"      # CMYK, YCbCr, ...


def _as_array(image, channels):
    mode = _mode_for(image, channels)
    if mode == "I":        # 16-bit grey that Pillow read itself (interlaced)
        return np.asarray(image, dtype=np.uint16)[:, :, None]
    return np.asarray(image.convert(mode) if image.mode != mode else image, np.uint8
                      ).reshape(image.size[1], image.size[0], -1)


def _decode_jpeg(ctx, data, channels):
    ratio = ctx.attrs.get("ratio", 1)
    try:
        image = _pillow().open(io.BytesIO(data))
        width, height = image.size
        mode = "L" if channels == 1 else "RGB"
        # libjpeg itself outputs grey (its Y channel, as TF's decoder) or RGB, scaled by
        # 1/ratio while decoding (TF's `ratio`)
        image.draft(mode, (-(-width // ratio), -(-height // ratio)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            image.load()
    except Exception:  # noqa: BLE001 - any failure of the decoder is bad data
        raise invalid_argument(ctx, "Invalid JPEG data or crop window, data size %d"
                               % len(data)) from None
    return _as_array(image, channels)


def _libpng_grey(colour):
    """libpng's png_set_rgb_to_gray(0.299, 0.587), which TF's PNG decoder asks for: the
    weights in 15-bit fixed point (9797, 19234, 3737), truncated for 8-bit pixels and
    rounded for 16-bit ones (found bit-exact against TensorFlow on random images)."""
    r, g, b = (colour[:, :, k].astype(np.int64) for k in range(3))
    rounding = 16384 if colour.dtype == np.uint16 else 0
    return ((r * 9797 + g * 19234 + b * 3737 + rounding) >> 15).astype(colour.dtype)


def _channels_of(array, channels, alpha_value=None):
    """A PNG's pixels given `channels` as libpng gives them to TF (grey <-> colour,
    alpha dropped, or added as `alpha_value`, by default the dtype's largest)."""
    have = array.shape[2]
    if not channels or channels == have:
        return array
    colour = array[:, :, :3] if have >= 3 else np.repeat(array[:, :, :1], 3, axis=2)
    if channels in (1, 2) and have >= 3:
        grey = _libpng_grey(colour)[:, :, None]
    else:
        grey = array[:, :, :1]
    if alpha_value is None:
        alpha_value = np.iinfo(array.dtype).max
    alpha = array[:, :, -1:] if have in (2, 4) else np.full_like(array[:, :, :1],
                                                                 alpha_value)
    return {1: grey, 2: np.concatenate([grey, alpha], 2), 3: colour,
            4: np.concatenate([colour, alpha], 2)}[channels]


def _decode_png(ctx, data, channels):
    try:
        wide = png_format.decode(data)
        if wide is not None:
            return _channels_of(wide, channels)
        # Pillow reads the file as it is; the channel conversions are libpng's. TF asks
        # libpng for an added alpha of (1 << bit depth) - 1 with the *file's* bit depth,
        # so a 4-bit palette image gets alpha 15, a 1-bit one 1 (TF's values, tested)
        depth = png_format.header(data)[2]
        return _channels_of(_as_array(_open(data), 0), channels,
                            min((1 << depth) - 1, 255))
    except Exception:  # noqa: BLE001
        raise invalid_argument(ctx, "Invalid PNG data, size %d" % len(data)) from None


def _gif_frames(ctx, data):
    from PIL import ImageSequence
    try:
        image = _open(data)
        return np.stack([np.asarray(frame.convert("RGB"), np.uint8)
                         for frame in ImageSequence.Iterator(image)])
    except Exception as e:  # noqa: BLE001
        raise invalid_argument(ctx, "Invalid GIF data (size %d), %s" % (len(data), e)) from None


def _bmp_32_bits(data):
    """The BGRA pixels of a 32-bit BMP, which Pillow reads as RGB (dropping the alpha
    that TF's BMP decoder keeps), or None for other BMPs."""
    if int.from_bytes(data[28:30], "little") != 32:
        return None
    offset = int.from_bytes(data[10:14], "little")
    width = int.from_bytes(data[18:22], "little", signed=True)
    height = int.from_bytes(data[22:26], "little", signed=True)
    rows = np.frombuffer(data, np.uint8, count=abs(height) * width * 4, offset=offset)
    pixels = rows.reshape(abs(height), width, 4)[:, :, [2, 1, 0, 3]]
    return pixels[::-1] if height > 0 else pixels     # positive height: bottom row first


def _decode_bmp(ctx, data, channels):
    try:
        wide = _bmp_32_bits(data)
        if wide is not None:
            return _channels_of(np.ascontiguousarray(wide), channels)
        return _as_array(_open(data), channels)
    except Exception:  # noqa: BLE001
        raise invalid_argument(ctx, "Invalid BMP data, size %d" % len(data)) from None


def _to_dtype(array, dtype):
    """uint8 <-> uint16 as libpng converts: 8 -> 16 bits repeats the byte (x 257), 16 -> 8
    keeps the high byte."""
    if dtype == np.uint16 and array.dtype == np.uint8:
        return array.astype(np.uint16) * 257
    if dtype == np.uint8 and array.dtype == np.uint16:
        return (array >> 8).astype(np.uint8)
    return array


def decode_kernel(ctx, contents):
    """The kernel of DecodeJpeg / DecodePng / DecodeGif / DecodeBmp / DecodeImage."""
    data = _contents(ctx, contents)
    kind = file_format(data)
    op_type = ctx.op.type
    channels = ctx.attrs.get("channels", 0)
    dtype = ctx.attrs["dtype"].np if "dtype" in ctx.attrs else np.uint8
    if channels not in (0, 1, 3, 4):
        raise invalid_argument(ctx, "channels must be 0, 1, 3, or 4, got %d" % channels)
    if kind is None or (kind == _BMP and op_type not in ("DecodeBmp", "DecodeImage")):
        if op_type == "DecodeImage":
            raise invalid_argument(ctx, "Unable to decode bytes as JPEG, PNG, GIF, or BMP")
        raise invalid_argument(ctx, "Expected image (JPEG, PNG, or GIF), got %s"
                               % _format_text(data))
    if kind == _GIF:
        if channels not in (0, 3):
            raise invalid_argument(ctx, "channels must be 0 or 3 for GIF, got %d" % channels)
        frames = _gif_frames(ctx, data)
        if op_type == "DecodeGif" or (op_type == "DecodeImage"
                                      and ctx.attrs.get("expand_animations", True)):
            return _to_dtype(frames, dtype)
        if op_type != "DecodeImage" and len(frames) != 1:
            raise invalid_argument(ctx, "Got %d frames, but animated gifs can only be decoded "
                                   "by tf.image.decode_gif or tf.image.decode_image"
                                   % len(frames))
        return _to_dtype(frames[0], dtype)
    if op_type == "DecodeGif":
        raise invalid_argument(ctx, "Expected a GIF image, got %s image"
                               % {_JPEG: "a JPEG", _PNG: "a PNG", _BMP: "a BMP"}[kind])
    if kind == _JPEG:
        if channels == 4:
            raise invalid_argument(ctx, "channels must be 0, 1, or 3 for JPEG, got %d"
                                   % channels)
        return _to_dtype(_decode_jpeg(ctx, data, channels), dtype)
    if kind == _BMP:
        return _to_dtype(_decode_bmp(ctx, data, channels), dtype)
    return _to_dtype(_decode_png(ctx, data, channels), dtype)


def _image(ctx, image):
    image = np.asarray(image)
    if image.ndim != 3:
        raise invalid_argument(ctx, "image must be 3-dimensional[%s]"
                               % ",".join(str(d) for d in image.shape))
    return image


def encode_png_kernel(ctx, image):
    image = _image(ctx, image)
    channels = image.shape[2]
    if channels not in (1, 2, 3, 4):
        raise invalid_argument(ctx, "image must have 1, 2, 3, or 4 channels, got %d"
                               % channels)
    return np.array(png_format.encode(image, ctx.attrs.get("compression", -1)), dtype=object)


def extract_jpeg_shape_kernel(ctx, contents):
    """[height, width, channels] of a JPEG from its header, without decoding it."""
    data = _contents(ctx, contents)
    try:
        if file_format(data) != _JPEG:
            raise ValueError("not a JPEG")
        image = _pillow().open(io.BytesIO(data))
        width, height = image.size
        channels = len(image.getbands())
    except Exception:  # noqa: BLE001
        raise invalid_argument(ctx, "Invalid JPEG data, size %d" % len(data)) from None
    return np.array([height, width, channels], ctx.attrs["output_type"].np)


def decode_and_crop_jpeg_kernel(ctx, contents, crop_window):
    """DecodeJpeg, then the window [y, x, height, width] of the pixels (TF has libjpeg
    decode only that window; the pixels are the same with the accurate DCT)."""
    data = _contents(ctx, contents)
    window = np.asarray(crop_window).ravel()
    if window.size != 4:
        raise invalid_argument(ctx, "crop_window must be shape [4], got %s"
                               % list(np.shape(crop_window)))
    y, x, height, width = (int(v) for v in window)
    kind = file_format(data)
    if kind is None:
        raise invalid_argument(ctx, "Expected image (JPEG, PNG, or GIF), got %s"
                               % _format_text(data))
    if kind != _JPEG:
        raise invalid_argument(ctx, "DecodeAndCropJpeg operation can run on JPEG only, but "
                               "detected %s." % kind.upper())
    channels = ctx.attrs.get("channels", 0)
    image = _decode_jpeg(ctx, data, channels)
    if (y < 0 or x < 0 or height <= 0 or width <= 0 or y + height > image.shape[0]
            or x + width > image.shape[1]):
        raise invalid_argument(ctx, "Invalid JPEG data or crop window, data size %d"
                               % len(data))
    return np.ascontiguousarray(image[y:y + height, x:x + width])


def encode_jpeg_variable_quality_kernel(ctx, image, quality):
    return _encode_jpeg(ctx, _image(ctx, image), dict(ctx.attrs, quality=int(quality)))


def encode_jpeg_kernel(ctx, image):
    return _encode_jpeg(ctx, _image(ctx, image), ctx.attrs)


def _encode_jpeg(ctx, image, attrs):
    fmt, channels = attrs.get("format", ""), image.shape[2]
    if fmt == "grayscale" and channels != 1:
        raise invalid_argument(ctx, "Image must have 1 channel for grayscale, got %d"
                               % channels)
    if fmt == "rgb" and channels != 3:
        raise invalid_argument(ctx, "Image must have 3 channels for rgb, got %d" % channels)
    if channels not in (1, 3):
        raise invalid_argument(ctx, "image must have 1 or 3 channels, got [%s]"
                               % ",".join(str(d) for d in image.shape))
    quality = attrs.get("quality", 95)
    if not 0 <= quality <= 100:
        raise invalid_argument(ctx, "quality must be in [0,100], got %d" % quality)
    picture = _pillow().fromarray(np.ascontiguousarray(image[:, :, 0] if channels == 1
                                                       else image), "L" if channels == 1
                                  else "RGB")
    per_inch = 2.54 if attrs.get("density_unit", "in") == "cm" else 1.0
    options = dict(quality=quality, progressive=attrs.get("progressive", False),
                   optimize=attrs.get("optimize_size", False),
                   subsampling=2 if attrs.get("chroma_downsampling", True) else 0,
                   dpi=(attrs.get("x_density", 300) * per_inch,
                        attrs.get("y_density", 300) * per_inch))
    if attrs.get("xmp_metadata"):
        options["xmp"] = attrs["xmp_metadata"].encode()
    out = io.BytesIO()
    picture.save(out, "JPEG", **options)
    return np.array(out.getvalue(), dtype=object)
