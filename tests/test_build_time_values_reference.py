"""Static shapes that TensorFlow's shape inference computes from values while the graph is
built (ops/build_time_values.py, shape_utils.partial_shape_from_tensor): shape tensors
made by ops no Python code of TF's knows (`tf.zeros(tf.size(x))`, `tf.shape(x)[1:]` of
a partly known shape, `tf.eye(tf.constant(2))`), compared with TensorFlow's static shapes
and build-time errors. Before, tfteach left them unknown (`(?, ?)`) or refused other
values than TensorFlow."""
import numpy as np
import pytest

import tfteach
from tf_reference import (build_error, errors_of_both, message_core, own_message,
                          run_eager_tensorflow, tensorflow_v1, tf1_behaviour, tfteach_json)


def _x(tf, shape):
    return tf.placeholder(tf.float32, shape)


SHAPES = {
    "eye of a constant tensor": lambda tf: tf.eye(tf.constant(2)),
    "eye with a tensor column count and a batch": lambda tf: tf.eye(
        tf.constant(2), tf.constant(3), batch_shape=[4]),
    "zeros of a size": lambda tf: tf.zeros(tf.size(_x(tf, [2, 3]))),
    "zeros of a rank": lambda tf: tf.zeros(tf.rank(_x(tf, [2, 3]))),
    "zeros of a doubled shape": lambda tf: tf.zeros(tf.shape(_x(tf, [2, 3])) * 2),
    "zeros of max(shape, 1)": lambda tf: tf.zeros(tf.maximum(tf.constant([2, 0]), 1)),
    "zeros of a range": lambda tf: tf.zeros(tf.range(1, 4)),
    "zeros of a reversed constant": lambda tf: tf.zeros(tf.reverse(tf.constant([2, 3]), [0])),
    "zeros of a gather": lambda tf: tf.zeros(tf.gather(tf.constant([2, 3, 4]), [2, 0])),
    "zeros of an unstacked row": lambda tf: tf.zeros(
        tf.unstack(tf.constant([[2, 3], [4, 5]]))[1]),
    "zeros of a cast float constant": lambda tf: tf.zeros(
        tf.cast(tf.constant([2.7, 3.2]), tf.int32)),
    "zeros of a where": lambda tf: tf.zeros(tf.where(
        tf.constant([True, False]), tf.constant([1, 2]), tf.constant([3, 4]))),
    "slice of a partly known shape": lambda tf: tf.zeros(
        tf.shape(_x(tf, [None, 3, 4]))[1:]),
    "slice of a shape from the end": lambda tf: tf.zeros(tf.shape(_x(tf, [None, 3]))[-1:]),
    "slice with a stride": lambda tf: tf.zeros(tf.shape(_x(tf, [None, 3, 4]))[::2]),
    "slice between bounds": lambda tf: tf.zeros(tf.shape(_x(tf, [None, 3, 4]))[1:3]),
    "slice with a tensor bound": lambda tf: tf.zeros(
        tf.shape(_x(tf, [None, 3, 4]))[tf.constant(1):]),
    "slice of an int64 shape": lambda tf: tf.zeros(
        tf.shape(_x(tf, [None, 3, 4]), out_type=tf.int64)[1:]),
    "cast of a shape slice": lambda tf: tf.zeros(
        tf.cast(tf.shape(_x(tf, [None, 3, 4]))[1:], tf.int64)),
    "shape_n output": lambda tf: tf.zeros(tf.shape_n([_x(tf, [None, 3])])[0]),
    "fill of a shape slice": lambda tf: tf.fill(tf.shape(_x(tf, [None, 3]))[1:], 1.0),
    "reshape to a shape slice": lambda tf: tf.reshape(
        _x(tf, [None, 6]), tf.shape(_x(tf, [None, 2, 3]))[1:]),
    "reshape to a pack of computed scalars": lambda tf: tf.reshape(
        _x(tf, [None, 4]), tf.stack([tf.constant(2) * 1, -1])),
    "tile by computed multiples": lambda tf: tf.tile(_x(tf, [2, 3]), tf.constant([2, 1]) + 1),
    "one_hot of a computed depth": lambda tf: tf.one_hot([1, 2], tf.constant(3) + 1),
    "slice by computed begin and size": lambda tf: tf.slice(
        _x(tf, [5, 6]), tf.constant([1, 2]) - 1, tf.constant([2, 2]) * 2),
    "expand_dims at a computed axis": lambda tf: tf.expand_dims(
        _x(tf, [2, 3]), tf.constant(1) * 2),
    "transpose by a computed perm": lambda tf: tf.transpose(
        _x(tf, [2, 3, 4]), tf.reverse(tf.constant([0, 1, 2]), [0])),
    "sum over a computed axis": lambda tf: tf.reduce_sum(_x(tf, [2, 3, 4]), tf.constant(1) + 1),
    "concat along a computed axis": lambda tf: tf.concat(
        [_x(tf, [2, 3]), _x(tf, [2, 4])], tf.constant(0) + 1),
    "random_normal of a shape slice": lambda tf: tf.random_normal(
        tf.shape(_x(tf, [None, 3, 4]))[1:]),
    "pad of an unknown rank by computed paddings": lambda tf: tf.pad(
        tf.placeholder(tf.float32), tf.constant([[1, 0], [0, 2]]) + 0),
    "gradient of a pad of an unknown rank": lambda tf: tf.gradients(
        tf.reduce_sum(tf.pad(_x(tf, None), [[1, 0], [0, 2]]) ** 2),
        tf.get_default_graph().get_operations()[0].outputs[0])[0],
    # Not values at build time: a random draw, a placeholder with a default, a variable,
    # a cond's result (its Merge) stay unknown, in TensorFlow too.
    "zeros of a random draw": lambda tf: tf.zeros(
        tf.cast(tf.random_uniform([2]) * 3, tf.int32)),
    "zeros of a placeholder_with_default": lambda tf: tf.zeros(
        tf.placeholder_with_default([2, 3], [2])),
    "zeros of a variable": lambda tf: tf.zeros(tf.Variable([2, 3])),
    "zeros of a cond": lambda tf: tf.zeros(tf.cond(
        tf.constant(True), lambda: tf.constant([2]), lambda: tf.constant([3]))),
}

