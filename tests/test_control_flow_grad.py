"""Gradients through tf.cond (Switch/Merge, as TF1) and tf.while_loop (WhileGrad)."""
import numpy as np
import pytest

import tfteach as tf
from gradient_check import check_gradients, check_gradients_match_tensorflow
from tf_reference import tensorflow_v1
from tfteach.ops.cond_ops import merge, switch
from tolerances import assert_close


def _rand(*shape, seed=0):
    return np.random.RandomState(seed).uniform(-2.0, 2.0, shape)


def traced_names(sess, fetches, feed):
    opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    meta = tf.RunMetadata()
    value = sess.run(fetches, feed, options=opts, run_metadata=meta)
    return value, [(n.node_name, n.op) for d in meta.step_stats.dev_stats
                   for n in d.node_stats]


# -- tf.cond ------------------------------------------------------------------------------------
def _cond_build(tf, p, x, w):
    return tf.cond(p, lambda: tf.reduce_sum(x * x * w), lambda: tf.reduce_sum(3.0 * x))


@pytest.mark.parametrize("pred", [True, False])
def test_cond_gradient_is_the_taken_branchs(pred):
    x, w = _rand(2, 3), _rand(3, seed=1)
    grads = check_gradients(_cond_build, [np.array(pred), x, w], grad_ys="ones")
    np.testing.assert_allclose(grads[0], 2 * x * w if pred else np.full_like(x, 3.0))
    if not pred:
        np.testing.assert_array_equal(grads[1], 0.0)     # w is used only in the true branch


@pytest.mark.parametrize("pred", [True, False])
def test_cond_gradient_runs_only_the_taken_branch(pred):
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.placeholder(tf.float64, [2], name="x")
    r = tf.cond(p, lambda: tf.sin(x), lambda: tf.exp(x))
    g, = tf.gradients(r, x)
    with tf.Session() as sess:
        value, ran = traced_names(sess, g, {p: pred, x: [0.5, 1.0]})
    np.testing.assert_allclose(value, np.cos([0.5, 1.0]) if pred else np.exp([0.5, 1.0]))
    names = [name for name, _ in ran]
    taken, untaken = ("Sin", "Exp") if pred else ("Exp", "Sin")
    assert "cond/%s" % untaken not in names
    assert any(name.startswith("gradients/cond/%s_grad/" % taken) for name in names)
    assert not any(name.startswith("gradients/cond/%s_grad/" % untaken) for name in names)
    # x's gradient leaves both branches through a Merge (the untaken side gives zeros)
    for op in ("Sin", "Exp"):
        assert ("gradients/cond/%s/Switch_grad/cond_grad" % op, "Merge") in ran


def test_cond_gradient_graph_matches_tensorflow_names():
    tf1 = tensorflow_v1()
    tf1.disable_control_flow_v2()
    try:
        names = []
        for module in (tf1, tf):
            graph = module.Graph()
            with graph.as_default():
                p = module.placeholder(module.bool, [])
                x = module.placeholder(module.float64, [])
                r = module.cond(p, lambda: x * x, lambda: module.sin(x))
                module.gradients(r, x)
                names.append({op.name: op.type for op in graph.get_operations()
                              if "Switch" in op.type or "Merge" in op.type or
                              op.name.startswith(("gradients/zeros", "gradients/Identity"))})
        assert names[1] == names[0]
    finally:
        tf1.enable_control_flow_v2()


@pytest.mark.parametrize("outer, inner", [(True, True), (True, False), (False, True),
                                          (False, False)])
def test_nested_conds(outer, inner):
    def build(tf, p, q, x, y):
        def true_fn():
            return tf.cond(q, lambda: x * y * y, lambda: tf.sin(x) + y)
        return tf.cond(p, true_fn, lambda: tf.cos(y) * x * 2.0)
    grads = check_gradients(build, [np.array(outer), np.array(inner), _rand(3), _rand(3, seed=1)])
    assert all(g is not None for g in grads)


def test_cond_with_several_outputs_only_one_differentiated():
    def build(tf, p, x):
        a, b = tf.cond(p, lambda: (x * 2.0, tf.square(x)), lambda: (x - 1.0, tf.tanh(x)))
        return b
    for pred in (True, False):
        check_gradients(build, [np.array(pred), _rand(4)])


def test_cond_gradient_values_match_tensorflow():
    for pred in (True, False):
        check_gradients_match_tensorflow(_cond_build, [np.array(pred), _rand(2, 3),
                                                       _rand(3, seed=1)])


