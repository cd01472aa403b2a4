"""The IDX file format of MNIST (http://yann.lecun.com/exdb/mnist/), read safely.

An IDX file is: two zero bytes, a type byte (0x08 = unsigned byte), a byte with the
number of dimensions, one big-endian uint32 per dimension, then the data. Files may be
gzip-compressed. A truncated or corrupted file raises ValueError naming the file and
what is wrong — never a wrong-sized array.

The file is read as a stream: the header first (from the decompressed stream when the
file is gzipped), then exactly the bytes the header declares, in chunks. So a file that
decompresses to far more than it declares (a "gzip bomb") costs at most its declared size
before it is rejected, and a header declaring more than the file could possibly hold is
rejected before anything is allocated.
"""
import gzip
import os
import zlib

import numpy as np

__all__ = ["read_idx"]

_TYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
# DEFLATE cannot compress better than about 1032:1, so a gzip file of c bytes never holds
# more than ~1032 * c bytes: a header that declares more is a lie, caught before reading.
_MAX_DEFLATE_RATIO = 1032
_CHUNK = 1 << 20


def _open(path):
    """(stream of the file's IDX bytes, the most bytes that stream can hold, whether it
    is gzipped)."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        compressed = f.read(2) == b"\x1f\x8b"     # gzip magic
    if compressed:
        return gzip.open(path, "rb"), size * _MAX_DEFLATE_RATIO + 1024, True
    return open(path, "rb"), size, False


def _read_exactly(stream, count, path):
    """`count` bytes, read in chunks (short only at the end of the stream)."""
    data = bytearray()
    try:
        while len(data) < count:
            chunk = stream.read(min(_CHUNK, count - len(data)))
            if not chunk:
                break
            data += chunk
    except (OSError, EOFError, zlib.error) as e:
        raise ValueError("Corrupted gzip file %s: %s" % (path, e)) from None
    return data


def read_idx(path, expected_ndim=None):
    """The array stored in IDX file `path` (optionally checking its number of dims)."""
    stream, most, compressed = _open(path)
    with stream:
        magic = _read_exactly(stream, 4, path)
        if len(magic) < 4 or magic[0] != 0 or magic[1] != 0 or magic[2] not in _TYPES:
            number = int.from_bytes(bytes(magic).ljust(4, b"\0"), "big")
            raise ValueError("Invalid magic number %d in IDX file: %s" % (number, path))
        ndim = magic[3]
        if expected_ndim is not None and ndim != expected_ndim:
            raise ValueError("IDX file %s has %d dimensions, expected %d"
                             % (path, ndim, expected_ndim))
        dims = _read_exactly(stream, 4 * ndim, path)
        if len(dims) < 4 * ndim:
            raise ValueError("IDX file %s is truncated in its header" % path)
        shape = tuple(int.from_bytes(dims[4 * i: 4 * i + 4], "big") for i in range(ndim))
        dtype = np.dtype(_TYPES[magic[2]])
        count = 1
        for d in shape:                        # Python ints: no overflow
            count *= d
        header = 4 + 4 * ndim
        expected = header + count * dtype.itemsize
        if expected > most and not compressed:
            raise ValueError("IDX file %s holds %d bytes but its header %s needs %d"
                             % (path, most, list(shape), expected))
        if expected > most:
            raise ValueError("IDX file %s: its header %s declares %d bytes, more than the "
                             "file can hold (%d bytes on disk)"
                             % (path, list(shape), expected, os.path.getsize(path)))
        body = _read_exactly(stream, count * dtype.itemsize + 1, path)   # +1: any extra?
    if header + len(body) != expected:
        held = "%d" % (header + len(body)) if len(body) <= count * dtype.itemsize else (
            "more than %d" % expected)
        raise ValueError("IDX file %s holds %s bytes but its header %s needs %d"
                         % (path, held, list(shape), expected))
    return np.frombuffer(body, dtype=dtype, count=count).reshape(shape)
