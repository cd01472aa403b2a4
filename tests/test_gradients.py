"""`tf.gradients` itself: the ops it adds and their names, which xs get None, seeds
(`grad_ys`), summing several paths, stop_gradient, variables, errors."""
import numpy as np
import pytest

import tfteach as tf
from tfteach.framework import registry
from tfteach.framework import tensor_shape
from gradient_check import check_gradients
from tolerances import assert_close


def grad_op_names():
    return [op.name for op in tf.get_default_graph().get_operations()
            if op.name.startswith("gradients")]


def run(fetches, feed_dict=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed_dict)


# -- the ops in the graph ------------------------------------------------------------------------
def test_seed_is_fill_of_ones_under_gradients_scope():
    x = tf.constant([1.0, 2.0], name="x")
    y = tf.square(x, name="y")
    g, = tf.gradients(y, x)
    names = grad_op_names()
    assert names[:3] == ["gradients/Shape", "gradients/grad_ys_0", "gradients/Fill"]
    assert g.name == "gradients/y_grad/Mul_1:0"
    assert "gradients/y_grad/Mul" in names
    np.testing.assert_allclose(run(g), [2.0, 4.0])


def test_each_call_gets_its_own_scope_and_name():
    x = tf.constant(3.0)
    y = x * x
    g1, = tf.gradients(y, x)
    g2, = tf.gradients(y, x)
    g3, = tf.gradients(y, x, name="my_grads")
    assert g1.name.startswith("gradients/")
    assert g2.name.startswith("gradients_1/")
    assert g3.name.startswith("my_grads/")
    assert run([g1, g2, g3]) == [6.0, 6.0, 6.0]


def test_scoped_op_names_give_scoped_gradient_names():
    x = tf.constant(2.0)
    with tf.name_scope("layer"):
        y = tf.exp(x)
    g, = tf.gradients(y, x)
    assert g.name == "gradients/layer/Exp_grad/mul:0"


def test_several_paths_are_summed_with_add_n():
    x = tf.constant(3.0, name="x")
    y = x * x + tf.sin(x)
    g, = tf.gradients(y, x)
    assert g.op.type == "AddN" and g.op.name == "gradients/AddN"
    np.testing.assert_allclose(run(g), 6.0 + np.cos(3.0))


def test_aggregation_methods():
    x = tf.constant(2.0)
    y = x * x + x * 3.0 + tf.exp(x)
    tree, = tf.gradients(y, x, aggregation_method=tf.AggregationMethod.EXPERIMENTAL_TREE)
    acc, = tf.gradients(y, x,
                        aggregation_method=tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N)
    default, = tf.gradients(y, x)
    np.testing.assert_allclose(run([tree, acc, default]), [7.0 + np.exp(2.0)] * 3)
    with pytest.raises(ValueError, match="Invalid aggregation_method specified 7."):
        tf.gradients(y, x, aggregation_method=7)


def test_only_ops_between_xs_and_ys_get_gradient_ops():
    x = tf.constant(1.0, name="x")
    other = tf.constant(2.0, name="other")
    unrelated = tf.exp(other, name="unrelated")
    y = tf.add(tf.sin(x, name="s"), tf.cos(other, name="c"), name="y")
    tf.gradients(y, x)
    names = grad_op_names()
    assert any(n.startswith("gradients/s_grad/") for n in names)
    assert not any(n.startswith("gradients/c_grad/") for n in names)
    assert not any("unrelated" in n for n in names)
    del unrelated


# -- which xs get None -----------------------------------------------------------------------------
def test_unconnected_xs_give_none_or_zeros():
    x = tf.constant([1.0, 2.0])
    z = tf.constant([3.0, 4.0])
    y = x * 2.0
    assert tf.gradients(y, [x, z])[1] is None
    gz = tf.gradients(y, z, unconnected_gradients="zero")[0]
    np.testing.assert_array_equal(run(gz), [0.0, 0.0])
    gz = tf.gradients(y, z, unconnected_gradients=tf.UnconnectedGradients.ZERO)[0]
    np.testing.assert_array_equal(run(gz), [0.0, 0.0])


