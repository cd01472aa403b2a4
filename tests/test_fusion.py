"""The plan's fusions: a weight gradient written by GEMM into its update, and a
convolution's patch matrix shared with its filter gradient.

Checked against NumPy in float64 (the GEMM itself, every operand layout), against the
unfused loop of the same Session (a traced run executes the ops one by one), and against
hand-written gradient descent. The plan may fuse only where nobody can tell: a product
that is fetched or read twice is computed as before, a value the student holds is not
changed, and errors are TF's, from the op that TF names.
"""
import numpy as np
import pytest

import tfteach as tf
from tfteach.kernels.cpu import gemm_update, linalg, two_workers
from tfteach.kernels.cpu.linalg import deferred_matmul_kernel
from device_helpers import counted_allocations, virtual_gpus  # noqa: F401 (fixture)

pytestmark = pytest.mark.skipif(not gemm_update.can_add_product(np.float32),
                                reason="NumPy's BLAS is not OpenBLAS: nothing is fused")


# -- the GEMM --------------------------------------------------------------------------
def _layouts(rng, x):
    """x itself, as a Fortran-ordered array, as a transposed view, as a strided view."""
    wide = np.repeat(x, 2, axis=1)
    return [x, np.asfortranarray(x), np.ascontiguousarray(x.T).T, wide[:, ::2]]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m, k, n", [(5, 7, 3), (1, 4, 6), (6, 1, 2), (3, 5, 1), (1, 1, 1),
                                     (64, 33, 17)])
def test_add_product_matches_numpy_for_every_layout(dtype, m, k, n):
    rng = np.random.RandomState(m * 100 + k * 10 + n)
    a0, b0 = rng.randn(m, k).astype(dtype), rng.randn(k, n).astype(dtype)
    c0 = rng.randn(m, n).astype(dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for a in _layouts(rng, a0):
        for b in _layouts(rng, b0):
            for c in (c0.copy(), np.array(c0, order="F")):
                gemm_update.add_product(c, a, b, -0.25)
                want = c0.astype(np.float64) - 0.25 * (a0.astype(np.float64) @ b0)
                np.testing.assert_allclose(c, want, rtol=tol, atol=tol)
                assert c.dtype == dtype


def test_add_product_into_row_and_column_blocks_leaves_the_rest_alone():
    rng = np.random.RandomState(1)
    a, b = rng.randn(6, 4).astype(np.float32), rng.randn(4, 8).astype(np.float32)
    c = np.zeros((6, 8), np.float32)
    gemm_update.add_product(c[2:5], a[2:5], b, 1.0)
    gemm_update.add_product(c[:, 6:], a, b[:, 6:], 1.0)
    want = np.zeros((6, 8))
    want[2:5] += a[2:5].astype(np.float64) @ b
    want[:, 6:] += a.astype(np.float64) @ b[:, 6:]
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-6)


def test_add_product_with_an_empty_inner_dimension_changes_nothing():
    c = np.ones((2, 3), np.float32)
    gemm_update.add_product(c, np.ones((2, 0), np.float32), np.ones((0, 3), np.float32), 1.0)
    np.testing.assert_array_equal(c, np.ones((2, 3)))


def test_add_product_refuses_what_it_cannot_write_safely():
    a, b = np.ones((2, 2), np.float32), np.ones((2, 2), np.float32)
    frozen = np.zeros((2, 2), np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="in place"):
        gemm_update.add_product(frozen, a, b, 1.0)
    with pytest.raises(ValueError, match="overlaps"):
        gemm_update.add_product(a, a, b, 1.0)
    with pytest.raises(ValueError, match="shapes"):
        gemm_update.add_product(np.zeros((3, 2), np.float32), a, b, 1.0)
    np.testing.assert_array_equal(frozen, 0)
    assert not gemm_update.can_add_product(np.float16)
    assert not gemm_update.can_add_product(np.int32)


# -- the plan --------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def defer_every_product(monkeypatch, request):
    """The small test graphs take the GEMM path too (in real steps only big ones do)."""
    if "keep_threshold" not in request.keywords:
        monkeypatch.setattr(linalg, "MIN_DEFERRED_WORK", 0)


