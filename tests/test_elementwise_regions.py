"""The elementwise_regions pass (runtime/optimizer/elementwise_regions.py): an RNN cell's
gates, and their gradient, run as one Numba kernel that calls NumPy's own exp/tanh
loops (kernels/cpu/numpy_loops.py), with the bits of the ops run one by one.

Every comparison runs the same graph in two Sessions, one built with the pass on and one
with it off, the kernels compiled at once (no rent-or-buy wait), and counts the runs
that went through a compiled kernel: a test whose regions all fell back to the ops one
by one would prove nothing.
"""
import threading

import numpy as np
import pytest

import tfteach as tf
from tfteach.framework import errors
from tfteach.runtime import optimizer
from tfteach.runtime.optimizer import elementwise_regions, fused_arithmetic, region_kernels

numpy_loops = pytest.importorskip("tfteach.kernels.cpu.numpy_loops")


@pytest.fixture(autouse=True)
def compile_at_once(monkeypatch):
    monkeypatch.setattr(fused_arithmetic, "COMPILE_AFTER_SECONDS", 0.0)


@pytest.fixture
def fused_calls(monkeypatch):
    """How many region runs a compiled kernel finished (ok = True)."""
    calls = {"ok": 0, "kernels": 0, "programs": []}
    plain = region_kernels.kernel_for

    def counting(program):
        found = plain(program)
        if found is None:
            return None
        kernel, loops = found
        calls["kernels"] += 1
        calls["programs"].append(program)

        def counted(*args):
            result = kernel(*args)
            calls["ok"] += bool(result[0])
            return result
        return counted, loops
    monkeypatch.setattr(region_kernels, "kernel_for", counting)
    return calls


def _bits(a):
    a = np.asarray(a)
    return a.dtype, a.shape, a.tobytes()


def both_ways(build, steps=3, monkeypatch=None):
    """[fetched values of each run] with the pass on, and off. `build()` -> (fetches,
    targets, feed_dict); the graph is seeded, so both start from the same weights."""
    results = []
    for on in (True, False):
        elementwise_regions.ENABLED = on
        try:
            graph = tf.Graph()
            with graph.as_default():
                tf.set_random_seed(7)
                fetches, targets, feed = build()
                with tf.Session(config=tf.ConfigProto(device_count={"GPU": 0})) as sess:
                    sess.run(tf.global_variables_initializer())
                    runs = []
                    for _ in range(steps):
                        values = sess.run(list(fetches) + list(targets), feed)
                        runs.append(values[:len(fetches)])
                    runs.append(sess.run(tf.trainable_variables()))
        finally:
            elementwise_regions.ENABLED = True
        results.append(runs)
    return results


def assert_same_bits(on, off):
    for run_on, run_off in zip(on, off):
        for a, b in zip(run_on, run_off):
            assert _bits(a) == _bits(b)


# -- RNN cells, trained --------------------------------------------------------------------
def _rnn_program(cell, layers=1, batch=5, time_steps=4, features=3, dtype_loss="mse"):
    def build():
        rng = np.random.RandomState(0)
        x = tf.placeholder(tf.float32, [None, time_steps, features])
        y = tf.placeholder(tf.float32, [None, 2])
        cells = [cell() for _ in range(layers)]
        rnn = cells[0] if layers == 1 else tf.nn.rnn_cell.MultiRNNCell(cells)
        outputs, state = tf.nn.dynamic_rnn(rnn, x, dtype=tf.float32)
        logits = tf.layers.dense(outputs[:, -1, :], 2)
        loss = tf.reduce_mean(tf.square(logits - y))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        feed = {x: rng.randn(batch, time_steps, features).astype(np.float32) * 2,
                y: rng.randn(batch, 2).astype(np.float32)}
        return [loss, outputs], [train], feed
    return build


CELLS = {
    "lstm": lambda: tf.nn.rnn_cell.LSTMCell(6),
    "lstm_peepholes": lambda: tf.nn.rnn_cell.LSTMCell(6, use_peepholes=True),
    "lstm_projection_clip": lambda: tf.nn.rnn_cell.LSTMCell(6, num_proj=4, cell_clip=0.5),
    "basic_lstm": lambda: tf.nn.rnn_cell.BasicLSTMCell(5, forget_bias=0.5),
    "gru": lambda: tf.nn.rnn_cell.GRUCell(5),
    "basic_rnn": lambda: tf.nn.rnn_cell.BasicRNNCell(5),
}


