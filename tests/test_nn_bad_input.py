"""Bad input to the non-convolution nn ops: TF's error class and message, never a
crash (a numpy or Python error leaking out) or a silently wrong answer.

Each message is TF 1.15's where TF 1.15 had the check, later TF's where TF 1.15 crashed
or returned garbage (checked against TF 2.21's tf.compat.v1). See docs/nn_ops.md.
"""
import numpy as np
import pytest

import tfteach as tf

F = np.float32


def run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def fed(dtype=tf.float32):
    return tf.placeholder(dtype)


def _top_k_vector_k():
    return run(tf.nn.top_k(tf.ones([2, 3]), k=tf.constant([1, 2])))


def _top_k_fed_vector_k():
    k = fed(tf.int32)
    return run(tf.nn.top_k(tf.ones([2, 3]), k=k), {k: [1, 2]})


def _lrn_negative_radius():
    return run(tf.nn.local_response_normalization(tf.ones([1, 2, 2, 3]), depth_radius=-1))


def _lrn_fed_rank_3():
    x = fed()
    return run(tf.nn.local_response_normalization(x), {x: np.ones((2, 2, 3), F)})


def _lrn_grad_negative_radius():
    x = tf.ones([1, 2, 2, 3])
    return run(tf.gradients(tf.nn.lrn(x, depth_radius=-2), x))


def _fused_batch_norm_fed_rank_3():
    x = fed()
    y = tf.nn.fused_batch_norm(x, tf.ones([2]), tf.ones([2]))
    return run(y, {x: np.ones((2, 3, 2), F)})


def _fused_batch_norm_inference_fed_rank_2():
    x = fed()
    y = tf.nn.fused_batch_norm(x, tf.ones([2]), tf.ones([2]), mean=tf.zeros([2]),
                               variance=tf.ones([2]), is_training=False)
    return run(y, {x: np.ones((2, 2), F)})


def _embedding_bad_partition_strategy():
    return tf.nn.embedding_lookup([tf.ones([3, 2]), tf.ones([2, 2])], [1],
                                  partition_strategy="foo")


def _one_hot_fed_vector_depth():
    d = fed(tf.int32)
    return run(tf.one_hot([0, 1], d), {d: [3]})


def _one_hot_fed_vector_on_value():
    on = fed()
    return run(tf.one_hot([0, 1], 3, on_value=on), {on: [1.0, 2.0]})


def _fused_batch_norm_fed_scale_rank_2():
    s = fed()
    y = tf.nn.fused_batch_norm(tf.ones([2, 3, 3, 2]), s, tf.ones([2]))
    return run(y, {s: np.ones((1, 2), F)})


def _top_k_float_k():
    return tf.nn.top_k(tf.ones([2, 3]), k=fed(tf.float32))


def _dropout_wrapper_keep_prob_above_one():
    return tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.GRUCell(4), output_keep_prob=1.5)


def _fused_batch_norm_bad_data_format():
    return tf.nn.fused_batch_norm(tf.ones([2, 3, 3, 2]), tf.ones([2]), tf.ones([2]),
                                  data_format="NCDHW")


CASES = [
    # (case, error class, message regex)
    (_top_k_vector_k, ValueError, r"^Input must be scalar but has rank 1 for 'TopKV2'"),
    (_top_k_fed_vector_k, tf.errors.InvalidArgumentError, r"^k must be scalar, got shape \[2\]"),
    (_lrn_negative_radius, tf.errors.InvalidArgumentError,
     r"^depth_radius = -1 larger than int max"),
    (_lrn_fed_rank_3, tf.errors.InvalidArgumentError, r"^in must be 4-dimensional"),
    (_lrn_grad_negative_radius, tf.errors.InvalidArgumentError,
     r"^depth_radius = -2 larger than int max"),
    (_fused_batch_norm_fed_rank_3, tf.errors.InvalidArgumentError,
     r"^input must be 4-dimensional\[2,3,2\]"),
    (_fused_batch_norm_inference_fed_rank_2, tf.errors.InvalidArgumentError,
     r"^input must be 4-dimensional\[2,2\]"),
    (_embedding_bad_partition_strategy, ValueError, r"^Unrecognized partition strategy: foo"),
    (_one_hot_fed_vector_depth, tf.errors.InvalidArgumentError,
     r"^depth must be a scalar, but got: \[1\]"),
    (_one_hot_fed_vector_on_value, tf.errors.InvalidArgumentError,
     r"^on_value must be a scalar, but got: \[2\]"),
    (_fused_batch_norm_fed_scale_rank_2, tf.errors.InvalidArgumentError,
     r"^scale must be 1-dimensional\[1,2\]"),
    (_top_k_float_k, TypeError,
     r"^Value passed to parameter 'k' has DataType float32 not in list of allowed values: int32"),
    (_fused_batch_norm_bad_data_format, ValueError,
     r"^Value for attr 'data_format' of \"NCDHW\" is not in the list of allowed values: "
     r"\"NHWC\", \"NCHW\""),
    # TF 1.15 formatted the value with %d ("1"); later TF and tfteach show it.
    (_dropout_wrapper_keep_prob_above_one, ValueError,
     r"^Parameter output_keep_prob must be between 0 and 1: 1\.5"),
]


