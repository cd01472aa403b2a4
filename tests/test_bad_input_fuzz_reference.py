"""Bad input fed at run time to many ops, on TensorFlow and tfteach: the same error class
and the same message (TensorFlow's words), never a Python/NumPy exception in disguise.

Every input goes through a `placeholder_with_default` of unknown shape, so nothing is
caught while the graph is built: each case reaches the kernel. TF 2.x prefixes its
runtime messages ("Graph execution error: ... Detected at node ..."); the comparison
takes its message line. tfteach's first line must equal it, except for the cases listed
in CLASS_ONLY (TF 2.x words them differently from TF 1.15, which tfteach follows).
Besides, no case may end in the executor's catch-all for stray Python exceptions
(`err.unchecked`, runtime/errors_text.py).

The "huge" cases ask for tens of terabytes or more, far beyond any machine, so both
engines refuse them at once (TF's malloc fails; tfteach checks first): none allocates.
"""
import numpy as np
import pytest

import tfteach
from tf_reference import tensorflow_v1

pytest.importorskip("tensorflow")

F, I, L = np.float32, np.int32, np.int64


def v(tf, value, dtype=None):
    """A run-time value of unknown static shape (the kernel sees it first)."""
    return tf.placeholder_with_default(np.asarray(value, dtype), shape=None)


RAMP = np.arange(16, dtype=F).reshape(1, 4, 4, 1)

