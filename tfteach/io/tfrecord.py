"""TFRecord files: a stream of records (io/records.py framing), optionally compressed.

This is the one reader and writer behind `tf.python_io.TFRecordWriter` /
`tf_record_iterator`, the `TFRecordReader` op and `tf.data.TFRecordDataset`.

Compression wraps the *whole* record stream, as TensorFlow's ZlibOutputBuffer does:
  - ""     raw records;
  - "ZLIB" one zlib stream (RFC 1950 header 78 9c, Adler-32 trailer);
  - "GZIP" one gzip member (RFC 1952), written by zlib itself (window bits 15 + 16), so
           its header says mtime 0, no name and OS 3 (Unix), exactly TF's bytes.
TensorFlow's defaults are zlib's default level with memory level 9; with those Python's
zlib writes the same bytes as TensorFlow (checked by tests/test_tfrecord_reference.py).

Reading follows TensorFlow's record reader (lib/io/record_reader.cc):
  - a header whose length CRC is wrong: DataLossError "corrupted record at <offset>";
  - data whose CRC is wrong: DataLossError "corrupted record at <offset of the data>";
  - a complete header followed by too few bytes: DataLossError
    "truncated record at <offset of the record>";
  - an incomplete header (0 to 11 bytes left) is the end of the file, silently.
Offsets count bytes of the uncompressed stream.
"""
import zlib

from tfteach.framework.errors import DataLossError, InvalidArgumentError, NotFoundError
from tfteach.io.records import FOOTER_SIZE, HEADER_SIZE, encode_record, header_length, \
    masked_crc32c

__all__ = ["iterate_records", "RecordFileReader", "RecordFileWriter", "COMPRESSION_TYPES",
           "check_compression_type"]

COMPRESSION_TYPES = ("", "ZLIB", "GZIP")
_WINDOW_BITS = {"ZLIB": 15, "GZIP": 15 + 16}
_CHUNK = 256 * 1024          # TensorFlow's default zlib input/output buffer size


def check_compression_type(compression_type):
    """The compression type as TensorFlow spells it ("" for None), or InvalidArgumentError."""
    if compression_type is None:
        return ""
    if isinstance(compression_type, bytes):
        compression_type = compression_type.decode("utf-8")
    if compression_type not in COMPRESSION_TYPES:
        raise InvalidArgumentError(None, None, "Unsupported compression_type: %s"
                                   % compression_type)
    return compression_type


def _open(path, mode):
    try:
        return open(path, mode)
    except FileNotFoundError:
        raise NotFoundError(None, None, "%s; No such file or directory" % path) from None
    except IsADirectoryError:
        raise NotFoundError(None, None, "%s; Is a directory" % path) from None


class _InflatingFile:
    """`read(n)` of the decompressed bytes of a ZLIB/GZIP file, decompressed chunk by chunk.

    A compressed stream cut short yields what could be decompressed: the record framing
    above it then decides (a truncated record, or the end), as in TensorFlow.
    """

    def __init__(self, raw_file, compression_type):
        self._raw = raw_file
        self._inflater = zlib.decompressobj(_WINDOW_BITS[compression_type])
        self._buffer = bytearray()
        self._raw_done = False

    def _fill(self):
        if self._raw_done:
            return False
        chunk = self._raw.read(_CHUNK)
        if not chunk or self._inflater.eof:
            self._raw_done = True
            return False
        try:
            self._buffer += self._inflater.decompress(chunk)
        except zlib.error as e:
            # zlib's message, worded as TensorFlow's ZlibInputStream words it.
            raise DataLossError(None, None, "inflate() failed with %s"
                                % str(e).replace("Error ", "error ", 1)
                                .replace(" while decompressing data", "")) from None
        return True

    def read(self, n):
        while len(self._buffer) < n and self._fill():
            pass
        out = bytes(self._buffer[:n])
        del self._buffer[:n]
        return out

    def close(self):
        self._raw.close()


def _read_up_to(stream, n):
    """Up to `n` bytes, read in chunks: a damaged length field (any uint64 whose CRC
    happens to match, or a crafted file) must cost the bytes that exist, not `n`."""
    parts, wanted = [], n
    while wanted > 0:
        chunk = stream.read(min(wanted, _CHUNK))
        if not chunk:
            break
        parts.append(chunk)
        wanted -= len(chunk)
    return b"".join(parts)


class RecordFileReader:
    """Reads the records of one TFRecord file in order: `read()` -> bytes, None at the end.

    `offset` is where the next record starts in the (decompressed) stream.
    """

    def __init__(self, path, compression_type=""):
        compression_type = check_compression_type(compression_type)
        self.path = path
        raw = _open(path, "rb")
        self._file = _InflatingFile(raw, compression_type) if compression_type else raw
        self.offset = 0

    def read(self):
        header = self._file.read(HEADER_SIZE)
        if len(header) < HEADER_SIZE:
            return None
        length = header_length(header)
        if length is None:
            raise DataLossError(None, None, "corrupted record at %d" % self.offset)
        body = _read_up_to(self._file, length + FOOTER_SIZE)
        if len(body) < length + FOOTER_SIZE:
            raise DataLossError(None, None, "truncated record at %d" % self.offset)
        data = body[:length]
        if int.from_bytes(body[length:], "little") != masked_crc32c(data):
            raise DataLossError(None, None, "corrupted record at %d"
                                % (self.offset + HEADER_SIZE))
        self.offset += HEADER_SIZE + length + FOOTER_SIZE
        return data

    def close(self):
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def iterate_records(path, compression_type=""):
    """Yields each record (bytes) of the TFRecord file at `path`.

    Opens the file at the first `next()` (a generator, like tf_record_iterator); raises
    NotFoundError for a missing file and DataLossError for a corrupt or truncated record
    after yielding the good records before it.
    """
    with RecordFileReader(path, compression_type) as reader:
        while True:
            record = reader.read()
            if record is None:
                return
            yield record


class RecordFileWriter:
    """Writes a new TFRecord file (an existing one is replaced, as in TensorFlow).

    `compression_level`, `mem_level`, `window_bits`, `compression_strategy` are zlib's
    knobs (TFRecordOptions); None means TensorFlow's default.
    """

    def __init__(self, path, compression_type="", compression_level=None, mem_level=None,
                 window_bits=None, compression_strategy=None):
        compression_type = check_compression_type(compression_type)
        try:
            self._file = open(path, "wb")
        except FileNotFoundError:
            raise NotFoundError(None, None, "%s; No such file or directory" % path) from None
        self._deflater = None
        if compression_type:
            bits = window_bits if window_bits is not None else 15
            if compression_type == "GZIP":
                bits += 16
            self._deflater = zlib.compressobj(
                -1 if compression_level is None else compression_level, zlib.DEFLATED, bits,
                9 if mem_level is None else mem_level,
                0 if compression_strategy is None else compression_strategy)

    def write(self, record):
        data = encode_record(bytes(record))
        if self._deflater is not None:
            data = self._deflater.compress(data)
        self._file.write(data)

    def flush(self):
        # TensorFlow's flush() of a compressed writer ends zlib's current block with
        # Z_PARTIAL_FLUSH (what its ZlibOutputBuffer does; the file's bytes then equal
        # TensorFlow's for the same writes and flushes) and hands the bytes to the file.
        if self._deflater is not None:
            self._file.write(self._deflater.flush(zlib.Z_PARTIAL_FLUSH))
        self._file.flush()

    def close(self):
        if self._file.closed:
            return
        if self._deflater is not None:
            self._file.write(self._deflater.flush())
        self._file.close()

    @property
    def closed(self):
        return self._file.closed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
