"""Loop-invariant hoisting out of while_loop bodies (runtime/loop_hoisting.py): an
invariant op runs once per loop run, the results are bit-identical with
`RewriterConfig(loop_optimization=OFF)`, errors are the op's own (and none for a loop
that runs no iteration), stateful ops stay in the body, and the gradient body's
`dy @ W^T` reads a pretransposed W only where BLAS gives the same bits."""
import numpy as np
import pytest

import tfteach as tf
from tfteach.framework.errors import InvalidArgumentError
from tfteach.kernels.cpu import linalg
from tfteach.runtime import loop_hoisting
from tfteach.runtime.config import RewriterConfig
from tfteach.runtime.optimizer import rewrites_of

OFF = tf.ConfigProto(graph_options=tf.GraphOptions(
    rewrite_options=RewriterConfig(loop_optimization=RewriterConfig.OFF)))
NO_META = tf.ConfigProto(graph_options=tf.GraphOptions(
    rewrite_options=RewriterConfig(disable_meta_optimizer=True)))


def _invariant_loop(n_iterations, a_value, b_value, config=None):
    """x_{i+1} = x_i + (A @ B) * 0.5 with A, B fed outside the loop: A @ B and its
    scaling are invariant. Returns (result, session, graph)."""
    graph = tf.Graph()
    with graph.as_default():
        a = tf.placeholder(tf.float32, [None, None])
        b = tf.placeholder(tf.float32, [None, None])
        n = tf.placeholder(tf.int32, [])
        x0 = tf.zeros([2, 2])
        _, x = tf.while_loop(lambda i, x: i < n,
                             lambda i, x: (i + 1, x + tf.tanh(x) + tf.matmul(a, b) * 0.5),
                             [tf.constant(0), x0])
        sess = tf.Session(graph=graph, config=config)
        value = sess.run(x, {a: a_value, b: b_value, n: n_iterations})
    return value, sess, graph, (x, a, b, n)


def _expected(n_iterations, a_value, b_value):
    x = np.zeros((2, 2), np.float32)
    for _ in range(n_iterations):
        x = x + np.tanh(x) + np.matmul(a_value, b_value) * np.float32(0.5)
    return x


A = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
B = np.array([[0.5, -1.0], [0.25, 2.0]], np.float32)


def test_an_invariant_product_runs_once_per_loop_run(products):
    value, sess, graph, (x, a, b, n) = _invariant_loop(5, A, B)
    assert len(products) == 1
    np.testing.assert_array_equal(value, _expected(5, A, B))
    del products[:]
    sess.run(x, {a: A, b: B, n: 3})                  # a second run computes it again
    assert len(products) == 1
    rewrites = rewrites_of(sess, [x], [a, b, n])
    (hoisted,) = [r for r in rewrites if r.pass_name == "loop_optimization"]
    assert {node.split("/")[-1] for node in hoisted.nodes} == {"MatMul", "mul"}
    assert hoisted.result == "computed once per loop run"


@pytest.mark.parametrize("config", [OFF, NO_META], ids=["loop_optimization_off",
                                                        "meta_optimizer_off"])
def test_the_switch_turns_hoisting_off(products, config):
    value, sess, graph, (x, a, b, n) = _invariant_loop(5, A, B, config)
    assert len(products) == 5
    np.testing.assert_array_equal(value, _expected(5, A, B))
    assert not [r for r in rewrites_of(sess, [x], [a, b, n])
                if r.pass_name == "loop_optimization"]
    assert not loop_hoisting.enabled(sess)


def test_a_loop_that_runs_no_iteration_runs_no_invariant_op(products):
    bad = np.ones((4, 5), np.float32)                 # A @ bad cannot be multiplied
    value, *_ = _invariant_loop(0, A, bad)
    assert products == []
    np.testing.assert_array_equal(value, np.zeros((2, 2), np.float32))


@pytest.mark.parametrize("config", [None, OFF], ids=["hoisted", "off"])
def test_an_invariant_op_that_fails_raises_its_own_error(config):
    bad = np.ones((4, 5), np.float32)
    with pytest.raises(InvalidArgumentError,
                       match=r"Matrix size-incompatible: In\[0\]: \[2,2\], In\[1\]: \[4,5\]"
                       ) as raised:
        _invariant_loop(3, A, bad, config)
    assert raised.value.op.type == "MatMul"
    assert raised.value.op.name == "while/MatMul"


