"""TFRecord framing: how TensorFlow's event files (and `.tfrecord` files) store a
sequence of byte strings.

Each record is
    uint64 length (little-endian) | uint32 masked_crc32c(length bytes)
    | data[length] | uint32 masked_crc32c(data)
where masked_crc32c(x) = ((crc >> 15 | crc << 17) + 0xa282ead8) mod 2^32, crc the
CRC-32C (Castagnoli) of x; the mask keeps a CRC of data that holds CRCs from looking
like one (io/crc32c.py).
"""
import struct

from tfteach.io import crc32c

__all__ = ["masked_crc32c", "encode_record", "read_records", "RecordWriter", "HEADER_SIZE",
           "FOOTER_SIZE", "header_length"]

HEADER_SIZE = 12    # uint64 length + uint32 masked CRC of those 8 bytes
FOOTER_SIZE = 4     # uint32 masked CRC of the data


def masked_crc32c(data):
    return crc32c.mask(crc32c.value(data))


def encode_record(data):
    header = struct.pack("<Q", len(data))
    return (header + struct.pack("<I", masked_crc32c(header)) + data
            + struct.pack("<I", masked_crc32c(data)))


def header_length(header):
    """The data length a 12-byte record header announces, or None if its CRC is wrong."""
    (crc,) = struct.unpack("<I", header[8:12])
    if crc != masked_crc32c(header[:8]):
        return None
    return struct.unpack("<Q", header[:8])[0]


def read_records(raw):
    """The records in `raw` bytes; a truncated tail is ignored (a writer may be midway),
    a CRC mismatch raises ValueError."""
    pos = 0
    while pos + 12 <= len(raw):
        header = raw[pos:pos + 8]
        (length,) = struct.unpack("<Q", header)
        (crc,) = struct.unpack("<I", raw[pos + 8:pos + 12])
        if crc != masked_crc32c(header):
            raise ValueError("corrupted record length at byte %d" % pos)
        end = pos + 12 + length + 4
        if end > len(raw):
            return
        data = raw[pos + 12:pos + 12 + length]
        (crc,) = struct.unpack("<I", raw[end - 4:end])
        if crc != masked_crc32c(data):
            raise ValueError("corrupted record data at byte %d" % pos)
        yield data
        pos = end


class RecordWriter:
    """Appends framed records to a file opened once (as TF's RecordWriter)."""

    def __init__(self, path):
        self._file = open(path, "ab")

    def write(self, data):
        self._file.write(encode_record(data))

    def flush(self):
        self._file.flush()

    def close(self):
        self._file.close()

    @property
    def closed(self):
        return self._file.closed
