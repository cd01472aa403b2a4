"""tf.decode_raw and tf.decode_csv (ops/decode_ops.py): values written out by hand with
struct / by reading the CSV text, and TensorFlow's errors for bad input (the words are
checked against TensorFlow in test_decode_reference.py)."""
import struct

import numpy as np
import pytest

import tfteach as tf


def _run(t):
    with tf.Session() as sess:
        return sess.run(t)


def test_decode_raw_endianness_and_shape():
    data = [struct.pack("<3h", 1, -2, 300), struct.pack("<3h", 4, 5, -32768)]
    out = tf.decode_raw(tf.constant(data), tf.int16)
    assert out.shape.as_list() == [2, None] and out.op.type == "DecodeRaw"
    np.testing.assert_array_equal(_run(out), np.int16([[1, -2, 300], [4, 5, -32768]]))
    big = tf.decode_raw(tf.constant([struct.pack(">2f", 1.5, -0.25)]), tf.float32,
                        little_endian=False)
    np.testing.assert_array_equal(_run(big), np.float32([[1.5, -0.25]]))
    pixels = tf.decode_raw(tf.constant(bytes([0, 127, 255])), tf.uint8)
    assert _run(pixels).tolist() == [0, 127, 255]


def test_decode_raw_bad_input():
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="^Input to DecodeRaw has length 3 that is not a multiple of "
                                 "4, the size of float"):
            sess.run(tf.decode_raw(tf.constant([b"abc"]), tf.float32))
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="^DecodeRaw requires input strings to all be the same size, "
                                 "but element 1 has size 2 != 4"):
            sess.run(tf.decode_raw(tf.constant([b"ab", b"abcd"]), tf.uint8))
    with pytest.raises(TypeError, match="parameter 'out_type' has DataType string"):
        tf.decode_raw(tf.constant([b"ab"]), tf.string)
    with pytest.raises(TypeError, match="Input 'bytes' of 'DecodeRaw' Op has type int32"):
        tf.decode_raw(tf.constant([1]), tf.uint8)


def test_decode_csv_types_quotes_defaults():
    lines = tf.constant(['1,2.5,abc', '-4,,"q,""x"""', ' 7 ,1e3,'])
    a, b, c = tf.decode_csv(lines, [[0], [9.5], ["dflt"]])
    assert a.dtype == tf.int32 and b.dtype == tf.float32 and c.dtype == tf.string
    assert a.shape.as_list() == [3]
    va, vb, vc = _run([a, b, c])
    assert va.tolist() == [1, -4, 7]
    np.testing.assert_array_equal(vb, np.float32([2.5, 9.5, 1000.0]))
    assert vc.tolist() == [b"abc", b'q,"x"', b"dflt"]


def test_decode_csv_options():
    x, y = tf.decode_csv(tf.constant(["1;NA;3"]), [[0], [0.5]], field_delim=";",
                         na_value="NA", select_cols=[0, 1])
    assert _run([x, y])[1].tolist() == [0.5]
    (raw,) = tf.decode_csv(tf.constant(['"q"']), [[""]], use_quote_delim=False)
    assert _run(raw).tolist() == [b'"q"']
    (big,) = tf.decode_csv(tf.constant(["9223372036854775807"]), [tf.constant([0], tf.int64)])
    assert big.dtype == tf.int64 and _run(big).tolist() == [2 ** 63 - 1]


@pytest.mark.parametrize("line,defaults,message", [
    ("1,2", [[0], [0], [0]], "Expect 3 fields but have 2 in record 0"),
    (",2", [[], [0]], "Field 0 is required but missing in record 0!"),
    ("x,2", [[0], [0]], "Field 0 in record 0 is not a valid int32: x"),
    ("1,y", [[0], [0.0]], "Field 1 in record 0 is not a valid float: y"),
    ("3000000000,1", [[0], [0]], "Field 0 in record 0 is not a valid int32: 3000000000"),
    ('1,"2', [[0], [""]], "Quoted field has to end with quote followed by delim or end"),
    ('1,"2"x,3', [[0], [""], [0]], "Quote inside a string has to be escaped by another quote"),
    ('1,a"b', [[0], [""]], "Unquoted fields cannot have quotes/CRLFs inside")])
def test_decode_csv_bad_records(line, defaults, message):
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            # [] stands for an empty int32 default: a required column.
            sess.run(tf.decode_csv(tf.constant([line]), [
                tf.constant([], tf.int32) if d == [] else d for d in defaults]))
    assert str(info.value).startswith(message)


def test_decode_csv_bad_arguments():
    with pytest.raises(ValueError, match="select_cols is not strictly increasing."):
        tf.decode_csv(tf.constant(["1,2"]), [[0], [0]], select_cols=[1, 0])
    with pytest.raises(ValueError, match="Length of select_cols and record_defaults do not"):
        tf.decode_csv(tf.constant(["1,2"]), [[0], [0]], select_cols=[0])
    with pytest.raises(TypeError, match="'record_defaults' has DataType bool"):
        tf.decode_csv(tf.constant(["1"]), [[True]])
    with pytest.raises(ValueError, match="Shape must be at most rank 1 but is rank 2"):
        tf.decode_csv(tf.constant(["1,2"]), [[0], [[1, 2]]])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="field_delim should be only 1 char"):
            sess.run(tf.decode_csv(tf.constant(["1"]), [[0]], field_delim=";;"))