def test_stateful_ops_stay_in_the_body():
    """random_uniform has invariant inputs (a captured shape) and is not hoisted: each
    iteration draws new numbers."""
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(3)
        shape = tf.placeholder(tf.int32, [1])

        def body(i, rows):
            r = tf.random_uniform(shape)
            return i + 1, tf.concat([rows, tf.reshape(r, [1, 4])], 0)

        _, rows = tf.while_loop(lambda i, rows: i < 3, body,
                                [tf.constant(0), tf.zeros([0, 4])],
                                shape_invariants=[tf.TensorShape([]),
                                                  tf.TensorShape([None, 4])])
        with tf.Session(graph=graph) as sess:
            value = sess.run(rows, {shape: [4]})
            assert not [r for r in rewrites_of(sess, [rows], [shape])
                        if r.pass_name == "loop_optimization"]
    assert value.shape == (3, 4)
    assert len({row.tobytes() for row in value}) == 3


def test_a_body_that_writes_a_variable_hoists_nothing(products):
    """A body with an assign_add may change what its captured reads hold from one
    iteration to the next: nothing is hoisted from it (the same values on and off)."""
    graph = tf.Graph()
    with graph.as_default():
        v = tf.Variable([[1.0, 0.0], [0.0, 1.0]])
        w = tf.constant(B)

        def body(i, x):
            with tf.control_dependencies([tf.assign_add(v, tf.ones([2, 2]))]):
                return i + 1, x + tf.matmul(tf.identity(v), w)

        _, x = tf.while_loop(lambda i, x: i < 3, body, [tf.constant(0), tf.zeros([2, 2])])
        results = []
        for config in (None, OFF):
            with tf.Session(graph=graph, config=config) as sess:
                sess.run(v.initializer)
                del products[:]
                results.append((sess.run(x), sess.run(v)))
                assert len(products) == 3
                assert not [r for r in rewrites_of(sess, [x], [])
                            if r.pass_name == "loop_optimization"]
    (x_on, v_on), (x_off, v_off) = results
    assert x_on.tobytes() == x_off.tobytes() and v_on.tobytes() == v_off.tobytes()
    np.testing.assert_array_equal(v_on, np.eye(2, dtype=np.float32) + 3)


def test_nested_loops_hoist_once_per_inner_loop_run(products):
    graph = tf.Graph()
    with graph.as_default():
        a = tf.placeholder(tf.float32, [2, 2])
        b = tf.placeholder(tf.float32, [2, 2])

        def outer_body(i, x):
            _, y = tf.while_loop(lambda j, y: j < 4,
                                 lambda j, y: (j + 1, y * 0.5 + tf.matmul(a, b)),
                                 [tf.constant(0), x])
            return i + 1, y

        _, x = tf.while_loop(lambda i, x: i < 3, outer_body,
                             [tf.constant(0), tf.zeros([2, 2])])
        grad_a, = tf.gradients(tf.reduce_sum(x), [a])
        results = {}
        for name, config in (("on", None), ("off", OFF)):
            with tf.Session(graph=graph, config=config) as sess:
                del products[:]
                results[name] = sess.run(x, {a: A, b: B})
                results[name, "count"] = len(products)
                results[name, "grad"] = sess.run(grad_a, {a: A, b: B})
    assert results["on", "count"] == 3 and results["off", "count"] == 12
    assert results["on"].tobytes() == results["off"].tobytes()
    assert results["on", "grad"].tobytes() == results["off", "grad"].tobytes()
    expected = np.zeros((2, 2), np.float32)
    for _ in range(12):
        expected = expected * np.float32(0.5) + np.matmul(A, B)
    np.testing.assert_array_equal(results["on"], expected)


