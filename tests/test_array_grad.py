"""Gradients of the array ops (array_grad.py, index_grad.py) against float64 central finite
differences, some against TensorFlow's values and gradient-graph op types."""
import numpy as np
import pytest

import tfteach as tf
from gradient_check import (check_gradients, check_gradients_match_tensorflow,
                            gradient_op_names)


def _rand(*shape, seed=0):
    return np.random.RandomState(seed).uniform(-2.0, 2.0, shape)


X234 = _rand(2, 3, 4)


# -- shape and layout ----------------------------------------------------------------------------
@pytest.mark.parametrize("shapes", [None, [[None, 3, 4]], [[None, None, None]]])
@pytest.mark.parametrize("build", [
    lambda tf, x: tf.reshape(x, [4, -1]),
    lambda tf, x: tf.expand_dims(x, -1),
    lambda tf, x: tf.expand_dims(x, 1),
    lambda tf, x: tf.squeeze(tf.expand_dims(x, 0), [0]),
    lambda tf, x: tf.transpose(x, [2, 0, 1]),
    lambda tf, x: tf.transpose(x),
    lambda tf, x: tf.reverse(x, [0, -1]),
    lambda tf, x: tf.tile(x, [2, 1, 3]),
    lambda tf, x: tf.pad(x, [[1, 0], [0, 2], [1, 1]]),
    lambda tf, x: tf.pad(x, [[1, 0], [0, 2], [1, 1]], constant_values=1.5),
    lambda tf, x: tf.pad(x, [[1, 1], [0, 2], [3, 2]], mode="REFLECT"),
    lambda tf, x: tf.pad(x, [[1, 2], [0, 3], [4, 1]], mode="SYMMETRIC"),
], ids=["reshape", "expand_dims_-1", "expand_dims_1", "squeeze", "transpose",
        "transpose_default", "reverse", "tile", "pad", "pad_v2", "mirror_reflect",
        "mirror_symmetric"])
def test_layout_gradients(build, shapes):
    check_gradients(build, [X234], shapes=shapes)


def test_squeeze_all_and_reshape_of_unknown_dims():
    x = _rand(3, 1, 4, 1)
    check_gradients(lambda tf, x: tf.squeeze(x), [x])
    check_gradients(lambda tf, x: tf.reshape(x, [-1, 2]), [x], shapes=[[None, 1, 4, None]])


# -- joining and splitting ------------------------------------------------------------------------
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("shapes", [None, [[None, 3], [None, 3], [None, 3]]])
def test_concat(axis, shapes):
    values = [_rand(2, 3, seed=i) for i in range(3)]
    check_gradients(lambda tf, a, b, c: tf.concat([a, b, c], axis) * 1.0, values,
                    shapes=shapes)


def test_concat_of_many_inputs_splits_instead():
    values = [_rand(1, 2, seed=i) for i in range(17)]
    check_gradients(lambda tf, *xs: tf.concat(list(xs), 0), values)


def test_concat_with_a_tensor_axis():
    values = [_rand(2, 3, seed=0), _rand(2, 2, seed=1), np.array(-1, np.int32)]
    check_gradients(lambda tf, a, b, axis: tf.concat([a, b], axis), values)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_stack_and_unstack(axis):
    values = [_rand(2, 3, seed=i) for i in range(3)]
    check_gradients(lambda tf, a, b, c: tf.stack([a, b, c], axis=axis), values)
    # unused outputs of unstack get zero gradients
    check_gradients(lambda tf, x: [tf.unstack(x, axis=axis)[0], tf.unstack(x, axis=axis)[-1]],
                    [X234[:, :3, :3] if axis else X234])


@pytest.mark.parametrize("shapes", [None, [[None, 6]]])
def test_split_and_split_v(shapes):
    x = _rand(2, 6)
    check_gradients(lambda tf, x: tf.split(x, 3, axis=-1), [x], shapes=shapes)
    check_gradients(lambda tf, x: tf.split(x, [1, -1, 2], axis=1), [x], shapes=shapes)
    check_gradients(lambda tf, x: tf.split(x, 2, axis=1)[1], [x], shapes=shapes)
    check_gradients(lambda tf, x: tf.split(x, [4, 2], 1)[0], [x], shapes=shapes)