def test_gradient_through_a_hand_built_switch_and_merge():
    p = tf.placeholder(tf.bool, [])
    x = tf.placeholder(tf.float64, [])
    false_side, true_side = switch(x, p)
    out = merge([false_side * 3.0, true_side * true_side])[0]
    g, = tf.gradients(out, x)
    with tf.Session() as sess:
        assert sess.run(g, {p: True, x: 2.0}) == 4.0
        assert sess.run(g, {p: False, x: 2.0}) == 3.0


# -- tf.while_loop --------------------------------------------------------------------------------
def _power(tf, x, n):
    return tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * x),
                         [0, tf.ones_like(x)])[1]


@pytest.mark.parametrize("n", [0, 1, 4])
def test_while_gradient_of_a_power(n):
    x = np.array([1.5, -0.7])
    grads = check_gradients(_power, [x, np.array(n, np.int32)], grad_ys="ones")
    np.testing.assert_allclose(grads[0], n * x ** (n - 1) if n else 0.0)


def test_while_gradient_with_unknown_shapes_and_captured_tensors():
    def rnn(tf, h0, w, xs):
        steps = tf.shape(xs)[0]

        def body(t, h):
            return t + 1, tf.tanh(tf.matmul(h, w) + tf.gather(xs, t))
        return tf.while_loop(lambda t, h: t < steps, body, [0, h0])[1]
    check_gradients(rnn, [_rand(2, 3) * 0.5, _rand(3, 3, seed=1) * 0.5,
                          _rand(4, 2, 3, seed=2)], shapes=[[None, 3], None, [None, 2, 3]])


def test_while_gradient_of_initial_values_and_several_loop_variables():
    def build(tf, a, b, c):
        def body(i, a, b):
            return i + 1, a * b + c, tf.sin(a) - b * c
        _, a, b = tf.while_loop(lambda i, a, b: i < 3, body, [0, a, b])
        return [a, b]
    check_gradients(build, [_rand(2) * 0.5, _rand(2, seed=1) * 0.5, np.array(0.3)])


def test_while_gradient_with_maximum_iterations_and_a_cond_in_the_body():
    def build(tf, x):
        def body(i, y):
            y = tf.cond(i % 2 < 1, lambda: y * x, lambda: tf.sin(y) + x)
            return [i + 1, y]          # a list, like loop_vars (TF checks the kinds)
        return tf.while_loop(lambda i, y: True, body, [0, x], maximum_iterations=5)[1]
    check_gradients(build, [_rand(3)])


def test_while_gradient_of_a_loop_multiplying_by_a_variable():
    w = tf.Variable(np.array([1.5, 0.5]), name="w")
    x = tf.placeholder(tf.float64, [2])
    y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * w), [0, x])[1]
    loss = tf.reduce_sum(y)
    gw, gx = tf.gradients(loss, [w, x])
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        xv = np.array([2.0, -1.0])
        got_w, got_x = sess.run([gw, gx], {x: xv})
        np.testing.assert_allclose(got_w, 3 * xv * np.array([1.5, 0.5]) ** 2)
        np.testing.assert_allclose(got_x, np.array([1.5, 0.5]) ** 3)
        sess.run(step, {x: xv})
        # (the learning rate is a float32 0.1 cast to float64, as in TF)
        np.testing.assert_allclose(sess.run(w), [1.5, 0.5] - 0.1 * got_w, rtol=1e-6)


def test_while_gradient_uses_the_forward_iterations_values():
    # A random op in the body: the gradient must use the values the forward run drew.
    x = tf.placeholder(tf.float64, [3])
    y = tf.while_loop(lambda i, y: i < 4,
                      lambda i, y: (i + 1, y * tf.random_uniform([3], 0.5, 1.5, tf.float64)),
                      [0, x])[1]
    g, = tf.gradients(y, x)
    with tf.Session() as sess:
        xv = np.array([1.0, 2.0, -3.0])
        yv, gv = sess.run([y, g], {x: xv})
        np.testing.assert_allclose(gv, yv / xv)


def test_while_body_runs_once_per_iteration_also_with_a_gradient():
    counter = tf.Variable(0, name="counter")
    x = tf.placeholder(tf.float64, [])

    def body(i, y):
        with tf.control_dependencies([tf.assign_add(counter, 1)]):
            return i + 1, y * x
    y = tf.while_loop(lambda i, y: i < 3, body, [0, tf.constant(1.0, tf.float64)])[1]
    g, = tf.gradients(y, x)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(g, {x: 2.0}) == 12.0
        assert sess.run(counter) == 3