def _random_program(rng, graph):
    """A while_loop whose body mixes invariant and varying elementwise ops and products
    (captured matrices p, q and a vector c), with its gradients w.r.t. everything."""
    with graph.as_default():
        p = tf.placeholder(tf.float32, [3, 3])
        q = tf.placeholder(tf.float32, [3, 3])
        c = tf.placeholder(tf.float32, [3])
        x0 = tf.placeholder(tf.float32, [3, 3])
        captured = [p, q, c]
        unary = [tf.tanh, tf.sigmoid, tf.exp, lambda t: t * 0.5, tf.square, tf.negative]
        binary = [tf.add, tf.multiply, tf.subtract, tf.matmul,
                  lambda s, t: tf.matmul(s, t, transpose_b=True)]
        recipe = [(int(rng.randint(len(unary))), int(rng.randint(len(binary))),
                   int(rng.randint(3)), int(rng.randint(3))) for _ in range(4)]

        def body(i, x):
            values = [x]
            invariant = [p, q]
            for u, bi, k, m in recipe:
                inv = unary[u](invariant[k % 2]) + c        # invariant chain
                invariant.append(inv)
                varying = binary[bi](values[-1] * 0.25, inv if m else invariant[k % 2])
                values.append(tf.tanh(varying))
            return i + 1, values[-1] + x * 0.5

        _, x = tf.while_loop(lambda i, x: i < 4, body, [tf.constant(0), x0])
        grads = tf.gradients(tf.reduce_sum(x * x), captured + [x0])
    feeds = {t: rng.uniform(-1, 1, t.shape.as_list()).astype(np.float32)
             for t in captured + [x0]}
    return [x] + [g for g in grads if g is not None], feeds   # q may go unused


@pytest.mark.parametrize("seed", range(12))
def test_random_programs_are_bit_identical_on_and_off(seed):
    rng = np.random.RandomState(seed)
    graph = tf.Graph()
    fetches, feeds = _random_program(rng, graph)
    results = []
    for config in (None, OFF):
        with tf.Session(graph=graph, config=config) as sess:
            results.append(sess.run(fetches, feeds))
            assert all(a.tobytes() == b.tobytes()           # a second run: the same
                       for a, b in zip(results[-1], sess.run(fetches, feeds)))
    for on, off in zip(*results):
        assert on.tobytes() == off.tobytes()
    with tf.Session(graph=graph) as sess:
        sess.run(fetches, feeds)
        hoisted = loop_hoisting.rewrites_in(sess, graph.get_operations())
    assert any(r.result == "computed once per loop run" for r in hoisted)


# -- the RNNs of the notes: forward and gradient ---------------------------------------------------
def _train_rnn(cell_class, config, units=96, steps=3):
    """Variables and losses after GradientDescent steps of a 2-layer dynamic_rnn (its
    gradient products dy @ W^T are above the small-matrix size: pretransposed)."""
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(11)
        rng = np.random.RandomState(0)
        x = tf.placeholder(tf.float32, [None, 6, 28])
        y = tf.placeholder(tf.int32, [None])
        cell = tf.nn.rnn_cell.MultiRNNCell([cell_class(units) for _ in range(2)])
        outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        logits = tf.layers.dense(outputs[:, -1, :], 10)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=y, logits=logits))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        sess = tf.Session(graph=graph, config=config)
        sess.run(tf.global_variables_initializer())
        losses = []
        for _ in range(steps):
            feed = {x: rng.randn(32, 6, 28).astype(np.float32), y: rng.randint(0, 10, 32)}
            losses.append(sess.run([loss, train], feed)[0])
        values = sess.run(tf.trainable_variables())
        rewrites = loop_hoisting.rewrites_in(sess, graph.get_operations())
    return losses, values, rewrites


@pytest.mark.parametrize("cell", ["LSTMCell", "GRUCell"])
def test_rnn_training_is_bit_identical_on_and_off(cell):
    cell_class = getattr(tf.nn.rnn_cell, cell)
    losses, values, rewrites = _train_rnn(cell_class, None)
    plain_losses, plain_values, plain_rewrites = _train_rnn(cell_class, OFF)
    assert [np.float32(v).tobytes() for v in losses] == \
        [np.float32(v).tobytes() for v in plain_losses]
    for a, b in zip(values, plain_values):
        assert a.tobytes() == b.tobytes()
    assert plain_rewrites == []
    (pretransposed,) = [r for r in rewrites if r.result.startswith("reads W^T")]
    assert pretransposed.nodes and all(n.endswith("MatMul_grad/MatMul") or
                                       n.endswith("MatMul_1_grad/MatMul")
                                       for n in pretransposed.nodes)


# -- the pretransposed product: where its bits are proven equal -----------------------------------
def test_this_blas_gives_both_layouts_the_same_bits_above_the_limit():
    assert loop_hoisting.layouts_agree(), (
        "this BLAS rounds a @ W.T and a @ contiguous(W.T) differently above "
        "SMALL_GEMM_LIMIT: loop_hoisting keeps the pretransposed products off here")