@pytest.mark.keep_threshold
def test_a_small_product_is_computed_at_once_even_in_a_fused_plan():
    class Context:
        attrs = {"transpose_a": True, "transpose_b": False}
    x, dy = np.ones((100, 500), np.float32), np.ones((100, 10), np.float32)
    small = deferred_matmul_kernel(Context(), x, dy)            # 500x10x100 = 0.5M
    assert isinstance(small, np.ndarray) and small.shape == (500, 10)
    np.testing.assert_array_equal(small, np.full((500, 10), 100))
    big = deferred_matmul_kernel(Context(), np.ones((100, 784), np.float32),
                                 np.ones((100, 500), np.float32))   # 39M
    assert isinstance(big, linalg.DeferredProduct) and big.shape == (784, 500)
    np.testing.assert_array_equal(big.compute(), np.full((784, 500), 100))


def _mlp(batch=16, hidden=24):
    """784-free small MLP: x -> relu(x W1 + b1) -> W2 -> softmax loss; GD 0.5."""
    rng = np.random.RandomState(0)
    x_val = rng.rand(batch, 12).astype(np.float32)
    y_val = np.eye(3, dtype=np.float32)[rng.randint(0, 3, size=batch)]
    w1_val = rng.randn(12, hidden).astype(np.float32) * 0.3
    w2_val = rng.randn(hidden, 3).astype(np.float32) * 0.3
    x = tf.placeholder(tf.float32, [None, 12])
    y = tf.placeholder(tf.float32, [None, 3])
    w1, b1 = tf.Variable(w1_val, name="w1"), tf.Variable(tf.zeros([hidden]), name="b1")
    w2 = tf.Variable(w2_val, name="w2")
    hidden_out = tf.nn.relu(tf.matmul(x, w1) + b1)
    logits = tf.matmul(hidden_out, w2)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    return dict(x=x, y=y, w1=w1, b1=b1, w2=w2, loss=loss, x_val=x_val, y_val=y_val,
                w1_val=w1_val, w2_val=w2_val, optimizer=tf.train.GradientDescentOptimizer(0.5))