@pytest.mark.parametrize("name", sorted(CELLS))
def test_rnn_cells_train_to_the_same_bits(name, fused_calls):
    on, off = both_ways(_rnn_program(CELLS[name]))
    assert_same_bits(on, off)
    if name != "basic_rnn":            # its step is one BiasAdd and a Tanh: no region
        assert fused_calls["ok"] > 0


def test_two_layer_lstm_and_gru_train_to_the_same_bits(fused_calls):
    for cell in (CELLS["lstm"], CELLS["gru"]):
        on, off = both_ways(_rnn_program(cell, layers=2, batch=7, time_steps=5))
        assert_same_bits(on, off)
    assert fused_calls["ok"] > 0


def test_an_unrolled_lstm_and_its_gradient_fuse_in_the_top_level_plan(fused_calls):
    def build():
        rng = np.random.RandomState(1)
        x = tf.placeholder(tf.float32, [None, 3])
        cell = tf.nn.rnn_cell.LSTMCell(8)
        outputs, _ = tf.nn.static_rnn(cell, [x * float(k) for k in range(3)],
                                      dtype=tf.float32)
        loss = tf.reduce_sum(tf.tanh(outputs[-1]))
        grads = tf.gradients(loss, [x] + tf.trainable_variables())
        return [loss] + grads, [], {x: rng.randn(4, 3).astype(np.float32)}
    on, off = both_ways(build, steps=2)
    assert_same_bits(on, off)
    assert fused_calls["ok"] > 0


# -- random regions, special values ---------------------------------------------------------
SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -3e38, 88.8, -104.0, 9.5],
                    np.float32)


def _random_region(seed):
    """A random DAG of region ops on matrices [None, 8] and a vector [8], with a
    constant, fetched at a few values, and the gradient of their sum."""
    unary = ["Sigmoid", "Tanh", "Exp", "Neg", "Square"]
    binary = ["AddV2", "Sub", "Mul", "RealDiv", "BiasAdd"]

    def build():
        rng = np.random.RandomState(seed)
        a = tf.placeholder(tf.float32, [None, 8])
        b = tf.placeholder(tf.float32, [None, 8])
        v = tf.placeholder(tf.float32, [8])
        values = [a, b]
        for _ in range(rng.randint(4, 12)):
            kind = rng.choice(["unary", "binary", "split", "addn", "const"])
            x = values[rng.randint(len(values))]
            y = values[rng.randint(len(values))]
            if kind == "unary":
                op = rng.choice(unary)
                values.append({"Sigmoid": tf.sigmoid, "Tanh": tf.tanh, "Exp": tf.exp,
                               "Neg": tf.negative, "Square": tf.square}[op](x))
            elif kind == "binary":
                op = rng.choice(binary)
                if op == "BiasAdd":
                    values.append(tf.nn.bias_add(x, v))
                else:
                    values.append({"AddV2": tf.add, "Sub": tf.subtract, "Mul": tf.multiply,
                                   "RealDiv": tf.div}[op](x, y))
            elif kind == "split":
                pieces = tf.split(x, 2, axis=1)
                values.append(tf.concat([pieces[1] * 0.5, tf.tanh(pieces[0])], axis=1))
            elif kind == "addn":
                values.append(tf.add_n([x, y, values[-1]]))
            else:
                values.append(x * float(rng.choice([-1.5, 0.25, 3.0])) + 1.0)
        fetched = [values[k] for k in rng.choice(len(values), 3)] + [values[-1]]
        grads = tf.gradients(tf.reduce_sum(values[-1]), [a, b, v])
        feed = {}
        for t in (a, b):
            x = rng.randn(5, 8).astype(np.float32) * 3
            x.flat[rng.choice(40, 6, replace=False)] = rng.choice(SPECIALS, 6)
            feed[t] = x
        feed[v] = rng.randn(8).astype(np.float32)
        return fetched + [g for g in grads if g is not None], [], feed
    return build


