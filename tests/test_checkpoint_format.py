"""The V2 checkpoint format in tfteach/io/: the table, the bundle, CRCs and damage.

Expected values come from outside the code under test: CRC-32C check values from the
CRC catalogue, TensorFlow's mask formula worked by hand, NumPy arrays written and read
back, and (in tests/test_checkpoint_reference.py) TensorFlow's own files.
"""
import os

import numpy as np
import pytest

import tfteach as tf
from tfteach.framework import dtypes
from tfteach.io import crc32c, table
from tfteach.io.tensor_bundle import (BundleReader, bundle_bytes, data_filename,
                                      index_filename, write_bundle)


def test_crc32c_check_value_and_mask():
    # The CRC catalogue's check value of CRC-32C over "123456789".
    assert crc32c.value(b"123456789") == 0xE3069283
    assert crc32c.extend(crc32c.value(b"1234"), b"56789") == 0xE3069283
    # mask(crc) = ((crc >> 15) | (crc << 17)) + 0xa282ead8 (mod 2**32): for crc = 1,
    # the rotation gives 1 << 17 = 0x20000.
    assert crc32c.mask(1) == 0x20000 + 0xA282EAD8
    assert crc32c.mask(0) == 0xA282EAD8
    for crc in (0, 1, 0xE3069283, 0xFFFFFFFF):
        assert crc32c.unmask(crc32c.mask(crc)) == crc


def test_table_round_trip_over_many_blocks_and_long_keys():
    items = [(b"", b"header")] + [(("var%06d" % i).encode(), bytes([i % 256]) * (i % 40))
                                  for i in range(30000)]
    items.append((b"z" * 600000, b"long key"))      # bigger than two blocks
    raw = table.build_table(items)
    assert raw[-8:] == (0xdb4775248b80fb57).to_bytes(8, "little")
    assert table.read_table(raw) == items


def test_table_refuses_unsorted_keys():
    with pytest.raises(ValueError):
        table.build_table([(b"b", b""), (b"a", b"")])


@pytest.mark.parametrize("damage", ["truncate", "magic", "block", "empty"])
def test_table_damage_is_detected(damage):
    raw = bytearray(table.build_table([(b"", b"h"), (b"a", b"1" * 100), (b"b", b"2")]))
    if damage == "truncate":
        raw = raw[:-10]
    elif damage == "magic":
        raw[-1] ^= 0xFF
    elif damage == "block":
        raw[20] ^= 0x01          # inside the data block: its CRC no longer matches
    else:
        raw = b""
    with pytest.raises(table.TableError):
        table.read_table(bytes(raw))


VALUES = {
    "w": (np.arange(12, dtype=np.float32).reshape(3, 4), dtypes.float32),
    "b": (np.array([-1.5, 2.25]), dtypes.float64),
    "step": (np.array(7, dtype=np.int64), dtypes.int64),
    "i32": (np.array([[1, -2]], dtype=np.int32), dtypes.int32),
    "flag": (np.array([True, False]), dtypes.bool),
    "u8": (np.array([0, 255], dtype=np.uint8), dtypes.uint8),
    "half": (np.array([0.5, -2.0], dtype=np.float16), dtypes.float16),
    "c64": (np.array([1 + 2j], dtype=np.complex64), dtypes.complex64),
    "empty": (np.zeros((0, 3), np.float32), dtypes.float32),
    "words": (np.array([b"hello", b"", "\u4e2d\u6587".encode()], dtype=object), dtypes.string),
    "scope/inner/kernel": (np.ones((2, 2), np.float32), dtypes.float32),
}


def test_bundle_round_trip_every_dtype(tmp_path):
    prefix = str(tmp_path / "model.ckpt")
    write_bundle(prefix, VALUES)
    assert sorted(os.listdir(tmp_path)) == ["model.ckpt.data-00000-of-00001",
                                            "model.ckpt.index"]
    reader = BundleReader(prefix)
    assert sorted(reader.keys()) == sorted(VALUES)
    for name, (value, dtype) in VALUES.items():
        got = reader.get_tensor(name)
        assert reader.dtype(name) == dtype
        assert reader.shape(name) == list(value.shape)
        assert got.dtype == value.dtype and got.shape == value.shape
        np.testing.assert_array_equal(got, value)


def test_data_file_layout_is_raw_bytes_back_to_back(tmp_path):
    prefix = str(tmp_path / "m")
    a = np.array([1.0, 2.0], np.float32)
    b = np.array([3, 4, 5], np.int64)
    write_bundle(prefix, {"a": (a, dtypes.float32), "b": (b, dtypes.int64)})
    with open(data_filename(prefix), "rb") as f:
        assert f.read() == a.tobytes() + b.tobytes()      # sorted names, no padding


def test_string_tensor_layout(tmp_path):
    prefix = str(tmp_path / "m")
    write_bundle(prefix, {"s": (np.array([b"ab", b"xyz"], dtype=object), dtypes.string)})
    with open(data_filename(prefix), "rb") as f:
        raw = f.read()
    # varint lengths, the masked CRC of the lengths as uint32s, then the bytes.
    lengths_crc = crc32c.value((2).to_bytes(4, "little") + (3).to_bytes(4, "little"))
    assert raw == b"\x02\x03" + crc32c.mask(lengths_crc).to_bytes(4, "little") + b"abxyz"