def _numpy_steps(net, steps):
    """The same training by hand, in float64."""
    x, y = net["x_val"].astype(np.float64), net["y_val"]
    w1, w2 = net["w1_val"].astype(np.float64), net["w2_val"].astype(np.float64)
    b1 = np.zeros(w1.shape[1])
    for _ in range(steps):
        pre = x @ w1 + b1
        h = np.maximum(pre, 0)
        logits = h @ w2
        p = np.exp(logits - logits.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        d_logits = (p - y) / len(x)
        d_pre = (d_logits @ w2.T) * (pre > 0)
        w2 = w2 - 0.5 * (h.T @ d_logits)
        w1, b1 = w1 - 0.5 * (x.T @ d_pre), b1 - 0.5 * d_pre.sum(0)
    return w1, w2


def _deferred_ops(sess):
    """Names of the MatMuls that the fast loops of the session's plans defer."""
    return sorted({s.op.name for plan in sess._plans.values() for s in plan.fast_steps
                   if s.kernel is deferred_matmul_kernel})


def _trained(net, steps=5, then=lambda: None):
    """(the deferred MatMuls, [w1, w2], then()) after `steps` steps of `net`'s training;
    `then` runs before the session closes."""
    train = net["optimizer"].minimize(net["loss"])
    feed = {net["x"]: net["x_val"], net["y"]: net["y_val"]}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(steps):
            sess.run(train, feed)
        return _deferred_ops(sess), sess.run([net["w1"], net["w2"]]), then()


def test_training_defers_both_weight_gradients_and_matches_numpy():
    with tf.Graph().as_default():
        net = _mlp()
        deferred, (w1, w2), _ = _trained(net)
    # w1's gradient goes straight to its update; w2's through gradients' tuple Identity
    assert deferred == ["gradients/MatMul_1_grad/MatMul_1", "gradients/MatMul_grad/MatMul_1"]
    want_w1, want_w2 = _numpy_steps(net, 5)
    np.testing.assert_allclose(w1, want_w1, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(w2, want_w2, rtol=1e-4, atol=1e-5)


def test_a_virtual_gpu_defers_weight_gradients_into_updates_charged_as_before(
        virtual_gpus, monkeypatch):
    # On a virtual GPU (the course kernel's) the deferred product is charged as the
    # gradient tensor it stands for, from its MatMul to its update, so every tensor, its
    # size and the figures are those of the steps as built (fusion.py, fusion 1).
    from tfteach.runtime import fusion
    results = []
    for fused in (True, False):
        virtual_gpus(1, memory_limit=1024)               # a fresh allocator
        if not fused:
            monkeypatch.setattr(fusion, "defer_products_into_updates",
                                lambda steps, *args, **kwargs: steps)
        with counted_allocations() as counts, tf.Graph().as_default():
            net = _mlp(batch=100, hidden=500)            # 12 x 500: past MIN_DEFERRED_WORK
            deferred, weights, stats = _trained(net, then=tf.config.memory_stats)
        results.append((deferred, weights, counts, stats))
    (deferred, weights, counts, stats), (_, plain_weights, plain_counts, plain_stats) = results
    assert deferred == ["gradients/MatMul_1_grad/MatMul_1", "gradients/MatMul_grad/MatMul_1"]
    assert counts == plain_counts
    for figure in ("peak_bytes_in_use", "num_allocs", "largest_alloc_size", "bytes_in_use",
                   "live_buffers"):
        assert stats[figure] == plain_stats[figure], figure
    want = _numpy_steps(net, 5)
    for got, plain, expected in zip(weights, plain_weights, want):
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(got, plain, rtol=1e-5, atol=1e-6)


def test_fused_and_traced_runs_agree():
    """A traced run executes the unfused ops; both sessions must train alike."""
    results = []
    for options in (None, tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)):
        with tf.Graph().as_default():
            net = _mlp()
            train = net["optimizer"].minimize(net["loss"])
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(4):
                    sess.run(train, {net["x"]: net["x_val"], net["y"]: net["y_val"]},
                             options=options, run_metadata=tf.RunMetadata() if options else None)
                results.append(sess.run([net["w1"], net["w2"]]))
    for fused, traced in zip(*results):
        np.testing.assert_allclose(fused, traced, rtol=1e-5, atol=1e-6)


def test_a_fetched_or_shared_gradient_is_computed_as_before():
    with tf.Graph().as_default():
        net = _mlp()
        grads_and_vars = net["optimizer"].compute_gradients(net["loss"])
        train = net["optimizer"].apply_gradients(grads_and_vars)
        grad_w1 = grads_and_vars[0][0]
        norm_w2 = tf.reduce_sum(tf.square(grads_and_vars[2][0]))   # a second reader of it
        feed = {net["x"]: net["x_val"], net["y"]: net["y_val"]}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            w1_before = sess.run(net["w1"])
            got_grad, got_norm, _ = sess.run([grad_w1, norm_w2, train], feed)
            assert _deferred_ops(sess) == []
            w1_after = sess.run(net["w1"])
    assert isinstance(got_grad, np.ndarray) and got_grad.shape == (12, 24)
    np.testing.assert_allclose(w1_after, w1_before - 0.5 * got_grad, rtol=1e-5, atol=1e-6)
    assert np.isfinite(got_norm) and got_norm > 0


def test_a_value_the_student_holds_is_not_changed_by_the_update():
    with tf.Graph().as_default():
        net = _mlp()
        train = net["optimizer"].minimize(net["loss"])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            held = sess.run(net["w1"])
            copy = held.copy()
            sess.run(train, {net["x"]: net["x_val"], net["y"]: net["y_val"]})
            np.testing.assert_array_equal(held, copy)
            assert not np.array_equal(sess.run(net["w1"]), copy)


def test_shape_errors_come_from_the_op_tf_names():
    with tf.Graph().as_default():
        w = tf.Variable(np.zeros((3, 3), np.float32), name="w")
        a = tf.placeholder(tf.float32, [None, None], name="a")
        b = tf.placeholder(tf.float32, [None, None], name="b")
        lr = tf.placeholder(tf.float32, name="lr")
        update = tf.train.GradientDescentOptimizer(lr).apply_gradients(
            [(tf.matmul(a, b, name="grad"), w)])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            ones = np.ones
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Matrix size-incompatible: In\[0\]: \[3,2\], In\[1\]: "
                                     r"\[3,3\]") as info:
                sess.run(update, {a: ones((3, 2)), b: ones((3, 3)), lr: 0.1})
            assert info.value.op.name == "grad"
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"var and delta do not have the same shape\[3,3\] \[2,3\]"):
                sess.run(update, {a: ones((2, 3)), b: ones((3, 3)), lr: 0.1})
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"alpha is not a scalar"):
                sess.run(update, {a: ones((3, 3)), b: ones((3, 3)), lr: [0.1, 0.2]})
            np.testing.assert_array_equal(sess.run(w), np.zeros((3, 3)))
            sess.run(update, {a: ones((3, 3)), b: ones((3, 3)), lr: 0.5})
            np.testing.assert_allclose(sess.run(w), np.full((3, 3), -1.5))