def _shapes(rng, count):
    for _ in range(count):
        m = int(rng.choice([2, 3, 5, 8, 16, 31, 32, 64, 100, 128]))
        yield m, int(rng.randint(2, 1100)), int(rng.randint(1, 1100))


@pytest.mark.parametrize("window", [False, True], ids=["blas_threads", "split_halves"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_pretransposed_kernel_gives_matmuls_bits(dtype, window):
    """Over a spread of shapes, small and large: the kernel's product is MatMul's, byte
    for byte, whether it reads the copy (above the limit) or calls MatMul (below); also
    inside a BLAS window, where split_matmul computes large products in two halves."""
    import contextlib

    from tfteach.kernels.cpu import run_state, two_workers
    graph = tf.Graph()
    with graph.as_default():
        a = tf.placeholder(dtype, [None, None])
        w = tf.placeholder(dtype, [None, None])
        product = tf.matmul(a, w, transpose_b=True)
    session = tf.Session(graph=graph)
    ctx = session._kernel_context(product.op)
    owner = object()
    kernel = loop_hoisting._pretransposed_matmul(owner, product.op)
    rng = np.random.RandomState(5)
    state = run_state.RunState()
    with contextlib.ExitStack() as stack:
        stack.callback(run_state.leave, run_state.enter(state))
        if window:
            stack.enter_context(two_workers.blas_window())
        state.entries[owner] = {}
        read_copy = 0
        for m, n, k in list(_shapes(rng, 150)) + [(32, 156, 128), (32, 128, 256),
                                                  (1, 2000, 1000), (2, 1000, 500)]:
            left = rng.standard_normal((m, k)).astype(dtype)
            right = rng.standard_normal((n, k)).astype(dtype)
            got = kernel(ctx, left, right)
            assert got.tobytes() == linalg.matmul_kernel(ctx, left, right).tobytes(), \
                (m, n, k)
            read_copy += product.op in state.entries[owner] and \
                state.entries[owner][product.op][0] is right
        assert read_copy > 50


def test_the_pretransposed_kernel_checks_shapes_as_matmul():
    graph = tf.Graph()
    with graph.as_default():
        a = tf.placeholder(tf.float32, [None, None])
        w = tf.placeholder(tf.float32, [None, None])
        product = tf.matmul(a, w, transpose_b=True)
    ctx = tf.Session(graph=graph)._kernel_context(product.op)
    kernel = loop_hoisting._pretransposed_matmul(object(), product.op)
    with pytest.raises(InvalidArgumentError,
                       match=r"Matrix size-incompatible: In\[0\]: \[64,300\], "
                             r"In\[1\]: \[200,301\]"):
        kernel(ctx, np.ones((64, 300), np.float32), np.ones((200, 301), np.float32))


def test_small_products_keep_matmuls_own_path():
    assert not loop_hoisting._packed_both_ways(32, 156, 128)       # 638,976: small kernels
    assert not loop_hoisting._packed_both_ways(1, 5000, 5000)      # one row: gemv
    assert not loop_hoisting._packed_both_ways(100, 100, 100)      # exactly the limit
    assert loop_hoisting._packed_both_ways(32, 256, 512)
    assert loop_hoisting._packed_both_ways(100, 100, 101)


def test_tfgraph_optimized_lists_what_a_loop_hoisted():
    """`%%tfgraph --optimized`'s export names the hoisted nodes and the picture's marks
    say what became of them."""
    from tfteach.notebook import graph_export, optimized_view
    from tfteach.notebook.run_recorder import RunRecorder
    graph = tf.Graph()
    with graph.as_default():
        a = tf.placeholder(tf.float32, [2, 2], name="a")
        _, x = tf.while_loop(lambda i, x: i < 3,
                             lambda i, x: (i + 1, x + tf.exp(a)),
                             [tf.constant(0), tf.zeros([2, 2])])
        sess = tf.Session()
        with RunRecorder(optimized=True) as recorder:
            value = sess.run(x, {a: A})
    np.testing.assert_array_equal(value, np.exp(A) + np.exp(A) + np.exp(A))
    run = graph_export.export_graph(graph, recorder.runs)["runs"][0]
    assert {"pass": "loop_optimization", "nodes": ["while/Exp"],
            "result": "computed once per loop run"} in run["optimized"]
    assert optimized_view.marks(run)["while/Exp"] == (
        "loop_optimization", "computed once per loop run (loop_optimization)")