@pytest.mark.parametrize("case, error, message", CASES, ids=[c[0].__name__[1:] for c in CASES])
def test_bad_input_raises_tf_error(case, error, message):
    with pytest.raises(error, match=message):
        case()


# -- silently wrong answers, fixed ---------------------------------------------------------------
def test_fed_keep_prob_keeps_tf_1_15s_graph_and_numbers():
    # The notes' keep_prob placeholder: TF 1.15's graph (dropout/mul_1), so a keep_prob
    # fed as 0 is x * (1 / 0) * mask = NaN everywhere, as in TF 1.15 (later TFs select 0).
    keep = fed()
    y = tf.nn.dropout(tf.ones([50]), keep_prob=keep)
    assert y.op.name == "dropout/mul_1"
    with tf.Session() as sess:
        assert np.all(np.isnan(sess.run(y, {keep: 0.0})))
        half = sess.run(y, {keep: 0.5})
        assert set(np.unique(half)) <= {0.0, 2.0}
        # keep_prob > 1 is not checked when fed (as in TF): every element is kept, scaled
        np.testing.assert_allclose(sess.run(y, {keep: 1.5}), np.full(50, 1 / 1.5, F))


def test_fed_rate_one_is_tf_1_15s_nan():
    rate = fed()
    y = tf.nn.dropout(tf.ones([3, 4]), rate=rate, noise_shape=[3, 1])
    assert np.all(np.isnan(run(y, {rate: 1.0})))


def test_lrn_still_computes_good_input():
    x = np.arange(24, dtype=F).reshape(1, 2, 3, 4) / 10
    y = run(tf.nn.lrn(tf.constant(x), depth_radius=0, bias=1, alpha=1, beta=1))
    np.testing.assert_allclose(y, x / (1 + x * x), rtol=1e-6)


@pytest.mark.parametrize("shape", [[2, 0], [0, 0], [3, 1, 0]])
@pytest.mark.parametrize("fn", [tf.nn.softmax, tf.nn.log_softmax])
def test_softmax_of_empty_input_is_empty(fn, shape):
    # Was numpy's "cannot reshape array of size 0" when the softmax axis was empty.
    got = run(fn(tf.ones(shape)))
    assert got.shape == tuple(shape) and got.dtype == np.float32


# -- sparse_to_dense (was missing from tfteach) -------------------------------------------------
def _s2d(indices, shape, values, feed_indices=False, **kw):
    if feed_indices:
        i = fed(tf.int32)
        return run(tf.sparse_to_dense(i, shape, values, **kw), {i: indices})
    return run(tf.sparse_to_dense(indices, shape, values, **kw))