CASES = {
    # sizes computed from data
    "range_to_inf": lambda tf: tf.range(v(tf, 0, F), v(tf, np.inf, F), v(tf, 1, F)),
    "range_to_nan": lambda tf: tf.range(v(tf, 0, F), v(tf, np.nan, F), v(tf, 1, F)),
    "range_from_nan": lambda tf: tf.range(v(tf, np.nan, F), v(tf, 1, F), v(tf, 1, F)),
    "range_nan_delta": lambda tf: tf.range(v(tf, 0, F), v(tf, 1, F), v(tf, np.nan, F)),
    "range_delta_0": lambda tf: tf.range(v(tf, 5, F), v(tf, 1, F), v(tf, 0, F)),
    "range_wrong_way": lambda tf: tf.range(v(tf, 1.25, np.float64), v(tf, 0.1, np.float64),
                                           v(tf, 1, np.float64)),
    "range_tiny_delta": lambda tf: tf.range(v(tf, 0.5, F), v(tf, 1e10, F), v(tf, 1e-30, F)),
    "range_int_delta_0": lambda tf: tf.range(v(tf, 0, I), v(tf, 3, I), v(tf, 0, I)),
    "range_2_62": lambda tf: tf.range(v(tf, 0, L), v(tf, 2 ** 62, L), v(tf, 1, L)),
    "fill_negative": lambda tf: tf.fill(v(tf, [-1, 2], I), 1.0),
    "fill_2_31_squared": lambda tf: tf.fill(v(tf, [2 ** 31 - 1, 2 ** 31 - 1], I), 1.0),
    "fill_over_2_63": lambda tf: tf.fill(v(tf, [2 ** 62, 4], L), 1.0),
    "fill_matrix_dims": lambda tf: tf.fill(v(tf, [[2]], I), 1.0),
    "fill_vector_value": lambda tf: tf.fill(v(tf, [2], I), v(tf, [1.0, 2.0], F)),
    "stitch_2_31_minus_1": lambda tf: tf.dynamic_stitch([v(tf, [2 ** 31 - 1], I)],
                                                        [v(tf, [1.0], F)]),
    "stitch_negative": lambda tf: tf.dynamic_stitch([v(tf, [-1], I)], [v(tf, [1.0], F)]),
    "zeros_negative": lambda tf: tf.zeros(v(tf, [2, -3], I)),
    "reshape_count": lambda tf: tf.reshape(v(tf, np.ones(6), F), v(tf, [4, 2], I)),
    "reshape_two_unknown": lambda tf: tf.reshape(v(tf, np.ones(6), F), v(tf, [-1, -1], I)),
    "tile_negative": lambda tf: tf.tile(v(tf, np.ones((2, 2)), F), v(tf, [1, -1], I)),
    "tile_length": lambda tf: tf.tile(v(tf, np.ones((2, 2)), F), v(tf, [1, 2, 3], I)),
    "pad_negative": lambda tf: tf.pad(v(tf, np.ones((2, 2)), F), v(tf, [[0, -1], [0, 0]], I)),
    "one_hot_negative_depth": lambda tf: tf.one_hot(v(tf, [0, 1], I), v(tf, -1, I)),
    # convolutions and pooling
    "conv_groups_out": lambda tf: tf.nn.conv2d(v(tf, np.ones((1, 3, 3, 4)), F),
                                               v(tf, np.ones((2, 2, 2, 3)), F),
                                               [1, 1, 1, 1], "VALID"),
    "conv_depth": lambda tf: tf.nn.conv2d(v(tf, np.ones((1, 3, 3, 5)), F),
                                          v(tf, np.ones((2, 2, 2, 4)), F),
                                          [1, 1, 1, 1], "VALID"),
    "conv_empty_filter": lambda tf: tf.nn.conv2d(v(tf, np.ones((1, 3, 3, 4)), F),
                                                 v(tf, np.ones((2, 2, 0, 2)), F),
                                                 [1, 1, 1, 1], "VALID"),
    "max_pool_rank": lambda tf: tf.nn.max_pool(v(tf, np.ones((4, 4, 1)), F), [1, 2, 2, 1],
                                               [1, 2, 2, 1], "VALID"),
    # indexing
    "gather_out_of_range": lambda tf: tf.gather(v(tf, np.ones((3, 2)), F), v(tf, [0, 7], I)),
    "gather_negative": lambda tf: tf.gather(v(tf, np.ones((3, 2)), F), v(tf, [-1], I)),
    "slice_out_of_bounds": lambda tf: tf.slice(v(tf, np.ones((3, 2)), F), v(tf, [2, 0], I),
                                               v(tf, [2, 2], I)),
    "strided_slice_index": lambda tf: v(tf, np.ones((3, 2)), F)[5],
    "transpose_bad_perm": lambda tf: tf.transpose(v(tf, np.ones((3, 2)), F), v(tf, [0, 0], I)),
    "transpose_perm_length": lambda tf: tf.transpose(v(tf, np.ones((3, 2)), F),
                                                     v(tf, [0, 1, 2], I)),
    "concat_mismatch": lambda tf: tf.concat([v(tf, np.ones((2, 2)), F),
                                             v(tf, np.ones((3, 3)), F)], 0),
    "split_uneven": lambda tf: tf.split(v(tf, np.ones((5, 2)), F), 2),
    "squeeze_not_1": lambda tf: tf.squeeze(v(tf, np.ones((2, 3)), F), [0]),
    "expand_dims_axis": lambda tf: tf.expand_dims(v(tf, np.ones((2, 3)), F), v(tf, 5, I)),
    "reduce_axis": lambda tf: tf.reduce_sum(v(tf, np.ones((2, 3)), F), v(tf, 4, I)),
    "argmax_axis": lambda tf: tf.argmax(v(tf, np.ones((2, 3)), F), v(tf, 3, I)),
    "unsorted_segment_ids": lambda tf: tf.unsorted_segment_sum(
        v(tf, np.ones(3), F), v(tf, [0, 5, 1], I), 3),
    "embedding_out_of_range": lambda tf: tf.nn.embedding_lookup(v(tf, np.ones((3, 2)), F),
                                                                v(tf, [3], I)),
    # arithmetic and linear algebra
    "add_incompatible": lambda tf: v(tf, np.ones(3), F) + v(tf, np.ones(4), F),
    "matmul_inner": lambda tf: tf.matmul(v(tf, np.ones((2, 3)), F), v(tf, np.ones((4, 2)), F)),
    "matmul_rank": lambda tf: tf.matmul(v(tf, np.ones(3), F), v(tf, np.ones((3, 2)), F)),
    "int_division_by_zero": lambda tf: tf.floordiv(v(tf, [4, 2], I), v(tf, [2, 0], I)),
    "int_mod_by_zero": lambda tf: tf.floormod(v(tf, [4, 2], I), v(tf, [2, 0], I)),
    "bias_add_channels": lambda tf: tf.nn.bias_add(v(tf, np.ones((2, 3)), F),
                                                   v(tf, np.ones(4), F)),
    "softmax_xent_labels": lambda tf: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=v(tf, [0, 5], I), logits=v(tf, np.ones((2, 3)), F)),
    "softmax_xent_shapes": lambda tf: tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=v(tf, np.ones((2, 4)), F), logits=v(tf, np.ones((2, 3)), F)),
    "top_k_too_big": lambda tf: tf.nn.top_k(v(tf, np.ones(3), F), v(tf, 5, I)),
    "top_k_negative": lambda tf: tf.nn.top_k(v(tf, np.ones(3), F), v(tf, -1, I)),
    "random_uniform_negative": lambda tf: tf.random_uniform(v(tf, [2, -1], I)),
    "random_normal_matrix_shape": lambda tf: tf.random_normal(v(tf, [[2]], I)),
    "linspace_num_0": lambda tf: tf.lin_space(v(tf, 0, F), v(tf, 1, F), v(tf, 0, I)),
    "reverse_axis": lambda tf: tf.reverse(v(tf, np.ones((2, 3)), F), v(tf, [2], I)),
    "reverse_axis_twice": lambda tf: tf.reverse(v(tf, np.ones((2, 3)), F), v(tf, [1, 1], I)),
    "gather_nd_out_of_range": lambda tf: tf.gather_nd(v(tf, np.ones((2, 3)), F),
                                                      v(tf, [[0, 3]], I)),
    "gather_nd_index_depth": lambda tf: tf.gather_nd(v(tf, np.ones((2, 3)), F),
                                                     v(tf, [[0, 1, 2]], I)),
    "boolean_mask_shape": lambda tf: tf.boolean_mask(v(tf, np.ones((2, 3)), F),
                                                     v(tf, [True, False, True], bool)),
    "where_shapes": lambda tf: tf.where(v(tf, [True, False], bool), v(tf, np.ones(2), F),
                                        v(tf, np.ones(3), F)),
    "stack_shapes": lambda tf: tf.stack([v(tf, np.ones(2), F), v(tf, np.ones(3), F)]),
    "cumsum_axis": lambda tf: tf.cumsum(v(tf, np.ones((2, 3)), F), v(tf, 2, I)),
    "reverse_sequence_too_long": lambda tf: tf.reverse_sequence(
        v(tf, np.ones((2, 3)), F), v(tf, [4, 1], L), seq_axis=1, batch_axis=0),
    "clip_shapes": lambda tf: tf.clip_by_value(v(tf, np.ones(3), F), v(tf, np.zeros(2), F),
                                               v(tf, np.ones(2), F)),
    "one_hot_depth_huge": lambda tf: tf.one_hot(v(tf, np.zeros(4096), I),
                                                v(tf, 2 ** 31 - 1, I)),
    "tile_huge": lambda tf: tf.tile(v(tf, np.ones((2, 2)), F), v(tf, [2 ** 30, 2 ** 30], I)),
    "pad_huge": lambda tf: tf.pad(v(tf, np.ones((2, 2)), F),
                                  v(tf, [[0, 2 ** 31 - 2], [0, 2 ** 31 - 2]], I)),
    "zeros_huge": lambda tf: tf.zeros(v(tf, [2 ** 20, 2 ** 20, 2 ** 20], I)),
    "random_uniform_huge": lambda tf: tf.random_uniform(v(tf, [2 ** 31 - 1, 2 ** 31 - 1],
                                                          I)),
    "random_int_range": lambda tf: tf.random_uniform(v(tf, [2], I), v(tf, 5, I), v(tf, 5, I),
                                                     dtype=tf.int32),
    "in_top_k_targets": lambda tf: tf.nn.in_top_k(v(tf, np.ones((2, 3)), F), v(tf, [0, 7], I),
                                                  1),
    "depthwise_channels": lambda tf: tf.nn.depthwise_conv2d(
        v(tf, np.ones((1, 3, 3, 2)), F), v(tf, np.ones((2, 2, 3, 1)), F), [1, 1, 1, 1],
        "VALID"),
    "conv_transpose_output_shape": lambda tf: tf.nn.conv2d_transpose(
        v(tf, np.ones((1, 2, 2, 1)), F), v(tf, np.ones((2, 2, 3, 1)), F),
        v(tf, [1, 3, 3, 3], I), [1, 1, 1, 1], "VALID"),
    "avg_pool_nan": lambda tf: tf.nn.avg_pool(v(tf, np.where(RAMP == 0, np.nan, RAMP), F),
                                              [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
    "max_pool_nan": lambda tf: tf.nn.max_pool(v(tf, np.where(RAMP == 0, np.nan, RAMP), F),
                                              [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
    "argmax_nan": lambda tf: tf.argmax(v(tf, [np.nan, 1.0, 3.0], F)),
    "argmin_nan": lambda tf: tf.argmin(v(tf, [[np.nan, -np.inf], [2.0, np.nan]], F), 1),
    "argmax_all_nan": lambda tf: tf.argmax(v(tf, [[np.nan, np.nan], [1.0, np.nan]], F), 0),
    "reduce_max_nan": lambda tf: tf.reduce_max(v(tf, [1.0, np.nan, 3.0], F)),
    "maximum_nan": lambda tf: tf.maximum(v(tf, [np.nan, 1.0], F), v(tf, [0.0, np.nan], F)),
    "relu_nan": lambda tf: tf.nn.relu(v(tf, [np.nan, -1.0], F)),
    "unstack_num": lambda tf: tf.unstack(v(tf, np.ones((2, 3)), F), num=3),
    "split_sizes": lambda tf: tf.split(v(tf, np.ones((5, 2)), F), v(tf, [2, 2], I)),
    "squeeze_axis_range": lambda tf: tf.squeeze(v(tf, np.ones((1, 3)), F), [4]),
}

# TF 2.x's words differ from TF 1.15's, which tfteach follows (and other tests pin:
# test_array_ops, test_math_ops, test_nn_bad_input): the class must match.
CLASS_ONLY = {
    "concat_mismatch",        # 1.15: "ConcatOp : Dimensions of inputs should match: ..."
    "fill_matrix_dims",       # 1.15: "dims must be a vector, got shape [1,1]"
    "fill_vector_value",      # 1.15: "value must be a scalar, got shape [2]"
    "matmul_inner",           # 1.15's BatchMatMulV2: "In[0] mismatch In[1] shape: ..."
    "max_pool_rank",          # 1.15: "input must be 4-dimensional[4,4,1]"
    "depthwise_channels",     # 1.15: "input and filter must have the same depth: 2 vs 3"
    "gather_nd_out_of_range",  # TF 2.x appends ", node name: GatherNd"
    "where_shapes",           # 1.15: "'then' and 'else' must have the same size.  but ..."
    "split_sizes",            # TF 2.x: "Cannot infer argument `num` from shape ..."
}
# TF 1.15 refused these; TF 2.x returns a value: tfteach raises TF 1.15's error.
TF_115_ERRORS = {
    "linspace_num_0": "Requires num > 0: 0",
}
# Not compared, TF 2.21 itself misbehaves: a max_pool window bigger than the fed image
# kills the process (SIGFPE), conv2d of a fed rank-3 input aborts it, and a VALID
# conv2d whose fed filter is bigger than the image returns uninitialized memory.


def outcome(tf, name):
    with tf.Graph().as_default():
        try:
            fetch = CASES[name](tf)
            if isinstance(fetch, tuple) and fetch and isinstance(fetch[0], np.ndarray):
                pass
            with tf.Session() as sess:
                value = sess.run(fetch)
        except Exception as e:  # noqa: BLE001 - the error is what we compare
            return e
        return ("value", np.asarray(value).tolist())


def message_line(e):
    """The message TF 2.x wraps in "Graph execution error: ... Detected at node ..."."""
    text = getattr(e, "message", None) or str(e)
    skipped = ("Graph execution error", "Detected at node", "Node:", "  File", "    ",
               "\t", "Hint:", "Current", "Limit:", "InUse", "MaxInUse", "NumAllocs",
               "MaxAllocSize", "Reserved", "PeakReserved", "LargestFreeBlock", "If the cause")
    lines = [line for line in text.splitlines()
             if line.strip() and not line.startswith(skipped)]
    # TF 2.21's CPU allocator is oneDNN's "mklcpu"; TF 1.15's (and tfteach's) is "cpu".
    return lines[0].replace("by allocator mklcpu", "by allocator cpu") if lines else ""


@pytest.mark.parametrize("name", sorted(TF_115_ERRORS))
def test_bad_input_that_tf_1_15_refused(name):
    ours = outcome(tfteach, name)
    assert isinstance(ours, tfteach.errors.InvalidArgumentError)
    assert not getattr(ours, "unchecked", False)
    assert str(ours).splitlines()[0] == TF_115_ERRORS[name]


@pytest.mark.parametrize("name", sorted(set(CASES) - set(TF_115_ERRORS)))
def test_bad_input_gives_tensorflows_error(name):
    theirs = outcome(tensorflow_v1(), name)
    ours = outcome(tfteach, name)
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple), ours
        # NaN where TF has NaN; float32 kernels may differ in the last bit.
        np.testing.assert_allclose(np.asarray(ours[1]), np.asarray(theirs[1]),
                                   rtol=1e-6, atol=1e-7)
        return
    assert isinstance(ours, Exception), "tfteach returned %r; TF raised %r" % (ours, theirs)
    assert type(ours).__name__ == type(theirs).__name__, (ours, theirs)
    assert not getattr(ours, "unchecked", False), "a stray Python exception: %s" % ours
    if name not in CLASS_ONLY:
        assert str(ours).splitlines()[0] == message_line(theirs)
