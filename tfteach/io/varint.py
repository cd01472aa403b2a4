"""Base-128 varints and little-endian fixed-width integers (LevelDB's coding.h)."""
import struct

__all__ = ["put_varint", "get_varint", "put_fixed32", "get_fixed32", "VarintError"]


class VarintError(ValueError):
    """The bytes end inside a varint, or it is longer than 10 bytes."""


def put_varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def get_varint(data, pos, limit=None):
    """(value, next position) of the varint at data[pos:]."""
    limit = len(data) if limit is None else limit
    result = shift = 0
    while True:
        if pos >= limit or shift > 63:
            raise VarintError("truncated or overlong varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def put_fixed32(n):
    return struct.pack("<I", n & 0xFFFFFFFF)


def get_fixed32(data, pos):
    return struct.unpack_from("<I", data, pos)[0]