def test_integer_paths_give_none():
    x = tf.constant([1.5, 2.5])
    i = tf.cast(x, tf.int32)
    y = tf.cast(i * 2, tf.float32) + tf.reduce_sum(x) * 0.0
    g_int, = tf.gradients(y, i)
    assert g_int is None
    n = tf.constant([1, 2])
    assert tf.gradients(n * 3, n) == [None]


def test_integer_y_and_x_the_same_tensor():
    n = tf.constant([1, 2])
    g, = tf.gradients(n, n)
    assert g.dtype == tf.int32
    np.testing.assert_array_equal(run(g), [1, 1])


def test_y_is_x_gives_the_seed():
    x = tf.constant([1.0, 2.0])
    g, = tf.gradients(x, x)
    assert g.op.name == "gradients/Fill"
    np.testing.assert_array_equal(run(g), [1.0, 1.0])


def test_non_tensor_y_gives_none():
    x = tf.constant(1.0)
    assert tf.gradients(2.0, x) == [None]


# -- seeds -----------------------------------------------------------------------------------------
def test_grad_ys_weights_the_ys():
    x = tf.constant([1.0, 2.0])
    y = x * x
    g, = tf.gradients(y, x, grad_ys=tf.constant([10.0, -1.0]))
    assert "gradients/grad_ys_0" in grad_op_names()
    assert tf.get_default_graph().get_operation_by_name("gradients/grad_ys_0").type == \
        "Identity"
    np.testing.assert_allclose(run(g), [20.0, -4.0])
    g2, = tf.gradients(y, x, grad_ys=[[3.0, 3.0]])
    np.testing.assert_allclose(run(g2), [6.0, 12.0])


def test_grad_ys_errors():
    x = tf.constant([1.0, 2.0])
    y = x * x
    with pytest.raises(ValueError, match="^Passed 2 grad_ys for 1 ys$"):
        tf.gradients(y, x, grad_ys=[tf.ones([2]), tf.ones([2])])
    with pytest.raises(TypeError, match="Gradient type bool generated for real or "
                                        "integer-valued tensor"):
        tf.gradients(y, x, grad_ys=tf.constant([True, False]))
    s = tf.constant(["a"])
    with pytest.raises(TypeError, match="with type string must be numeric to obtain a "
                                        "default gradient"):
        tf.gradients(s, s, grad_ys=tf.constant(["b"]))


def test_several_ys_are_summed():
    x = tf.constant(2.0)
    y1 = x * x
    y2 = tf.exp(x)
    g, = tf.gradients([y1, y2], x)
    np.testing.assert_allclose(run(g), 4.0 + np.exp(2.0))


def test_a_y_that_depends_on_another_y():
    x = tf.constant(2.0)
    y1 = x * x
    y2 = y1 * 3.0
    g, = tf.gradients([y2, y1], x)
    np.testing.assert_allclose(run(g), 3.0 * 4.0 + 4.0)


def test_an_x_that_depends_on_another_x():
    a = tf.constant(2.0)
    b = a * a
    y = b * 5.0
    ga, gb = tf.gradients(y, [a, b])
    assert run([ga, gb]) == [20.0, 5.0]


# -- stopping gradients
def test_stop_gradient_treats_its_input_as_constant():
    x = tf.constant(3.0)
    y = tf.stop_gradient(x * x, name="frozen") * x
    assert y.op.inputs[0].op.type == "StopGradient"
    assert y.op.inputs[0].op.name == "frozen"
    g, = tf.gradients(y, x)
    assert run([y, g]) == [27.0, 9.0]
    assert tf.gradients(tf.stop_gradient(x), x) == [None]