ERRORS = {
    "reshape to a computed size": lambda tf: tf.reshape(
        tf.zeros([2, 3]), tf.shape(_x(tf, [2, 3])) * 2),
    "reshape to a computed vector": lambda tf: tf.reshape(tf.zeros([6]),
                                                          tf.constant([4]) + 0),
    "fill with a dimension below -1": lambda tf: tf.fill(tf.constant([2, -3]) * 1, 1.0),
    "zeros with a constant dimension below -1": lambda tf: tf.zeros(tf.constant([2, -3])),
    "fill with a dimension of -1": lambda tf: tf.fill([2, -1], 1.0),
    "random_uniform with a dimension below -1": lambda tf: tf.random_uniform(
        tf.constant([2, -3]) * 1),
    "one_hot of a negative depth": lambda tf: tf.one_hot([1], tf.constant(-2) * 1),
    "expand_dims out of range": lambda tf: tf.expand_dims(tf.zeros([2]), tf.constant(5) * 1),
    "sum over an axis out of range": lambda tf: tf.reduce_sum(tf.zeros([2, 3]),
                                                              tf.constant(4) * 1),
    "slice of a shape past its start": lambda tf: tf.zeros(
        tf.shape(_x(tf, [None, 3]))[-5:]),
}


def _static_shape(tf, build):
    """As a list: TF 2's TensorShape prints None where TF 1.15 and tfteach print ?."""
    with tf.Graph().as_default():
        return build(tf).shape.as_list()


@pytest.mark.parametrize("label", sorted(SHAPES))
def test_static_shapes_are_tensorflows(label):
    tensorflow_v1()
    with tf1_behaviour() as v1:
        theirs = _static_shape(v1, SHAPES[label])
    assert _static_shape(tfteach, SHAPES[label]) == theirs


@pytest.mark.parametrize("label", sorted(ERRORS))
def test_build_time_errors_are_tensorflows(label):
    tensorflow_v1()
    with tf1_behaviour() as v1:
        theirs = build_error(v1, ERRORS[label])
    ours = build_error(tfteach, ERRORS[label])
    assert theirs is not None and ours is not None, (theirs, ours)
    assert type(ours) is type(theirs)
    assert message_core(ours) == message_core(theirs)


def test_computed_values_are_named_in_the_error_as_tensorflow_names_them():
    """TF's "with input tensors computed as partial shapes: input[1] = [4,6]." names the
    value it computed, in TF 1.15's words for the op."""
    error = build_error(tfteach, ERRORS["reshape to a computed size"])
    assert str(error) == (
        "Cannot reshape a tensor with 6 elements to shape [4,6] (24 elements) for 'Reshape' "
        "(op: 'Reshape') with input shapes: [2,3], [2] and with input tensors computed as "
        "partial shapes: input[1] = [4,6].")


