"""tf.python_io / tf.io TFRecord API (python_io.py): options, writer life cycle, iterator,
and tf.train.Example messages written as records and read back."""
import os

import pytest

import tfteach as tf


def test_compression_options_and_their_strings():
    options = tf.python_io.TFRecordOptions
    kind = tf.python_io.TFRecordCompressionType
    assert (kind.NONE, kind.ZLIB, kind.GZIP) == (0, 1, 2)
    assert options.get_compression_type_string(None) == ""
    assert options.get_compression_type_string(options(kind.GZIP)) == "GZIP"
    assert options.get_compression_type_string("ZLIB") == "ZLIB"
    assert options(kind.ZLIB).compression_type == kind.ZLIB
    with pytest.raises(ValueError, match='^Not a valid compression_type: "BZ2"$'):
        options("BZ2")


@pytest.mark.parametrize("options", [None, "GZIP", tf.io.TFRecordOptions("ZLIB"),
                                     tf.python_io.TFRecordOptions(
                                         tf.python_io.TFRecordCompressionType.GZIP)])
def test_write_and_iterate_examples(tmp_path, options):
    path = str(tmp_path / "data.tfrecords")
    examples = []
    for i in range(3):
        examples.append(tf.train.Example(features=tf.train.Features(feature={
            "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
            "raw": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"x" * i]))})))
    with tf.python_io.TFRecordWriter(path, options) as writer:
        for example in examples:
            writer.write(example.SerializeToString())
    records = list(tf.io.tf_record_iterator(path, options))
    assert [tf.train.Example.FromString(r) for r in records] == examples


def test_closed_writer_refuses_writes_and_str_is_utf8(tmp_path):
    path = str(tmp_path / "f")
    writer = tf.python_io.TFRecordWriter(path)
    writer.write("héllo")
    writer.close()
    writer.close()                                    # closing twice is fine, as in TF
    for act in (lambda: writer.write(b"x"), writer.flush):
        with pytest.raises(tf.errors.FailedPreconditionError, match="^Writer is closed.$"):
            act()
    assert list(tf.python_io.tf_record_iterator(path)) == ["héllo".encode("utf-8")]


def test_missing_directory_and_file():
    with pytest.raises(tf.errors.NotFoundError, match="No such file or directory"):
        tf.python_io.TFRecordWriter("/nonexistent_dir_tfteach/x.tfrecords")
    with pytest.raises(tf.errors.NotFoundError):
        next(tf.python_io.tf_record_iterator("/nonexistent_dir_tfteach/x.tfrecords"))


def test_example_messages_fields_and_oneof():
    feature = tf.train.Feature(float_list=tf.train.FloatList(value=[0.5, 2.0]))
    assert feature.WhichOneof("kind") == "float_list"
    feature.int64_list.value.append(3)                 # setting another kind clears it
    assert feature.WhichOneof("kind") == "int64_list" and not feature.HasField("float_list")
    seq = tf.train.SequenceExample()
    seq.context.feature["n"].int64_list.value.append(2)
    seq.feature_lists.feature_list["tokens"].feature.add().bytes_list.value.append(b"a")
    again = tf.train.SequenceExample.FromString(seq.SerializeToString())
    assert again.feature_lists.feature_list["tokens"].feature[0].bytes_list.value == [b"a"]
    # proto3 packed encoding, by hand: field 1 length-delimited, 2 float32 little-endian.
    assert tf.train.FloatList(value=[1.0, 2.0]).SerializeToString() == (
        b"\x0a\x08" + b"\x00\x00\x80\x3f" + b"\x00\x00\x00\x40")
    assert tf.train.Int64List(value=[1, 300]).SerializeToString() == b"\x0a\x03\x01\xac\x02"


def test_a_format_module_asked_for_by_name_comes_as_itself():
    # tfteach.io is both the format package and tf.io. `from tfteach.io import crc32c`
    # asks the package's __getattr__ before importing the module; it must import the
    # module, not look in the public names (io_api imports ops/, which may be half
    # imported while `import tfteach` runs). A fresh interpreter, so nothing is cached.
    import subprocess
    import sys
    program = ("import sys, tfteach.io as io\n"
               "sys.modules.pop('tfteach.io_api', None)\n"
               "for name in ('crc32c', 'varint', 'tfrecord'):\n"
               "    sys.modules.pop('tfteach.io.' + name, None)\n"
               "    assert io.__getattr__(name).__name__ == 'tfteach.io.' + name\n"
               "assert 'tfteach.io_api' not in sys.modules\n"
               "print(io.TFRecordWriter)\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(tf.__file__)))
    done = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "TFRecordWriter" in done.stdout


def test_tf_io_holds_tf_1_15s_names():
    # TF 1.15's tf.io names that tfteach has, each the same object as its other name.
    assert tf.io.TFRecordWriter is tf.python_io.TFRecordWriter
    assert tf.io.parse_example is tf.parse_example and tf.io.decode_raw is tf.decode_raw
    assert tf.io.FixedLenFeature is tf.FixedLenFeature and tf.io.gfile is tf.gfile
    assert tf.io.serialize_tensor is tf.serialize_tensor
    assert tf.io.RandomShuffleQueue is tf.RandomShuffleQueue
    assert tf.io.match_filenames_once is tf.train.match_filenames_once
    with pytest.raises(AttributeError, match="module 'tensorflow.io' has no attribute 'nope'"):
        tf.io.nope