def test_float16_weights_are_updated_without_fusion():
    class Context:
        attrs = {"transpose_a": False, "transpose_b": True}
    half = np.ones((2, 2), np.float16)
    product = deferred_matmul_kernel(Context(), half, half)
    assert isinstance(product, np.ndarray) and product.dtype == np.float16    # not deferred

    with tf.Graph().as_default():
        w = tf.Variable(np.ones((4, 2), np.float16))
        a = tf.constant(np.full((4, 3), 0.5, np.float16))
        b = tf.placeholder(tf.float16, [3, 2])
        update = tf.train.GradientDescentOptimizer(0.25).apply_gradients(
            [(tf.matmul(a, b), w)])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(update, {b: np.ones((3, 2), np.float16)})
            got = sess.run(w)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got, np.full((4, 2), 1 - 0.25 * 1.5))


def test_a_large_update_in_a_convolution_step_splits_and_stays_exact(monkeypatch):
    """Inside a BLAS window (a plan with a convolution) the GEMM runs in two halves."""
    monkeypatch.setattr(two_workers, "worker_count", lambda: 2)
    rng = np.random.RandomState(3)
    x_val = rng.rand(8, 6, 6, 1).astype(np.float32)
    f_val = rng.randn(3, 3, 1, 16).astype(np.float32) * 0.2
    w_val = rng.randn(576, 600).astype(np.float32) * 0.05     # 8x576x600: worth splitting
    calls = []
    real_split = two_workers._two_halves
    monkeypatch.setattr(two_workers, "_two_halves",
                        lambda fn, size: calls.append(size) or real_split(fn, size))
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 6, 6, 1])
        f, w = tf.Variable(f_val), tf.Variable(w_val)
        flat = tf.reshape(tf.nn.relu(tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME")), [-1, 576])
        loss = tf.reduce_sum(tf.matmul(flat, w))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            flat_val = sess.run(flat, {x: x_val})
            sess.run(train, {x: x_val})
            assert "gradients/MatMul_grad/MatMul_1" in _deferred_ops(sess)
            got = sess.run(w)
    assert 600 in calls           # the update's two halves (576 rows < 600 columns)
    # d loss / d w = flat^T @ ones
    want = w_val - 0.1 * (flat_val.astype(np.float64).T @ np.ones((8, 600)))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


# -- the shared patch matrix of a convolution and its filter gradient ------------------
def _np_patches(x, k, stride, pad):
    """[N*OH*OW, k*k*C] windows (rows a, e, c), by NumPy: the independent reference."""
    xp = np.pad(x, ((0, 0), pad, pad, (0, 0)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(1, 2))
    win = win[:, ::stride, ::stride]
    n, oh, ow, c = win.shape[:4]
    return win.transpose(0, 1, 2, 4, 5, 3).reshape(n * oh * ow, k * k * c), (oh, ow)


def _shared_pairs(sess):
    """(forward, filter gradient) op names the fast loops pair."""
    pairs = {}
    for plan in sess._plans.values():
        for s in plan.fast_steps:
            shared = getattr(s.kernel, "keywords", {}).get("shared")
            if shared is not None:
                pairs.setdefault(id(shared), []).append(s.op.type)
    return sorted(tuple(v) for v in pairs.values())


@pytest.mark.parametrize("channels, stride, batch", [(1, 1, 6), (3, 2, 7), (4, 1, 9)])
def test_filter_gradient_from_the_forward_patches_matches_numpy(channels, stride, batch,
                                                                monkeypatch):
    monkeypatch.setattr(two_workers, "worker_count", lambda: 2)
    monkeypatch.setattr(two_workers, "MIN_PARALLEL_WORK", 1)      # halves even when tiny
    rng = np.random.RandomState(channels)
    f_val = rng.randn(3, 3, channels, 5).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 8, 8, channels])
        r = tf.placeholder(tf.float32, [None, None, None, 5])
        f = tf.Variable(f_val)
        out = tf.nn.conv2d(x, f, [1, stride, stride, 1], "SAME")
        loss = tf.reduce_sum(out * r)
        grad_f, = tf.gradients(loss, [f])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(3):               # new inputs each step: no stale patches
                x_val = rng.rand(batch, 8, 8, channels).astype(np.float32)
                oh = -(-8 // stride)
                r_val = rng.randn(batch, oh, oh, 5).astype(np.float32)
                got_out, got = sess.run([out, grad_f], {x: x_val, r: r_val})
                pad = (0, 2) if stride == 2 else (1, 1)   # TF's SAME split: more at the end
                cols, _ = _np_patches(x_val.astype(np.float64), 3, stride, pad)
                want = (cols.T @ r_val.reshape(-1, 5)).reshape(3, 3, channels, 5)
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
                np.testing.assert_allclose(
                    got_out.reshape(-1, 5), cols @ f_val.reshape(-1, 5), rtol=1e-4, atol=1e-4)
            assert ("Conv2D", "Conv2DBackpropFilter") in _shared_pairs(sess)


def test_convolution_training_shares_patches_and_agrees_with_a_traced_run():
    rng = np.random.RandomState(7)
    x_val = rng.rand(5, 12, 12, 1).astype(np.float32)
    y_val = np.eye(3, dtype=np.float32)[rng.randint(0, 3, size=5)]
    params = [rng.randn(5, 5, 1, 4).astype(np.float32) * 0.2,
              rng.randn(3, 3, 4, 6).astype(np.float32) * 0.2,
              rng.randn(6 * 6 * 6, 3).astype(np.float32) * 0.1]
    results, pairs = [], []
    for options in (None, tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [None, 12, 12, 1])
            y = tf.placeholder(tf.float32, [None, 3])
            w1, w2, w3 = [tf.Variable(p) for p in params]
            h = tf.nn.relu(tf.nn.conv2d(x, w1, [1, 1, 1, 1], "SAME"))
            h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
            h = tf.nn.relu(tf.nn.conv2d(h, w2, [1, 1, 1, 1], "SAME"))
            logits = tf.matmul(tf.reshape(h, [-1, 6 * 6 * 6]), w3)
            loss = tf.reduce_mean(
                tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(3):
                    sess.run(train, {x: x_val, y: y_val}, options=options,
                             run_metadata=tf.RunMetadata() if options else None)
                results.append(sess.run([w1, w2, w3]))
                pairs.append(_shared_pairs(sess))
                # A fused filter gradient never builds a patch matrix of its own (work
                # arrays are kept per run: kernels/cpu/run_state.py).
                kept = sess._run_states.idle_entries()
                assert len(kept) == 1                   # one thread: one RunState
                own = [op.name for op in tf.get_default_graph().get_operations()
                       if op.type == "Conv2DBackpropFilter"
                       and (sess._kernel_context(op), "cols") in kept[0]]
                assert own == ([] if options is None else
                               ["gradients/Conv2D_1_grad/Conv2DBackpropFilter",
                                "gradients/Conv2D_grad/Conv2DBackpropFilter"])
    # the first layer's input is fed (no input gradient); both filter gradients pair up
    assert pairs[0] == [("Conv2D", "Conv2DBackpropFilter")] * 2
    for fused, traced in zip(*results):
        np.testing.assert_allclose(fused, traced, rtol=1e-5, atol=1e-6)
    assert not np.allclose(results[0][0], params[0])          # it did train


def test_a_fed_convolution_output_leaves_the_filter_gradient_its_own_patches():
    rng = np.random.RandomState(2)
    x_val = rng.rand(2, 5, 5, 2).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 5, 5, 2])
        f = tf.Variable(rng.randn(3, 3, 2, 4).astype(np.float32))
        out = tf.nn.conv2d(x, f, [1, 1, 1, 1], "VALID")
        grad_f, = tf.gradients(tf.reduce_sum(out * out), [f])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            fed_out = rng.randn(2, 3, 3, 4).astype(np.float32)
            got = sess.run(grad_f, {x: x_val, out: fed_out})   # Conv2D itself does not run
            assert _shared_pairs(sess) == []
    cols, _ = _np_patches(x_val.astype(np.float64), 3, 1, (0, 0))
    want = (cols.T @ (2 * fed_out.reshape(-1, 4))).reshape(3, 3, 2, 4)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_shared_patches_are_used_only_for_the_same_key_and_only_once():
    from tfteach.kernels.cpu.conv_kernels import SharedPatches
    shared = SharedPatches()
    recorded = shared.record("key", lambda lo, hi: ("forward", lo, hi))
    assert recorded(0, 2) == ("forward", 0, 2)
    made = []

    def make():
        made.append(1)
        return lambda lo, hi: ("own", lo, hi)
    patches = shared.reuse("key", make)
    assert patches(0, 2) == ("forward", 0, 2) and made == []
    assert patches(2, 4) == ("own", 2, 4) and made == [1]     # a half it did not record
    assert shared.reuse("key", make)(0, 2) == ("own", 0, 2)   # released after one use
    shared.record("key", lambda lo, hi: ("forward", lo, hi))(0, 2)
    assert shared.reuse("other", make)(0, 2) == ("own", 0, 2)  # other geometry


def test_nchw_filter_gradient_from_shared_patches_matches_nhwc():
    rng = np.random.RandomState(11)
    x_val = rng.rand(3, 2, 6, 6).astype(np.float32)             # NCHW
    f_val = rng.randn(3, 3, 2, 4).astype(np.float32)
    r_val = rng.randn(3, 4, 6, 6).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2, 6, 6])
        r = tf.placeholder(tf.float32, [None, 4, 6, 6])
        f = tf.Variable(f_val)
        out = tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME", data_format="NCHW")
        grad_f, = tf.gradients(tf.reduce_sum(out * r), [f])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(grad_f, {x: x_val, r: r_val})
            assert _shared_pairs(sess) == [("Conv2D", "Conv2DBackpropFilter")]
    cols, _ = _np_patches(x_val.transpose(0, 2, 3, 1).astype(np.float64), 3, 1, (1, 1))
    want = (cols.T @ r_val.transpose(0, 2, 3, 1).reshape(-1, 4)).reshape(3, 3, 2, 4)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


