"""Loop sub-plans specialised on their feed shapes (runtime/loop_specialise.py) give the
plain plans' numbers bit for bit, fall back when a shape depends on values, and fail
with the same errors. Each test runs the same program with TFTEACH_LOOP_SPECIALISE=0
(the plain sub-plans) and =1."""
import numpy as np
import pytest

import tfteach as tf
from tfteach.runtime.config import OptimizerOptions, RewriterConfig
from tfteach.runtime.loop_specialise import SpecialisingPlan


def _loop_plans(sess, graph, types=("While", "WhileGrad")):
    """The SpecialisingPlans of every While / WhileGrad op (of `types`) that has run."""
    found = []
    for op in graph.get_operations():
        if op.type not in types:
            continue
        state = sess._kernel_context(op).state
        if op.type == "While" and state.get("plans"):
            found.extend(state["plans"][1])
        elif op.type == "WhileGrad" and state.get("plan") is not None:
            found.append(state["plan"])
    assert all(isinstance(p, SpecialisingPlan) for p in found)
    return found


def _train(make_cell, batches, embed=False, steps=3):
    """Variables after `steps` GradientDescent steps of a dynamic_rnn model, and the
    loop plans (graph, session) to inspect."""
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(7)
        rng = np.random.RandomState(0)
        if embed:                            # a character LM: ids -> embedding -> cell
            ids = tf.placeholder(tf.int32, [None, 12])
            emb = tf.get_variable("emb", [20, 8])
            inputs = tf.nn.embedding_lookup(emb, ids)
        else:
            ids = tf.placeholder(tf.float32, [None, 12, 5])
            inputs = ids
        labels = tf.placeholder(tf.int32, [None])
        outputs, _ = tf.nn.dynamic_rnn(make_cell(), inputs, dtype=tf.float32)
        logits = tf.layers.dense(outputs[:, -1, :], 20)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        sess = tf.Session(graph=graph)
        sess.run(tf.global_variables_initializer())
        losses = []
        for i in range(steps):
            n = batches[i % len(batches)]
            x = (rng.randint(0, 20, (n, 12)) if embed else
                 rng.randn(n, 12, 5).astype(np.float32))
            feed = {ids: x, labels: rng.randint(0, 20, n)}
            losses.append(sess.run([loss, train], feed)[0])
        values = sess.run(tf.trainable_variables())
    return losses, values, sess, graph


CELLS = {
    "lstm2": lambda: tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(16)
                                                  for _ in range(2)]),
    "basic_lstm": lambda: tf.nn.rnn_cell.BasicLSTMCell(16),
    "gru": lambda: tf.nn.rnn_cell.GRUCell(16),
}


def train_both_ways(monkeypatch, make_cell, embed=False):
    """Trains with loop specialisation off, then on: the same bits, and each gradient
    body ran shorter, its shape bookkeeping folded away. Returns the specialised
    training's (session, graph)."""
    monkeypatch.setenv("TFTEACH_LOOP_SPECIALISE", "0")
    plain_losses, plain, sess, graph = _train(make_cell, [6], embed)
    assert all(not p.by_signature for p in _loop_plans(sess, graph))
    monkeypatch.setenv("TFTEACH_LOOP_SPECIALISE", "1")
    losses, special, sess, graph = _train(make_cell, [6], embed)
    np.testing.assert_array_equal(losses, plain_losses)
    for a, b in zip(special, plain):
        np.testing.assert_array_equal(a, b)
    grads = _loop_plans(sess, graph, ("WhileGrad",))
    assert grads
    for p in grads:
        (special_plan,) = p.by_signature.values()
        assert special_plan is not None
        ran = [s.type for s in special_plan.fast_steps if s.kernel.__name__ != "guard_shapes"]
        assert "BroadcastGradientArgs" not in ran and "Shape" not in ran
        # (the outputs' concat, one row longer each iteration: concat_grad_slices.py)
        assert "ShapeN" not in ran and "ConcatOffset" not in ran
        assert "ConcatGradSlices" in ran
        assert len(ran) < 0.7 * len(p.plan.fast_steps)
    return sess, graph


@pytest.mark.parametrize("cell", sorted(CELLS))
@pytest.mark.parametrize("embed", [False, True])
def test_training_is_bit_identical(monkeypatch, cell, embed):
    train_both_ways(monkeypatch, CELLS[cell], embed)


def test_a_new_batch_size_gets_its_own_specialisation(monkeypatch):
    monkeypatch.setenv("TFTEACH_LOOP_SPECIALISE", "0")
    plain_losses, plain, _, _ = _train(CELLS["lstm2"], [4, 7], steps=4)
    monkeypatch.setenv("TFTEACH_LOOP_SPECIALISE", "1")
    losses, special, sess, graph = _train(CELLS["lstm2"], [4, 7], steps=4)
    np.testing.assert_array_equal(losses, plain_losses)
    for a, b in zip(special, plain):
        np.testing.assert_array_equal(a, b)
    for p in _loop_plans(sess, graph):
        assert len(p.by_signature) == 2
        assert all(s is not None for s in p.by_signature.values())


