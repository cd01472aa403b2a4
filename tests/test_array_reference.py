"""Differential tests of the array/shape ops against TensorFlow (tf.compat.v1 graph mode).

Each program is built on both libraries; we compare fetched values, dtypes and static
shapes, and for failing programs the error class and TF's message. TensorFlow here is
2.x: its build-time messages end differently (`for '{{node X}} = ...'`), so we compare
the text before ` for '`; its runtime messages wrap the kernel's text, so we check that
ours (the first line) appears in TF's. Skips without TensorFlow.
"""
import numpy as np
import pytest

from tests.tf_reference import tensorflow_v1

import tfteach

F = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
M = np.arange(12, dtype=np.float32).reshape(3, 4)
I = np.arange(6, dtype=np.int32).reshape(2, 3)


def _ph(tf, value, shape=None):
    """A placeholder for `value` (unknown shape unless given) and its feed."""
    p = tf.placeholder(tf.as_dtype(value.dtype), shape)
    return p, {p: value}


# name -> build(tf) returning (fetches, feed_dict)
PROGRAMS = {
    "reshape": lambda tf: ([tf.reshape(F, [4, -1]), tf.reshape(F, [-1]), tf.reshape(I, [3, 2])],
                           None),
    "reshape_partial": lambda tf: (lambda p, f: ([tf.reshape(p, [-1, 2, 2])], f))(
        *_ph(tf, M, [None, 4])),
    "reshape_packed": lambda tf: (lambda p, f: ([tf.reshape(p, [-1, tf.shape(p)[0]])], f))(
        *_ph(tf, M, [None, 4])),
    "reshape_scalar": lambda tf: ([tf.reshape(np.float32(3.0), [1, 1]),
                                  tf.reshape([[7]], [])], None),
    "transpose": lambda tf: ([tf.transpose(F), tf.transpose(F, [1, 0, 2]),
                              tf.transpose(tf.constant(5))], None),
    "transpose_unknown": lambda tf: (lambda p, f: ([tf.transpose(p)], f))(*_ph(tf, F)),
    "expand_squeeze": lambda tf: ([tf.expand_dims(M, 0), tf.expand_dims(M, -1),
                                   tf.expand_dims(3, 0), tf.squeeze(np.zeros((1, 2, 1))),
                                   tf.squeeze(np.zeros((1, 2, 1)), [-1]),
                                   tf.squeeze(np.zeros((1, 2, 1)), squeeze_dims=[0])], None),
    "squeeze_partial": lambda tf: (lambda p, f: ([tf.squeeze(p, [0])], f))(
        *_ph(tf, np.zeros((1, 3), np.float32), [None, 3])),
    "concat": lambda tf: ([tf.concat([M, M], 0), tf.concat([M, M], -1), tf.concat([M], 0),
                           tf.concat([I, [[1, 2, 3]]], 0)], None),
    # A known TensorShape or Dimension converts to an int vector or scalar (int64 when a
    # dimension needs it), so tf.fill(x.shape, v) and tf.convert_to_tensor(x.shape) work.
    "shape_as_tensor": lambda tf: (
        [tf.convert_to_tensor(tf.zeros([2, 3]).shape), tf.fill(tf.zeros([2, 3]).shape, 1.5),
         tf.convert_to_tensor(tf.zeros([2, 3]).shape[1]),
         tf.convert_to_tensor(tf.TensorShape([2, 3]), tf.int64),
         tf.convert_to_tensor(tf.TensorShape([2 ** 31]))], None),
    # A Python bool is an int to TF's _AssertCompatible (isinstance of numbers.Integral).
    "constant_python_bools": lambda tf: ([tf.constant(True, tf.int32),
                                          tf.constant([True, False], tf.float64),
                                          tf.constant(1) + True, tf.constant([1.5]) * False],
                                         None),
    # With a dtype asked for that is not the first tensor's, TF casts every tensor to it.
    "packed_cast_to_dtype_asked": lambda tf: (
        [tf.convert_to_tensor([tf.constant(I[0]), tf.constant(I[0] + 0.5)], tf.float64),
         tf.convert_to_tensor([[tf.constant(1)], [tf.constant(2.5)]], tf.float32)], None),
    "where_tensor_then_python": lambda tf: (
        [tf.where([True, False], tf.constant([1.5, 2.0]), [1, 2])], None),
    "concat_partial": lambda tf: (lambda p, f: ([tf.concat([p, M], 1)], f))(
        *_ph(tf, M, [None, 4])),
    "stack": lambda tf: ([tf.stack([M, M]), tf.stack([M, M], axis=-1), tf.stack([1, 2]),
                          tf.stack([tf.constant(1), 2])], None),
    "unstack": lambda tf: (tf.unstack(M) + tf.unstack(M, axis=-1), None),
    "split": lambda tf: (tf.split(M, 2, axis=1) + tf.split(M, [1, -1, 1], 1) +
                         tf.split(M, [1, 2]), None),
    # Ops with a list of outputs, fed so they run, each making a list of one.
    "lists_of_one": lambda tf: (lambda p, f: (
        tf.unstack(p) + tf.split(p, 1, 1) + tf.split(p, [-1], 0) + tf.shape_n([p]) +
        tf.dynamic_partition(p, [0], 1), f))(*_ph(tf, M[:1], [1, None])),
    "tile": lambda tf: ([tf.tile(M, [2, 1]), tf.tile(I, [0, 3])], None),
    "pad": lambda tf: ([tf.pad(M, [[1, 0], [0, 2]]), tf.pad(M, [[1, 1], [2, 2]], "REFLECT"),
                        tf.pad(M, [[2, 1], [0, 3]], "symmetric"),
                        tf.pad(I, [[1, 1], [1, 1]], constant_values=-1)], None),
    "slice": lambda tf: ([tf.slice(F, [1, 0, 1], [1, -1, 2]), tf.slice(M, [0, 0], [0, 4])],
                         None),
    "getitem": lambda tf: (lambda t: ([t[1], t[-1, ::-2], t[..., 1:3], t[:, None, 0],
                                       t[1, 2, 3], t[::-1, 5:-7:-1], t[:0], t[tf.constant(1)],
                                       t[:, tf.constant(1):]], None))(tf.constant(F)),
    "getitem_partial": lambda tf: (lambda p, f: ([p[1:], p[:, 0], p[..., ::2]], f))(
        *_ph(tf, F, [None, 3, None])),
    "strided_slice": lambda tf: ([tf.strided_slice(F, [0, 1], [2, 3], [1, 1]),
                                  tf.strided_slice(F, [0], [0], [1], shrink_axis_mask=0,
                                                   ellipsis_mask=1)], None),
    "gather": lambda tf: ([tf.gather(M, [2, 0]), tf.gather(M, [[1], [3]], axis=1),
                           tf.gather(M, 1), tf.gather(M, [0, 1], axis=-1)], None),
    "gather_nd": lambda tf: ([tf.gather_nd(M, [[1, 2], [0, 0]]), tf.gather_nd(F, [[1], [0]]),
                              tf.gather_nd(F, [[[1, 2]]])], None),
    "one_hot": lambda tf: ([tf.one_hot([0, 2, 5, -1], 3), tf.one_hot([[0, 2]], 3, axis=0),
                            tf.one_hot([1], 2, on_value=5, off_value=-1),
                            tf.one_hot([1], 2, dtype=tf.int64)], None),
    "fills": lambda tf: ([tf.zeros([2, 3]), tf.ones([2], tf.int32), tf.zeros([], tf.bool),
                          tf.fill([2, 2], 7), tf.zeros_like(M), tf.ones_like(I, tf.float32),
                          tf.zeros((2, 0)), tf.ones([40, 40])], None),
    "fills_partial": lambda tf: (lambda p, f: ([tf.zeros_like(p), tf.ones_like(p),
                                                tf.zeros([tf.shape(p)[0], 2])], f))(
        *_ph(tf, M, [None, 4])),
    "range": lambda tf: ([tf.range(5), tf.range(1, 10, 3), tf.range(0., 1., 0.1),
                          tf.range(5, 0, -2), tf.range(3, dtype=tf.float64),
                          tf.range(0, 1.5), tf.range(tf.constant(4, tf.int64))], None),
    "linspace": lambda tf: ([tf.linspace(0., 1., 7), tf.lin_space(-1., 3., 1)], None),
    "shape_size_rank": lambda tf: (lambda p, f: ([tf.shape(p), tf.size(p), tf.rank(p),
                                                  tf.shape(M, out_type=tf.int64),
                                                  tf.size(M), tf.rank(M)], f))(
        *_ph(tf, M, [None, 4])),
    "eye": lambda tf: ([tf.eye(3), tf.eye(2, 4), tf.eye(2, batch_shape=[3], dtype=tf.int32)],
                       None),
    # sizes that are tensors (the rows of a fed batch): TF's Minimum of the sizes
    "eye_tensor_sizes": lambda tf: (lambda p, f: (lambda n: (
        [tf.eye(n), tf.eye(n, 3), tf.eye(2, n, dtype=tf.int32), tf.eye(n, batch_shape=[2]),
         tf.eye(n, n)], f))(tf.shape(p)[0]))(*_ph(tf, M, [None, 4])),
    "reverse": lambda tf: ([tf.reverse(F, [0, -1]), tf.reverse_v2(M, [1]),
                            tf.reverse(M, [])], None),
    "where": lambda tf: ([tf.where([[True, False], [False, True]]),
                          tf.where([True, False], [1, 2], [3, 4]),
                          tf.where([True, False], M[:2], M[1:]),
                          tf.where(True, M, M)], None),
    "boolean_mask": lambda tf: ([tf.boolean_mask(M, [True, False, True]),
                                 tf.boolean_mask(F, [[True, False, True], [False, False, True]]),
                                 tf.boolean_mask(M, [False, True, True, False], axis=1)], None),
    "segment_sum": lambda tf: ([tf.unsorted_segment_sum(M, [0, 2, 0], 3),
                                tf.unsorted_segment_sum(I, [[0, 1, -1], [1, 1, 0]], 2)], None),
    "strings": lambda tf: ([tf.reshape(["a", "b"], [2, 1]), tf.gather(["a", "b", "c"], [2, 0]),
                            tf.concat([["x"], ["y"]], 0), tf.constant(["a", "b"])[::-1],
                            tf.tile(["a"], [3])], None),
    "bools": lambda tf: ([tf.transpose([[True, False]]), tf.stack([True, False]),
                          tf.pad([True], [[1, 1]]), tf.one_hot([1], 2, True, False)], None),
    "empty": lambda tf: ([tf.reshape(np.zeros((0, 3), np.float32), [-1, 3]),
                          tf.concat([np.zeros((0, 2)), np.ones((1, 2))], 0),
                          tf.gather(np.zeros((0, 2)), np.zeros(0, np.int32)),
                          tf.transpose(np.zeros((0, 2)))], None),
}

