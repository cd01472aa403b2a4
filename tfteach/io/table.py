"""The sorted key/value table behind a checkpoint's `.index` file.

TensorFlow writes the index with its copy of LevelDB's table builder
(tensorflow/core/lib/io/table_builder.cc), so the file is a LevelDB SSTable:

    [data block]* [metaindex block] [index block] [footer: 48 bytes]

- A *block* is a run of entries, then the offsets of its "restart points" (fixed32
  each) and their count (fixed32). An entry is `varint shared, varint non_shared,
  varint value_size, key[shared:], value`: keys are stored as the bytes they do not
  share with the previous key, except at a restart point (every 16th entry) where the
  whole key is written, so a reader can binary-search the restarts.
- Each block is followed by a 5-byte trailer: the compression type (0 = none; TF writes
  checkpoints uncompressed) and the masked CRC-32C of the block plus that type byte.
- The index block maps, for each data block, a key >= every key in it (shortened) to the
  block's handle `varint offset, varint size`; the metaindex block is empty.
- The footer holds the metaindex and index handles, zero padding to 40 bytes, and the
  magic number 0xdb4775248b80fb57 as two little-endian fixed32 halves.

Writing follows TF's builder decision for decision (block size 256 KiB, restart interval
16, index restart interval 1, shortest separators), so tfteach's index files are
byte-identical to TensorFlow's (tests/test_checkpoint_reference.py checks it).
Reading checks every CRC and raises `TableError` (the caller turns it into TF's
DataLossError) on any inconsistency; it never trusts a length without a bounds check.
"""
from tfteach.io import crc32c
from tfteach.io.varint import VarintError, get_fixed32, get_varint, put_fixed32, put_varint

__all__ = ["TableError", "build_table", "read_table", "MAGIC", "FOOTER_SIZE"]

MAGIC = 0xdb4775248b80fb57
FOOTER_SIZE = 48            # 2 block handles padded to 20 bytes each + 8 magic bytes
BLOCK_TRAILER_SIZE = 5      # type byte + masked crc32c
BLOCK_SIZE = 262144         # table::Options::block_size
RESTART_INTERVAL = 16       # table::Options::block_restart_interval
NO_COMPRESSION = 0


class TableError(ValueError):
    """The bytes are not a valid table (TensorFlow reports these as DataLoss)."""


# -- writing ------------------------------------------------------------------------------
class _BlockBuilder:
    def __init__(self, restart_interval):
        self.restart_interval = restart_interval
        self.reset()

    def reset(self):
        self.buffer = bytearray()
        self.restarts = [0]
        self.counter = 0
        self.last_key = b""
        self.empty = True

    def add(self, key, value):
        shared = 0
        if self.counter < self.restart_interval:
            limit = min(len(self.last_key), len(key))
            while shared < limit and self.last_key[shared] == key[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buffer))
            self.counter = 0
        self.buffer += put_varint(shared) + put_varint(len(key) - shared)
        self.buffer += put_varint(len(value)) + key[shared:] + value
        self.last_key = key
        self.counter += 1
        self.empty = False

    def size_estimate(self):
        return len(self.buffer) + 4 * len(self.restarts) + 4

    def finish(self):
        out = bytes(self.buffer) + b"".join(put_fixed32(r) for r in self.restarts)
        return out + put_fixed32(len(self.restarts))


def _shortest_separator(start, limit):
    """A short key k with start <= k < limit (LevelDB's FindShortestSeparator)."""
    n = min(len(start), len(limit))
    i = 0
    while i < n and start[i] == limit[i]:
        i += 1
    if i >= n:
        return start          # one is a prefix of the other: keep it
    byte = start[i]
    if byte < 0xFF and byte + 1 < limit[i]:
        return start[:i] + bytes([byte + 1])
    return start


def _short_successor(key):
    """A short key >= `key` (LevelDB's FindShortSuccessor)."""
    for i, byte in enumerate(key):
        if byte != 0xFF:
            return key[:i] + bytes([byte + 1])
    return key


def _handle(offset, size):
    return put_varint(offset) + put_varint(size)