def test_the_values_are_the_ops_own_results():
    """What shape inference computed is what a Session computes (the op's own kernel)."""
    with tfteach.Graph().as_default():
        tf = tfteach
        shape = tf.maximum(tf.constant([2, 0]), 1) * tf.constant([3, 1])
        zeros = tf.zeros(shape)
        with tf.Session() as sess:
            value = sess.run(zeros)
    assert zeros.shape.as_list() == [6, 1]
    np.testing.assert_array_equal(value, np.zeros((6, 1), np.float32))


def test_python_decisions_still_use_only_what_tensorflows_python_knows():
    """TF's Python (`tensor_util.constant_value`) does not evaluate a Mul: a keep_prob of
    `tf.constant(0.5) * 2` still builds the dropout ops, in TensorFlow and here."""
    def build(tf):
        x = tf.placeholder(tf.float32, [2, 3])
        y = tf.nn.dropout(x, keep_prob=tf.constant(0.5) * 2)
        return y is x, sorted({op.type for op in tf.get_default_graph().get_operations()})

    tensorflow_v1()
    with tf1_behaviour() as v1:
        with v1.Graph().as_default():
            theirs = build(v1)
    with tfteach.Graph().as_default():
        ours = build(tfteach)
    assert ours[0] is theirs[0] is False
    assert "RandomUniform" in ours[1] and "RandomUniform" in theirs[1]


def test_big_values_are_not_computed_while_building():
    """A shape input computed from more than MAX_ELEMENTS values stays unknown, where
    TensorFlow would compute it (no program's shape needs that much): building never
    runs a big kernel."""
    from tfteach.ops import build_time_values
    with tfteach.Graph().as_default():
        tf = tfteach
        big = tf.range(build_time_values.MAX_ELEMENTS + 1)
        assert tf.zeros(tf.reduce_sum(big) * 0 + 2).shape.as_list() == [None]
        small = tf.range(10)
        assert tf.zeros(tf.reduce_sum(small) * 0 + 2).shape.as_list() == [2]


RUN_TIME = {
    "reshape to a fed size of -2": ([-2, 3], "Size 0 must be non-negative, not -2"),
    "reshape to two fed -1": ([-1, -1], "Only one input size may be -1, not both 0 and 1"),
}


@pytest.mark.parametrize("label", sorted(RUN_TIME))
def test_fed_shapes_below_minus_one_are_refused_when_run(label):
    """A shape known only when the step runs gets the kernel's check: NumPy's reshape
    takes -2 for the unknown size, and tfteach returned a (2, 3) array where TF refuses."""
    sizes, words = RUN_TIME[label]

    def build(tf):
        x = tf.placeholder(tf.float32, [None])
        shape = tf.placeholder(tf.int32, [None])
        return tf.reshape(x, shape), {x: np.ones(6, np.float32), shape: sizes}

    theirs, ours = errors_of_both(build)
    assert type(ours) is tfteach.errors.InvalidArgumentError
    assert type(theirs).__name__ == "InvalidArgumentError"
    assert own_message(ours) == own_message(theirs) == words


EAGER = ["tf.zeros(tf.constant([2, -3]))", "tf.fill([2, -1], 1.0)",
         "tf.reshape(tf.ones([6]), [-2, 3])",
         # random ops are stateful, but check their shape before they draw: their words
         "tf.random.normal([2, -3])", "tf.random.uniform([2, -3])",
         "tf.random.truncated_normal([-2])", "tf.random.uniform([2, -3], maxval=5, dtype=tf.int32)"]


def test_eager_ops_report_the_kernels_words():
    """Eager ops run no shape inference: the kernel's error, `[Op:Fill]` after it. (The
    shape reading's "Invalid value in tensor used for shape" escaped as a ValueError.)"""
    program = "\n".join(
        "try:\n    %s\nexcept Exception as e:\n    print(type(e).__name__, "
        "str(e).split('}} ')[-1].split(' [Op:')[0])" % line for line in EAGER)
    theirs = run_eager_tensorflow("import tensorflow as tf\n" + program).splitlines()
    ours = tfteach_json("import json, io, contextlib\nimport tfteach.v2 as tf\n"
                        "out = io.StringIO()\nwith contextlib.redirect_stdout(out):\n" +
                        "\n".join("    " + line for line in program.splitlines()) +
                        "\nprint(json.dumps(out.getvalue().splitlines()))")
    assert ours == theirs