def _count_above(flag, monkeypatch, data):
    """A loop whose body's shapes depend on values, not on the fed shapes: each
    iteration counts the elements of x above i (tf.where's row count)."""
    monkeypatch.setenv("TFTEACH_LOOP_SPECIALISE", flag)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None])

        def body(i, total):
            above = tf.where(x > tf.cast(i, tf.float32))
            return i + 1, total + tf.shape(above)[0] * 10 + tf.size(above)

        _, total = tf.while_loop(lambda i, t: i < 6, body, [tf.constant(0), tf.constant(0)])
        with tf.Session(graph=graph) as sess:
            value = sess.run(total, {x: data})
            again = sess.run(total, {x: data})
            plans = _loop_plans(sess, graph)
    assert again == value
    return value, plans


def _expected_count(data):
    return sum(11 * int(np.sum(data > i)) for i in range(6))


def test_shapes_that_change_from_the_start_are_not_folded(monkeypatch):
    data = np.arange(8, dtype=np.float32)            # 7, 6, 5, ... rows above i
    plain, _ = _count_above("0", monkeypatch, data)
    value, plans = _count_above("1", monkeypatch, data)
    assert plain == value == _expected_count(data)
    (special,) = plans[1].by_signature.values()
    kernels = {s.op.type: s.kernel.__name__ for s in special.fast_steps}
    assert kernels["Shape"] != "guard_shapes" and kernels["Size"] != "guard_shapes"


def test_a_shape_that_changes_later_falls_back_to_the_plain_plan(monkeypatch):
    # 8 rows above 0, 1 and 2 (the shapes look fixed, the body is specialised), 7 above 3.
    data = np.arange(3, 11, dtype=np.float32)
    plain, _ = _count_above("0", monkeypatch, data)
    value, plans = _count_above("1", monkeypatch, data)
    assert plain == value == _expected_count(data)
    # A guard saw the new shape: that run and the later ones ran the plain plan.
    assert list(plans[1].by_signature.values()) == [None]


def _failing_loop(flag, monkeypatch, rows):
    monkeypatch.setenv("TFTEACH_LOOP_SPECIALISE", flag)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, None])
        w = tf.constant(np.ones((3, 3), np.float32))
        def body(i, h):
            return i + 1, tf.matmul(h, w) + tf.cast(tf.shape(h)[0], tf.float32)

        _, out = tf.while_loop(lambda i, h: i < 3, body, [tf.constant(0), x])
        with tf.Session(graph=graph) as sess:
            ok = sess.run(out, {x: np.ones((2, 3), np.float32)})
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(out, {x: np.ones((rows, 2), np.float32)})
    return ok, str(info.value)


def test_errors_are_the_plain_plans(monkeypatch):
    ok_plain, message_plain = _failing_loop("0", monkeypatch, 2)
    ok, message = _failing_loop("1", monkeypatch, 2)
    np.testing.assert_array_equal(ok, ok_plain)
    expected = np.ones((2, 3), np.float32)
    for _ in range(3):
        expected = expected @ np.ones((3, 3), np.float32) + 2
    np.testing.assert_array_equal(ok, expected)
    assert message == message_plain
    assert "MatMul" in message and "[2,2]" in message and "[3,3]" in message


def _gradients_program():
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(3)
        x = tf.placeholder(tf.float32, [None, 7, 4])
        outputs, _ = tf.nn.dynamic_rnn(CELLS["lstm2"](), x, dtype=tf.float32)
        loss = tf.reduce_sum(tf.square(outputs))
        grads = tf.gradients(loss, tf.trainable_variables())
        sess = tf.Session(graph=graph)
        sess.run(tf.global_variables_initializer())
    return sess, x, grads


def test_threads_with_different_batches_get_the_plain_numbers(monkeypatch):
    import threading
    rng = np.random.RandomState(1)
    batches = [rng.randn(n, 7, 4).astype(np.float32) for n in (3, 5)]
    monkeypatch.setenv("TFTEACH_LOOP_SPECIALISE", "0")
    sess, x, grads = _gradients_program()
    expected = [sess.run(grads, {x: b}) for b in batches]
    monkeypatch.setenv("TFTEACH_LOOP_SPECIALISE", "1")
    sess, x, grads = _gradients_program()
    results, errors = {}, []

    def work(k):
        try:
            results[k] = [sess.run(grads, {x: batches[k]}) for _ in range(4)]
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k in range(2):
        for run in results[k]:
            for a, b in zip(run, expected[k]):
                np.testing.assert_array_equal(a, b)