# -- a relu's gradient written with its max pool's gradient -----------------------------
def _fast_types(sess):
    return [s.op.type for plan in sess._plans.values() for s in plan.fast_steps]


def _relu_pool_program(ksize, strides, data_format):
    rng = np.random.RandomState(len(ksize) + strides[1])
    shape = [4, 3, 9, 8] if data_format == "NCHW" else [4, 9, 8, 3]
    x_val = rng.randn(*shape).astype(np.float32)
    x_val[0, 0, 0, 0] = np.nan
    x = tf.placeholder(tf.float32, shape)
    v = tf.Variable(rng.randn(*shape[1:]).astype(np.float32))
    r = tf.nn.relu(x * v)
    pooled = tf.nn.max_pool(r, ksize, strides, "SAME", data_format=data_format)
    c = tf.constant(rng.randn(*pooled.shape.as_list()).astype(np.float32))
    grad_v, = tf.gradients(tf.reduce_sum(pooled * c), [v])
    return x, x_val, grad_v


@pytest.mark.parametrize("ksize, strides, data_format", [
    ([1, 2, 2, 1], [1, 2, 2, 1], "NHWC"),          # windows that tile: one pass
    ([1, 1, 2, 2], [1, 1, 2, 2], "NCHW"),
    ([1, 3, 3, 1], [1, 2, 2, 1], "NHWC"),          # overlapping: MaxPoolGrad, then ReluGrad
])
def test_a_relu_gradient_rides_on_its_pool_gradient_with_the_same_bits(ksize, strides,
                                                                       data_format):
    results = []
    for options in (None, tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)):
        with tf.Graph().as_default():
            x, x_val, grad_v = _relu_pool_program(ksize, strides, data_format)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                results.append(sess.run(grad_v, {x: x_val}, options=options,
                                        run_metadata=tf.RunMetadata() if options else None))
                if options is None:
                    types = _fast_types(sess)
                    assert "MaxPoolGrad" in types and "ReluGrad" not in types
    np.testing.assert_array_equal(results[0], results[1])       # NaN where NaN, -0.0 too
    assert np.array_equal(np.signbit(results[0]), np.signbit(results[1]))


