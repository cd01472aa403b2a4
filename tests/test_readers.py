"""Readers (ops/reader_ops.py, kernels/cpu/readers.py): records and TF's keys from files
the tests write, read through a filename queue; the end of the filenames is the queue's
OutOfRangeError; bad files are TF's errors."""
import numpy as np
import pytest

import tfteach as tf
from tests.queue_helpers import call_bounded


def _filenames(paths):
    """A closed filename queue holding `paths` (no runner thread needed)."""
    q = tf.FIFOQueue(len(paths) + 1, tf.string, shapes=[[]])
    return q, [q.enqueue_many([[str(p) for p in paths]]), q.close()]


def _read_all(reader, paths, up_to=None):
    q, fill = _filenames(paths)
    read = reader.read(q) if up_to is None else reader.read_up_to(q, up_to)
    produced = reader.num_records_produced()
    done = reader.num_work_units_completed()
    out = []
    with tf.Session() as sess:
        sess.run(fill)
        while True:
            try:
                out.append(tuple(call_bounded(lambda: sess.run(read))))
            except tf.errors.OutOfRangeError as e:
                assert "is closed and has insufficient elements" in e.message
                break
        counts = sess.run([produced, done])
    return out, counts


def test_text_line_reader_keys_lines_and_header(tmp_path):
    a = tmp_path / "a.csv"
    a.write_bytes(b"name,value\nx,1\r\ny,2\n\nlast")
    b = tmp_path / "b.csv"
    b.write_bytes(b"name,value\nz,3\n")
    out, (produced, done) = _read_all(tf.TextLineReader(skip_header_lines=1), [a, b])
    assert out == [(("%s:2" % a).encode(), b"x,1"), (("%s:3" % a).encode(), b"y,2"),
                   (("%s:4" % a).encode(), b""), (("%s:5" % a).encode(), b"last"),
                   (("%s:2" % b).encode(), b"z,3")]
    assert (produced, done) == (5, 2)


def test_whole_file_reader(tmp_path):
    paths = [tmp_path / "one.bin", tmp_path / "two.bin"]
    paths[0].write_bytes(b"\x00\x01")
    paths[1].write_bytes(b"")
    out, (produced, done) = _read_all(tf.WholeFileReader(), paths)
    assert out == [(str(paths[0]).encode(), b"\x00\x01"), (str(paths[1]).encode(), b"")]
    assert (produced, done) == (2, 2)


def test_fixed_length_record_reader(tmp_path):
    path = tmp_path / "fixed.bin"
    path.write_bytes(b"HH" + b"abc" + b"def" + b"gh" + b"F")   # a partial record, dropped
    reader = tf.FixedLengthRecordReader(record_bytes=3, header_bytes=2, footer_bytes=1)
    out, _ = _read_all(reader, [path])
    assert out == [(("%s:0" % path).encode(), b"abc"), (("%s:1" % path).encode(), b"def")]


def test_fixed_length_records_decode_raw_as_cifar_does(tmp_path):
    rows = np.arange(12, dtype=np.uint8).reshape(3, 4)
    path = tmp_path / "rows.bin"
    path.write_bytes(rows.tobytes())
    reader = tf.FixedLengthRecordReader(record_bytes=4)
    q, fill = _filenames([path])
    _, value = reader.read(q)
    decoded = tf.decode_raw(value, tf.uint8)
    with tf.Session() as sess:
        sess.run(fill)
        got = [sess.run(decoded) for _ in range(3)]
    np.testing.assert_array_equal(np.stack(got), rows)


def test_tfrecord_reader_keys_are_byte_offsets(tmp_path):
    path = str(tmp_path / "data.tfrecords")
    records = [b"first", b"", b"third record"]
    with tf.python_io.TFRecordWriter(path) as writer:
        for r in records:
            writer.write(r)
    out, (produced, _) = _read_all(tf.TFRecordReader(), [path])
    offsets, at = [], 0
    for r in records:                    # each record: 8 length + 4 crc + data + 4 crc
        offsets.append(at)
        at += 16 + len(r)
    assert out == [(("%s:%d" % (path, o)).encode(), r) for o, r in zip(offsets, records)]
    assert produced == 3