def test_stop_gradients_argument():
    # TF's docstring example: with stop_gradients, a and b are independent.
    a = tf.constant(0.0)
    b = 2 * a
    g = tf.gradients(a + b, [a, b], stop_gradients=[a, b])
    assert run(g) == [1.0, 1.0]
    g_full = tf.gradients(a + b, [a, b])
    assert run(g_full) == [3.0, 1.0]


# -- variables
def test_variables_as_xs_flow_through_their_read_snapshot():
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
    x = tf.constant([[1.0, 1.0]])
    y = tf.matmul(x, w)
    gw, gread, gref = tf.gradients(y, [w, w.value(), w._ref()])
    np.testing.assert_allclose(run(gw), [[1.0, 1.0], [1.0, 1.0]])
    assert gw is gread is gref


def test_variable_as_y():
    v = tf.Variable(2.0)
    g, = tf.gradients(v, v)
    assert run(g) == 1.0


def test_gradient_descent_step_by_hand():
    w = tf.Variable(5.0)
    loss = tf.square(w - 2.0)
    g, = tf.gradients(loss, w)
    step = tf.assign_sub(w, 0.25 * g)
    with tf.Session() as sess:
        sess.run(w.initializer)
        for _ in range(30):
            sess.run(step)
        assert abs(sess.run(w) - 2.0) < 1e-6


def test_mlp_with_unknown_batch():
    rng = np.random.RandomState(0)
    x = tf.placeholder(tf.float64, [None, 5], name="x")
    labels = tf.placeholder(tf.float64, [None, 3])
    w1 = tf.Variable(rng.randn(5, 4))
    b1 = tf.Variable(rng.randn(4))
    w2 = tf.Variable(rng.randn(4, 3))
    b2 = tf.Variable(rng.randn(3))
    hidden = tf.tanh(tf.matmul(x, w1) + b1)
    out = tf.matmul(hidden, w2) + b2
    loss = tf.reduce_mean(tf.reduce_sum(tf.square(out - labels), axis=1))
    grads = tf.gradients(loss, [w1, b1, w2, b2])
    for g, v in zip(grads, [w1, b1, w2, b2]):
        assert g.shape == v.shape
    xv, lv = rng.randn(6, 5), rng.randn(6, 3)
    got = run(grads, {x: xv, labels: lv})
    # The same by hand in NumPy.
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        w1v, b1v, w2v, b2v = sess.run([w1, b1, w2, b2])
    h = np.tanh(xv @ w1v + b1v)
    d_out = 2 * (h @ w2v + b2v - lv) / len(xv)
    d_h = d_out @ w2v.T * (1 - h * h)
    expected = [xv.T @ d_h, d_h.sum(0), h.T @ d_out, d_out.sum(0)]
    for g, e in zip(got, expected):
        assert_close(g, e, rtol=1e-10)


# -- options
def test_gate_gradients():
    a = tf.constant([1.0, 2.0])
    b = tf.constant([3.0, 4.0])
    ga, gb = tf.gradients(a * b, [a, b], gate_gradients=True)
    np.testing.assert_array_equal(run([ga, gb]), [[3.0, 4.0], [1.0, 2.0]])


def test_gradients_get_the_inputs_static_shape():
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.reduce_sum(x * 2.0, axis=1)
    g, = tf.gradients(y, x)
    assert g.shape.as_list() == [None, 3]


def test_gradients_in_a_graph_that_is_not_the_default():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.constant(2.0)
        y = x * x
    g, = tf.gradients(y, x)
    assert g.graph is graph
    with tf.Session(graph=graph) as sess:
        assert sess.run(g) == 4.0


# -- ops without gradients, several outputs
def _two_outputs_shape(op):
    x = op._inputs[0]
    return [(x.dtype.base_dtype, x.shape), (x.dtype.base_dtype, x.shape)]


registry.register_op("GradientsTestTwoOutputs", _two_outputs_shape,
                     cpu=lambda ctx, x: (x * 2.0, x * 3.0))
