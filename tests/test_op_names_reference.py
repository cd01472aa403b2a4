"""A bad `name=` argument gets TensorFlow's error class and words (framework/graph.py).

TF 1.15's ops take their name through a name scope (op_def_library), which matches it
against a regex: a name that is not a string is Python's TypeError from `re`, a string
with a space is "'a b' is not a valid scope name" (TF 2 added "root" and the pattern to
that text; tfteach keeps 1.15's). A constant is made with Graph.create_op, whose check
says "node name". Before, tfteach raised AttributeError ('int' object has no attribute
'endswith') or silently named the op "5".
"""
import numpy as np
import pytest

import tfteach
from tf_reference import build_error, tensorflow_v1, tf1_behaviour

NOT_STRINGS = {
    "identity": lambda tf, name: tf.identity(tf.constant([1.0]), name=name),
    "abs": lambda tf, name: tf.abs(tf.constant([1.0]), name=name),
    "add": lambda tf, name: tf.add(tf.constant(1.0), 2.0, name=name),
    "reduce_sum": lambda tf, name: tf.reduce_sum(tf.constant([1.0]), name=name),
    "placeholder": lambda tf, name: tf.placeholder(tf.float32, name=name),
    "variable": lambda tf, name: tf.Variable(1.0, name=name),
    "get_variable": lambda tf, name: tf.get_variable(name, [1]),
    "relu": lambda tf, name: tf.nn.relu(tf.constant([1.0]), name),
    "diag": lambda tf, name: tf.diag(tf.constant([1.0]), name),
}


@pytest.mark.parametrize("name", [5, 2.5, [1]], ids=["int", "float", "list"])
@pytest.mark.parametrize("op", sorted(NOT_STRINGS))
def test_a_name_that_is_no_string_is_tensorflows_type_error(op, name):
    tensorflow_v1()
    with tf1_behaviour() as v1:
        theirs = build_error(v1, NOT_STRINGS[op], name)
    ours = build_error(tfteach, NOT_STRINGS[op], name)
    assert isinstance(theirs, TypeError) and isinstance(ours, TypeError), (theirs, ours)
    assert str(ours) == str(theirs)


def test_a_bytes_name_is_its_text_as_in_tensorflow():
    with tfteach.Graph().as_default():
        assert tfteach.abs(tfteach.constant([1.0]), name=b"magnitude").name == "magnitude:0"


@pytest.mark.parametrize("op", ["identity", "abs", "add", "reduce_sum", "placeholder"])
def test_a_bad_op_name_is_a_bad_scope_name_as_in_tensorflow_1_15(op):
    tensorflow_v1()
    with tf1_behaviour() as v1:
        theirs = build_error(v1, NOT_STRINGS[op], "a b")
    ours = build_error(tfteach, NOT_STRINGS[op], "a b")
    assert type(ours) is type(theirs) is ValueError
    assert str(theirs).startswith("'a b' is not a valid root scope name")   # TF 2's words
    assert str(ours) == "'a b' is not a valid scope name"                   # TF 1.15's


def test_a_bad_constant_name_is_a_bad_node_name_as_in_tensorflow():
    tensorflow_v1()
    with tf1_behaviour() as v1:
        with v1.Graph().as_default(), pytest.raises(ValueError) as theirs:
            v1.constant(np.float32(1), name="a b")
    with tfteach.Graph().as_default(), pytest.raises(ValueError) as ours:
        tfteach.constant(np.float32(1), name="a b")
    assert "a b` is not a valid node name" in str(theirs.value)             # TF 2's words
    assert str(ours.value) == "'a b' is not a valid node name"              # TF 1.15's
