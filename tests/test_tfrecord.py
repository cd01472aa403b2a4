"""TFRecord files (tfteach/io/tfrecord.py): the framing built by hand from its spec, the
three compressions read back by Python's own gzip/zlib, and TensorFlow's reader rules for
corrupt and truncated files (offsets and words checked against TensorFlow in
test_tfrecord_reference.py)."""
import gzip
import struct
import zlib

import google_crc32c
import pytest

from tfteach import errors
from tfteach.io.tfrecord import RecordFileReader, RecordFileWriter, iterate_records

RECORDS = [b"hello", b"", b"x" * 300, bytes(range(256))]

# CRC-32C test vectors of RFC 3720 (iSCSI), appendix B.4.
RFC3720 = [(bytes(32), 0x8A9136AA), (b"\xff" * 32, 0x62A8AB43),
           (bytes(range(32)), 0x46DD794E), (bytes(range(31, -1, -1)), 0x113FDB5C)]


def _mask(crc):
    # TensorFlow's mask written out independently: rotate right 15 bits, add a constant.
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) % 2 ** 32


def _framed(data, data_crc):
    header = struct.pack("<Q", len(data))
    return (header + struct.pack("<I", _mask(google_crc32c.value(header))) + data
            + struct.pack("<I", _mask(data_crc)))


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "f.tfrecord")


@pytest.mark.parametrize("data,crc", RFC3720)
def test_record_of_rfc3720_vectors_is_length_crc_data_crc(path, data, crc):
    with RecordFileWriter(path) as w:
        w.write(data)
    with open(path, "rb") as f:
        assert f.read() == _framed(data, crc)
    assert list(iterate_records(path)) == [data]


def test_empty_record_and_empty_file(path):
    with RecordFileWriter(path) as w:
        w.write(b"")
    with open(path, "rb") as f:
        raw = f.read()
    # length 0 -> header is 8 zero bytes; the data CRC is the masked CRC of nothing (0).
    assert raw[:8] == bytes(8) and raw[12:] == struct.pack("<I", _mask(0))
    assert list(iterate_records(path)) == [b""]
    open(path, "wb").close()
    assert list(iterate_records(path)) == []


@pytest.mark.parametrize("compression", ["", "ZLIB", "GZIP"])
def test_round_trip_each_compression(path, compression):
    with RecordFileWriter(path, compression) as w:
        for r in RECORDS:
            w.write(r)
    assert list(iterate_records(path, compression)) == RECORDS


def test_gzip_and_zlib_wrap_the_whole_record_stream(tmp_path):
    plain, gz, zl = (str(tmp_path / n) for n in ("p", "g", "z"))
    for p, c in ((plain, ""), (gz, "GZIP"), (zl, "ZLIB")):
        with RecordFileWriter(p, c) as w:
            for r in RECORDS:
                w.write(r)
    raw = open(plain, "rb").read()
    assert raw == b"".join(_framed(r, google_crc32c.value(r)) for r in RECORDS)
    assert gzip.decompress(open(gz, "rb").read()) == raw
    gz_bytes = open(gz, "rb").read()
    # zlib's own gzip header: no name, mtime 0, OS 3 (Unix), as TensorFlow writes it.
    assert gz_bytes[:10] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"
    assert zlib.decompress(open(zl, "rb").read()) == raw


def test_writer_replaces_an_existing_file(path):
    for data in (b"first", b"second"):
        with RecordFileWriter(path) as w:
            w.write(data)
    assert list(iterate_records(path)) == [b"second"]


def _raw_file(path, records):
    with RecordFileWriter(path) as w:
        for r in records:
            w.write(r)
    return open(path, "rb").read()


def test_corrupted_data_raises_data_loss_at_the_data_offset(path):
    raw = bytearray(_raw_file(path, [b"hello", b"world"]))
    second = 12 + 5 + 4
    raw[second + 12 + 1] ^= 0x01                       # a bit of "world"
    open(path, "wb").write(bytes(raw))
    got = []
    with pytest.raises(errors.DataLossError, match=r"^corrupted record at %d$" % (second + 12)):
        for r in iterate_records(path):
            got.append(r)
    assert got == [b"hello"]                           # the good record came first


def test_corrupted_length_raises_data_loss_at_the_record(path):
    raw = bytearray(_raw_file(path, [b"hello"]))
    raw[0] ^= 0x01
    open(path, "wb").write(bytes(raw))
    with pytest.raises(errors.DataLossError, match=r"^corrupted record at 0$"):
        list(iterate_records(path))


@pytest.mark.parametrize("keep_of_last,expect_error", [
    (0, False), (5, False), (11, False),                # header incomplete: the end
    (12, True), (13, True), (12 + 300 + 3, True)])      # header whole, data short: loss
def test_truncated_last_record(path, keep_of_last, expect_error):
    raw = _raw_file(path, [b"a", b"x" * 300])
    start = 12 + 1 + 4
    open(path, "wb").write(raw[:start + keep_of_last])
    got = []
    if expect_error:
        with pytest.raises(errors.DataLossError, match=r"^truncated record at %d$" % start):
            for r in iterate_records(path):
                got.append(r)
    else:
        got = list(iterate_records(path))
    assert got == [b"a"]


def test_truncated_zlib_stream_reads_what_inflates(path):
    with RecordFileWriter(path, "ZLIB") as w:
        w.write(b"a")
        w.write(b"x" * 300)
    raw = open(path, "rb").read()
    open(path, "wb").write(raw[:-6])
    got = []
    with pytest.raises(errors.DataLossError, match="truncated record at 17"):
        for r in iterate_records(path, "ZLIB"):
            got.append(r)
    assert got == [b"a"]


def test_not_compressed_read_as_gzip_is_data_loss(path):
    _raw_file(path, [b"hello"])
    with pytest.raises(errors.DataLossError, match="inflate.. failed with error -3: "
                                                  "incorrect header check"):
        list(iterate_records(path, "GZIP"))


def test_missing_file_and_bad_compression_type(tmp_path):
    missing = str(tmp_path / "nope.tfrecord")
    records = iterate_records(missing)              # a generator: opens at next()
    with pytest.raises(errors.NotFoundError, match="nope.tfrecord; No such file"):
        next(records)
    with pytest.raises(errors.NotFoundError):
        RecordFileWriter(str(tmp_path / "no_dir" / "f"))
    with pytest.raises(errors.InvalidArgumentError, match="Unsupported compression_type: BZ2"):
        RecordFileWriter(str(tmp_path / "f"), "BZ2")


def test_reader_offset_advances_record_by_record(path):
    _raw_file(path, [b"ab", b"cde"])
    with RecordFileReader(path) as reader:
        assert reader.offset == 0
        assert reader.read() == b"ab" and reader.offset == 18
        assert reader.read() == b"cde" and reader.offset == 37
        assert reader.read() is None


def test_a_huge_length_with_a_valid_crc_is_a_truncated_record(path):
    # A length of 2**62 whose CRC matches (a crafted file): the reader must not try to
    # allocate it; TensorFlow reads what is there and reports a truncated record.
    header = struct.pack("<Q", 2 ** 62)
    with open(path, "wb") as f:
        f.write(header + struct.pack("<I", _mask(google_crc32c.value(header))) + b"x" * 10)
    with pytest.raises(errors.DataLossError, match="^truncated record at 0$"):
        list(iterate_records(path))
