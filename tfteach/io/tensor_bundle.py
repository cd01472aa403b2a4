"""TensorFlow's V2 checkpoint ("tensor bundle"): `PREFIX.index` + `PREFIX.data-*`.

- `PREFIX.data-00000-of-00001` holds the tensors' bytes back to back: a numeric
  tensor as its raw little-endian C-order buffer; a string tensor as the varint64
  length of each element, the masked CRC-32C of those lengths (each taken as a uint32),
  then the elements' bytes.
- `PREFIX.index` is a table (io/table.py) whose first entry, under the empty key, is a
  `BundleHeaderProto` (number of shards, endianness, format version) and whose other
  entries map each tensor's name to a `BundleEntryProto`: dtype, shape, shard, offset
  and size in the data file, and the masked CRC-32C of the tensor's bytes.

`write_bundle` writes each file under a temporary name and renames it into place, the
data file first and the index last (as TF's BundleWriter does): a checkpoint is
visible only once it is complete, and a process killed mid-write leaves the files of
the previous checkpoints as they were. `BundleReader` parses bytes only and checks
every CRC; its errors are TensorFlow's (NotFoundError, DataLossError).
"""
import os

import numpy as np

from tfteach.framework import dtypes
from tfteach.framework.errors import DataLossError, NotFoundError, UnimplementedError
from tfteach.io import crc32c
from tfteach.io.atomic_files import atomic_write
from tfteach.io.bundle_protos import BIG, BundleEntryProto, BundleHeaderProto
from tfteach.io.table import TableError, build_table, read_table
from tfteach.io.varint import VarintError, get_varint, put_varint

__all__ = ["write_bundle", "BundleReader", "index_filename", "data_filename"]

_TENSOR_BUNDLE_VERSION = 1     # BundleHeaderProto.version.producer TF writes
_STRING_ENUM = dtypes.string.as_datatype_enum


def index_filename(prefix):
    return prefix + ".index"


def data_filename(prefix, shard_id=0, num_shards=1):
    return "%s.data-%05d-of-%05d" % (prefix, shard_id, num_shards)


# -- writing ------------------------------------------------------------------------------
def _string_bytes(values):
    """A string tensor's bytes in the data file and their (unmasked) CRC-32C."""
    elements = [v if isinstance(v, bytes) else str(v).encode("utf-8")
                for v in np.asarray(values, dtype=object).reshape(-1)]
    lengths = b"".join(put_varint(len(e)) for e in elements)
    crc = 0
    for e in elements:   # the lengths are checksummed as uint32s (uint64 if larger)
        width = 4 if len(e) <= 0xFFFFFFFF else 8
        crc = crc32c.extend(crc, len(e).to_bytes(width, "little"))
    length_checksum = crc32c.mask(crc).to_bytes(4, "little")
    crc = crc32c.extend(crc, length_checksum)
    body = b"".join(elements)
    crc = crc32c.extend(crc, body)
    return lengths + length_checksum + body, crc


def _tensor_bytes(value, dtype):
    if dtype == dtypes.string:
        return _string_bytes(value)
    array = np.ascontiguousarray(value, dtype=dtype.np.newbyteorder("<"))
    data = array.tobytes()
    return data, crc32c.value(data)


def bundle_bytes(tensors):
    """(index bytes, data bytes) of a bundle of `tensors`: {name: (value, DType)}."""
    data = bytearray()
    entries = []
    for name in sorted(tensors, key=lambda n: n.encode("utf-8")):
        value, dtype = tensors[name]
        dtype = dtypes.as_dtype(dtype).base_dtype
        raw, crc = _tensor_bytes(value, dtype)
        entry = BundleEntryProto(dtype=dtype.as_datatype_enum, shard_id=0,
                                 offset=len(data), size=len(raw), crc32c=crc32c.mask(crc))
        entry.shape.SetInParent()      # a scalar's shape is present and empty, as TF's
        for size in np.shape(value):
            entry.shape.dim.add(size=size)
        data += raw
        entries.append((name.encode("utf-8"), entry.SerializeToString()))
    header = BundleHeaderProto(num_shards=1)
    header.version.producer = _TENSOR_BUNDLE_VERSION
    index = build_table([(b"", header.SerializeToString())] + entries)
    return index, bytes(data)


def write_bundle(prefix, tensors):
    """Writes the V2 checkpoint `prefix` holding `tensors`, {name: (value, DType)}."""
    index, data = bundle_bytes(tensors)
    directory = os.path.dirname(prefix)
    if directory:
        os.makedirs(directory, exist_ok=True)
    atomic_write(data_filename(prefix), data, ".tempstate")
    atomic_write(index_filename(prefix), index, ".tempstate")   # last: the bundle now exists