ERRORS = {
    "shape_as_tensor_partial": lambda tf: (
        [tf.convert_to_tensor(tf.placeholder(tf.float32, [None, 2]).shape)], None),
    "shape_as_tensor_unknown_dimension": lambda tf: (
        [tf.convert_to_tensor(tf.placeholder(tf.float32, [None, 2]).shape[0])], None),
    "shape_as_tensor_float": lambda tf: ([tf.convert_to_tensor(tf.TensorShape([2]),
                                                               tf.float32)], None),
    "shape_as_tensor_int32_too_small": lambda tf: (
        [tf.convert_to_tensor(tf.TensorShape([2 ** 31]), tf.int32)], None),
    # A list of tensors of two dtypes is not cast to the first one's (it was, silently:
    # tf.stack([ints, floats]) truncated the floats); tf.where's t fixes e's dtype.
    "stack_dtypes": lambda tf: ([tf.stack([tf.constant(I[0]), tf.constant(I[0] + 0.5)])],
                                None),
    "stack_dtypes_float_first": lambda tf: (
        [tf.stack([tf.constant(M[0]), tf.constant(I[0, :2].repeat(2))])], None),
    "packed_dtypes": lambda tf: ([tf.convert_to_tensor([tf.constant(I[0]),
                                                        tf.constant(I[0] + 0.5)])], None),
    "packed_dtype_asked_is_the_first": lambda tf: (
        [tf.convert_to_tensor([tf.constant(I[0]), tf.constant(I[0] + 0.5)], tf.int32)], None),
    "where_python_then_tensor": lambda tf: (
        [tf.where([True, False], [1, 2], tf.constant([1.5, 2.0]))], None),
    "reshape_static": lambda tf: ([tf.reshape(M, [5])], None),
    "reshape_divisible": lambda tf: ([tf.reshape(M, [-1, 5])], None),
    "reshape_runtime": lambda tf: (lambda p, f: ([tf.reshape(p, [5])], f))(*_ph(tf, M)),
    "reshape_runtime_multiple": lambda tf: (lambda p, f: ([tf.reshape(p, [-1, 5])], f))(
        *_ph(tf, M)),
    "reshape_two_unknown": lambda tf: (lambda p, f: ([tf.reshape(p, [-1, -1])], f))(
        *_ph(tf, M)),
    "transpose_rank": lambda tf: ([tf.transpose(F, [0, 1])], None),
    "transpose_range": lambda tf: ([tf.transpose(F, [0, 1, 3])], None),
    "transpose_missing": lambda tf: ([tf.transpose(F, [0, 1, 1])], None),
    "transpose_runtime": lambda tf: (lambda p, f: ([tf.transpose(p, [1, 0])], f))(
        *_ph(tf, F)),
    "expand_dims_range": lambda tf: ([tf.expand_dims(M, 3)], None),
    "squeeze_not_one": lambda tf: ([tf.squeeze(F, [1])], None),
    "squeeze_range": lambda tf: ([tf.squeeze(F, [3])], None),
    "squeeze_runtime": lambda tf: (lambda p, f: ([tf.squeeze(p, [0])], f))(
        *_ph(tf, M, [None, 4])),
    "concat_dims": lambda tf: ([tf.concat([M, F[0, :2]], 1)], None),
    "concat_rank": lambda tf: ([tf.concat([M, F], 0)], None),
    "concat_axis": lambda tf: ([tf.concat([M, M], 2)], None),
    "concat_dtypes": lambda tf: ([tf.concat([M, I], 0)], None),
    "unstack_num": lambda tf: (tf.unstack(M, num=2), None),
    "split_uneven": lambda tf: (tf.split(M, [1, 1], 0), None),
    "split_two_unknown": lambda tf: (tf.split(M, [1, -1, -1], 1), None),
    "split_axis": lambda tf: (tf.split(M, 2, axis=2), None),
    "split_runtime": lambda tf: (lambda p, f: (tf.split(p, 5), f))(
        *_ph(tf, np.zeros(6, np.float32))),
    "tile_rank": lambda tf: ([tf.tile(M, [2])], None),
    "tile_runtime": lambda tf: (lambda p, f: ([tf.tile(p, [2])], f))(*_ph(tf, M)),
    "pad_rank": lambda tf: ([tf.pad(M, [[1, 1]])], None),
    "pad_negative": lambda tf: ([tf.pad(M, [[1, 1], [-1, 0]])], None),
    "pad_reflect": lambda tf: ([tf.pad(M, [[3, 0], [0, 0]], "REFLECT")], None),
    # Only the gradient fetched: MirrorPadGrad's own checks (the forward op never runs).
    "mirror_pad_grad_reflect": lambda tf: _mirror_pad_gradient(tf, [[0, 1]], "REFLECT", 1),
    "mirror_pad_grad_symmetric": lambda tf: _mirror_pad_gradient(tf, [[2, 1]], "SYMMETRIC",
                                                                 1),
    "pad_symmetric": lambda tf: ([tf.pad(M, [[4, 0], [0, 0]], "SYMMETRIC")], None),
    "gather_range": lambda tf: ([tf.gather(M, [1, 7])], None),
    "gather_negative": lambda tf: ([tf.gather(M, [[0, -1]])], None),
    "gather_axis": lambda tf: ([tf.gather(M, [0], axis=2)], None),
    "gather_float": lambda tf: ([tf.gather(M, [0.0])], None),
    "gather_nd_depth": lambda tf: ([tf.gather_nd(M, [[1, 2, 3]])], None),
    "gather_nd_range": lambda tf: ([tf.gather_nd(M, [[1, 7]])], None),
    "one_hot_dtypes": lambda tf: ([tf.one_hot([0], 2, on_value=5, off_value=1.0)], None),
    "one_hot_depth": lambda tf: ([tf.one_hot([0], -1)], None),
    "getitem_range": lambda tf: ([tf.constant(M)[3]], None),
    "getitem_negative_range": lambda tf: ([tf.constant(M)[:, -5]], None),
    "getitem_runtime": lambda tf: (lambda p, f: ([p[4]], f))(*_ph(tf, M)),
    "getitem_type": lambda tf: ([tf.constant(M)[1.5]], None),
    "getitem_zero_step": lambda tf: ([tf.constant(M)[::0]], None),
    "getitem_two_ellipsis": lambda tf: ([tf.constant(M)[..., ...]], None),
    "getitem_too_many": lambda tf: ([tf.constant(M)[1, 2, 3]], None),
    "stack_shapes": lambda tf: ([tf.stack([M, M[:2]], axis=1)], None),
    "stack_axis": lambda tf: ([tf.stack([M, M], axis=3)], None),
    "unstack_axis": lambda tf: (tf.unstack(M, axis=2), None),
    "getitem_list": lambda tf: ([tf.constant([1, 2])[[0, 1]]], None),
    "getitem_negative_index": lambda tf: ([tf.constant(M)[-4]], None),
    "getitem_runtime_negative": lambda tf: (lambda p, f: ([p[-9]], f))(*_ph(tf, M)),
    "slice_negative_size": lambda tf: ([tf.slice(M, [0, 0], [1, -2])], None),
    "slice_begin": lambda tf: ([tf.slice(M, [0, 5], [1, -1])], None),
    "where_vector": lambda tf: ([tf.where([True, False, True], M, M[:, :3])], None),
    "where_matrix": lambda tf: ([tf.where([[True, False, True, True]], M, M)], None),
    "segment_prefix": lambda tf: ([tf.unsorted_segment_sum(M, [0, 1], 2)], None),
    "segment_negative": lambda tf: ([tf.unsorted_segment_sum([1., 2.], [-1, 0], -1)], None),
    "boolean_mask_shape": lambda tf: ([tf.boolean_mask(M, [True, False])], None),
    "boolean_mask_scalar": lambda tf: ([tf.boolean_mask(M, True)], None),
    "gather_scalar_params": lambda tf: ([tf.gather(3, [0])], None),
    "gather_scalar_index": lambda tf: ([tf.gather([1, 2], 4)], None),
    "gather_matrix_index": lambda tf: ([tf.gather([1, 2], [[0, 4]])], None),
    "slice_runtime": lambda tf: (lambda p, f: ([tf.slice(p, [0, 1], [4, 1])], f))(*_ph(tf, M)),
    "range_sign": lambda tf: ([tf.range(5, 1)], None),
    "range_zero": lambda tf: ([tf.range(0, 5, 0)], None),
    "where_shapes": lambda tf: ([tf.where([True, False], M, M)], None),
    "where_xy": lambda tf: ([tf.where([True], [1], [[2]])], None),
    "segment_range": lambda tf: ([tf.unsorted_segment_sum(M, [0, 5, 1], 3)], None),
    "fill_negative": lambda tf: ([tf.fill([-1, 2], 1.0)], None),
}

