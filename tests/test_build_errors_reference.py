"""Mistakes TensorFlow refuses while the graph is built, which tfteach accepted before
(a float64 cast or placeholder from `dtype=None`, a scalar `multiples` tiled anyway,
`shape_n` of one tensor taken as its rows): the same error class and words as TensorFlow
(the text before TF 2's `for '{{node ...}}'` suffix, which TF 1.15 words
`for 'Tile' (op: 'Tile') ...`, as tfteach does)."""
import pytest

import tfteach
from tf_reference import build_error, message_core, tensorflow_v1, tf1_behaviour

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
    assert message_core(ours) == message_core(theirs)


# A forgotten `return` passed on as a tensor (lesson 21 §5, the notes' predict()). An op
# whose Python function hands the value straight to the op definition (a generated
# wrapper) wraps make_tensor_proto's error naming the input; one whose Python function
# converts first (tf.sigmoid, tf.nn.relu6, tf.matmul) raises the bare words.
NONE_INPUTS = {
    "equal(None, y)": lambda tf: tf.equal(None, tf.constant([1])),
    "less(None, y)": lambda tf: tf.less(None, tf.constant([1.0])),
    "subtract(None, y)": lambda tf: tf.subtract(None, tf.constant([1.0])),
    "multiply(None, y)": lambda tf: tf.multiply(None, tf.constant([1.0])),
    "maximum(None, y)": lambda tf: tf.maximum(None, tf.constant([1.0])),
    "square(None)": lambda tf: tf.square(None),
    "sqrt(None)": lambda tf: tf.sqrt(None),
    "log(None)": lambda tf: tf.log(None),
    "tanh(None)": lambda tf: tf.tanh(None),
    "sigmoid(None)": lambda tf: tf.sigmoid(None),
    "nn.relu(None)": lambda tf: tf.nn.relu(None),
    "nn.relu6(None)": lambda tf: tf.nn.relu6(None),
    "nn.elu(None)": lambda tf: tf.nn.elu(None),
    "nn.l2_loss(None)": lambda tf: tf.nn.l2_loss(None),
    "argmax(None)": lambda tf: tf.argmax(None, 1),
    "reshape(None)": lambda tf: tf.reshape(None, [1]),
    "identity(None)": lambda tf: tf.identity(None),
    "expand_dims(None)": lambda tf: tf.expand_dims(None, 0),
    "tile(None)": lambda tf: tf.tile(None, [1]),
    "gather(None)": lambda tf: tf.gather(None, [0]),
    "where(None, x, y)": lambda tf: tf.where(None, tf.constant([1.0]), tf.constant([2.0])),
    "matmul(None, b)": lambda tf: tf.matmul(None, tf.ones([2, 2])),
}


@pytest.mark.parametrize("label", sorted(NONE_INPUTS))
def test_none_for_an_input_gets_tensorflows_words(label):
    # tfteach said "None values not supported." for the first input of every op, where
    # TF's op_def_library says "Tried to convert 'x' to a tensor and failed. Error: ..."
    tensorflow_v1()
    with tf1_behaviour() as v1:
        theirs = build_error(v1, NONE_INPUTS[label])
    ours = build_error(tfteach, NONE_INPUTS[label])
    assert type(ours) is type(theirs) is ValueError
    assert str(ours) == str(theirs)