def test_while_gradient_values_match_tensorflow():
    check_gradients_match_tensorflow(_power, [np.array([1.5, -0.7]), np.array(3, np.int32)])


def test_nested_while_gradient():
    # Nested loops are differentiable (more in test_nested_control_flow_grad.py).
    x = tf.placeholder(tf.float64, [])

    def body(i, y):
        inner = tf.while_loop(lambda j, z: j < 2, lambda j, z: (j + 1, z * x), [0, y])[1]
        return i + 1, inner
    y = tf.while_loop(lambda i, y: i < 2, body, [0, x])[1]      # x ** 5
    g, = tf.gradients(y, x)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(g, {x: 1.5}), 5 * 1.5 ** 4)


@pytest.mark.parametrize("pred", [True, False])
def test_loop_capturing_a_tensor_that_may_be_dead(pred):
    # A top-level loop uses both sides of a Switch: the dead one is dead inside the body
    # too, and the body's Merge forwards the live one (TF1's Enter of a dead tensor).
    p = tf.placeholder(tf.bool, [])
    x = tf.placeholder(tf.float64, [])
    false_side, true_side = switch(x, p)
    y = tf.while_loop(lambda i, y: i < 3,
                      lambda i, y: (i + 1, y + merge([false_side * 2.0, true_side * 3.0])[0]),
                      [0, tf.constant(0.0, tf.float64)])[1]
    with tf.Session() as sess:
        assert sess.run(y, {p: pred, x: 1.5}) == 3 * 1.5 * (3.0 if pred else 2.0)


def test_while_gradient_with_fed_results_fails_clearly():
    x = tf.placeholder(tf.float64, [])
    y = tf.while_loop(lambda i, y: i < 2, lambda i, y: (i + 1, y * x), [0, x])[1]
    g, = tf.gradients(y, x)
    loop_output = tf.get_default_graph().get_tensor_by_name("while:1")
    with tf.Session() as sess:
        assert sess.run(g, {x: 2.0, y: 5.0}) == 12.0    # feeding the Exit: loop still runs
        with pytest.raises(tf.errors.InvalidArgumentError, match="were its results fed"):
            sess.run(g, {x: 2.0, loop_output: 3.0})


def test_while_gradient_inside_a_cond():
    def build(tf, p, x):
        return tf.cond(p, lambda: _power(tf, x, 3), lambda: x * 2.0)
    for pred in (True, False):
        check_gradients(build, [np.array(pred), _rand(2)])


def test_two_gradients_of_one_loop_and_an_unchanged_loop_variable():
    x = tf.placeholder(tf.float64, [2])
    w = tf.constant([0.5, 2.0], tf.float64)
    _, y, z = tf.while_loop(lambda i, y, z: i < 3,
                            lambda i, y, z: (i + 1, y * w + z, z), [0, x, x * 3.0])
    gy, = tf.gradients(y, x)
    gz, gw = tf.gradients(tf.reduce_sum(y * z), [x, w])
    with tf.Session() as sess:
        xv = np.array([1.0, -2.0])
        got = sess.run([gy, gz, gw], {x: xv})
    wv = np.array([0.5, 2.0])
    # y3 = x w^3 + 3x (w^2 + w + 1), z = 3x
    np.testing.assert_allclose(got[0], wv ** 3 + 3 * (wv ** 2 + wv + 1))
    y3 = xv * wv ** 3 + 3 * xv * (wv ** 2 + wv + 1)
    np.testing.assert_allclose(got[1], 3 * xv * got[0] + 3 * y3)
    np.testing.assert_allclose(got[2], 3 * xv * (3 * xv * wv ** 2 + 3 * xv * (2 * wv + 1)))


def test_second_derivative_of_a_loop_is_a_clear_type_error():
    x = tf.placeholder(tf.float64, [])
    y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x), [0, x])[1]
    g, = tf.gradients(y, x)
    # TensorFlow 1.15's class; still a LookupError for code that catches "no gradient"
    with pytest.raises(TypeError, match="Second-order gradient for while loops not supported"):
        tf.gradients(g, x)
    with pytest.raises(LookupError, match="WhileGrad"):
        tf.gradients(g, x)


