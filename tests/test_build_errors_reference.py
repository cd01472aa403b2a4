"""Mistakes TensorFlow refuses while the graph is built, which tfteach accepted before
(a float64 cast or placeholder from `dtype=None`, a scalar `multiples` tiled anyway,
`shape_n` of one tensor taken as its rows): the same error class and words as TensorFlow
(the text before TF 2's `for '{{node ...}}'` suffix, which TF 1.15 words
`for 'Tile' (op: 'Tile') ...`, as tfteach does)."""
import pytest

import tfteach
from tf_reference import build_error, tensorflow_v1, tf1_behaviour

CASES = {
    "cast to None": lambda tf: tf.cast(tf.constant([1.0]), None),
    "zeros of dtype None": lambda tf: tf.zeros([2], None),
    "as_dtype(None)": lambda tf: tf.as_dtype(None),
    "placeholder of dtype None": lambda tf: tf.placeholder(None, [2]),
    "placeholder of an unknown dtype name": lambda tf: tf.placeholder("nope"),
    "tile by a scalar": lambda tf: tf.tile(tf.constant([1.0, 2.0]), 3),
    "tile by a fed scalar": lambda tf: tf.tile(tf.constant([1.0, 2.0]),
                                               tf.placeholder(tf.int32, [])),
    "shape_n of one tensor": lambda tf: tf.shape_n(tf.constant([1.0, 2.0])),
    "one_hot of a float depth": lambda tf: tf.one_hot([1, 2], 3.0),
    "one_hot of a float tensor depth": lambda tf: tf.one_hot([1, 2], tf.constant(3.0)),
}


# dtypes.as_dtype's "Cannot convert value %r to a TensorFlow DType." and op_def_library's
# "Expected list for '%s' argument to '%s' Op, not %s." (the tensor's str) in TF 1.15
NO_DTYPE = "Cannot convert value None to a TensorFlow DType."
TF_1_15_WORDS = {
    "cast to None": NO_DTYPE, "zeros of dtype None": NO_DTYPE, "as_dtype(None)": NO_DTYPE,
    "shape_n of one tensor": "Expected list for 'input' argument to 'shape_n' Op, not "
                             "Tensor(\"Const:0\", shape=(2,), dtype=float32).",
    # TF 2 words the inner conversion error "Expected int32, but got 3.0 of type 'float'."
    "one_hot of a float depth": "Expected int32 passed to parameter 'depth' of op 'OneHot', "
                                "got 3.0 of type 'float' instead. Error: Expected int32, got "
                                "3.0 of type 'float' instead.",
}


def _core(error):
    return str(error).split(" for '")[0].split("\n")[0]


@pytest.mark.parametrize("label", sorted(CASES))
def test_build_time_mistakes_raise_tensorflows_errors(label):
    tensorflow_v1()
    with tf1_behaviour() as v1:
        theirs = build_error(v1, CASES[label])
    ours = build_error(tfteach, CASES[label])
    assert theirs is not None, "TensorFlow accepted it"
    assert type(ours) is type(theirs), (ours, theirs)
    if label in TF_1_15_WORDS:    # TF 2 rewords these; TF 1.15's own text, as its source has
        assert str(ours) == TF_1_15_WORDS[label]
        return
    assert _core(ours) == _core(theirs)