# -- slicing ------------------------------------------------------------------------------------
@pytest.mark.parametrize("shapes", [None, [[None, None, 4]]])
def test_slice(shapes):
    check_gradients(lambda tf, x: tf.slice(x, [1, 0, 1], [-1, 2, 2]), [X234], shapes=shapes)


STRIDED = [
    lambda x: x[1:, ::-2],
    lambda x: x[..., 1],
    lambda x: x[:, None, 1:3],
    lambda x: x[-1],
    lambda x: x[0, ..., ::-1],
    lambda x: x[::-1, -2:0:-1, tf.newaxis, 3],
    lambda x: x[:, 5:9],               # empty
    lambda x: x[1:2, 1, None, :-1:2],
]


@pytest.mark.parametrize("shapes", [None, [[None, None, 4]]])
@pytest.mark.parametrize("index", range(len(STRIDED)))
def test_strided_slice_all_masks(index, shapes):
    check_gradients(lambda tf, x: STRIDED[index](x), [X234], shapes=shapes)


def test_strided_slice_with_tensor_bounds():
    check_gradients(lambda tf, x, b: x[b:, b - 3:], [_rand(4, 5), np.array(1, np.int32)])
    check_gradients(lambda tf, x: tf.strided_slice(x, [0, 3], [2, 0], [1, -2]), [_rand(3, 5)])


def test_strided_slice_grad_has_a_gradient():
    def build(tf, x):
        y = x[1:, ::2] * x[1:, ::2]
        return tf.gradients(y, x)[0] * x
    check_gradients(build, [_rand(3, 4)])


# -- by index ------------------------------------------------------------------------------------
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("shapes", [None, [[None, None, 4], None]])
def test_gather(axis, shapes):
    indices = np.array([[2, 0], [1, 2]] if axis != -1 else [[3, 0], [3, 3]], np.int32)
    if axis == 0:
        indices = np.array([1, 0, 1], np.int32)
    check_gradients(lambda tf, x, i: tf.gather(x, i, axis=axis), [X234[:, :3, :] if axis
                                                                 else X234, indices],
                    shapes=shapes)


def test_gather_with_a_tensor_axis_and_int64_indices():
    check_gradients(lambda tf, x, i, a: tf.gather(x, i, axis=a),
                    [X234, np.array([0, 0, 2], np.int64), np.array(1, np.int32)])


def test_gather_nd_scatters_back():
    x = _rand(3, 4)
    check_gradients(lambda tf, x, i: tf.gather_nd(x, i),
                    [x, np.array([[0, 1], [2, 3], [0, 1]], np.int32)])
    check_gradients(lambda tf, x, i: tf.gather_nd(x, i),
                    [x, np.array([[2], [0], [2]], np.int64)], shapes=[[None, 4], None])


def test_unsorted_segment_sum_gradient_is_a_gather():
    data = _rand(5, 3)
    ids = np.array([0, 2, -1, 0, 1], np.int32)         # -1: the row is dropped
    grads = check_gradients(lambda tf, d, s: tf.unsorted_segment_sum(d, s, 3), [data, ids],
                            grad_ys="ones")
    np.testing.assert_array_equal(grads[0][2], 0.0)
    check_gradients(lambda tf, d, s: tf.unsorted_segment_sum(d, s, 4),
                    [_rand(2, 3, 2), np.array([[0, 3, 3], [-1, 1, 0]], np.int32)],
                    shapes=[[None, 3, 2], None])


def test_boolean_mask():
    mask = np.array([[True, False, True], [False, False, True]])
    check_gradients(lambda tf, x, m: tf.boolean_mask(x, m), [X234[:, :, 0], mask])
    check_gradients(lambda tf, x, m: tf.boolean_mask(x, m, axis=1),
                    [X234, np.array([True, False, True])])