def test_a_fetched_pool_gradient_keeps_its_relu_gradient_apart():
    with tf.Graph().as_default():
        x, x_val, grad_v = _relu_pool_program([1, 2, 2, 1], [1, 2, 2, 1], "NHWC")
        pool_grad = [op for op in tf.get_default_graph().get_operations()
                     if op.type == "MaxPoolGrad"][0].outputs[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, dx = sess.run([grad_v, pool_grad], {x: x_val})
            assert "ReluGrad" in _fast_types(sess)
    assert np.isfinite(dx).any() and got.shape == x_val.shape[1:]


# -- a convolution's bias add and relu written with its output ------------------------
def _conv_bias_relu_run(x_val, f_val, b_val, form, fetch_conv=False, traced=False,
                        dtype=tf.float32):
    """relu(conv + b) (and the gradient of its sum w.r.t. f, so the layer trains) in a
    fresh graph: the values, and the op types the fast loop runs."""
    with tf.Graph().as_default():
        x = tf.placeholder(dtype, x_val.shape)
        f = tf.Variable(f_val.astype(dtype.as_numpy_dtype))
        b = tf.placeholder(dtype, [None])          # a wrong length fails when run
        conv = tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME")
        summed = {"conv+b": lambda: conv + b, "b+conv": lambda: b + conv,
                  "bias_add": lambda: tf.nn.bias_add(conv, b)}[form]()
        out = tf.nn.relu(summed)
        grad_f, = tf.gradients(tf.reduce_sum(out), [f])
        fetches = [out, grad_f] + ([conv] if fetch_conv else [])
        options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE) if traced else None
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(fetches, {x: x_val, b: b_val}, options=options,
                           run_metadata=tf.RunMetadata() if traced else None)
            return got, _fast_types(sess)