S2D_ERRORS = [
    # (args, kwargs, message): TF 1.15's SparseToDense kernel checks
    (([[0], [5]], [3], [1, 2]), {},
     r"^indices\[1\] = \[5\] is out of bounds: need 0 <= index < \[3\]"),
    (([[0], [5]], [3], [1, 2]), {"feed_indices": True},
     r"^indices\[1\] = \[5\] is out of bounds: need 0 <= index < \[3\]"),
    (([[-1], [0]], [3], [1, 2]), {}, r"^indices\[0\] = \[-1\] is out of bounds"),
    (([[0, 1], [2, 0]], [2, 3], [5, 6]), {},
     r"^indices\[1\] = \[2,0\] is out of bounds: need 0 <= index < \[2,3\]"),
    (([[2], [0]], [3], [1, 2]), {}, r"^indices\[1\] = \[0\] is out of order"),
    (([[1, 0], [0, 2]], [2, 3], [5, 6]), {}, r"^indices\[1\] = \[0,2\] is out of order"),
    (([[1], [1]], [3], [1, 2]), {}, r"^indices\[1\] = \[1\] is repeated"),
    (([[0], [5]], [3], [1, 2]), {"validate_indices": False, "feed_indices": True},
     r"^Indices are not valid \(out of bounds\).  Shape: \[3\]"),
    (([[0], [1]], [3], [1, 2, 3]), {}, r"^sparse_values has incorrect shape \[3\], should be "
                                       r"\[\] or \[2\]"),
    (([[0, 1]], [2, 3, 4], [5]), {}, r"^output_shape has incorrect number of elements: 3 "
                                     r"should be: 2"),
    (([[0, 1]], [2, 3], [5]), {"default_value": [1, 2]}, r"^default_value should be a scalar\."),
    (([[[0]]], [2], [5]), {}, r"^sparse_indices should be a scalar, vector, or matrix, got "
                              r"shape \[1,1,1\]"),
]