def test_fill_and_diagonals():
    check_gradients(lambda tf, v: tf.fill([2, 3], v), [np.array(0.5)])
    check_gradients(lambda tf, d: tf.matrix_diag(d), [_rand(2, 3)])
    check_gradients(lambda tf, x, d: tf.matrix_set_diag(x, d), [_rand(2, 3, 4), _rand(2, 3)])
    check_gradients(lambda tf, x, d: tf.matrix_set_diag(x, d), [_rand(2, 3, 4), _rand(2, 3)],
                    shapes=[[None, 3, None], [None, 3]])


def test_not_differentiable_ops_give_none():
    x = tf.placeholder(tf.float64, [None, 3])
    ys = [tf.cast(tf.shape(x), tf.float64), tf.cast(tf.size(x), tf.float64),
          tf.zeros_like(x), tf.ones_like(x), tf.one_hot(tf.cast(x, tf.int32), 3)]
    for y in ys:
        assert tf.gradients(y, x) == [None]


# -- against TensorFlow ------------------------------------------------------------------------
REFERENCE = {
    "strided_slice": (lambda tf, x: x[1:, ::-2, None, 2], [X234]),
    "concat": (lambda tf, a, b: tf.concat([a, b], -1), [_rand(2, 3), _rand(2, 1)]),
    "gather_axis_1": (lambda tf, x, i: tf.gather(x, i, axis=1),
                      [X234, np.array([2, 2, 0], np.int32)]),
    "tile": (lambda tf, x: tf.tile(x, [1, 2, 2]), [X234]),
    "mirror_pad": (lambda tf, x: tf.pad(x, [[1, 1], [2, 0], [0, 3]], "REFLECT"), [X234]),
    "segment_sum": (lambda tf, d, s: tf.unsorted_segment_sum(d, s, 3),
                    [_rand(4, 2), np.array([2, -1, 2, 0], np.int32)]),
    "slice_unknown": (lambda tf, x: tf.slice(x, [0, 1, 1], [2, -1, 2]), [X234]),
}


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_gradient_values_match_tensorflow(name):
    build, inputs = REFERENCE[name]
    shapes = [[None] * np.ndim(v) for v in inputs] if name.endswith("unknown") else None
    check_gradients_match_tensorflow(build, inputs, shapes=shapes)


@pytest.mark.parametrize("name, build", [
    ("transpose", lambda tf, x: tf.transpose(x, [1, 0, 2])),
    ("strided_slice", lambda tf, x: x[:, 1]),
    ("concat", lambda tf, x: tf.concat([x, x], 1)),
    ("reshape", lambda tf, x: tf.reshape(x, [-1])),
    ("pad", lambda tf, x: tf.pad(x, [[0, 1], [1, 0], [0, 0]])),
])
def test_gradient_op_types_match_tensorflow(name, build):
    from tf_reference import tensorflow_v1
    types = lambda names: sorted(set(names.values()))  # noqa: E731
    assert types(gradient_op_names(tf, build, [X234])) == \
        types(gradient_op_names(tensorflow_v1(), build, [X234]))


def test_int64_index_arguments():
    check_gradients(lambda tf, x: x[tf.constant(1, tf.int64):, ::-1], [X234])
    check_gradients(lambda tf, x: tf.tile(x, tf.constant([1, 2, 1], tf.int64)), [X234])
    check_gradients(lambda tf, x: tf.pad(x, tf.constant([[0, 1], [1, 0], [2, 2]], tf.int64)),
                    [X234])
    check_gradients(lambda tf, x: tf.slice(x, tf.constant([0, 1, 1], tf.int64),
                                           tf.constant([2, 1, -1], tf.int64)), [X234])


def test_print_passes_the_gradient_through(capsys):
    check_gradients(lambda tf, x: tf.Print(x * x, [tf.shape(x)], "x: "), [_rand(3)])