def test_while_gradient_of_a_growing_loop_variable():
    def grow(tf, x, y0):
        def body(i, y):
            return i + 1, tf.concat([y, y[-1:] * x], 0)
        return tf.while_loop(lambda i, y: i < 3, body, [0, y0],
                             shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])[1]
    check_gradients(grow, [np.array(1.3), np.array([0.5, -1.0])])
    check_gradients_match_tensorflow(grow, [np.array(1.3), np.array([0.5, -1.0])])


def test_while_gradient_built_after_the_loop_already_ran():
    x = tf.placeholder(tf.float64, [])
    y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x), [0, x])[1]
    with tf.Session() as sess:
        assert sess.run(y, {x: 2.0}) == 16.0
        g, = tf.gradients(y, x)           # the loop now records its iterations
        assert sess.run(g, {x: 2.0}) == 32.0


def test_captured_gradient_sums_are_fresh_arrays_each_run():
    """The sum over iterations of a captured tensor's gradient is added up in place in
    the WhileGrad kernel's own array: a result fetched earlier is never changed by a
    later run, and a float32 sum stays float32."""
    w_value = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)
    w = tf.constant(w_value)
    x = tf.placeholder(tf.float32, [2, 2])
    y = tf.while_loop(lambda i, y: i < 4, lambda i, y: (i + 1, tf.matmul(y, w) * 0.5),
                      [0, x])[1]
    gw, = tf.gradients(tf.reduce_sum(y), w)
    with tf.Session() as sess:
        first = sess.run(gw, {x: np.eye(2, dtype=np.float32)})
        kept = first.copy()
        second = sess.run(gw, {x: 2 * np.eye(2, dtype=np.float32)})
    assert first.dtype == np.float32
    np.testing.assert_array_equal(first, kept)
    np.testing.assert_allclose(second, 2 * first, rtol=1e-6)
    # Independently: d/dw sum((x (w/2)^4)) by central differences in float64.
    def f(wv):
        m = np.linalg.matrix_power(wv * 0.5, 4)
        return m.sum()
    w64, eps = w_value.astype(np.float64), 1e-6
    numeric = np.zeros((2, 2))
    for idx in np.ndindex(2, 2):
        d = np.zeros((2, 2))
        d[idx] = eps
        numeric[idx] = (f(w64 + d) - f(w64 - d)) / (2 * eps)
    assert_close(first, numeric, rtol=1e-4)


# -- a captured weight's gradient: all iterations' products as one GEMM ------------------------
def _recurrence(tf, h0, w_x, w_h, xs):
    """h_{t+1} = tanh(x_t @ W_x + h_t @ W_h) over the rows of xs: both weights captured."""
    def body(t, h):
        return t + 1, tf.tanh(tf.matmul(tf.gather(xs, t), w_x) + tf.matmul(h, w_h))
    return tf.while_loop(lambda t, h: t < tf.shape(xs)[0], body, [0, h0])[1]


def _recurrence_inputs():
    return [_rand(3, 4) * 0.5, _rand(2, 4, seed=1) * 0.5, _rand(4, 4, seed=2) * 0.5,
            _rand(6, 3, 2, seed=3)]


def _grad_plan_kernels(sess):
    from tfteach.kernels.cpu import linalg
    (grad_op,) = [op for op in sess.graph.get_operations() if op.type == "WhileGrad"]
    plan = sess._kernel_context(grad_op).state["plan"]
    return [s.kernel for s in plan.fast_steps], linalg.summed_matmul_kernel


def test_captured_weight_gradients_are_deferred_products_summed_as_one():
    """Both weight gradients of the loop body (x_t^T @ dy, h_t^T @ dy) come out of the
    gradient sub-plan as DeferredProducts; WhileGrad multiplies all iterations' operands
    together. Values: NumPy's own backpropagation through time, in float64."""
    h0, w_x, w_h, xs = _recurrence_inputs()
    graph = tf.Graph()
    with graph.as_default():
        feeds = [tf.placeholder(tf.float64, v.shape) for v in (h0, w_x, w_h, xs)]
        h = _recurrence(tf, *feeds)
        grads = tf.gradients(tf.reduce_sum(h), feeds[1:3])
        with tf.Session() as sess:
            got = sess.run(grads, dict(zip(feeds, (h0, w_x, w_h, xs))))
            kernels, summed = _grad_plan_kernels(sess)
    assert kernels.count(summed) == 2
    hs = [h0]
    for x in xs:
        hs.append(np.tanh(x @ w_x + hs[-1] @ w_h))
    dh, g_x, g_h = np.ones_like(h0), np.zeros_like(w_x), np.zeros_like(w_h)
    for t in reversed(range(len(xs))):
        dz = dh * (1 - hs[t + 1] ** 2)
        g_x += xs[t].T @ dz
        g_h += hs[t].T @ dz
        dh = dz @ w_h.T
    assert_close(got[0], g_x, rtol=1e-12)
    assert_close(got[1], g_h, rtol=1e-12)


