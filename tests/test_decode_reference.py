"""tf.decode_raw / tf.decode_csv against TensorFlow: the same values and dtypes for the
same inputs, the same error words for bad ones. Skips without TensorFlow."""
import numpy as np
import pytest

from tests.tf_reference import errors_of_both, first_line, run_both

pytestmark = pytest.mark.reference

RAW = [bytes(range(i, i + 8)) for i in (0, 100, 248)]


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "uint16", "int32", "int64",
                                   "float16", "float32", "float64"])
@pytest.mark.parametrize("little_endian", [True, False])
def test_decode_raw_equals_tensorflows(dtype, little_endian):
    theirs, ours = run_both(lambda tf: (tf.decode_raw(tf.constant(RAW), getattr(tf, dtype),
                                                      little_endian=little_endian), None))
    assert theirs.dtype == ours.dtype and theirs.shape == ours.shape
    np.testing.assert_array_equal(theirs, ours)


LINES = ['1,2.5,abc,7', '-4,,"q,""x""",', ' 7 ,1e3,"",-9223372036854775808', '0,inf,NA,1',
         '+3,-0.0,a b,0']


def test_decode_csv_equals_tensorflows():
    def build(tf):
        return tf.decode_csv(tf.constant(LINES), [[0], [9.5], ["dflt"],
                                                  tf.constant([5], tf.int64)],
                             na_value="NA"), None
    theirs, ours = run_both(build)
    for a, b in zip(theirs, ours):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("line,defaults", [
    ("1,2", [[0], [0], [0]]), (",2", [[], [0]]), ("x,2", [[0], [0]]), ("1,y", [[0], [0.0]]),
    ("3000000000,1", [[0], [0]]), ('1,"2', [[0], [""]]), ('1,"2"x,3', [[0], [""], [0]]),
    ('1,a"b', [[0], [""]]), ("1.5,2", [[0], [0.0]]), ("", [[0]])])
def test_decode_csv_errors_as_tensorflows(line, defaults):
    def build(tf):
        converted = [tf.constant([], tf.int32) if d == [] else d for d in defaults]
        return tf.decode_csv(tf.constant([line]), converted), None
    theirs, ours = errors_of_both(build)
    assert type(ours).__name__ == type(theirs).__name__ == "InvalidArgumentError"
    assert first_line(ours) in str(theirs)


@pytest.mark.parametrize("data,dtype", [([b"abc"], "float32"), ([b"ab", b"abcd"], "int16")])
def test_decode_raw_errors_as_tensorflows(data, dtype):
    theirs, ours = errors_of_both(lambda tf: (tf.decode_raw(tf.constant(data),
                                                            getattr(tf, dtype)), None))
    assert type(ours).__name__ == type(theirs).__name__ == "InvalidArgumentError"
    assert first_line(ours) in str(theirs)
