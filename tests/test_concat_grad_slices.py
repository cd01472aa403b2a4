"""A concat's gradient in a specialised loop body as one step (runtime/
concat_grad_slices.py): the slices TensorFlow's ShapeN -> ConcatOffset -> Slice ops
give, bit for bit, and where those ops would fail, the specialiser's fallback."""
import numpy as np
import pytest

import tfteach as tf
from tfteach.ops.array_grad_ops import concat_offset
from tfteach.runtime.concat_grad_slices import _slices_kernel
from test_loop_specialise import _loop_plans
from tf_reference import own_message, tensorflow_v1
from device_helpers import virtual_gpus  # noqa: F401 (fixture)


class _Fallback(Exception):
    pass


def _ops_program(ranks):
    """g and the concat's inputs fed with any shapes; every slice the gradient ops give."""
    graph = tf.Graph()
    with graph.as_default():
        g = tf.placeholder(tf.float32, None)
        xs = [tf.placeholder(tf.float32, [None] * r) for r in ranks]
        axis = tf.placeholder(tf.int32, [])
        shapes = tf.shape_n(xs)
        offsets = concat_offset(axis, shapes)
        slices = [tf.slice(g, o, s) for o, s in zip(offsets, shapes)]
    return graph, g, xs, axis, slices


def test_the_kernel_gives_the_ops_slices_or_falls_back_where_they_fail():
    rng = np.random.RandomState(0)
    checked = {"ok": 0, "failed": 0}
    for case in range(200):
        count = rng.randint(1, 4)
        rank = rng.randint(1, 4)
        ranks = [rank] * count
        if case % 10 == 9:                   # an input of another rank
            ranks[rng.randint(count)] = rank + 1
        axis = rng.randint(-rank - 1, rank + 1)   # from the end, sometimes out of range
        a = axis + rank if axis < 0 else axis
        shapes = [list(rng.randint(0, 4, size=r)) for r in ranks]
        for shape in shapes[1:]:             # as a concat's inputs: equal off the axis
            for d in range(min(rank, len(shape))):
                if d != a and rng.rand() < 0.9:
                    shape[d] = shapes[0][d]
        g_shape = [sum(s[d] for s in shapes) if d == a else shapes[0][d]
                   for d in range(rank)]
        if case % 3 == 0:                    # g too small or too large somewhere
            d = rng.randint(rank)
            g_shape[d] = max(0, g_shape[d] + rng.choice([-1, 1]))
        g_value = rng.randn(*g_shape).astype(np.float32)
        x_values = [rng.randn(*s).astype(np.float32) for s in shapes]

        graph, g, xs, axis_t, slices = _ops_program(ranks)
        feed = dict(zip(xs, x_values))
        feed.update({g: g_value, axis_t: axis})
        kernel = _slices_kernel(axis, tuple(range(count)), _Fallback)
        with tf.Session(graph=graph) as sess:
            try:
                expected = sess.run(slices, feed)
            except tf.errors.InvalidArgumentError:
                with pytest.raises(_Fallback):
                    kernel(None, g_value, *x_values)
                checked["failed"] += 1
                continue
        got = kernel(None, g_value, *x_values)
        assert len(got) == count
        for mine, theirs in zip(got, expected):
            assert mine.shape == theirs.shape and mine.dtype == theirs.dtype
            np.testing.assert_array_equal(mine, theirs)
            assert mine.size == 0 or np.shares_memory(mine, g_value)   # views, as Slice's
        checked["ok"] += 1
    assert checked["ok"] > 50 and checked["failed"] > 50


CONCAT_OFFSET_CASES = [
    (1, [[2, 3, 5], [2, 7, 5], [2, 20, 5]]),
    (1, [[2, 3, 5], [2, 7, 10]]),             # another size off the axis
    (0, [[2, 3], [4, 3], [1, 4]]),
    (1, [[2, 3], [4, 5, 6]]),                 # another rank
    (2, [[2, 3], [2, 5]]),                    # the axis out of range
    (-2, [[2, 3, 5], [2, 7, 5]]),             # counted from the end
    (-4, [[2, 3, 5], [2, 7, 5]]),             # out of range from the end
    (-1, [[2, 3, 5], [2, 3, 6]]),
]


@pytest.mark.parametrize("axis,shapes", CONCAT_OFFSET_CASES)
def test_concat_offset_is_tensorflows(axis, shapes):
    reference = tensorflow_v1()

    def run(module, op):
        graph = module.Graph()
        with graph.as_default():
            offsets = op(module.constant(axis), [module.constant(s) for s in shapes])
            with module.Session(graph=graph) as sess:
                try:
                    return [o.tolist() for o in sess.run(offsets)]
                except module.errors.InvalidArgumentError as e:
                    return own_message(e)

    expected = run(reference, lambda a, s: reference.raw_ops.ConcatOffset(concat_dim=a, shape=s))
    assert run(tf, concat_offset) == expected