@pytest.mark.parametrize("max_inner", [1, 5, 2048])
def test_weight_gradients_summed_in_batches_match_finite_differences(monkeypatch, max_inner):
    """However many iterations wait before their products are multiplied (1: each alone,
    5: batches of two iterations of batch 3, 2048: all at the end), the sum is the same."""
    from tfteach.runtime import loop_sums
    monkeypatch.setattr(loop_sums.Products, "MAX_INNER", max_inner)
    check_gradients(_recurrence, _recurrence_inputs(), shapes=[[None, 4], None, None, None])


def test_weight_gradient_of_a_loop_whose_batch_grows():
    """Each iteration doubles the rows multiplied by the captured weight, so every
    iteration's product has another inner size; they are still summed as one."""
    def grow(tf, y0, w):
        def body(i, y):
            return i + 1, tf.concat([y, tf.sin(tf.matmul(y, w))], 0)
        return tf.while_loop(lambda i, y: i < 3, body, [0, y0],
                             shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, 2])])[1]
    check_gradients(grow, [_rand(1, 2) * 0.5, _rand(2, 2, seed=1)])
    check_gradients_match_tensorflow(grow, [_rand(1, 2) * 0.5, _rand(2, 2, seed=1)])


def test_float16_weight_gradients_are_summed_as_arrays():
    """The sub-plan defers float32/64 products only; float16 ones come back as arrays."""
    x = tf.placeholder(tf.float16, [2, 2])
    w_value = np.array([[0.5, -0.25], [1.0, 0.75]])
    w = tf.constant(w_value.astype(np.float16))
    y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, tf.matmul(y, w)), [0, x])[1]
    gw, = tf.gradients(tf.reduce_sum(y), w)
    with tf.Session() as sess:
        got = sess.run(gw, {x: np.eye(2, dtype=np.float16)})
    assert got.dtype == np.float16
    # y = w^3 (x = I): d sum(w^3) / dw = sum over t of (w^t)^T 1 (w^(2-t))^T
    ones = np.ones((2, 2))
    want = sum(np.linalg.matrix_power(w_value, t).T @ ones @
               np.linalg.matrix_power(w_value, 2 - t).T for t in range(3))
    assert_close(got.astype(np.float64), want, rtol=3e-3)


def test_a_plan_defers_a_summed_product_only_when_nothing_else_reads_it():
    from tfteach.kernels.cpu.linalg import DeferredProduct
    from tfteach.runtime.executor import Plan
    a = tf.constant(_rand(3, 2).astype(np.float32))
    b = tf.constant(_rand(2, 4, seed=1).astype(np.float32))
    p = tf.placeholder(tf.float32, [3, 2])
    y = tf.matmul(p, b)
    twice = y * 2.0
    with tf.Session() as sess:
        value = sess.run(a)
        alone = Plan(sess, (y,), (p,), (), summed=(y,)).run([value])[0]
        assert isinstance(alone, DeferredProduct)
        np.testing.assert_allclose(alone.compute(), value @ sess.run(b), rtol=1e-6)
        shared = Plan(sess, (y, twice), (p,), (), summed=(y,)).run([value])
        assert isinstance(shared[0], np.ndarray)
        np.testing.assert_allclose(shared[1], 2 * shared[0])
        assert isinstance(Plan(sess, (y,), (p,), ()).run([value])[0], np.ndarray)


def test_weight_gradient_of_a_loop_that_runs_zero_times_is_zeros():
    w = tf.constant(_rand(3, 3).astype(np.float32))
    x = tf.placeholder(tf.float32, [2, 3])
    n = tf.placeholder(tf.int32, [])
    y = tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, tf.matmul(y, w)), [0, x])[1]
    gw, = tf.gradients(tf.reduce_sum(y), w)
    with tf.Session() as sess:
        feed = {x: _rand(2, 3, seed=4).astype(np.float32)}
        none = sess.run(gw, {n: 0, **feed})
        some = sess.run(gw, {n: 2, **feed})
    assert none.dtype == np.float32 and none.shape == (3, 3)
    np.testing.assert_array_equal(none, np.zeros((3, 3)))
    xv, wv = feed[x].astype(np.float64), _rand(3, 3)
    ones = np.ones((2, 3))
    want = xv.T @ ones @ wv.T + (xv @ wv).T @ ones      # d/dw sum(x w w)
    assert_close(some, want, rtol=1e-5)


