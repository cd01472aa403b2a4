"""PNG files (RFC 2083), written and read here: the one PNG writer of tfteach
(tf.summary.image, tf.image.encode_png) and the reader of 16-bit PNGs, which Pillow
cannot read in colour (it has no 16-bit colour modes), for
`tf.image.decode_png(dtype=tf.uint16)`. The format is small: a signature, an IHDR chunk
(size, bit depth, colour type), the rows zlib-compressed in IDAT chunks, each row
preceded by a filter byte, and IEND. Each chunk ends with the CRC-32 of its type and data.
"""
import struct
import zlib

import numpy as np
from numba import njit

__all__ = ["encode", "decode", "SIGNATURE", "header"]

SIGNATURE = b"\x89PNG\r\n\x1a\n"
# channels -> PNG colour type: grey, grey + alpha, RGB, RGBA
_COLOR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}
_CHANNELS = {v: k for k, v in _COLOR_TYPE.items()}


def _chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def encode(image, compression=-1):
    """PNG bytes of a [height, width, channels] uint8 or uint16 array (filter 0 rows)."""
    height, width, channels = image.shape
    depth = 16 if image.dtype == np.uint16 else 8
    header = struct.pack(">IIBBBBB", width, height, depth, _COLOR_TYPE[channels], 0, 0, 0)
    rows = np.ascontiguousarray(image.astype(">u2" if depth == 16 else np.uint8))
    raw = rows.reshape(height, -1).view(np.uint8)
    filtered = np.concatenate([np.zeros((height, 1), np.uint8), raw], axis=1)
    level = compression if 0 <= compression <= 9 else 6    # -1: zlib's default, 6
    return (SIGNATURE + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(filtered.tobytes(), level)) + _chunk(b"IEND", b""))


def header(data):
    """(width, height, bit_depth, colour_type, interlace) of PNG bytes."""
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", data[16:29])
    return width, height, depth, color, interlace


@njit(cache=True, nogil=True)
def _unfilter(data, height, stride, bpp):
    """Undoes PNG's per-row filters (none, sub, up, average, Paeth) in place order."""
    out = np.zeros((height, stride), np.uint8)
    pos = 0
    for y in range(height):
        kind = data[pos]
        pos += 1
        for x in range(stride):
            raw = np.int32(data[pos + x])
            left = np.int32(out[y, x - bpp]) if x >= bpp else 0
            up = np.int32(out[y - 1, x]) if y > 0 else 0
            corner = np.int32(out[y - 1, x - bpp]) if x >= bpp and y > 0 else 0
            if kind == 1:
                raw += left
            elif kind == 2:
                raw += up
            elif kind == 3:
                raw += (left + up) // 2
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                if pa <= pb and pa <= pc:
                    raw += left
                elif pb <= pc:
                    raw += up
                else:
                    raw += corner
            out[y, x] = raw & 0xFF
        pos += stride
    return out


def decode(data):
    """A [height, width, channels] uint16 array of a 16-bit, non-interlaced PNG, or None
    for anything else (Pillow reads those)."""
    width, height, depth, color, interlace = header(data)
    if depth != 16 or interlace or color not in _CHANNELS:
        return None
    channels = _CHANNELS[color]
    pos, idat = 8, []
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat.append(data[pos + 8:pos + 8 + length])
        pos += 12 + length
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), np.uint8)
    stride = width * channels * 2
    if raw.size < height * (stride + 1):
        raise ValueError("PNG data too short")
    rows = _unfilter(raw, height, stride, channels * 2)
    return rows.view(">u2").reshape(height, width, channels).astype(np.uint16)