@pytest.mark.parametrize("args, kwargs, message", S2D_ERRORS)
def test_sparse_to_dense_bad_indices(args, kwargs, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        _s2d(*args, **kwargs)


def test_sparse_to_dense_values():
    # Results checked against TF 2.21's tf.compat.v1.sparse_to_dense.
    t = tf.sparse_to_dense([[0, 1], [1, 2]], [2, 3], [5., 6.], default_value=-1.)
    assert t.shape.as_list() == [2, 3] and t.name == "SparseToDense:0"
    np.testing.assert_array_equal(run(t), [[-1, 5, -1], [-1, -1, 6]])
    np.testing.assert_array_equal(run(tf.sparse_to_dense(1, [3], 7)), [0, 7, 0])
    np.testing.assert_array_equal(run(tf.sparse_to_dense([0, 2], [4], 1.5)), [1.5, 0, 1.5, 0])
    # unordered and repeated indices pass without validation; the last value wins
    np.testing.assert_array_equal(
        run(tf.sparse_to_dense([[2], [0]], [3], [1, 2], validate_indices=False)), [2, 0, 1])
    np.testing.assert_array_equal(
        run(tf.sparse_to_dense([[0, 1], [0, 1]], [2, 3], [5, 6], validate_indices=False)),
        [[0, 6, 0], [0, 0, 0]])
    with pytest.raises(TypeError, match="parameter 'sparse_indices' has DataType float32"):
        tf.sparse_to_dense([[0.]], [2], [5])


# -- no channels / no classes: TF returns empty results (tfteach leaked numpy's reshape error)
def _lrn_grad(x):
    return tf.gradients(tf.nn.lrn(x), x)[0]


def _fused_grad(x):
    y = tf.nn.fused_batch_norm(x, tf.ones([0]), tf.ones([0]))[0]
    return tf.gradients(y, x)[0]


@pytest.mark.parametrize("build, shape", [
    (tf.nn.lrn, [1, 2, 2, 0]),
    (_lrn_grad, [1, 2, 2, 0]),
    (lambda x: tf.nn.fused_batch_norm(x, tf.ones([0]), tf.ones([0]))[0], [1, 2, 2, 0]),
    (lambda x: tf.nn.fused_batch_norm(x, tf.ones([0]), tf.ones([0]),
                                      data_format="NCHW")[0], [1, 0, 2, 2]),
    (lambda x: tf.nn.fused_batch_norm(x, tf.ones([0]), tf.ones([0]), mean=tf.ones([0]),
                                      variance=tf.ones([0]), is_training=False)[0],
     [1, 2, 2, 0]),
    (_fused_grad, [1, 2, 2, 0]),
], ids=["lrn", "lrn_grad", "fused_batch_norm", "fused_batch_norm_nchw",
        "fused_batch_norm_inference", "fused_batch_norm_grad"])
def test_no_channels_gives_an_empty_result(build, shape):
    got = run(build(tf.ones(shape)))
    assert got.shape == tuple(shape)


def test_in_top_k_without_classes_is_false():
    # TF: every target is out of range, so False (tfteach raised numpy's IndexError).
    p = fed()
    got = run(tf.nn.in_top_k(p, [0, 0], 1), {p: np.ones((2, 0), F)})
    np.testing.assert_array_equal(got, [False, False])


# -- bidirectional_dynamic_rnn: its sequence lengths go through TF's ReverseSequence checks
def _bidirectional(lengths):
    x = tf.ones([2, 5, 3])
    p = fed(tf.int32)
    (_, out_bw), _ = tf.nn.bidirectional_dynamic_rnn(
        tf.nn.rnn_cell.GRUCell(4), tf.nn.rnn_cell.GRUCell(4), x, sequence_length=p,
        dtype=tf.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(out_bw, {p: lengths})


@pytest.mark.parametrize("lengths, message", [
    ([2, 9], r"^seq_lens\(1\) > input.dims\(1\)"),        # was numpy-ish gather_nd text
    ([2, -1], r"^seq_lens\(1\) < 0"),                     # was silently computed
    ([2, 3, 4], r"^Length of seq_lengths != input.dims\(0\), \(3 vs. 2\)"),
])
def test_bidirectional_rnn_bad_lengths(lengths, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        _bidirectional(lengths)


def test_reverse_sequence_values():
    # checked against TF 2.21's tf.compat.v1.reverse_sequence
    x = np.arange(24).reshape(2, 3, 4)
    got = run(tf.reverse_sequence(x, [1, 3], seq_axis=2, batch_axis=0))
    want = x.copy()
    want[1, :, :3] = x[1, :, 2::-1]
    np.testing.assert_array_equal(got, want)
    got = run(tf.reverse_sequence(x, [2, 0, 1], seq_dim=0, batch_dim=1))
    want = x.copy()
    want[:2, 0] = x[1::-1, 0]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("build", [
    lambda: tf.zeros([-1, 4]),
    lambda: tf.nn.rnn_cell.GRUCell(4).zero_state(-1, tf.float32),
], ids=["zeros", "rnn_zero_state"])
def test_negative_dimension_is_tf_fill_error(build):
    # Was numpy's "negative dimensions are not allowed" (TF 2.x: Fill's shape check).
    # TF names the dims by the partial shape it read them as ([?,4]: -1 is unknown).
    with pytest.raises(ValueError,
                       match=r"^Fill dimensions must be >= 0 for '[^']*zeros' .* and with "
                             r"input tensors computed as partial shapes: input\[0\] = "):
        build()


def test_a_dimension_below_minus_one_is_no_shape():
    # TF reads the dims as a shape before Fill's own check: a plain ValueError naming no
    # op (this test expected Fill's message before; TensorFlow's is this one).
    with pytest.raises(ValueError) as info:
        tf.ones([2, -3])
    assert str(info.value) == "Invalid value in tensor used for shape: -3"


def test_moments_with_tensor_axes_is_tf_type_error():
    # squeeze_dims is an attribute; was "Using a `tf.Tensor` as a Python `bool`..."
    axes = fed(tf.int32)
    with pytest.raises(TypeError, match=r"^Expected list for 'axis' argument to 'squeeze' Op, "
                                        r"not Tensor\(\"Placeholder:0\""):
        tf.nn.moments(tf.ones([2, 3]), axes=axes)


def test_leaky_relu_tensor_alpha_is_tf_type_error():
    # alpha is an attribute; was a NotImplementedError about converting a symbolic Tensor
    with pytest.raises(TypeError, match=r"^Expected float for argument 'alpha' not "
                                        r"<tf.Tensor 'Const_1:0' shape=\(\) dtype=float32>\."):
        tf.nn.leaky_relu(tf.constant([-1.0, 2.0]), alpha=tf.constant(0.3))


def test_negative_max_norm_clips_to_zero():
    # TF 1.15 flipped the sign of the rows (t * c / max(norm, c) with c < 0): garbage.
    # Later TF clamps a negative clip_norm to 0, so the rows become zeros.
    got = run(tf.nn.embedding_lookup(tf.ones([5, 2]), [1, 3], max_norm=-1.0))
    np.testing.assert_array_equal(got, np.zeros((2, 2), F))
    np.testing.assert_array_equal(run(tf.clip_by_norm(tf.ones([3]), -2.0)), np.zeros(3, F))


# -- sharded embedding_lookup (was NotImplementedError); values and errors checked
# against TF 2.21's tf.compat.v1 (the same DynamicPartition / gather / DynamicStitch graph)
SHARDS = [np.arange(6, dtype=F).reshape(3, 2), 10 + np.arange(4, dtype=F).reshape(2, 2),
          20 + np.arange(4, dtype=F).reshape(2, 2)]


def _sharded(ids, strategy="mod", **kw):
    return tf.nn.embedding_lookup([tf.constant(p) for p in SHARDS], ids,
                                  partition_strategy=strategy, **kw)


def test_sharded_embedding_lookup_values():
    mod = _sharded([[0, 1], [2, 6]])
    assert mod.shape.as_list() == [2, 2, 2]
    np.testing.assert_array_equal(run(mod), [[[0, 1], [10, 11]], [[20, 21], [4, 5]]])
    np.testing.assert_array_equal(run(_sharded([[0, 1], [2, 6]], "div")),
                                  [[[0, 1], [2, 3]], [[4, 5], [22, 23]]])
    first = tf.placeholder(tf.float32, [None, 2])          # div with a shard of unknown size
    div = tf.nn.embedding_lookup([first] + [tf.constant(p) for p in SHARDS[1:]],
                                 [0, 3, 4, 6], partition_strategy="div")
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(div, {first: SHARDS[0]}),
                                      [[0, 1], [10, 11], [12, 13], [22, 23]])
    np.testing.assert_allclose(run(_sharded([0, 5], max_norm=1.0)),
                               [[0, 1], [0.6912226, 0.7226418]], rtol=1e-6)


def test_sharded_embedding_lookup_gradient():
    shards = [tf.constant(p) for p in SHARDS]
    loss = tf.reduce_sum(tf.nn.embedding_lookup(shards, [[0, 5], [5, 2]]) * 2)
    grads = run([tf.convert_to_tensor(g) for g in tf.gradients(loss, shards)])
    np.testing.assert_array_equal(grads[0], [[2, 2], [0, 0], [0, 0]])
    np.testing.assert_array_equal(grads[1], np.zeros((2, 2)))
    np.testing.assert_array_equal(grads[2], [[2, 2], [4, 4]])


@pytest.mark.parametrize("ids, strategy, message", [
    ([1, 7], "mod", r"^indices\[1\] = 2 is not in \[0, 2\)"),     # id 7: shard 1, row 2
    ([-1], "mod", r"^indices\[0\] = -1 is not in \[0, 2\)"),
    ([1, 9], "div", r"^partitions\[1\] = 4 is not in \[0, 3\)"),
    ([1, -1], "div", r"^partitions\[1\] = -1 is not in \[0, 3\)"),
])
def test_sharded_embedding_lookup_ids_out_of_range(ids, strategy, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        run(_sharded(ids, strategy))


def test_dynamic_partition_and_stitch():
    parts = tf.dynamic_partition([10, 20, 30, 40], [1, 0, 1, 1], 2)
    got = run(parts)
    np.testing.assert_array_equal(got[0], [20])
    np.testing.assert_array_equal(got[1], [10, 30, 40])
    one = tf.dynamic_partition([1.0, 2.0], [0, 0], 1)
    assert isinstance(one, list) and len(one) == 1
    np.testing.assert_array_equal(run(tf.dynamic_stitch([[0, 2], [1]], [[5, 6], [7]])),
                                  [5, 7, 6])
    p = fed(tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^partitions\[2\] = 5 is not in \[0, 2\)"):
        with tf.Session() as sess:
            sess.run(tf.dynamic_partition([1, 2, 3], p, 2), {p: [0, 1, 5]})


@pytest.mark.parametrize("build, error, message", [
    (lambda: run(tf.dynamic_stitch([[0, -1]], [[1, 2]])), tf.errors.InvalidArgumentError,
     r"^indices\[1\] is out of range"),
    (lambda: tf.dynamic_stitch([[0, 1]], [[1, 2, 3]]), ValueError,
     r"^Dimensions must be equal, but are 3 and 2 for 'DynamicStitch'"),
    (lambda: tf.dynamic_partition([1, 2], [0, 1, 1], 2), ValueError,
     r"^Dimensions must be equal, but are 2 and 3 for 'DynamicPartition'"),
    (lambda: tf.dynamic_stitch([[0], [1]], [[1.0], [2, 3]]), TypeError,
     r"^Tensors in list passed to 'data' of 'DynamicStitch' Op have types \[float32, int32\] "
     r"that don't all match\."),
], ids=["stitch_negative", "stitch_shape", "partition_shape", "stitch_dtypes"])
def test_dynamic_partition_and_stitch_errors(build, error, message):
    with pytest.raises(error, match=message):
        build()