# TensorFlow 2.x changed these; tfteach keeps TF 1.15's behaviour (its messages are in
# tests/test_array_ops.py), so only the error class is compared.
TF2_CHANGED_MESSAGES = {"concat_rank", "concat_dims", "unstack_num", "getitem_type",
                        "one_hot_dtypes", "pad_rank", "split_runtime", "gather_float",
                        "gather_nd_range", "split_uneven", "split_two_unknown",
                        "stack_shapes", "stack_axis", "unstack_axis",
                        # TF 1.15's constant_op texts ("Cannot convert a partially known
                        # TensorShape to a Tensor: (?, 2)"); TF 2 reworded them all
                        "shape_as_tensor_partial", "shape_as_tensor_unknown_dimension",
                        "shape_as_tensor_float", "shape_as_tensor_int32_too_small"}


def _build_and_run(tf, build):
    graph = tf.Graph()
    with graph.as_default():
        fetches, feed = build(tf)
        shapes = [t.shape.as_list() if t.shape.ndims is not None else None for t in fetches]
        dtypes = [t.dtype.name for t in fetches]
        with tf.Session(graph=graph) as sess:
            values = sess.run(fetches, feed)
    return shapes, dtypes, values


@pytest.fixture(scope="module")
def tf1():
    return tensorflow_v1()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_results_as_tensorflow(tf1, name):
    expected = _build_and_run(tf1, PROGRAMS[name])
    actual = _build_and_run(tfteach, PROGRAMS[name])
    assert actual[0] == expected[0], "static shapes"
    assert actual[1] == expected[1], "dtypes"
    for got, want in zip(actual[2], expected[2]):
        want = np.asarray(want)
        got = np.asarray(got)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def _error(tf, build):
    try:
        _build_and_run(tf, build)
    except Exception as e:  # noqa: BLE001 - the exception is what we compare
        return e
    return None


def _mirror_pad_gradient(tf, paddings, mode, size):
    p = tf.placeholder(tf.float32, [size])
    padded = tf.pad(p, paddings, mode)
    return tf.gradients(tf.reduce_sum(padded * 2.0), p), {p: np.ones(size, np.float32)}


def _core_message(exc):
    text = str(exc)
    return text.split(" for '")[0] if " for '" in text else text.splitlines()[0]


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_same_errors_as_tensorflow(tf1, name):
    expected = _error(tf1, ERRORS[name])
    actual = _error(tfteach, ERRORS[name])
    assert expected is not None and actual is not None
    assert type(actual).__name__ == type(expected).__name__, (actual, expected)
    if name in TF2_CHANGED_MESSAGES:
        return
    ours = _core_message(actual)
    if isinstance(actual, tfteach.errors.OpError):
        assert ours in str(expected), (ours, str(expected))
    else:
        assert ours == _core_message(expected)