registry.register_op("GradientsTestNoGradient", lambda op: [
    (op._inputs[0].dtype.base_dtype, op._inputs[0].shape)], cpu=lambda ctx, x: x)
registry.register_op("GradientsTestBadGradient", lambda op: [
    (op._inputs[0].dtype.base_dtype, op._inputs[0].shape)], cpu=lambda ctx, x: x)


@registry.gradient("GradientsTestTwoOutputs")
def _two_outputs_grad(op, grad_a, grad_b):
    return [grad_a * 2.0 + grad_b * 3.0]


@registry.gradient("GradientsTestBadGradient")
def _bad_grad(op, grad):
    return [grad, grad]


def test_an_unused_output_gets_zeros():
    from tfteach.ops.op_builder import apply_op
    x = tf.constant([1.0, 2.0])
    first, second = apply_op("GradientsTestTwoOutputs", [x], {}, name="two")
    g, = tf.gradients(first, x)
    assert "gradients/zeros_like" in grad_op_names()
    np.testing.assert_array_equal(run(g), [2.0, 2.0])
    g_both, = tf.gradients([first, second], x)
    np.testing.assert_array_equal(run(g_both), [5.0, 5.0])


def test_missing_gradient_is_a_lookup_error():
    from tfteach.ops.op_builder import apply_op
    x = tf.constant([1.0, 2.0])
    y = apply_op("GradientsTestNoGradient", [x], {}, name="mystery")
    with pytest.raises(LookupError, match=r"^No gradient defined for operation 'mystery' "
                                          r"\(op type: GradientsTestNoGradient\)$"):
        tf.gradients(y * 2.0, x)


def test_truncatemod_has_no_gradient_as_in_tensorflow():
    """TF registers a gradient for FloorMod but none for TruncateMod: a loss through
    tf.truncatemod is TF's LookupError, not a silent None."""
    x = tf.placeholder(tf.float32, [2])
    with pytest.raises(LookupError, match=r"^No gradient defined for operation 'TruncateMod' "
                                          r"\(op type: TruncateMod\)$"):
        tf.gradients(tf.truncatemod(x, 3.0), x)
    assert tf.gradients(tf.floormod(x, 3.0), x)[0] is not None


def test_wrong_number_of_gradients_is_an_error():
    from tfteach.ops.op_builder import apply_op
    x = tf.constant([1.0, 2.0])
    y = apply_op("GradientsTestBadGradient", [x], {}, name="bad")
    with pytest.raises(ValueError, match="Num gradients 2 generated for op"):
        tf.gradients(y, x)


def test_incompatible_gradient_shape_is_an_error():
    registry.register_op("GradientsTestWrongShape", lambda op: [
        (op._inputs[0].dtype.base_dtype, tensor_shape.TensorShape([2]))],
        cpu=lambda ctx, x: x)

    @registry.gradient("GradientsTestWrongShape")
    def _wrong(op, grad):
        return [tf.constant([1.0, 2.0, 3.0])]
    from tfteach.ops.op_builder import apply_op
    x = tf.constant([1.0, 2.0])
    y = apply_op("GradientsTestWrongShape", [x], {}, name="wrong")
    with pytest.raises(ValueError, match="Incompatible shapes between op input and "
                                         "calculated input gradient"):
        tf.gradients(y, x)


# -- the checker checks
def test_gradient_checker_detects_a_wrong_gradient():
    registry.register_op("GradientsTestWrongValue", lambda op: [
        (op._inputs[0].dtype.base_dtype, op._inputs[0].shape)], cpu=lambda ctx, x: x * x)

    @registry.gradient("GradientsTestWrongValue")
    def _wrong(op, grad):
        return [grad * op.inputs[0]]          # should be 2 * x

    from tfteach.ops.op_builder import apply_op

    def build(tf_module, x):
        return apply_op("GradientsTestWrongValue", [x], {})
    with pytest.raises(AssertionError, match="differs from finite differences"):
        check_gradients(build, [np.array([1.0, 2.0])])
