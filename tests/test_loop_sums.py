"""WhileGrad's sums of captured tensors' gradients (runtime/loop_sums.py) give the bits
the plain accumulation gave: a gather's gradient added as its rows only (SegmentRows),
the products of all iterations as one GEMM, the running sums made from the first value. Checked against NumPy sums computed the dense way, and
against the plain accumulation itself (restored by `plain_accumulation` below)."""
import contextlib
import types

import numpy as np
import pytest

from bit_helpers import same_bits
from gather_loops import gather_loop_program
import tfteach as tf
from tfteach.errors import InvalidArgumentError
from tfteach.kernels.cpu import index_kernels
from tfteach.kernels.cpu.index_kernels import SegmentRows, summed_unsorted_segment_sum
from tfteach.kernels.cpu.linalg import DeferredProduct
from tfteach.runtime import loop_sums

CTX = types.SimpleNamespace(op=None, attrs={})


def odd_floats(shape, dtype=np.float32, seed=0):
    """Random values with -0.0, inf and NaN among them."""
    x = np.random.RandomState(seed).randn(*shape).astype(dtype)
    flat = x.reshape(-1)
    for i, v in zip(range(0, flat.size, 5), (-0.0, np.inf, -np.inf, np.nan, -0.0)):
        flat[i] = v
    return x


# -- The plain accumulation, as WhileGrad did it before loop_sums ----------------------------
class _ZerosFirstSum:
    """zeros_like(captured), then each iteration's gradient added, dense."""

    def __init__(self, like):
        self.like = np.asarray(like)
        self.total = np.zeros_like(self.like)

    def add(self, grad, owned=False):
        if isinstance(grad, SegmentRows):
            raise AssertionError("the plain plan hands on no SegmentRows")
        self.total = loop_sums.accumulate(self.total, grad)

    def result(self):
        return np.asarray(self.total, dtype=self.like.dtype)


@contextlib.contextmanager
def plain_accumulation(monkeypatch):
    """Plans built inside keep the dense UnsortedSegmentSum; runs inside sum from zeros."""
    with monkeypatch.context() as m:
        m.setattr(index_kernels, "summed_unsorted_segment_sum",
                  index_kernels.unsorted_segment_sum)
        m.setattr(loop_sums, "Sum", _ZerosFirstSum)
        yield


def run_both_ways(monkeypatch, build, steps=1):
    """The fetches of `build(tf) -> (fetches, feed)` after `steps` runs, with the plain
    accumulation and with loop_sums (two graphs, same seeds)."""
    results = []
    for plain in (True, False):
        graph = tf.Graph()
        with graph.as_default():
            tf.set_random_seed(3)
            fetches, feed, train = build(tf)
            with contextlib.ExitStack() as stack:
                if plain:
                    stack.enter_context(plain_accumulation(monkeypatch))
                sess = stack.enter_context(tf.Session(graph=graph))
                sess.run(tf.global_variables_initializer())
                for _ in range(steps):
                    if train is not None:
                        sess.run(train, feed)
                results.append(sess.run(fetches, feed))
    return results


# -- SegmentRows: the kernel and its sums ---------------------------------------------------
SEGMENT_CASES = [
    (np.array([3], np.int32), 5),                   # dynamic_rnn's read of x[t]
    (np.array([-1], np.int64), 5),                  # a dropped row
    (np.array([[2]], np.int32), 3),                 # a 2-D id
    (np.array([4, 1, 4, 0, 4], np.int32), 6),       # repeated ids, out of order
    (np.array([2, -1, 2, -3, 0], np.int64), 3),     # repeated and dropped
    (np.array([[1, 1], [0, 2]], np.int32), 4),      # 2-D ids, repeated
    (np.zeros([0], np.int32), 4),                   # no row
]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("ids, num", SEGMENT_CASES)
def test_segment_rows_are_the_dense_kernels_rows(dtype, ids, num):
    data = odd_floats(ids.shape + (3, 2), dtype, seed=ids.size)[..., ::-1]   # strided
    dense = index_kernels.unsorted_segment_sum(CTX, data, ids, np.int32(num))
    rows = summed_unsorted_segment_sum(CTX, data, ids, np.int32(num))
    assert isinstance(rows, SegmentRows)
    assert rows.shape == dense.shape and rows.dtype == dense.dtype
    same_bits(rows.dense(), dense)
    assert len(set(np.asarray(rows.ids).tolist())) == len(rows.ids)     # distinct


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_adding_segment_rows_gives_the_dense_sums_bits(dtype):
    """A running sum from +0.0: adding only the rows equals adding the dense tensors,
    with -0.0, NaN and infinities in the data and repeated ids in one iteration."""
    rng = np.random.RandomState(1)
    num, inner = 6, (4,)
    dense_total = np.zeros((num,) + inner, dtype)
    sparse_total = np.zeros((num,) + inner, dtype)
    for step in range(12):
        ids = rng.randint(-1, num, size=rng.randint(1, 5)).astype(np.int32)
        data = odd_floats(ids.shape + inner, dtype, seed=step)
        np.add(dense_total, index_kernels.unsorted_segment_sum(CTX, data, ids, num),
               out=dense_total)
        summed_unsorted_segment_sum(CTX, data, ids, num).add_to(sparse_total)
        same_bits(sparse_total, dense_total)
    assert np.isnan(dense_total).any()          # the odd values did reach the sums