@pytest.mark.parametrize("form", ["conv+b", "b+conv", "bias_add"])
def test_a_conv_bias_add_and_relu_run_as_one_step_with_the_same_bits(form):
    rng = np.random.RandomState(12)
    x_val = rng.randn(6, 9, 8, 3).astype(np.float32)
    f_val = rng.randn(3, 3, 3, 16).astype(np.float32)
    b_val = rng.randn(16).astype(np.float32)
    b_val[0] = -0.0
    (fused, grad), types = _conv_bias_relu_run(x_val, f_val, b_val, form)
    (traced, traced_grad), _ = _conv_bias_relu_run(x_val, f_val, b_val, form, traced=True)
    assert "Relu" not in types and "Conv2D" in types
    assert not {"AddV2", "Add", "BiasAdd"} & set(types)
    np.testing.assert_array_equal(fused, traced)
    assert np.array_equal(np.signbit(fused), np.signbit(traced))
    np.testing.assert_array_equal(grad, traced_grad)


def test_the_fourier_layer_takes_its_bias_and_relu_and_still_sees_an_inf():
    """A -inf in the pre-activation would vanish in the relu: the layer's check looks
    before it, so the image is computed again exactly (im2col) and only the windows that
    hold the -inf are 0."""
    rng = np.random.RandomState(13)
    x_val = rng.randn(50, 14, 14, 32).astype(np.float32)
    f_val = (rng.randn(5, 5, 32, 32) * 0.1).astype(np.float32)
    b_val = rng.randn(32).astype(np.float32)
    (fused, _), types = _conv_bias_relu_run(x_val, f_val, b_val, "conv+b")
    (traced, _), _ = _conv_bias_relu_run(x_val, f_val, b_val, "conv+b", traced=True)
    assert "Relu" not in types
    np.testing.assert_allclose(fused, traced, rtol=1e-4, atol=1e-4)
    x_val[3, 6, 6, :] = -np.inf
    f_val[:] = np.abs(f_val)                   # every window holding it is -inf
    (fused, _), _ = _conv_bias_relu_run(x_val, f_val, b_val, "conv+b")
    (traced, _), _ = _conv_bias_relu_run(x_val, f_val, b_val, "conv+b", traced=True)
    np.testing.assert_array_equal(fused == 0, traced == 0)
    finite = np.isfinite(traced)
    np.testing.assert_allclose(fused[finite], traced[finite], rtol=1e-4, atol=1e-4)
    assert (fused[3, 4:9, 4:9] == 0).all() and (fused[3, :2] != 0).any()


