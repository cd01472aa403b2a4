"""TFRecord files against TensorFlow's: the same bytes for the same records (raw, GZIP and
ZLIB), each reads the other's files, and corrupt or truncated files fail the same way
(DataLossError, same offset). Skips without TensorFlow."""
import numpy as np
import pytest

from tfteach import errors
from tfteach.io.tfrecord import RecordFileWriter, iterate_records
from tests.tf_reference import tensorflow_v1

pytestmark = pytest.mark.reference

COMPRESSIONS = ["", "ZLIB", "GZIP"]
_rng = np.random.RandomState(7)
# Small records, an empty one, and ~600 KB that compresses (text) and does not (noise),
# more than TensorFlow's 256 KB zlib buffers so its chunked deflate is exercised.
RECORDS = ([b"hello", b"", bytes(range(256))]
           + [("line %d of some text\n" % i).encode() * 50 for i in range(300)]
           + [_rng.bytes(100000) for _ in range(2)])


def _tf_write(tf, path, records, compression):
    with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions(compression)) as w:
        for r in records:
            w.write(r)


def _ours_write(path, records, compression):
    with RecordFileWriter(path, compression) as w:
        for r in records:
            w.write(r)


def _both_write(tmp_path, compression):
    """(TensorFlow, the path of its file of RECORDS, the path of ours)."""
    tf = tensorflow_v1()
    theirs, ours = str(tmp_path / "tf"), str(tmp_path / "ours")
    _tf_write(tf, theirs, RECORDS, compression)
    _ours_write(ours, RECORDS, compression)
    return tf, theirs, ours


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_bytes_equal_tensorflows(tmp_path, compression):
    _, theirs, ours = _both_write(tmp_path, compression)
    assert open(ours, "rb").read() == open(theirs, "rb").read()


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_flushes_midway_give_tensorflows_bytes(tmp_path, compression):
    tf = tensorflow_v1()
    paths = str(tmp_path / "tf"), str(tmp_path / "ours")
    writers = (tf.io.TFRecordWriter(paths[0], tf.io.TFRecordOptions(compression)),
               RecordFileWriter(paths[1], compression))
    for writer in writers:
        for i, record in enumerate(RECORDS[:60]):
            writer.write(record)
            if i % 7 == 0:
                writer.flush()
        writer.close()
    assert open(paths[1], "rb").read() == open(paths[0], "rb").read()
    assert list(iterate_records(paths[1], compression)) == RECORDS[:60]


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_each_reads_the_others_files(tmp_path, compression):
    tf, theirs, ours = _both_write(tmp_path, compression)
    assert list(iterate_records(theirs, compression)) == RECORDS
    options = tf.io.TFRecordOptions(compression)
    assert list(tf.io.tf_record_iterator(ours, options)) == RECORDS


def test_tensorflows_dataset_reads_our_gzip_file(tmp_path):
    tf = tensorflow_v1()
    ours = str(tmp_path / "ours")
    _ours_write(ours, RECORDS[:5], "GZIP")
    with tf.Graph().as_default():
        next_record = tf.data.make_one_shot_iterator(
            tf.data.TFRecordDataset(ours, "GZIP")).get_next()
        with tf.Session() as sess:
            got = [sess.run(next_record) for _ in range(5)]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(next_record)
    assert got == RECORDS[:5]


def _damaged_files(tmp_path):
    raw_path = str(tmp_path / "raw")
    _ours_write(raw_path, [b"first", b"", b"x" * 300], "")
    raw = open(raw_path, "rb").read()
    bit_in_data = bytearray(raw)
    bit_in_data[12 + 2] ^= 4
    bit_in_length = bytearray(raw)
    bit_in_length[21 + 16 + 3] ^= 1
    files = {"data_bit": bytes(bit_in_data), "length_bit": bytes(bit_in_length)}
    for keep in (1, 11, 12, 40, 311):
        files["keep_%d_of_last" % keep] = raw[:37 + keep]
    for name, data in files.items():
        with open(str(tmp_path / name), "wb") as f:
            f.write(data)
    return [str(tmp_path / name) for name in files]


def _outcome(records):
    got = []
    try:
        for r in records:
            got.append(r)
    except errors.DataLossError as e:
        return got, "DataLossError", str(e)
    except Exception as e:  # TensorFlow's class of the same name
        return got, type(e).__name__, str(e)
    return got, None, None


def test_corrupt_and_truncated_files_fail_as_tensorflows(tmp_path):
    tf = tensorflow_v1()
    for path in _damaged_files(tmp_path):
        t_got, t_class, t_msg = _outcome(tf.io.tf_record_iterator(path))
        o_got, o_class, o_msg = _outcome(iterate_records(path))
        assert (o_got, o_class) == (t_got, t_class), path
        if t_msg is not None:
            # TF 2.x appends "' failed with <why>" or a hint to TF 1.15's words.
            assert t_msg.startswith(o_msg), (path, t_msg, o_msg)


def _read_through_queue(tf, path, compression):
    """Every record of `path` through TF1's queue reader (one epoch), in either library."""
    with tf.Graph().as_default():
        queue = tf.train.string_input_producer([path], num_epochs=1, shuffle=False)
        reader = tf.TFRecordReader(options=tf.python_io.TFRecordOptions(compression))
        key, record = reader.read(queue)
        got = []
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            try:
                while True:
                    got.append(sess.run(record))
            except tf.errors.OutOfRangeError:
                pass
            coord.request_stop()
            coord.join(threads)
    return got


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_queue_readers_read_the_others_files(tmp_path, compression):
    import tfteach
    tf = tensorflow_v1()
    theirs, ours = str(tmp_path / "tf"), str(tmp_path / "ours")
    _tf_write(tf, theirs, RECORDS[:20], compression)
    _ours_write(ours, RECORDS[:20], compression)
    assert _read_through_queue(tfteach, theirs, compression) == RECORDS[:20]
    assert _read_through_queue(tf, ours, compression) == RECORDS[:20]