@pytest.mark.parametrize("ids", [np.array([5], np.int32), np.array([1, 7, 9], np.int64),
                                 np.array([[0, -1], [6, 2]], np.int32)])
def test_an_out_of_range_segment_id_raises_the_dense_kernels_error(ids):
    data = np.ones(ids.shape + (2,), np.float32)
    with pytest.raises(InvalidArgumentError) as dense:
        index_kernels.unsorted_segment_sum(CTX, data, ids, np.int32(5))
    with pytest.raises(InvalidArgumentError) as summed:
        summed_unsorted_segment_sum(CTX, data, ids, np.int32(5))
    assert str(summed.value) == str(dense.value)
    assert "is out of range [0, 5)" in str(summed.value)


def test_bad_shapes_raise_the_dense_kernels_errors():
    for data, ids, num in ((np.ones((3, 2), np.float32), np.array([0, 1]), 4),
                           (np.ones((2, 2), np.float32), np.array([0, 1]), -1)):
        with pytest.raises(InvalidArgumentError) as dense:
            index_kernels.unsorted_segment_sum(CTX, data, ids, num)
        with pytest.raises(InvalidArgumentError) as summed:
            summed_unsorted_segment_sum(CTX, data, ids, num)
        assert str(summed.value) == str(dense.value)


def test_a_sum_that_does_not_fit_takes_the_dense_tensor():
    """A running sum of another dtype or shape adds the dense tensor, as before."""
    rows = summed_unsorted_segment_sum(CTX, np.ones((1, 2), np.float32), np.array([1]), 3)
    total = loop_sums.Sum(np.zeros((3, 2), np.float64))
    total.add(rows)
    total.add(rows)
    same_bits(total.result(), np.array([[0, 0], [2, 2], [0, 0]], np.float64))


def test_a_sum_starts_at_plus_zero_as_zeros_like_did():
    like = np.zeros((2, 2), np.float32)
    grad = np.array([[-0.0, 1.0], [np.nan, -0.0]], np.float32)
    mine = loop_sums.Sum(like)
    mine.add(grad)
    same_bits(mine.result(), np.zeros_like(like) + grad)
    assert not np.signbit(mine.result()[0, 0])
    same_bits(grad, np.array([[-0.0, 1.0], [np.nan, -0.0]], np.float32))  # not written
    owned = grad.copy()
    mine = loop_sums.Sum(like)
    mine.add(owned, owned=True)
    same_bits(mine.result(), np.zeros_like(like) + grad)
    nothing = loop_sums.Sum(like)
    nothing.add(None)
    same_bits(nothing.result(), np.zeros_like(like))


# -- Products: the iterations' products as concatenated GEMMs -------------------------------
def _pieces(k_sizes, m=5, n=3, dtype=np.float32):
    rng = np.random.RandomState(len(k_sizes))
    return [DeferredProduct(rng.randn(k, m).astype(dtype).T, rng.randn(k, n).astype(dtype))
            for k in k_sizes]


def _concatenated(pieces):
    return np.matmul(np.concatenate([p.left for p in pieces], axis=1),
                     np.concatenate([p.right for p in pieces], axis=0))