def test_tfrecord_reader_gzip(tmp_path):
    path = str(tmp_path / "data.tfrecords.gz")
    options = tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.GZIP)
    with tf.python_io.TFRecordWriter(path, options=options) as writer:
        writer.write(b"zipped")
    out, _ = _read_all(tf.TFRecordReader(options=options), [path])
    assert [v for _, v in out] == [b"zipped"]


def test_tfrecord_reader_corrupt_record_is_data_loss(tmp_path):
    path = tmp_path / "bad.tfrecords"
    with tf.python_io.TFRecordWriter(str(path)) as writer:
        writer.write(b"payload")
    data = bytearray(path.read_bytes())
    data[14] ^= 0xFF                              # a byte of the record's data
    path.write_bytes(bytes(data))
    q, fill = _filenames([path])
    _, value = tf.TFRecordReader().read(q)
    with tf.Session() as sess:
        sess.run(fill)
        with pytest.raises(tf.errors.DataLossError):
            sess.run(value)


def test_read_up_to_stops_at_the_end_of_each_file(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(b"1\n2\n3\n")
    b.write_bytes(b"4\n5\n")
    out, _ = _read_all(tf.TextLineReader(), [a, b], up_to=2)
    assert [v.tolist() for _, v in out] == [[b"1", b"2"], [b"3"], [b"4", b"5"]]


def test_missing_file_is_not_found(tmp_path):
    q, fill = _filenames([tmp_path / "missing.txt"])
    _, value = tf.TextLineReader().read(q)
    with tf.Session() as sess:
        sess.run(fill)
        with pytest.raises(tf.errors.NotFoundError, match="No such file or directory"):
            sess.run(value)


def test_reset_starts_over(tmp_path):
    path = tmp_path / "a.txt"
    path.write_bytes(b"1\n2\n")
    reader = tf.TextLineReader()
    q = tf.FIFOQueue(5, tf.string, shapes=[[]])
    enq = q.enqueue(str(path))
    key, value = reader.read(q)
    with tf.Session() as sess:
        sess.run(enq)
        sess.run(enq)
        assert call_bounded(lambda: sess.run(value)) == b"1"
        sess.run(reader.reset())
        assert sess.run(reader.num_records_produced()) == 0
        # the reader forgot its file and took the second copy afresh
        assert call_bounded(lambda: sess.run(value)) == b"1"
        assert sess.run(q.size()) == 0


def test_reader_ops_have_tfs_types_and_shapes():
    reader = tf.TFRecordReader()
    q = tf.FIFOQueue(2, tf.string)
    key, value = reader.read(q)
    keys, values = reader.read_up_to(q, 4)
    assert reader.reader_ref.op.type == "TFRecordReaderV2"
    assert key.op.type == "ReaderReadV2" and key.op.name == "ReaderReadV2"
    assert key.dtype == tf.string and key.shape.as_list() == []
    assert keys.op.type == "ReaderReadUpToV2" and keys.shape.as_list() == [None]
    assert tf.TextLineReader(skip_header_lines=2).reader_ref.op.get_attr(
        "skip_header_lines") == 2


def test_notes_tfrecord_pipeline_reads_its_shards(tmp_path):
    # note 004 "Python 实现 TFRecord 数据读取与 Batching": two shards of two examples
    def _int64_feature(value):
        return tf.train.Feature(int64_list=tf.train.Int64List(value=[value]))
    for i in range(2):
        with tf.python_io.TFRecordWriter(str(tmp_path / ("data.tfrecords-%.5d-of-00002" % i))) as w:
            for j in range(2):
                w.write(tf.train.Example(features=tf.train.Features(feature={
                    "i": _int64_feature(i), "j": _int64_feature(j)})).SerializeToString())
    files = tf.train.match_filenames_once(str(tmp_path / "data.tfrecords-*"))
    filename_queue = tf.train.string_input_producer(files, shuffle=False)
    _, serialized = tf.TFRecordReader().read(filename_queue)
    features = tf.parse_single_example(serialized, features={
        "i": tf.FixedLenFeature([], tf.int64), "j": tf.FixedLenFeature([], tf.int64)})
    with tf.Session() as sess:
        tf.local_variables_initializer().run()
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        got = [call_bounded(lambda: sess.run([features["i"], features["j"]]))
               for _ in range(6)]
        coord.request_stop()
        call_bounded(lambda: coord.join(threads))
    assert got == [[0, 0], [0, 1], [1, 0], [1, 1], [0, 0], [0, 1]]
