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
