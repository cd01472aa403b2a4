"""The IDX file format of MNIST (http://yann.lecun.com/exdb/mnist/), read safely.

An IDX file is: two zero bytes, a type byte (0x08 = unsigned byte), a byte with the
number of dimensions, one big-endian uint32 per dimension, then the data. Files may be
gzip-compressed. A truncated or corrupted file raises ValueError naming the file and
what is wrong — never a wrong-sized array.
"""
import gzip
import zlib

import numpy as np

__all__ = ["read_idx"]

_TYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


def _read_bytes(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":            # gzip magic
        try:
            return gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:
            raise ValueError("Corrupted gzip file %s: %s" % (path, e)) from None
    return raw


def read_idx(path, expected_ndim=None):
    """The array stored in IDX file `path` (optionally checking its number of dims)."""
    data = _read_bytes(path)
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] not in _TYPES:
        magic = int.from_bytes(data[:4].ljust(4, b"\0"), "big")
        raise ValueError("Invalid magic number %d in IDX file: %s" % (magic, path))
    ndim = data[3]
    if expected_ndim is not None and ndim != expected_ndim:
        raise ValueError("IDX file %s has %d dimensions, expected %d"
                         % (path, ndim, expected_ndim))
    header = 4 + 4 * ndim
    if len(data) < header:
        raise ValueError("IDX file %s is truncated in its header" % path)
    shape = tuple(int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim))
    dtype = np.dtype(_TYPES[data[2]])
    count = int(np.prod(shape, dtype=np.int64))
    expected = header + count * dtype.itemsize
    if len(data) != expected:
        raise ValueError("IDX file %s holds %d bytes but its header %s needs %d"
                         % (path, len(data), list(shape), expected))
    return np.frombuffer(data, dtype=dtype, count=count, offset=header).reshape(shape)