def _given(tf, value, computed):
    """A value input as a Const, or computed from one (an Add: evaluated at build time)."""
    t = tf.constant(value)
    return t + tf.zeros_like(t) if computed else t


VALUE_READERS = {
    "reshape": lambda tf, x, c: tf.reshape(x, _given(tf, [-1, 3], c)),
    "tile": lambda tf, x, c: tf.tile(x, _given(tf, [2, 1], c)),
    "slice": lambda tf, x, c: tf.slice(x, _given(tf, [0, 1], c), _given(tf, [1, -1], c)),
    "strided_slice": lambda tf, x, c: tf.strided_slice(
        x, _given(tf, [0, 1], c), _given(tf, [1, 3], c), _given(tf, [1, 1], c)),
    "pad": lambda tf, x, c: tf.pad(x, _given(tf, [[1, 0], [0, 2]], c)),
    "mirror_pad": lambda tf, x, c: tf.pad(x, _given(tf, [[1, 0], [0, 1]], c), mode="REFLECT"),
    "expand_dims": lambda tf, x, c: tf.expand_dims(x, _given(tf, 1, c)),
    "transpose": lambda tf, x, c: tf.transpose(x, _given(tf, [1, 0], c)),
    "reduce_sum": lambda tf, x, c: tf.reduce_sum(x, _given(tf, 1, c)),
    "reduce_sum keepdims": lambda tf, x, c: tf.reduce_sum(x, _given(tf, [0], c),
                                                          keepdims=True),
    "reduce_max of all axes": lambda tf, x, c: tf.reduce_max(x, _given(tf, [0, 1], c)),
    "argmax": lambda tf, x, c: tf.argmax(x, _given(tf, 1, c)),
    "concat": lambda tf, x, c: tf.concat([x, x], _given(tf, 1, c)),
    "split": lambda tf, x, c: tf.split(x, 3, axis=_given(tf, 1, c))[0],
    "split by sizes": lambda tf, x, c: tf.split(x, _given(tf, [1, 2], c), axis=1)[1],
    "gather on an axis": lambda tf, x, c: tf.gather(x, [0, 1], axis=_given(tf, 1, c)),
    "reverse": lambda tf, x, c: tf.reverse(x, _given(tf, [1], c)),
    "cumsum": lambda tf, x, c: tf.cumsum(x, _given(tf, 1, c)),
    "one_hot": lambda tf, x, c: tf.one_hot(tf.cast(x, tf.int32), _given(tf, 4, c)),
    "top_k": lambda tf, x, c: tf.nn.top_k(x, _given(tf, 2, c)).values,
    "resize_images": lambda tf, x, c: tf.image.resize_images(
        tf.reshape(x, [1, -1, 3, 1]), _given(tf, [4, 5], c)),
    "unsorted_segment_sum": lambda tf, x, c: tf.unsorted_segment_sum(
        x, [0, 1], _given(tf, 3, c)),
    "broadcast against zeros": lambda tf, x, c: x + tf.zeros(_given(tf, [2, 3], c)),
}
INPUT_SHAPES = {"unknown rank": None, "[?, ?]": [None, None], "[?, 3]": [None, 3],
                "[2, ?]": [2, None], "[2, 3]": [2, 3]}


def _shape_or_error(tf, build, shape, computed):
    with tf.Graph().as_default():
        try:
            y = build(tf, tf.placeholder(tf.float32, shape), computed)
        except Exception as e:  # noqa: BLE001 - the error is what we compare
            return type(e).__name__, message_core(e)
        return None if y.shape.ndims is None else y.shape.as_list()


@pytest.mark.parametrize("computed", [False, True], ids=["constant", "computed"])
@pytest.mark.parametrize("shape", sorted(INPUT_SHAPES))
@pytest.mark.parametrize("label", sorted(VALUE_READERS))
def test_value_reading_ops_on_every_kind_of_input(label, shape, computed):
    """Each op that reads an input's value, on inputs of unknown rank, partly and fully
    known shapes, its value given as a constant or computed: TF's static shape or error."""
    tensorflow_v1()
    with tf1_behaviour() as v1:
        theirs = _shape_or_error(v1, VALUE_READERS[label], INPUT_SHAPES[shape], computed)
    ours = _shape_or_error(tfteach, VALUE_READERS[label], INPUT_SHAPES[shape], computed)
    assert ours == theirs