def test_a_slice_that_is_not_asked_for_is_not_made():
    g = np.arange(12, dtype=np.float32).reshape(2, 6)
    a, b, c = np.zeros((2, 1)), np.zeros((2, 2)), np.zeros((2, 3))
    (only,) = _slices_kernel(1, (1,), _Fallback)(None, g, a, b, c)
    np.testing.assert_array_equal(only, g[:, 1:3])
    with pytest.raises(_Fallback):            # not arrays: the plain ops' business
        _slices_kernel(1, (1,), _Fallback)(None, g.tolist(), a, b, c)


def _growing_concat(flag, monkeypatch, xv, yv):
    """acc = concat([acc, x * (i + 1), y ** 2], axis=1) four times; d sum(sin(acc))."""
    monkeypatch.setenv("TFTEACH_LOOP_SPECIALISE", flag)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 2])
        y = tf.placeholder(tf.float32, [None, 1])

        def body(i, acc):
            scale = tf.cast(i + 1, tf.float32)
            return i + 1, tf.concat([acc, x * scale, tf.square(y)], axis=1)

        _, acc = tf.while_loop(lambda i, acc: i < 4, body, [tf.constant(0), x[:, :0]],
                               shape_invariants=[tf.TensorShape([]),
                                                 tf.TensorShape([None, None])])
        loss = tf.reduce_sum(tf.sin(acc))
        grads = tf.gradients(loss, [x, y])
        with tf.Session(graph=graph) as sess:
            runs = [sess.run([acc] + grads, {x: xv, y: yv}) for _ in range(4)]
            plans = _loop_plans(sess, graph, ("WhileGrad",))
    return runs, plans


def test_a_growing_concat_in_a_loop_trains_with_the_plain_plans_bits(monkeypatch):
    rng = np.random.RandomState(2)
    xv = rng.randn(5, 2).astype(np.float32)
    yv = rng.randn(5, 1).astype(np.float32)
    plain, _ = _growing_concat("0", monkeypatch, xv, yv)
    special, plans = _growing_concat("1", monkeypatch, xv, yv)
    for run_plain, run_special in zip(plain, special):
        for a, b in zip(run_plain, run_special):
            np.testing.assert_array_equal(a, b)
    acc, dx, dy = special[-1]
    # NumPy: acc's columns, and d sum(sin(acc)) by the chain rule.
    expected_acc = np.concatenate(
        [np.concatenate([xv * (i + 1), yv ** 2], 1) for i in range(4)], 1)
    np.testing.assert_allclose(acc, expected_acc, rtol=1e-6, atol=1e-6)
    expected_dx = sum(np.cos(xv * (i + 1)) * (i + 1) for i in range(4))
    expected_dy = 4 * np.cos(yv ** 2) * 2 * yv
    np.testing.assert_allclose(dx, expected_dx, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dy, expected_dy, rtol=1e-5, atol=1e-5)
    (plan,) = plans
    (special_plan,) = plan.by_signature.values()
    ran = [s.type for s in special_plan.fast_steps]
    assert "ConcatGradSlices" in ran
    assert "ShapeN" not in ran and "ConcatOffset" not in ran
    assert "ShapeN" in [s.type for s in plan.plan.fast_steps]


def test_a_new_batch_size_runs_its_own_specialisation(monkeypatch):
    rng = np.random.RandomState(3)
    for rows in (3, 6):
        xv = rng.randn(rows, 2).astype(np.float32)
        yv = rng.randn(rows, 1).astype(np.float32)
        plain, _ = _growing_concat("0", monkeypatch, xv, yv)
        special, _ = _growing_concat("1", monkeypatch, xv, yv)
        for a, b in zip(plain[-1], special[-1]):
            np.testing.assert_array_equal(a, b)


def test_on_a_virtual_gpu_every_tensor_and_figure_is_the_four_ops(virtual_gpus, monkeypatch):
    # The slices are views of the gradient, charged as the two Slice ops' were (shapes
    # and offsets are host memory): the same tensors charged, the same figures.
    from tfteach.runtime import concat_grad_slices
    from test_loops_on_virtual_gpu import _embedded_two_layer_training
    fused = []
    plain_fuse = concat_grad_slices.fuse_concat_grad_slices

    def counting(steps, *args):
        out = plain_fuse(steps, *args)
        fused.extend(s for s in out if s.type == "ConcatGradSlices")
        return out
    virtual_gpus(1, memory_limit=1024)
    monkeypatch.setattr(concat_grad_slices, "fuse_concat_grad_slices", counting)
    losses, weights, stats, charged = _embedded_two_layer_training()
    assert fused and all(s.alloc is not None for s in fused)     # on the GPU, fused
    virtual_gpus(1, memory_limit=1024)                           # a fresh allocator
    monkeypatch.setattr(concat_grad_slices, "fuse_concat_grad_slices",
                        lambda steps, *a: steps)
    plain_losses, plain_weights, plain_stats, plain_charged = _embedded_two_layer_training()
    assert charged == plain_charged
    for figure in ("peak_bytes_in_use", "num_allocs", "largest_alloc_size", "bytes_in_use"):
        assert stats[figure] == plain_stats[figure], figure
    np.testing.assert_array_equal(losses, plain_losses)
    for a, b in zip(weights, plain_weights):
        np.testing.assert_array_equal(a, b)