def test_a_bias_that_does_not_fit_runs_the_ops_in_turn_with_their_errors():
    rng = np.random.RandomState(14)
    x_val = rng.randn(2, 5, 5, 2).astype(np.float32)
    f_val = rng.randn(3, 3, 2, 4).astype(np.float32)
    # a scalar-like bias broadcasts: same values as unfused
    (fused, _), _ = _conv_bias_relu_run(x_val, f_val, np.float32([0.5]), "conv+b")
    (traced, _), _ = _conv_bias_relu_run(x_val, f_val, np.float32([0.5]), "conv+b",
                                         traced=True)
    np.testing.assert_array_equal(fused, traced)
    # a bias of the wrong length: the add's error, named after the add, as unfused
    errors = []
    for traced_run in (False, True):
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            _conv_bias_relu_run(x_val, f_val, np.ones(5, np.float32), "conv+b",
                                traced=traced_run)
        errors.append(str(info.value))
    assert errors[0] == errors[1] and "add" in errors[0]


def test_a_fetched_conv_output_or_float16_keeps_the_ops_apart():
    rng = np.random.RandomState(15)
    x_val = rng.randn(2, 6, 6, 3).astype(np.float32)
    f_val = rng.randn(3, 3, 3, 8).astype(np.float32)
    b_val = rng.randn(8).astype(np.float32)
    (out, _, conv), types = _conv_bias_relu_run(x_val, f_val, b_val, "conv+b",
                                                fetch_conv=True)
    assert "Relu" in types and "AddV2" in types
    np.testing.assert_array_equal(out, np.maximum(conv + b_val, 0))
    (half, _), types = _conv_bias_relu_run(x_val, f_val, b_val, "bias_add",
                                           dtype=tf.float16)
    (half_traced, _), _ = _conv_bias_relu_run(x_val, f_val, b_val, "bias_add",
                                              dtype=tf.float16, traced=True)
    np.testing.assert_array_equal(half, half_traced)       # the three kernels in turn


def test_an_op_another_waits_for_is_not_moved_by_a_fusion():
    rng = np.random.RandomState(16)
    x_val = rng.randn(2, 6, 6, 3).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, x_val.shape)
        f = tf.Variable(rng.randn(3, 3, 3, 8).astype(np.float32))
        conv = tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME")
        counter = tf.Variable(0)
        with tf.control_dependencies([conv]):       # must run after the conv
            bump = tf.assign_add(counter, 1)
        out = tf.nn.relu(conv + tf.constant(rng.randn(8).astype(np.float32)))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run([out, bump], {x: x_val})
            types = _fast_types(sess)
    assert "Relu" in types and "AddV2" in types