def _flip(path, offset):
    with open(path, "r+b") as f:
        f.seek(offset)
        byte = f.read(1)
        f.seek(offset)
        f.write(bytes([byte[0] ^ 0x40]))


def test_a_flipped_data_byte_is_a_data_loss_error(tmp_path):
    prefix = str(tmp_path / "m")
    write_bundle(prefix, {"a": (np.zeros(4, np.float32), dtypes.float32),
                          "b": (np.ones(4, np.float32), dtypes.float32)})
    _flip(data_filename(prefix), 17)          # inside "b" (bytes 16..31)
    reader = BundleReader(prefix)
    np.testing.assert_array_equal(reader.get_tensor("a"), np.zeros(4))
    with pytest.raises(tf.errors.DataLossError, match="Checksum does not match"):
        reader.get_tensor("b")


def test_a_truncated_data_file_is_a_data_loss_error(tmp_path):
    prefix = str(tmp_path / "m")
    write_bundle(prefix, {"a": (np.zeros(100, np.float32), dtypes.float32)})
    with open(data_filename(prefix), "r+b") as f:
        f.truncate(50)
    with pytest.raises(tf.errors.DataLossError):
        BundleReader(prefix).get_tensor("a")


@pytest.mark.parametrize("cut", [1, 30, 60])
def test_a_truncated_or_damaged_index_is_a_data_loss_error(tmp_path, cut):
    prefix = str(tmp_path / "m")
    write_bundle(prefix, {"a": (np.zeros(3, np.float32), dtypes.float32)})
    path = index_filename(prefix)
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.truncate(size - cut)
    with pytest.raises(tf.errors.DataLossError):
        BundleReader(prefix)
    write_bundle(prefix, {"a": (np.zeros(3, np.float32), dtypes.float32)})
    _flip(path, cut % (size - 48))        # a byte of a block: its CRC catches it
    with pytest.raises(tf.errors.DataLossError):
        BundleReader(prefix)


def test_missing_files_and_keys_are_not_found_errors(tmp_path):
    with pytest.raises(tf.errors.NotFoundError):
        BundleReader(str(tmp_path / "nothing"))
    prefix = str(tmp_path / "m")
    write_bundle(prefix, {"a": (np.zeros(3, np.float32), dtypes.float32)})
    with pytest.raises(tf.errors.NotFoundError, match="Key b not found in checkpoint"):
        BundleReader(prefix).get_tensor("b")
    os.remove(data_filename(prefix))
    with pytest.raises(tf.errors.NotFoundError):
        BundleReader(prefix).get_tensor("a")


def test_the_index_is_written_last_under_a_temporary_name(tmp_path, monkeypatch):
    # A crash while the data file is being renamed leaves no index: no checkpoint.
    import tfteach.io.tensor_bundle as tb
    real_replace = os.replace
    renamed = []

    def replace(src, dst):
        renamed.append(os.path.basename(dst))
        assert ".tempstate" in os.path.basename(src)
        return real_replace(src, dst)
    monkeypatch.setattr(tb.os, "replace", replace)
    write_bundle(str(tmp_path / "m"), {"a": (np.zeros(1, np.float32), dtypes.float32)})
    assert renamed == ["m.data-00000-of-00001", "m.index"]


def test_bundle_bytes_are_deterministic():
    assert bundle_bytes(VALUES) == bundle_bytes(dict(reversed(list(VALUES.items()))))


def test_every_single_byte_flip_is_caught_or_harmless(tmp_path):
    # Reading only parses: whatever byte of the index or data file is damaged, the
    # reader either returns the saved values or raises one of TF's errors, never a
    # stray Python exception and never a wrong value.
    prefix = str(tmp_path / "m")
    tensors = {"a": (np.arange(5, dtype=np.float32), dtypes.float32),
               "s": (np.array([b"xy", b"z"], dtype=object), dtypes.string),
               "n": (np.array(3, np.int64), dtypes.int64)}
    write_bundle(prefix, tensors)
    for path in (index_filename(prefix), data_filename(prefix)):
        with open(path, "rb") as f:
            original = f.read()
        for offset in range(len(original)):
            damaged = bytearray(original)
            damaged[offset] ^= 0x5A
            with open(path, "wb") as f:
                f.write(damaged)
            try:
                reader = BundleReader(prefix)
                for name, (value, _) in tensors.items():
                    np.testing.assert_array_equal(reader.get_tensor(name), value)
            except tf.errors.OpError:
                pass
        with open(path, "wb") as f:
            f.write(original)


def test_an_entry_claiming_more_bytes_than_the_file_has_is_refused(tmp_path):
    from tfteach.io.bundle_protos import BundleEntryProto, BundleHeaderProto
    prefix = str(tmp_path / "m")
    header = BundleHeaderProto(num_shards=1)
    entry = BundleEntryProto(dtype=dtypes.float32.as_datatype_enum, offset=0,
                             size=4 * 10 ** 15)
    entry.shape.dim.add(size=10 ** 15)                   # a petabyte of float32
    with open(index_filename(prefix), "wb") as f:
        f.write(table.build_table([(b"", header.SerializeToString()),
                                   (b"huge", entry.SerializeToString())]))
    with open(data_filename(prefix), "wb") as f:
        f.write(b"\0" * 16)
    reader = BundleReader(prefix)
    assert reader.shape("huge") == [10 ** 15]
    with pytest.raises(tf.errors.DataLossError, match="Read less bytes than requested"):
        reader.get_tensor("huge")