# -- reading ------------------------------------------------------------------------------
class BundleReader:
    """Reads the V2 checkpoint `prefix`: its entries at once, each tensor on demand."""

    def __init__(self, prefix):
        self.prefix = prefix
        path = index_filename(prefix)
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except FileNotFoundError:
            raise NotFoundError(None, None, "%s; No such file or directory" % path) from None
        except IsADirectoryError:
            raise NotFoundError(None, None, "%s; Is a directory" % path) from None
        try:
            items = read_table(raw)
        except TableError as e:
            raise DataLossError(None, None, str(e)) from None    # TF's BundleReader status
        if not items or items[0][0] != b"":
            raise DataLossError(None, None, "Unable to read file (%s). Perhaps the file is "
                                "corrupt (failed to seek to header entry)" % path)
        self.header = self._parse(BundleHeaderProto, items[0], path)
        if self.header.version.producer < 0 or self.header.version.min_consumer > \
                _TENSOR_BUNDLE_VERSION:
            raise DataLossError(None, None, "Checkpoint %s needs a newer reader "
                                "(min_consumer %d)" % (path, self.header.version.min_consumer))
        self.entries = {}
        for key, value in items[1:]:
            entry = self._parse(BundleEntryProto, (key, value), path)
            if any(d.size < 0 for d in entry.shape.dim):
                raise DataLossError(None, None, "Invalid tensor shape: %s %s" % (
                    key.decode("utf-8", "replace"), entry.shape))
            self.entries[key.decode("utf-8", "replace")] = entry

    @staticmethod
    def _parse(message_class, item, path):
        message = message_class()
        try:
            message.ParseFromString(item[1])
        except Exception:   # protobuf's DecodeError, or a bad enum/wire type
            raise DataLossError(None, None, "Entry for key %s not parseable." %
                                item[0].decode("utf-8", "replace")) from None
        return message

    # -- metadata ----------------------------------------------------------------------
    def keys(self):
        return [k for k, e in self.entries.items() if not e.slices]

    def entry(self, key):
        try:
            return self.entries[key]
        except KeyError:
            raise NotFoundError(None, None, "Key %s not found in checkpoint" % key) from None

    def shape(self, key):
        return [d.size for d in self.entry(key).shape.dim]

    def dtype(self, key):
        enum = self.entry(key).dtype
        try:
            return dtypes.as_dtype(enum)
        except (TypeError, KeyError, ValueError):
            raise UnimplementedError(None, None, "Checkpoint tensor %s has DataType enum %d, "
                                     "which tfteach does not support" % (key, enum)) from None

    # -- values ------------------------------------------------------------------------
    def _read(self, key, entry):
        """The entry's bytes, read from its data file (only those bytes: a checkpoint
        of a big model is not loaded whole to read one tensor)."""
        path = data_filename(self.prefix, entry.shard_id, self.header.num_shards)
        try:
            with open(path, "rb") as f:
                file_size = os.fstat(f.fileno()).st_size
                fits = 0 <= entry.offset and entry.offset + entry.size <= file_size
                if fits:    # never allocate what a damaged entry claims beyond the file
                    f.seek(entry.offset)
                    chunk = f.read(entry.size)
        except FileNotFoundError:
            raise NotFoundError(None, None, "%s; No such file or directory" % path) from None
        if not fits or len(chunk) != entry.size:
            raise DataLossError(None, None, "Read less bytes than requested: the data file "
                                "%s ends before bytes %d..%d of tensor %s" % (
                                    path, entry.offset, entry.offset + entry.size, key))
        return chunk

    def get_tensor(self, key):
        entry = self.entry(key)
        if entry.slices:
            raise UnimplementedError(None, None, "Tensor %s is saved in slices (a "
                                     "partitioned variable); tfteach reads whole tensors "
                                     "only" % key)
        dtype = self.dtype(key)
        shape = self.shape(key)
        count = int(np.prod(shape, dtype=np.int64))
        if dtype != dtypes.string and entry.size != count * dtype.np.itemsize:
            raise DataLossError(None, None, "Invalid size in bundle entry: key %s; stored "
                                "size %d; expected size %d" % (key, entry.size,
                                                               count * dtype.np.itemsize))
        chunk = self._read(key, entry)
        if dtype == dtypes.string:
            value, actual = self._decode_strings(key, chunk, count)
        else:
            order = ">" if self.header.endianness == BIG else "<"
            value = np.frombuffer(chunk, dtype=dtype.np.newbyteorder(order))
            value = value.astype(dtype.np).reshape(shape)
            actual = crc32c.value(chunk)
        stored = crc32c.unmask(entry.crc32c)
        if stored != actual:
            raise DataLossError(None, None, "TensorBundle at %s shard %d (%d bytes): Checksum "
                                "does not match: stored %08d vs. calculated on the restored "
                                "bytes %d" % (self.prefix, entry.shard_id, entry.size, stored,
                                              actual))
        if dtype == dtypes.string:
            value = np.array(value + [None], dtype=object)[:-1].reshape(shape)
        return value

    def _decode_strings(self, key, chunk, count):
        if not chunk:
            return [], 0
        crc = 0
        lengths = []
        pos = 0
        try:
            for _ in range(count):
                n, pos = get_varint(chunk, pos)
                lengths.append(n)
                crc = crc32c.extend(crc, n.to_bytes(4 if n <= 0xFFFFFFFF else 8, "little"))
        except VarintError:
            raise DataLossError(None, None, "String lengths of %s longer than expected" % key) \
                from None
        if pos + 4 > len(chunk):
            raise DataLossError(None, None, "String lengths of %s longer than expected" % key)
        checksum = chunk[pos:pos + 4]
        if crc32c.unmask(int.from_bytes(checksum, "little")) != crc:
            raise DataLossError(None, None, "The length checksum does not match")
        crc = crc32c.extend(crc, checksum)
        pos += 4
        values = []
        for n in lengths:
            if pos + n > len(chunk):
                raise DataLossError(None, None, "Strings of %s run past their entry" % key)
            values.append(bytes(chunk[pos:pos + n]))
            pos += n
        crc = crc32c.extend(crc, b"".join(values))
        return values, crc

    def debug_string(self):
        """TF's BundleReader::DebugString: `name (DT_FLOAT) [2,3]` per line."""
        from tensorboard.compat.proto import types_pb2
        lines = []
        for key, entry in self.entries.items():
            if entry.slices:
                continue
            shape = "[" + ",".join(str(d.size) for d in entry.shape.dim) + "]"
            lines.append("%s (%s) %s\n" % (key, types_pb2.DataType.Name(entry.dtype), shape))
        return "".join(lines)
