"""Ops with a list input (`N * T`) given too short a list or mixed dtypes raise
TensorFlow's own error class and words when the graph is built (ops/list_inputs.py),
not a Python IndexError: checked against TensorFlow (tf.compat.v1, graph mode)."""
import pytest

from tf_reference import errors_of_both

PROGRAMS = {
    "shape_n of no tensors": lambda tf: tf.shape_n([]),
    "concat of no tensors": lambda tf: tf.concat([], 0),
    "dynamic_stitch of no tensors": lambda tf: tf.dynamic_stitch([], []),
    "shape_n of mixed dtypes": lambda tf: tf.shape_n([tf.constant(1), tf.constant(1.0)]),
    "concat of mixed dtypes": lambda tf: tf.concat([tf.constant([1]), tf.constant([1.0])], 0),
}


@pytest.mark.parametrize("label", sorted(PROGRAMS))
def test_bad_list_inputs_raise_tensorflows_errors(label):
    build = PROGRAMS[label]
    theirs, ours = errors_of_both(lambda tf: (build(tf), None))
    assert theirs is not None, "TensorFlow accepted it"
    assert type(ours).__name__ == type(theirs).__name__
    assert str(ours) == str(theirs)


NAMED_ELEMENTS = {
    "concat of a list and a tensor": lambda tf, x: tf.concat([[-1], x], 0),
    "concat of constants": lambda tf, x: tf.concat([[1], [2]], 0, name="consts"),
    "stack on axis 1": lambda tf, x: tf.stack([[1, 2], x], axis=1),
    "shape_n of a list": lambda tf, x: tf.shape_n([x, [1, 2, 3]]),
}


def _op_names(tf, build):
    with tf.Graph().as_default() as graph:
        build(tf, tf.placeholder(tf.int32, [2], name="x"))
        return [(op.name, op.type) for op in graph.get_operations()]


@pytest.mark.parametrize("label", sorted(NAMED_ELEMENTS))
def test_list_elements_converted_get_tensorflows_names(label):
    # TF's op definitions convert a list input with convert_n_to_tensor: element i is
    # "<arg>_<i>" inside the op's scope (concat/values_0, ShapeN/input_1); tfteach named
    # the first "values" and put shape_n's outside the scope ("input_1")
    from tf_reference import tensorflow_v1
    build = NAMED_ELEMENTS[label]
    import tfteach
    assert _op_names(tfteach, build) == _op_names(tensorflow_v1(), build)