@pytest.mark.parametrize("seed", range(25))
def test_random_regions_give_the_same_bits(seed):
    on, off = both_ways(_random_region(seed), steps=2)
    assert_same_bits(on, off)


def test_random_regions_run_compiled_kernels(fused_calls):
    for seed in range(5):
        both_ways(_random_region(seed), steps=2)
    assert fused_calls["kernels"] > 0 and fused_calls["ok"] > 0


# The kernel keeps a value only the region reads as one row's buffer, and a Split of such
# a value as views of that row; a Split with a piece the region hands out (fetched, or
# read by the gradient) keeps its input whole, as a piece handed out is a [rows, width]
# view. Each way, with special values, and with 0, 1 and 7 rows.
def _split_of_a_computed_value(kind, rows):
    def build():
        rng = np.random.RandomState(rows)
        a = tf.placeholder(tf.float32, [None, 8])
        b = tf.placeholder(tf.float32, [None, 8])
        v = tf.placeholder(tf.float32, [8])
        made = tf.nn.bias_add(a * b, v) - 0.5      # only the region reads it
        first, second = tf.split(made, 2, axis=1)
        out = tf.concat([tf.sigmoid(first) * second, tf.exp(second) - first], axis=1) + a
        fetches = [out, second] if kind == "a piece fetched" else [out]
        if kind == "with gradients":              # they read the pieces
            fetches += tf.gradients(tf.reduce_sum(out), [a, b, v])
        feed = {a: rng.randn(rows, 8).astype(np.float32) * 3,
                b: rng.randn(rows, 8).astype(np.float32), v: rng.randn(8).astype(np.float32)}
        if rows:
            feed[a].flat[rng.choice(rows * 8, 5, replace=False)] = rng.choice(SPECIALS, 5)
        return fetches, [], feed
    return build


@pytest.mark.parametrize("kind", ["pieces kept inside", "a piece fetched", "with gradients"])
@pytest.mark.parametrize("rows", [0, 1, 7])
def test_splits_of_values_made_in_the_region_give_the_same_bits(fused_calls, kind, rows):
    on, off = both_ways(_split_of_a_computed_value(kind, rows), steps=2)
    assert_same_bits(on, off)
    assert on[0][0].shape == (rows, 8)
    assert fused_calls["ok"] > 0


# -- BiasAddGrad: the column sums of a matrix the region makes -------------------------------
def _fused_op_types(fused_calls):
    return {op for program in fused_calls["programs"] for op, _, _ in program.ops}


# Batch x gates at least 4,096 floats and 8 columns: BiasAddGrad's own kernel takes its
# row loop there (channel_loops.py), NumPy's sum below; both add the rows in order from
# +0.0, as the region's kernel does.
@pytest.mark.parametrize("name", ["lstm", "gru"])
@pytest.mark.parametrize("batch", [128, 5])
def test_a_bias_gradient_summed_in_the_region_gives_the_same_bits(fused_calls, name, batch):
    cell = {"lstm": lambda: tf.nn.rnn_cell.LSTMCell(16),
            "gru": lambda: tf.nn.rnn_cell.GRUCell(16)}[name]
    on, off = both_ways(_rnn_program(cell, layers=2, batch=batch), steps=2)
    assert_same_bits(on, off)
    assert "BiasAddGrad" in _fused_op_types(fused_calls) and fused_calls["ok"] > 0


def _gate(width, rows, specials_in):
    """Placeholders a, b [None, width] and v [width], h = sigmoid(bias_add(a * b, v)),
    and a feed_dict of `rows` rows (seeded by `width`) with special values put into the
    placeholder `specials_in` ("a" or "b")."""
    rng = np.random.RandomState(width)
    a = tf.placeholder(tf.float32, [None, width])
    b = tf.placeholder(tf.float32, [None, width])
    v = tf.placeholder(tf.float32, [width])
    h = tf.sigmoid(tf.nn.bias_add(a * b, v))
    feed = {a: rng.randn(rows, width).astype(np.float32) * 3,
            b: rng.randn(rows, width).astype(np.float32),
            v: rng.randn(width).astype(np.float32)}
    special = {"a": a, "b": b}[specials_in]
    feed[special].flat[rng.choice(rows * width, 4, replace=False)] = rng.choice(SPECIALS, 4)
    return a, b, v, h, feed


