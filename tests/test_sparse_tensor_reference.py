"""tf.SparseTensor against TensorFlow: the same fetched SparseTensorValue, the same dense
tensors, the same static shapes. Skips without TensorFlow."""
import numpy as np
import pytest

from tests.tf_reference import run_both

pytestmark = pytest.mark.reference


def _check_same(theirs, ours):
    assert type(ours).__name__ == type(theirs).__name__
    if type(theirs).__name__ == "SparseTensorValue":
        for a, b in zip(theirs, ours):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)
    else:
        assert theirs.dtype == ours.dtype
        np.testing.assert_array_equal(theirs, ours)


def test_fetches_and_dense_equal_tensorflows():
    def build(tf):
        sp = tf.SparseTensor([[0, 1], [2, 0], [2, 3]], [3, -1, 4], [4, 5])
        fed = tf.sparse_placeholder(tf.float32, shape=[2, None], name="fed")
        # (A partly known shape: TF 2.x feeds dense_shape through a PlaceholderWithDefault
        # and knows the 2; TF 1.15, as tfteach, a plain placeholder: static shape [?, ?].)
        assert sp.shape.as_list() == [4, 5]
        fetches = [sp, tf.sparse.to_dense(sp, default_value=9), tf.sparse_tensor_to_dense(fed),
                   fed]
        return fetches, {fed: ([[1, 1]], [0.5], [2, 3])}
    theirs, ours = run_both(build)
    for a, b in zip(theirs, ours):
        _check_same(a, b)
