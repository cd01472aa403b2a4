"""What an eager op no longer pays for (issue 20, eager per-op cost), and that it means
nothing else changed: the static broadcast's short cuts give the general rule's shapes,
eager tensors' shapes share Dimensions yet equal TensorShape's, and `name_scope` (now a
class) scopes, restores and fails as the generator did, eagerly and in graphs."""
import threading

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tfteach as tf1
from eager_helpers import eager, tf2  # noqa: F401 - fixtures
from thread_helpers import run_in_threads
from tfteach.framework import tensor_shape
from tfteach.framework.graph_functions import name_scope
from tfteach.ops.op_builder import broadcast_static_shape

dims = st.one_of(st.none(), st.integers(0, 4))
shapes = st.one_of(st.none(), st.lists(dims, max_size=4))


def _general_rule(x, y):
    """Broadcasting on static shapes with None dims, put another way: per aligned axis,
    two different known sizes other than 1 clash; one such size is the answer; else the
    axis is unknown if either side is, else 1. Fully known shapes: NumPy's own rule."""
    if x is None or y is None:
        return "unknown"
    n = max(len(x), len(y))
    axes = zip([1] * (n - len(x)) + list(x), [1] * (n - len(y)) + list(y))
    out = []
    for pair in axes:
        sizes = {size for size in pair if size not in (None, 1)}
        if len(sizes) > 1:
            return "error"
        out.append(sizes.pop() if sizes else None if None in pair else 1)
    if None not in x and None not in y:
        assert out == list(np.broadcast_shapes(tuple(x), tuple(y)))
    return out


@settings(max_examples=400, deadline=None)
@given(shapes, shapes, st.booleans())
def test_the_static_broadcast_is_the_general_rule(x, y, same_object):
    if same_object:
        y = x
    shape_x = tensor_shape.TensorShape(x)
    shape_y = shape_x if same_object else tensor_shape.TensorShape(y)
    expected = _general_rule(x, y)
    if expected == "error":
        with pytest.raises(tensor_shape.ShapeError, match="Dimensions must be equal"):
            broadcast_static_shape(shape_x, shape_y)
        return
    got = broadcast_static_shape(shape_x, shape_y)
    if expected == "unknown":
        assert got.ndims is None
    else:
        assert got.as_list() == expected
    # the operands' shapes are as they were (an answer may be one of them)
    for shape, dims_given in ((shape_x, x), (shape_y, y)):
        assert (shape.ndims is None) if dims_given is None else shape.as_list() == dims_given


@pytest.mark.parametrize("sizes", [(), (0,), (1, 1024), (1025,), (3, 70000, 2),
                                   (np.int64(5), np.int32(7))])
def test_an_arrays_shape_equals_the_tensorshape_made_the_long_way(sizes):
    fast = tensor_shape.of_array_shape(sizes)
    slow = tensor_shape.TensorShape(sizes)
    assert fast == slow and fast.as_list() == slow.as_list() == [int(s) for s in sizes]
    assert all(type(d.value) is int for d in fast.dims)
    assert str(fast) == str(slow) and repr(fast) == repr(slow)


def test_eager_tensors_report_their_values_shapes(tf2):
    tf = tf2
    t = tf.constant(np.zeros((2, 1030, 3), np.float32))
    assert t.shape.as_list() == [2, 1030, 3] and t.shape[1].value == 1030
    s = tf.constant(np.float32(1.5)) * 2.0
    assert s.shape.as_list() == [] and s.shape.ndims == 0
    # a shared Dimension is not changed by merging shapes
    a, b = tf.ones([2, 3]).shape, tf.ones([2, 3]).shape
    merged = a.merge_with(tensor_shape.TensorShape([None, 3]))
    assert merged.as_list() == [2, 3] and b.as_list() == [2, 3]


def test_eager_arithmetic_values_and_errors_are_tensorflows(tf2):
    tf = tf2
    x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal((x * 1.0001 + 0.5).numpy(),
                                  np.arange(6, dtype=np.float32).reshape(2, 3) *
                                  np.float32(1.0001) + np.float32(0.5))
    assert (x + tf.constant(np.ones(3, np.float32))).shape.as_list() == [2, 3]
    with pytest.raises(tf1.errors.InvalidArgumentError,
                       match=r"Incompatible shapes: \[2,3\] vs. \[4\] \[Op:AddV2\]"):
        x + tf.constant(np.ones(4, np.float32))
    with pytest.raises(TypeError):
        tf.constant([1, 2]) * 1.5


def test_eager_name_scopes_nest_reset_and_restore_after_errors(tf2):
    tf = tf2
    with name_scope("outer") as outer:
        assert outer == "outer/"
        with name_scope(None, "inner") as inner:
            assert inner == "outer/inner/"
            v = tf.Variable(1.0, name="v")
            assert v.name == "outer/inner/v:0"
        with name_scope("absolute/") as absolute:
            assert absolute == "absolute/"
        with name_scope("") as reset:
            assert reset == ""
        with pytest.raises(RuntimeError):
            with name_scope("failing"):
                raise RuntimeError("inside")
        with name_scope("after") as after:
            assert after == "outer/after/"
    with name_scope("top") as top:
        assert top == "top/"


def test_name_scope_checks_its_arguments_on_entering(tf2):
    tf = tf2
    scope = name_scope(None, None, [tf.constant(1.0)])     # made, not entered: no error
    with pytest.raises(ValueError, match="At least one of name"):
        with scope:
            pass


def test_graph_name_scopes_are_unchanged():
    graph = tf1.Graph()
    with graph.as_default():
        with name_scope("a") as a:
            c = tf1.constant(1.0, name="c")
        with name_scope("a") as again:
            d = tf1.constant(1.0, name="c")
        x = tf1.placeholder(tf1.float32, name="x")
        with name_scope(None, "default", [x]) as default:
            pass
    assert (a, again, default) == ("a/", "a_1/", "default/")
    assert (c.name, d.name) == ("a/c:0", "a_1/c:0")
    with pytest.raises(ValueError, match="At least one of name"):
        with graph.as_default(), name_scope(None, None, [x]):
            pass


def test_threads_running_eager_ops_at_once_get_their_own_values(tf2):
    tf = tf2
    failures = []

    def work(seed):
        rng = np.random.RandomState(seed)
        base = rng.standard_normal(100).astype(np.float32)
        for _ in range(200):
            t = tf.constant(base)
            expected = base
            for _ in range(5):
                t = t * 1.0001 + 0.5
                expected = expected * np.float32(1.0001) + np.float32(0.5)
            if t.numpy().tobytes() != expected.tobytes():
                failures.append(seed)
    run_in_threads(work, 4)
    assert failures == []


def test_each_thread_has_its_own_eager_name_scope(tf2):
    """As TF 2's eager context: a scope entered in one thread names nothing in another,
    and threads entering and leaving scopes at once leave none behind."""
    tf = tf2
    seen, barrier = {}, threading.Barrier(2)
    labels = ("a", "b")

    def scoped(label):
        for i in range(300):
            with name_scope(label):
                with name_scope("inner"):
                    if i == 0:
                        barrier.wait()
                        seen[label] = tf.Variable(1.0, name="v").name
    with name_scope("main"):
        run_in_threads(lambda k: scoped(labels[k]), 2)
        assert tf.Variable(1.0, name="w").name == "main/w:0"
    assert seen == {"a": "a/inner/v:0", "b": "b/inner/v:0"}
    assert tf.Variable(1.0, name="x").name == "x:0"