def _bias_graph(width, rows, read_the_sum, feeds=None):
    """`feeds`: a dict the build puts its feed_dict in (for a test's own check)."""
    def build():
        a, b, v, h, feed = _gate(width, rows, specials_in="b")
        (gv,) = tf.gradients(tf.reduce_sum(h * b), [v])     # BiasAddGrad of a region value
        fetches = [gv, h]
        if read_the_sum:                                     # region ops reading the sum
            fetches.append(tf.tanh(tf.nn.bias_add(h * a, gv)) * b)
        if feeds is not None:
            feeds.update(a=feed[a], b=feed[b], v=feed[v])
        return fetches, [], feed
    return build


def test_a_single_column_bias_gradient_is_numpys_pairwise_sum(fused_calls):
    # np.sum adds one column pairwise, not in row order: the kernel leaves it to the ops.
    on, off = both_ways(_bias_graph(1, 50, False), steps=2)
    assert_same_bits(on, off)
    assert "BiasAddGrad" in _fused_op_types(fused_calls)


@pytest.mark.parametrize("layout", ["C", "F", "rows of a wider matrix"])
def test_a_bias_gradient_kernel_sums_only_what_numpy_sums_in_row_order(layout):
    # The ops one by one make x * y in the operands' order ("K"): from operands in F
    # order (a transposed tensor is a view) an F-ordered matrix, which NumPy sums
    # pairwise down each column. The kernel takes operands whose rows are contiguous,
    # and leaves the others to the ops (ok = False).
    program = region_kernels.Program(
        ("m", "m"), [("Mul", (("a", 0), ("a", 1)), 1), ("Tanh", (("t", 0),), 1),
                     ("BiasAddGrad", (("t", 1),), 1)], (1, 2))
    kernel, loops = region_kernels.kernel_for(program)
    rng = np.random.RandomState(9)
    x = rng.randn(300, 64).astype(np.float32) * 3      # (wide enough for a row loop)
    if layout == "F":
        x = np.asfortranarray(x)
    elif layout == "rows of a wider matrix":
        x = np.concatenate([x, x], axis=1)[:, 10:74]
    ok, tanh, total = kernel(loops, np.zeros(0, np.float32), x, x)
    one_by_one = np.tanh(x * x)
    assert ok == (layout != "F")
    if ok:
        assert _bits(tanh) == _bits(one_by_one)
        assert _bits(total) == _bits(np.sum(one_by_one, axis=0))
    else:
        # (what the kernel would have summed in row order is not NumPy's answer here)
        in_rows = np.zeros(64, np.float32)
        for row in one_by_one:
            in_rows += row
        assert _bits(in_rows) != _bits(np.sum(one_by_one, axis=0))


def test_ops_reading_a_bias_gradient_wait_for_the_whole_sum(fused_calls):
    # The kernel's sum is complete only after its last row: an op reading it runs after
    # the region (with it inside, it would read the first rows' partial sums).
    feeds = {}
    on, off = both_ways(_bias_graph(64, 300, True, feeds), steps=2)
    assert_same_bits(on, off)
    assert "BiasAddGrad" in _fused_op_types(fused_calls) and fused_calls["ok"] > 0
    gv, h = (np.asarray(value, np.float64) for value in on[0][:2])
    with np.errstate(invalid="ignore"):
        want = np.sum(feeds["b"] * h * (1 - h), axis=0)      # d sum(h * b) / dv
    np.testing.assert_allclose(gv, want, rtol=1e-4, atol=1e-3)


# -- narrow and tall: the ops one by one ----------------------------------------------------
def _narrow_region(rows, width):
    def build():
        x, y, _, h, feed = _gate(width, rows, specials_in="a")
        return [tf.concat([h * x, tf.tanh(h) - y], axis=1)], [], feed
    return build


@pytest.mark.parametrize("rows, width, kernel_runs", [
    (region_kernels.THIN_ROWS + 1, 1, False), (2000, region_kernels.THIN_WIDTH - 1, False),
    (region_kernels.THIN_ROWS, 4, True), (2000, region_kernels.THIN_WIDTH, True)])