def build_table(items):
    """The table's bytes for `items`, (key bytes, value bytes) pairs in sorted key order."""
    out = bytearray()
    data = _BlockBuilder(RESTART_INTERVAL)
    index = _BlockBuilder(1)
    pending = None          # handle of the last data block, waiting for the next key
    last_key = b""

    def write_block(block):
        contents = block.finish()
        block.reset()
        offset = len(out)
        crc = crc32c.extend(crc32c.value(contents), bytes([NO_COMPRESSION]))
        out.extend(contents + bytes([NO_COMPRESSION]) + put_fixed32(crc32c.mask(crc)))
        return offset, len(contents)

    for count, (key, value) in enumerate(items):
        if count and key <= last_key:
            raise ValueError("table keys must be added in strictly increasing order")
        if count and len(key) + len(value) >= 2 * BLOCK_SIZE and not data.empty:
            pending = write_block(data)
        if pending is not None:
            index.add(_shortest_separator(last_key, key), _handle(*pending))
            pending = None
        last_key = key
        data.add(key, value)
        if data.size_estimate() >= BLOCK_SIZE:
            pending = write_block(data)
    if not data.empty:
        pending = write_block(data)
    metaindex_handle = write_block(_BlockBuilder(RESTART_INTERVAL))
    if pending is not None:
        index.add(_short_successor(last_key), _handle(*pending))
    index_handle = write_block(index)
    footer = _handle(*metaindex_handle) + _handle(*index_handle)
    footer = footer.ljust(FOOTER_SIZE - 8, b"\0")
    footer += put_fixed32(MAGIC & 0xFFFFFFFF) + put_fixed32(MAGIC >> 32)
    out += footer
    return bytes(out)


# -- reading ------------------------------------------------------------------------------
def _read_block(data, offset, size):
    end = offset + size
    if offset < 0 or end + BLOCK_TRAILER_SIZE > len(data):
        raise TableError("truncated block read")
    kind = data[end]
    stored = crc32c.unmask(get_fixed32(data, end + 1))
    if crc32c.value(data[offset:end + 1]) != stored:
        raise TableError("block checksum mismatch")
    if kind != NO_COMPRESSION:
        # TensorFlow has written checkpoint indexes uncompressed since 1.2.
        raise TableError("bad block type (compressed blocks are not supported)")
    return data[offset:end]


def _block_entries(block):
    """The (key, value) pairs of one block, in order."""
    if len(block) < 4:
        raise TableError("bad block contents")
    num_restarts = get_fixed32(block, len(block) - 4)
    limit = len(block) - 4 - 4 * num_restarts
    if num_restarts < 1 or limit < 0:
        raise TableError("bad block contents")
    entries = []
    key = b""
    pos = 0
    try:
        while pos < limit:
            shared, pos = get_varint(block, pos, limit)
            non_shared, pos = get_varint(block, pos, limit)
            size, pos = get_varint(block, pos, limit)
            if shared > len(key) or pos + non_shared + size > limit:
                raise TableError("bad entry in block")
            key = key[:shared] + bytes(block[pos:pos + non_shared])
            pos += non_shared
            entries.append((key, bytes(block[pos:pos + size])))
            pos += size
    except VarintError:
        raise TableError("bad entry in block") from None
    return entries


def _decode_handle(value, pos=0):
    try:
        offset, pos = get_varint(value, pos)
        size, pos = get_varint(value, pos)
    except VarintError:
        raise TableError("bad block handle") from None
    return offset, size, pos


def read_table(data):
    """All (key, value) pairs of the table in `data` (bytes), in key order."""
    data = memoryview(data)
    if len(data) < FOOTER_SIZE:
        raise TableError("file is too short to be an sstable")
    footer = data[len(data) - FOOTER_SIZE:]
    magic = get_fixed32(footer, FOOTER_SIZE - 8) | get_fixed32(footer, FOOTER_SIZE - 4) << 32
    if magic != MAGIC:
        raise TableError("not an sstable (bad magic number)")
    _, _, pos = _decode_handle(footer)
    index_offset, index_size, _ = _decode_handle(footer, pos)
    items = []
    for _, handle in _block_entries(_read_block(data, index_offset, index_size)):
        offset, size, _ = _decode_handle(handle)
        items.extend(_block_entries(_read_block(data, offset, size)))
    return items