def test_weight_used_twice_in_the_body_gets_both_gradients():
    """Two products with the same captured weight: the body's gradient for it is their
    AddN (not one product), summed over the iterations as an array."""
    def twice(tf, h0, w):
        def body(t, h):
            return t + 1, tf.tanh(tf.matmul(h, w)) + tf.matmul(tf.sin(h), w)
        return tf.while_loop(lambda t, h: t < 3, body, [0, h0])[1]
    check_gradients(twice, [_rand(2, 3) * 0.5, _rand(3, 3, seed=1) * 0.5])


# -- only the captured tensors the call asks about get a gradient -------------------------
def _rnn_on_a_placeholder():
    """A loop gathering rows of a fed sequence `xs` (as dynamic_rnn does) and a weight."""
    xs = tf.placeholder(tf.float64, [4, 2, 3])
    w = tf.Variable(_rand(3, 3, seed=1) * 0.5)
    h0 = tf.constant(_rand(2, 3, seed=3) * 0.5)

    def body(t, h):
        return t + 1, tf.tanh(tf.matmul(h, w) + tf.gather(xs * 2.0, t))
    h = tf.while_loop(lambda t, h: t < 4, body, [0, h0])[1]
    return xs, w, tf.reduce_sum(h * h)


def _while_grads(graph):
    return [op for op in graph.get_operations() if op.type == "WhileGrad"]


def test_a_loop_gradient_leaves_out_a_captured_tensor_nobody_asked_about():
    graph = tf.Graph()
    with graph.as_default():
        xs, w, loss = _rnn_on_a_placeholder()
        (dw_only,) = tf.gradients(loss, [w])
        (weights_loop,) = _while_grads(graph)
        dw, dxs = tf.gradients(loss, [w, xs])
        both_loop = [op for op in _while_grads(graph) if op is not weights_loop][0]
        # The input sequence's gradient is a captured tensor's sum the first loop has
        # no output for (as TF 1.15, which builds gradient ops of between ops only).
        assert len(weights_loop.outputs) == len(both_loop.outputs) - 1
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            feed = {xs: _rand(4, 2, 3, seed=2)}
            got_only, got_dw, got_dxs = sess.run([dw_only, dw, dxs], feed)
            h = _rand(2, 3, seed=3) * 0.5
    # The weight's gradient is the same array of bits either way, and both are right.
    np.testing.assert_array_equal(got_only, got_dw)
    wv = _rand(3, 3, seed=1) * 0.5
    x2 = 2.0 * _rand(4, 2, 3, seed=2)
    hs = [h]
    for t in range(4):
        hs.append(np.tanh(hs[-1] @ wv + x2[t]))
    dh, dw_expected, dx_expected = 2 * hs[-1], np.zeros((3, 3)), np.zeros((4, 2, 3))
    for t in reversed(range(4)):
        dpre = dh * (1 - hs[t + 1] ** 2)
        dw_expected += hs[t].T @ dpre
        dx_expected[t] = 2.0 * dpre
        dh = dpre @ wv.T
    np.testing.assert_allclose(got_dw, dw_expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got_dxs, dx_expected, rtol=1e-12, atol=1e-12)


def test_two_loops_in_one_call_each_leave_their_input_out_and_the_call_ends_clean():
    from tfteach.ops.gradients_impl import leads_to_xs
    graph = tf.Graph()
    with graph.as_default():
        xs, w, loss = _rnn_on_a_placeholder()
        xs2, w2, loss2 = _rnn_on_a_placeholder()
        dw, dw2 = tf.gradients(loss + loss2, [w, w2])
        assert [len(op.outputs) for op in _while_grads(graph)] == [2, 2]   # h, w
        # The walk's choice does not outlive the call (nor leak into the next one).
        assert leads_to_xs(xs) and leads_to_xs(xs2)
        (dxs,) = tf.gradients(loss, [xs])
        assert len(_while_grads(graph)[-1].outputs) == 2                    # h, xs * 2
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            x = _rand(4, 2, 3, seed=2)
            a, b, gx = sess.run([dw, dw2, dxs], {xs: x, xs2: x})
    np.testing.assert_array_equal(a, b)
    assert gx.shape == (4, 2, 3) and np.all(np.isfinite(gx)) and np.any(gx != 0)