@pytest.mark.parametrize("k_sizes, max_inner, groups", [
    ([3, 3, 3, 3], None, [4]),        # all at the end
    ([3, 5, 3], None, [3]),           # inner sizes change
    ([3] * 7, 6, [2, 2, 2, 1]),       # groups of two, the last alone
    ([2], None, [1]),                 # one product: computed alone
])
def test_products_are_the_concatenated_gemms(k_sizes, max_inner, groups):
    pieces = _pieces(k_sizes)
    products = loop_sums.Products()
    if max_inner is not None:
        products.MAX_INNER = max_inner
    got = [products.add(p) for p in pieces] + [products.product()]
    got = [g for g in got if g is not None]
    starts = np.cumsum([0] + groups)
    assert len(got) == len(groups)
    for g, lo, hi in zip(got, starts, starts[1:]):
        same_bits(g, _concatenated(pieces[lo:hi]))


def test_a_weights_sum_is_its_products_output_plus_zero():
    """The first value added to a sum it may own (a product) becomes the sum, +0.0 added
    in place: a -0.0 of it turns +0.0 as zeros + product did."""
    product = np.array([[-0.0, 2.0]], np.float32)
    total = loop_sums.Sum(np.ones((1, 2), np.float32))
    total.add(product, owned=True)
    assert total.result() is product
    same_bits(product, np.array([[0.0, 2.0]], np.float32))


# -- Whole programs: the same bits as the plain accumulation ---------------------------------
def _gather_loop(dtype, ids_value, coef_value):
    """s += params[ids[t]] for t < T; loss = sum(s * coef): dL/dparams is the sum over
    t of the segment sums of coef at ids[t]."""
    def build(tf):
        params = tf.placeholder(dtype, [6, 3])
        ids = tf.constant(ids_value)
        coef = tf.constant(coef_value)

        def body(t, s):
            return t + 1, s + tf.gather(params, tf.gather(ids, t))
        _, s = tf.while_loop(lambda t, s: t < ids_value.shape[0], body,
                             [0, tf.zeros([ids_value.shape[1], 3], dtype)])
        grad, = tf.gradients(tf.reduce_sum(s * coef), params)
        return grad, {params: np.ones((6, 3), dtype)}, None
    return build


def _dense_expectation(ids_value, coef_value):
    total = np.zeros((6, 3), coef_value.dtype)
    for t in reversed(range(ids_value.shape[0])):
        segment = np.zeros_like(total)
        for i, j in enumerate(ids_value[t]):
            if j >= 0:
                segment[j] += coef_value[i]
        total += segment
    return total


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_a_gathered_captured_tensors_gradient_has_the_dense_sums_bits(monkeypatch, dtype):
    ids_value = np.array([[1, 4], [4, 4], [0, 5], [2, 2], [1, 3]], np.int32)
    coef_value = odd_floats((2, 3), dtype, seed=4)
    plain, summed = run_both_ways(monkeypatch, _gather_loop(dtype, ids_value, coef_value))
    same_bits(summed, _dense_expectation(ids_value, coef_value))
    same_bits(summed, plain)


def test_an_out_of_range_gather_in_the_loop_raises_the_gathers_error():
    build = _gather_loop(np.float32, np.array([[1, 2], [6, 0]], np.int32),
                         np.ones((2, 3), np.float32))
    with tf.Graph().as_default():
        grad, feed, _ = build(tf)
        with tf.Session() as sess, pytest.raises(InvalidArgumentError) as e:
            sess.run(grad, feed)
    assert "indices[0] = 6 is not in [0, 6)" in str(e.value)


def test_a_tensor_gathered_and_read_densely_in_the_body(monkeypatch):
    """params gathered and also multiplied whole: its gradient in the body is an AddN of
    the gather's dense gradient and the other; nothing is deferred, the bits stay."""
    def build(tf):
        params = tf.placeholder(tf.float32, [4, 2])

        def body(t, s):
            return t + 1, s * tf.reduce_sum(params) * 0.1 + tf.gather(params, t % 4)
        _, s = tf.while_loop(lambda t, s: t < 6, body, [0, tf.ones([2])])
        grad, = tf.gradients(tf.reduce_sum(s), params)
        return grad, {params: np.arange(8.0, dtype=np.float32).reshape(4, 2) * 0.25}, None
    plain, summed = run_both_ways(monkeypatch, build)
    same_bits(summed, plain)
    assert np.all(np.isfinite(summed)) and np.any(summed != 0)