def test_many_narrow_rows_run_the_ops_one_by_one(fused_calls, rows, width, kernel_runs):
    # Row by row, a few columns a row cost more than NumPy's whole-array passes: the
    # kernel says "does not fit" there, and the ops run (with the same bits either way).
    on, off = both_ways(_narrow_region(rows, width), steps=2)
    assert_same_bits(on, off)
    assert fused_calls["kernels"] == 1
    assert (fused_calls["ok"] > 0) == kernel_runs


# -- operands a kernel does not take, and errors -------------------------------------------
def cell_graph():
    x = tf.placeholder(tf.float32, [None, 4])
    h = tf.placeholder(tf.float32, [None, 4])
    gate = tf.sigmoid(x + 1.0)
    out = gate * tf.tanh(h) + (1.0 - gate) * h
    return x, h, out


def test_a_broadcast_row_runs_the_ops_one_by_one_with_numpys_answer(fused_calls):
    x, h, out = cell_graph()
    xv = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
    hv = np.linspace(-2, 2, 4, dtype=np.float32).reshape(1, 4)     # one row, broadcast
    with tf.Session() as sess:
        got = [sess.run(out, {x: xv, h: hv}) for _ in range(3)][-1]
        fused = sess.run(out, {x: xv, h: np.repeat(hv, 3, axis=0)})
    gate = 1 / (1 + np.exp(-(xv + np.float32(1))))
    want = gate * np.tanh(hv) + (np.float32(1) - gate) * hv
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    assert _bits(got) == _bits(fused)
    assert fused_calls["ok"] >= 1


def test_incompatible_shapes_raise_tensorflows_error_at_the_op():
    x, h, out = cell_graph()
    with tf.Session() as sess:
        sess.run(out, {x: np.ones((2, 4), np.float32), h: np.ones((2, 4), np.float32)})
        with pytest.raises(errors.InvalidArgumentError,
                           match=r"Incompatible shapes: \[3,4\] vs. \[2,4\]") as caught:
            sess.run(out, {x: np.ones((3, 4), np.float32), h: np.ones((2, 4), np.float32)})
    assert caught.value.op is not None and caught.value.op.type == "Mul"


def test_the_rewrite_names_the_fused_nodes_and_remapping_off_keeps_them():
    from tfteach.core.protobuf import rewriter_config_pb2
    RewriterConfig = rewriter_config_pb2.RewriterConfig
    x, h, out = cell_graph()
    with tf.Session() as sess:
        rewrites = optimizer.rewrites_of(sess, [out], [x, h])
    fused = [r for r in rewrites if r.pass_name == "elementwise_regions"]
    assert len(fused) == 1 and len(fused[0].nodes) >= 5
    assert fused[0].result.startswith("one step: Numba[")
    off = tf.ConfigProto(graph_options=tf.GraphOptions(
        rewrite_options=RewriterConfig(remapping=RewriterConfig.OFF)))
    with tf.Session(config=off) as sess:
        assert not [r for r in optimizer.rewrites_of(sess, [out], [x, h])
                    if r.pass_name == "elementwise_regions"]


def test_no_regions_on_a_virtual_gpu():
    from tfteach.runtime import devices
    devices.set_virtual_gpus(1)
    try:
        graph = tf.Graph()
        with graph.as_default():
            with tf.device("/gpu:0"):
                x, h, out = cell_graph()
            with tf.Session() as sess:
                names = {r.pass_name for r in optimizer.rewrites_of(sess, [out], [x, h])}
    finally:
        devices.set_virtual_gpus(0)
    assert "elementwise_regions" not in names


