"""Loops that gather rows of a captured tensor (runtime/loop_sums.py adds the gradient's
rows only, as TF 1.15 accumulates IndexedSlices) against TensorFlow: the same gradient
values for random programs with repeated indices, and TF's error (class and words) for
an index out of range. Skips without TensorFlow."""
import numpy as np
import pytest

from tests.gather_loops import gather_loop_program
from tests.tf_reference import errors_of_both, first_line, run_both, tf1_behaviour

pytestmark = pytest.mark.reference


def gather_program(seed, dtype=np.float64, bad_index=None):
    """gather_loops.py's program: the loop's state and both gradients."""
    program = gather_loop_program(seed, dtype, bad_index)

    def build(tf):
        s, grads, feed = program(tf)
        return [s] + grads, feed
    return build


def _dense(value):
    """TF's value as an array: an IndexedSlicesValue (TF's gradient of a gather) summed
    into its dense shape."""
    if not hasattr(value, "indices"):
        return np.asarray(value)
    out = np.zeros(value.dense_shape, value.values.dtype)
    np.add.at(out, value.indices, value.values)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_gradients_of_gathered_captured_tensors_match_tensorflow(seed):
    with tf1_behaviour():
        theirs, ours = run_both(gather_program(seed))
    for t, o in zip(theirs, ours):
        np.testing.assert_allclose(o, _dense(t), rtol=1e-10, atol=1e-12)


def test_float32_gradients_match_tensorflow():
    with tf1_behaviour():
        theirs, ours = run_both(gather_program(7, np.float32))
    for t, o in zip(theirs, ours):
        assert o.dtype == np.float32
        np.testing.assert_allclose(o, _dense(t), rtol=2e-5, atol=1e-6)


def test_an_index_out_of_range_raises_tensorflows_error():
    with tf1_behaviour():
        theirs, ours = errors_of_both(gather_program(3, bad_index=9))
    assert theirs is not None and ours is not None
    assert type(ours).__name__ == type(theirs).__name__ == "InvalidArgumentError"
    assert "is not in [0, " in first_line(ours)
    assert first_line(ours).split(" is not in")[0].endswith("= 9")
    assert first_line(ours) in str(theirs)