def small_lstm_training():
    """(x, y, train, feed) of a 1-layer LSTM(5) over 4 time steps, in the default graph."""
    x = tf.placeholder(tf.float32, [None, 4, 3])
    y = tf.placeholder(tf.float32, [None, 5])
    outputs, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.LSTMCell(5), x, dtype=tf.float32)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(
        tf.reduce_mean(tf.square(outputs[:, -1] - y)))
    feed = {x: np.ones((2, 4, 3), np.float32), y: np.zeros((2, 5), np.float32)}
    return x, y, train, feed


def test_rewrites_of_lists_what_a_loop_bodys_specialisation_did():
    """optimizer.rewrites_of (and so `%%tfgraph --optimized`) names the gradient body's
    nodes folded for the fed shapes, those read through, and the concat gradient made
    one step; the picture's marks say so."""
    from tfteach.notebook import optimized_view
    from tfteach.runtime import optimizer
    graph = tf.Graph()
    with graph.as_default():
        x, y, train, feed = small_lstm_training()
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            assert not [r for r in optimizer.rewrites_of(sess, [train], [x, y])
                        if r.pass_name.startswith("loop_")
                        and r.pass_name != "loop_optimization"]     # nothing has run yet
            for _ in range(3):
                sess.run(train, feed)
            rewrites = [r for r in optimizer.rewrites_of(sess, [train], [x, y])
                        if r.pass_name in ("loop_specialisation", "loop_concat_gradient")]
    by_result = {r.result: r.nodes for r in rewrites if r.pass_name == "loop_specialisation"}
    folded, read = by_result["folded for the fed shapes"], by_result["read through"]
    ops = {op.name: op.type for op in graph.get_operations()}
    assert {ops[n] for n in folded} >= {"Shape", "BroadcastGradientArgs"}
    assert {ops[n] for n in read} <= {"Sum", "Reshape", "Identity"} and read
    assert all(n.startswith("gradients/rnn/while_grad/body/") for n in folded + read)
    (concat,) = [r.nodes for r in rewrites if r.pass_name == "loop_concat_gradient"]
    assert [ops[n] for n in concat] == ["ShapeN", "ConcatOffset", "Slice", "Slice"]
    assert all(n.startswith("gradients/rnn/while_grad/body/rnn/while/concat_grad/")
               for n in concat)
    marks = optimized_view.marks({"optimized": [
        {"pass": r.pass_name, "nodes": list(r.nodes), "result": r.result} for r in rewrites]})
    assert marks[folded[0]] == ("loop_specialisation",
                                "folded for the fed shapes (loop_specialisation)")
    assert marks[read[0]] == ("loop_specialisation", "read through (loop_specialisation)")
    assert marks[concat[0]] == ("loop_concat_gradient", "fused 1/4 (loop_concat_gradient)")


def _rewrite_option(field, value):
    def configure(config):
        setattr(config.graph_options.rewrite_options, field, value)
    return configure


def _opt_level_l0(config):
    config.graph_options.optimizer_options.opt_level = OptimizerOptions.L0


SHAPE_FOLDING_OFF = {
    "constant_folding": _rewrite_option("constant_folding", RewriterConfig.OFF),
    "shape_optimization": _rewrite_option("shape_optimization", RewriterConfig.OFF),
    "disable_meta_optimizer": _rewrite_option("disable_meta_optimizer", True),
    "opt_level_L0": _opt_level_l0,
}


@pytest.mark.parametrize("switch", sorted(SHAPE_FOLDING_OFF))
def test_the_session_config_that_turns_shape_folding_off_turns_it_off_in_loops(switch):
    """Grappler's toggles of a session's top-level shape folding switch its loops' too:
    the loop sub-plans run plain (no specialisation, no records of one), with the
    default session's numbers, bit for bit. A config that leaves shape folding on
    (only loop_optimization OFF) still specialises."""
    from tfteach.runtime import optimizer

    def train(configure):
        graph = tf.Graph()
        with graph.as_default():
            tf.set_random_seed(3)
            x, y, train_op, feed = small_lstm_training()
            config = tf.ConfigProto()
            configure(config)
            with tf.Session(graph=graph, config=config) as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(3):
                    sess.run(train_op, feed)
                values = sess.run(tf.trainable_variables())
                plans = _loop_plans(sess, graph)
                records = [r for r in optimizer.rewrites_of(sess, [train_op], [x, y])
                           if r.pass_name in ("loop_specialisation", "loop_concat_gradient")]
        return values, plans, records

    def leave(config):
        pass

    default, plans, records = train(leave)
    assert any(p.by_signature for p in plans) and records
    _, plans, records = train(_rewrite_option("loop_optimization", RewriterConfig.OFF))
    assert any(p.by_signature for p in plans) and records
    values, plans, records = train(SHAPE_FOLDING_OFF[switch])
    assert plans and all(not p.by_signature for p in plans)
    assert records == []
    for a, b in zip(values, default):
        np.testing.assert_array_equal(a, b)