def test_nested_loops_gathering_a_captured_tensor(monkeypatch):
    def build(tf):
        params = tf.placeholder(tf.float64, [5, 3])
        w = tf.placeholder(tf.float64, [3, 3])

        def outer(i, s):
            def inner(j, u):
                return j + 1, tf.tanh(tf.matmul(u, w) + tf.gather(params, (i + j) % 5))
            return i + 1, tf.while_loop(lambda j, u: j < 3, inner, [0, s])[1]
        _, s = tf.while_loop(lambda i, s: i < 4, outer, [0, tf.ones([2, 3], tf.float64)])
        grads = tf.gradients(tf.reduce_sum(s * s), [params, w])
        rng = np.random.RandomState(5)
        return grads, {params: rng.randn(5, 3) * 0.5, w: rng.randn(3, 3) * 0.5}, None
    plain, summed = run_both_ways(monkeypatch, build)
    for p, s in zip(plain, summed):
        same_bits(s, p)


def _rnn_model(kind):
    def build(tf):
        rng = np.random.RandomState(0)
        if kind == "charlm":
            ids = tf.placeholder(tf.int32, [None, 7])
            embedding = tf.Variable(rng.randn(11, 6).astype(np.float32) * 0.3)
            inputs = tf.nn.embedding_lookup(embedding, ids)
            cells = tf.nn.rnn_cell.LSTMCell(9)
            feed_x = rng.randint(0, 11, (4, 7))
        else:
            ids = tf.placeholder(tf.float32, [None, 7, 5])
            inputs = ids
            cell = tf.nn.rnn_cell.LSTMCell if kind == "lstm" else tf.nn.rnn_cell.GRUCell
            cells = tf.nn.rnn_cell.MultiRNNCell([cell(9), cell(8)])
            feed_x = rng.rand(4, 7, 5).astype(np.float32)
        outputs, _ = tf.nn.dynamic_rnn(cells, inputs, dtype=tf.float32)
        loss = tf.reduce_sum(tf.square(outputs))
        variables = tf.trainable_variables()
        grads = tf.gradients(loss, variables + ([] if kind == "charlm" else [ids]))
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        return grads, {ids: feed_x}, train
    return build


@pytest.mark.parametrize("kind", ["lstm", "gru", "charlm"])
def test_rnn_gradients_have_the_plain_accumulations_bits(monkeypatch, kind):
    """The notes' models (two-layer LSTM and GRU, a character LM), after two training
    steps: every gradient, the input's included, bit for bit."""
    plain, summed = run_both_ways(monkeypatch, _rnn_model(kind), steps=2)
    assert len(plain) == len(summed)
    for p, s in zip(plain, summed):
        same_bits(s, p)


def _random_gather_program(seed, dtype):
    """gather_loops.py's program with its wider bounds: (gradients, feed, None), as
    run_both_ways takes a model."""
    program = gather_loop_program(seed, dtype, bounds=(7, 7, 5))

    def build(tf):
        _, grads, feed = program(tf)
        return grads, feed, None
    return build


@pytest.mark.parametrize("seed", range(8))
def test_random_gather_loops_have_the_plain_accumulations_bits(monkeypatch, seed):
    dtype = (np.float16, np.float32, np.float64)[seed % 3]
    plain, summed = run_both_ways(monkeypatch, _random_gather_program(seed, dtype))
    for p, s in zip(plain, summed):
        same_bits(s, p)
        assert s.dtype == dtype


def test_a_traced_run_gives_the_same_gradient():
    """RunOptions(FULL_TRACE) runs the outer plan op by op; the loop's gradient is the
    same bits."""
    with tf.Graph().as_default():
        grads, feed, _ = _random_gather_program(4, np.float32)(tf)
        with tf.Session() as sess:
            plain = sess.run(grads, feed)
            traced = sess.run(grads, feed, options=tf.RunOptions(
                trace_level=tf.RunOptions.FULL_TRACE), run_metadata=tf.RunMetadata())
    for p, t in zip(plain, traced):
        same_bits(t, p)