def test_threads_running_one_fused_plan_get_their_own_answers(fused_calls):
    x, h, out = cell_graph()
    rng = np.random.RandomState(3)
    feeds = [(rng.randn(6, 4).astype(np.float32), rng.randn(6, 4).astype(np.float32))
             for _ in range(8)]
    with tf.Session() as sess:
        want = [sess.run(out, {x: a, h: b}) for a, b in feeds]
        got = [None] * len(feeds)

        def work(k):
            for _ in range(30):
                got[k] = sess.run(out, {x: feeds[k][0], h: feeds[k][1]})
        threads = [threading.Thread(target=work, args=(k,)) for k in range(len(feeds))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    for a, b in zip(got, want):
        assert _bits(a) == _bits(b)
    assert fused_calls["ok"] > 0


# -- NumPy's loops --------------------------------------------------------------------------
@pytest.mark.parametrize("ufunc", [np.exp, np.tanh])
def test_numpys_float32_loop_in_pieces_gives_the_ufuncs_bits(ufunc):
    if numpy_loops.loop_of(ufunc, np.float32) is None:
        pytest.skip("this NumPy does not give its strided loops (NEP 43 API)")
    assert numpy_loops.chunk_safe(ufunc, np.float32)
    values = np.concatenate([np.linspace(-120, 120, 1001, dtype=np.float32), SPECIALS])
    out = np.empty_like(values)
    numpy_loops._run_in_pieces(numpy_loops.loop_of(ufunc, np.float32), (values,), out)
    with np.errstate(all="ignore"):
        assert _bits(out) == _bits(ufunc(values))


def test_no_loop_is_given_where_numpy_would_cast():
    assert numpy_loops.loop_of(np.exp, np.int32) is None
    assert numpy_loops.chunk_safe(np.exp, np.int32) is False


def test_the_regions_fused_in_a_loops_bodies_are_listed_once_it_has_run():
    from test_loop_specialise import small_lstm_training
    x, y, train, feed = small_lstm_training()
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 0})) as sess:
        sess.run(tf.global_variables_initializer())
        assert not [r for r in optimizer.rewrites_of(sess, [train], [x, y])
                    if r.pass_name == "elementwise_regions"]       # nothing has run yet
        for _ in range(3):
            sess.run(train, feed)
        regions = [r.nodes for r in optimizer.rewrites_of(sess, [train], [x, y])
                   if r.pass_name == "elementwise_regions"]
    forward = [nodes for nodes in regions if nodes[0].startswith("rnn/while/")]
    backward = [nodes for nodes in regions if nodes[0].startswith("gradients/")]
    assert len(forward) == 1 and forward[0][0].endswith("lstm_cell/BiasAdd")
    # the gates' gradient (their Concat), then its column sums, the bias's gradient
    assert len(backward) == 1 and backward[0][-2].endswith("split_grad/concat")
    assert backward[0][-1].endswith("BiasAdd_grad/BiasAddGrad")
    assert any(name.endswith("SigmoidGrad") for name in backward[0])


def test_a_kernel_numba_cannot_compile_leaves_the_ops_one_by_one(monkeypatch):
    """Numba compiles a kernel for each operand layout at its first call: a failure
    there (here a stand-in raising as a TypingError would) is not the program's error."""
    def broken(program):
        def kernel(*args):
            raise TypeError("cannot compile")
        return kernel, None
    monkeypatch.setattr(region_kernels, "kernel_for", broken)
    x, h, out = cell_graph()
    feed = {x: np.linspace(-3, 3, 8, dtype=np.float32).reshape(2, 4),
            h: np.linspace(1, -1, 8, dtype=np.float32).reshape(2, 4)}
    with tf.Session() as sess:
        got = [sess.run(out, feed) for _ in range(3)]
    elementwise_regions.ENABLED = False
    try:
        with tf.Session() as sess:
            want = sess.run(out, feed)
    finally:
        elementwise_regions.ENABLED = True
    for value in got:
        assert _bits(value) == _bits(want)


def test_a_kernel_an_earlier_process_compiled_is_a_load_not_a_compile(monkeypatch, tmp_path):
    monkeypatch.setattr(fused_arithmetic, "CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(region_kernels, "_KERNELS", {"another": None})
    program = region_kernels.Program(
        ("m", "m"), [("Mul", (("a", 0), ("a", 1)), 1), ("Tanh", (("t", 0),), 1)], (1,))
    full = region_kernels.compile_seconds(program)
    assert full > 0.5                       # nothing on disk: a compile to rent for
    kernel, loops = region_kernels.kernel_for(program)
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    ok, out = kernel(loops, np.zeros(0, np.float32), x, x)
    assert ok and _bits(out) == _bits(np.tanh(x * x))
    assert region_kernels.compile_seconds(program) == 0.0      # compiled in this process
    region_kernels._KERNELS.clear()                            # as a new process sees it
    assert region_kernels.compile_seconds(program) == region_kernels.LOAD_SECONDS
