"""The graph optimizer (runtime/optimizer, docs/optimizer.md): every program gives the
same bits with its passes on and off, the passes do rewrite what they should, and
RewriterConfig / OptimizerOptions turn them off as in TensorFlow."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tfteach as tf
from tfteach.ops.op_builder import apply_op
from tfteach.runtime import optimizer
from tfteach.runtime.optimizer import specialise
from tfteach.runtime.config import ConfigProto, GraphOptions, OptimizerOptions, RewriterConfig
from tests.gradient_cases import CASES
from tests.graph_io_models import MODELS, load_values, variable_values

OFF = ConfigProto(graph_options=GraphOptions(
    rewrite_options=RewriterConfig(disable_meta_optimizer=True)))


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def assert_same_bits(on, off, label=""):
    assert len(on) == len(off)
    for i, (a, b) in enumerate(zip(on, off)):
        assert same_bits(a, b), "%s: fetch %d differs:\n%r\n%r" % (label, i, a, b)


def run_both(graph, fetches, feeds, setup=None, runs=1):
    """The values of `runs` runs of fetches with the optimizer on, and with it off.
    `setup` (an initializer) runs first; the second session starts from the first's
    variable values (an initializer without a seed draws others in each session)."""
    results, start = [], None
    for config in (None, OFF):
        with tf.Session(graph=graph, config=config) as sess:
            if setup is not None:
                sess.run(setup)
                if start is None:
                    start = variable_values(tf, sess, graph)
                else:
                    load_values(tf, sess, graph, start)
            for _ in range(runs):
                values = sess.run(fetches, feeds)
            results.append(values)
    return results


# -- the corpus: every gradient case, with known and with unknown shapes ------------------
@pytest.mark.parametrize("static", ["known", "unknown dims"])
@pytest.mark.parametrize("op_type", sorted(CASES))
def test_gradient_cases_give_the_same_bits_optimized(op_type, static):
    case = CASES[op_type]
    graph = tf.Graph()
    with graph.as_default():
        xs = [tf.placeholder(tf.as_dtype(v.dtype.name),
                             v.shape if static == "known" else [None] * v.ndim)
              for v in case.inputs]
        try:
            y = case.build(tf, *xs)
        except (ValueError, TypeError):      # the op wants static shapes: known only
            pytest.skip("needs static shapes")
        ys = [t for t in (y if isinstance(y, (list, tuple)) else [y]) if t.dtype.is_floating]
        loss = tf.add_n([tf.reduce_sum(t * t) for t in ys])
        fetches = ys + [g for g in tf.gradients(loss, xs) if g is not None]
    on, off = run_both(graph, fetches, dict(zip(xs, case.inputs)))
    assert_same_bits(on, off, op_type)


def test_only_the_feeds_a_shape_reads_make_the_signature():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None])
        other = tf.placeholder(tf.float32, [None])
        y = tf.cast(tf.size(x), tf.float32) * tf.reduce_sum(other)
    with tf.Session(graph=graph) as sess:
        for n in (1, 2, 3):
            assert sess.run(y, {x: np.ones(4), other: np.ones(n)}) == 4.0 * n
        assert list(sess._plan((y,), (x, other), ()).specialiser.cache) == [((4,),)]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_notes_models_train_to_the_same_bits_optimized(name):
    graph = tf.Graph()
    with graph.as_default():
        spec = MODELS[name](tf)
        fetches = [graph.get_tensor_by_name(n) for n in spec["outputs"]]
        if spec["train"]:
            fetches.append(graph.get_operation_by_name(spec["train"]))
    feeds = {graph.get_tensor_by_name(k): v for k, v in spec["inputs"].items()}
    init = graph.get_operation_by_name(spec["init"])
    on, off = run_both(graph, fetches, feeds, setup=init, runs=3)
    assert_same_bits(on[:len(spec["outputs"])], off[:len(spec["outputs"])], name)


# -- random recurrent networks, fed batches of changing shapes ----------------------------
RNN_CELLS = ["BasicLSTMCell", "LSTMCell", "GRUCell", "BasicRNNCell"]


def random_rnn(seed):
    """(graph, fetches, train op, init op, [feed dicts]) of a random dynamic_rnn trained
    by gradient descent: cell kind, units, layers and dtype drawn from `seed`, the batch
    and time dimensions unknown and fed at three shapes, the first again last (a plan
    specialised per feed signature, its regions' kernels compiled per layout)."""
    rng = np.random.RandomState(seed)
    kind = RNN_CELLS[rng.randint(len(RNN_CELLS))]
    units, layers, features = int(rng.randint(1, 7)), int(rng.randint(1, 3)), int(rng.randint(1, 5))
    dtype = tf.float64 if rng.rand() < 0.25 else tf.float32
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(seed)
        x = tf.placeholder(dtype, [None, None, features])
        cells = [getattr(tf.nn.rnn_cell, kind)(units) for _ in range(layers)]
        cell = cells[0] if layers == 1 else tf.nn.rnn_cell.MultiRNNCell(cells)
        outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=dtype)
        loss = tf.reduce_sum(tf.square(outputs))
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        grad_x = tf.gradients(loss, x)[0]
        init = tf.global_variables_initializer()
    shapes = [(int(rng.randint(1, 5)), int(rng.randint(1, 6))) for _ in range(2)]
    feeds = [{x: rng.randn(b, t, features).astype(dtype.as_numpy_dtype)}
             for b, t in shapes + shapes[:1]]
    return graph, [loss, outputs, grad_x], train, init, feeds, kind


@pytest.mark.parametrize("seed", range(16))
def test_random_rnns_fed_changing_shapes_train_to_the_same_bits_optimized(seed, monkeypatch):
    from tfteach.runtime.optimizer import fused_arithmetic
    monkeypatch.setattr(fused_arithmetic, "COMPILE_AFTER_SECONDS", 0.0)  # regions at once
    graph, fetches, train, init, feeds, kind = random_rnn(seed)
    results = []
    for config in (None, OFF):
        with tf.Session(graph=graph, config=config) as sess:
            sess.run(init)              # seeded: both sessions start from the same weights
            runs = [sess.run(fetches + [train], feed)[:-1] for feed in feeds]
            runs.append(sess.run(graph.get_collection("trainable_variables")))
        results.append(runs)
    for i, (on, off) in enumerate(zip(*results)):
        assert_same_bits(on, off, "%s, run %d" % (kind, i))


# -- random elementwise programs ----------------------------------------------------------
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, np.inf, -np.inf, np.nan, 1e-30, 3e38]
UNARY = ["tanh", "exp", "sin", "negative", "square", "abs", "sqrt", "log", "identity"]
BINARY = ["add", "subtract", "multiply", "truediv", "maximum", "minimum"]


@st.composite
def elementwise_programs(draw):
    dtype = draw(st.sampled_from(["float32", "float64"]))
    shape = draw(st.sampled_from([(), (3,), (2, 3), (1, 3), (4, 1)]))
    static = draw(st.sampled_from(["known", "unknown dims"]))
    size = int(np.prod(shape))
    value = np.array(draw(st.lists(st.sampled_from(SPECIAL) | st.floats(-3, 3),
                                   min_size=size, max_size=size)), dtype).reshape(shape)
    ops = draw(st.lists(st.tuples(st.sampled_from(UNARY + BINARY * 2),
                                  st.sampled_from([0.0, -0.0, 1.0, 0.5, -2.0]),
                                  st.sampled_from([(), (1,), (3,), (1, 1)]),
                                  st.booleans(), st.booleans()),
                        min_size=1, max_size=12))
    return dtype, shape, static, value, ops


def build_program(dtype, shape, static, ops):
    x = tf.placeholder(tf.as_dtype(dtype), shape if static == "known" else [None] * len(shape))
    y, side = x, []
    for name, c, c_shape, constant_first, fetch_it in ops:
        if name in UNARY:
            y = getattr(tf, name)(y)
        else:
            if len(c_shape) > len(shape) or (c_shape == (3,) and shape[-1:] not in ((3,), (1,))):
                c_shape = ()
            if c_shape == (3,) and shape[-1:] == (1,):
                c_shape = (1,)
            const = tf.constant(np.full(c_shape, c, dtype))
            y = getattr(tf, name)(*((const, y) if constant_first else (y, const)))
        if fetch_it:
            side.append(y)
    return x, [y] + side[:2]


@settings(max_examples=60, deadline=None)
@given(elementwise_programs())
def test_random_elementwise_programs_give_the_same_bits_optimized(program):
    dtype, shape, static, value, ops = program
    graph = tf.Graph()
    with graph.as_default():
        x, fetches = build_program(dtype, shape, static, ops)
        fetches += tf.gradients(tf.reduce_sum(fetches[0]), [x])
    on, off = run_both(graph, fetches, {x: value})
    assert_same_bits(on, off, repr(ops))


# -- what the passes do --------------------------------------------------------------------
def rewrites(graph, fetches, fed, config=None):
    with tf.Session(graph=graph, config=config) as sess:
        return optimizer.rewrites_of(sess, fetches, fed)


def chain_graph(n=50):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [100])
        y = x
        for _ in range(n):
            y = tf.tanh(y) * 0.5 + 0.1
    return graph, x, y


def test_a_fifty_op_chain_runs_as_one_step():
    graph, x, y = chain_graph()
    done = rewrites(graph, [y], [x])
    assert [r.pass_name for r in done] == ["elementwise_chains"]
    assert len(done[0].nodes) == 150 and done[0].nodes[-1] == y.op.name
    value = np.linspace(-2, 2, 100).astype(np.float32)
    expected = value
    for _ in range(50):
        expected = np.tanh(expected) * np.float32(0.5) + np.float32(0.1)
    with tf.Session(graph=graph) as sess:
        plan = sess._plan((y,), (x,), ())
        assert len(plan.fast_steps) == 1
        assert same_bits(sess.run(y, {x: value}), expected)


def test_a_chain_value_read_elsewhere_or_fetched_ends_the_chain():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [4])
        a = tf.exp(x) * 2.0             # a chain of two
        b = tf.sin(a)                   # a is read twice: b and c start again
        c = tf.cos(a) + 1.0
        d = b * c
    done = rewrites(graph, [d, a], [x])
    chains = [r.nodes for r in done if r.pass_name == "elementwise_chains"]
    # a (fetched, read twice) ends its chain; b * c continues one of its two inputs
    assert sorted(chains) == sorted([(x.consumers()[0].name, a.op.name),
                                     (c.op.inputs[0].op.name, c.op.name),
                                     (b.op.name, d.op.name)])


def test_shape_arithmetic_of_known_shapes_is_folded():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [5, 3])
        # Shape/Size ops as gradients build them (tf.shape of a known shape is a Const)
        shape = apply_op("Shape", [x], {"T": tf.float32, "out_type": tf.int32})
        size = apply_op("Size", [x], {"T": tf.float32, "out_type": tf.int32})
        doubled = shape * 2
    done = rewrites(graph, [doubled, size], [x])
    folded = {n for r in done if r.pass_name == "shape_folding" for n in r.nodes}
    assert folded == {shape.op.name, size.op.name, doubled.op.name}
    with tf.Session(graph=graph) as sess:
        d, n = sess.run([doubled, size], {x: np.zeros((5, 3), np.float32)})
    assert same_bits(d, np.array([10, 6], np.int32)) and same_bits(n, np.array(15, np.int32))


def test_unknown_shapes_are_folded_only_per_fed_signature():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        shape = tf.shape(x)
    done = rewrites(graph, [shape], [x])
    assert [(r.pass_name, r.nodes) for r in done] == [("shape_specialisation", ("Shape",))]
    with tf.Session(graph=graph) as sess:
        for n in (7, 2, 7, 0):
            assert same_bits(sess.run(shape, {x: np.zeros((n, 3))}), np.array([n, 3], np.int32))
        assert sorted(sess._plan((shape,), (x,), ()).specialiser.cache) == [
            ((0, 3),), ((2, 3),), ((7, 3),)]


@pytest.mark.parametrize("build, rewritten", [
    (lambda x: x * 1.0, True), (lambda x: 1.0 * x, True), (lambda x: x / 1.0, True),
    (lambda x: x - 0.0, True), (lambda x: x + (-0.0), True),
    (lambda x: x + 0.0, False),          # -0.0 + 0.0 is +0.0: not the same bits
    (lambda x: 0.0 - x, False), (lambda x: 1.0 / x, False), (lambda x: x * 2.0, False),
    (lambda x: x * tf.ones([2, 1, 1]), False),    # broadcasting makes it bigger
])
def test_arithmetic_identities_only_where_bit_identical(build, rewritten):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 2])
        y = tf.sin(build(x))
    done = [r for r in rewrites(graph, [y], [x]) if r.pass_name == "arithmetic"]
    assert bool(done) == rewritten
    value = np.array([[-0.0, 0.0], [np.nan, -1.5]], np.float32)
    on, off = run_both(graph, [y], {x: value})
    assert_same_bits(on, off)


def test_identities_and_noops_are_dropped_but_not_fetched_ones_nor_variable_reads():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [3])
        v = tf.Variable([1.0, 2.0, 3.0])
        i = tf.identity(x)
        kept = tf.identity(x * 3.0)
        y = tf.exp(i) + tf.identity(v)
        group = tf.group(y)
        init = tf.global_variables_initializer()
    done = rewrites(graph, [y, kept], [x]) + rewrites(graph, [kept], [x])
    nodes = {n for r in done if r.pass_name == "dependency" for n in r.nodes}
    assert i.op.name in nodes and kept.op.name not in nodes
    assert not any(n.endswith("read") for n in nodes)
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        plan = sess._plan((), (x,), (group,))
        assert [r for r in plan.rewrites if r.nodes == (group.name,)]


def test_a_failing_link_of_a_chain_names_its_own_op_as_unfused():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None])
        w = tf.placeholder(tf.float32, [None])
        y = tf.exp(tf.tanh(x) * w, name="scaled")
    feeds = {x: np.ones(3, np.float32), w: np.ones(2, np.float32)}
    messages = []
    for config in (None, OFF):
        with tf.Session(graph=graph, config=config) as sess:
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(y, feeds)
            messages.append(str(info.value))
            assert info.value.op.name == "mul"
    assert messages[0] == messages[1]
    assert "Incompatible shapes: [3] vs. [2]" in messages[0]


def test_a_traced_run_runs_the_graph_as_built():
    graph, x, y = chain_graph(3)
    with tf.Session(graph=graph) as sess:
        metadata = tf.RunMetadata()
        sess.run(y, {x: np.zeros(100, np.float32)},
                 options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=metadata)
    names = [n.node_name for d in metadata.step_stats.dev_stats for n in d.node_stats]
    assert sum(name.startswith("Tanh") for name in names) == 3


# -- switches -------------------------------------------------------------------------------
def test_rewriter_config_has_tensorflows_toggle_values():
    assert (RewriterConfig.DEFAULT, RewriterConfig.ON, RewriterConfig.OFF,
            RewriterConfig.AGGRESSIVE) == (0, 1, 2, 3)
    assert (OptimizerOptions.L1, OptimizerOptions.L0) == (0, -1)
    config = RewriterConfig()
    assert config.constant_folding == RewriterConfig.DEFAULT
    assert config.disable_meta_optimizer is False
    with pytest.raises(ValueError, match='Protocol message RewriterConfig has no "folding"'):
        RewriterConfig(folding=2)
    with pytest.raises(AttributeError):
        config.folding = 2


def test_toggle_values_match_tensorflows_protos():
    rewriter_config_pb2 = pytest.importorskip("tensorboard.compat.proto.rewriter_config_pb2")
    config_pb2 = pytest.importorskip("tensorboard.compat.proto.config_pb2")
    ref = rewriter_config_pb2.RewriterConfig
    for name in ("DEFAULT", "ON", "OFF", "AGGRESSIVE"):
        assert getattr(RewriterConfig, name) == getattr(ref, name)
    # the very messages: every field and enum of TF's, protobuf's checks
    assert RewriterConfig is ref and OptimizerOptions is config_pb2.OptimizerOptions
    opt = config_pb2.OptimizerOptions
    assert (opt.L0, opt.L1) == (OptimizerOptions.L0, OptimizerOptions.L1)


def mixed_graph():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [4, 3])
        shape = apply_op("Shape", [x], {"T": tf.float32, "out_type": tf.int32})
        y = tf.identity(tf.exp(tf.tanh(x) * 1.0) + 2.0)
        z = tf.sin(y)
    return graph, x, [z, shape]


@pytest.mark.parametrize("rewrite_options, passes_off", [
    (dict(constant_folding=RewriterConfig.OFF), {"shape_folding"}),
    (dict(shape_optimization=RewriterConfig.OFF), {"shape_folding"}),
    (dict(arithmetic_optimization=RewriterConfig.OFF), {"arithmetic"}),
    (dict(dependency_optimization=RewriterConfig.OFF), {"dependency"}),
    (dict(remapping=RewriterConfig.OFF), {"elementwise_chains"}),
    (dict(remapping=RewriterConfig.ON, constant_folding=RewriterConfig.AGGRESSIVE), set()),
    (dict(disable_meta_optimizer=True), {"shape_folding", "arithmetic", "dependency",
                                         "elementwise_chains"}),
])
def test_rewrite_options_turn_passes_off(rewrite_options, passes_off):
    graph, x, fetches = mixed_graph()
    everything = {r.pass_name for r in rewrites(graph, fetches, [x])}
    assert everything == {"shape_folding", "arithmetic", "dependency", "elementwise_chains"}
    config = ConfigProto(graph_options=GraphOptions(
        rewrite_options=RewriterConfig(**rewrite_options)))
    left = {r.pass_name for r in rewrites(graph, fetches, [x], config)}
    assert left == everything - passes_off


def test_optimizer_options_l0_turns_constant_folding_off_unless_asked():
    graph, x, fetches = mixed_graph()
    l0 = ConfigProto(graph_options=GraphOptions(
        optimizer_options=OptimizerOptions(opt_level=OptimizerOptions.L0)))
    assert "shape_folding" not in {r.pass_name for r in rewrites(graph, fetches, [x], l0)}
    l0_folding = ConfigProto(graph_options=GraphOptions(optimizer_options=OptimizerOptions(
        opt_level=OptimizerOptions.L0, do_constant_folding=True)))
    assert "shape_folding" in {r.pass_name for r in rewrites(graph, fetches, [x], l0_folding)}


# -- shape specialisation --------------------------------------------------------------------
def linear_regression_graph():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 1])
        y = tf.placeholder(tf.float32, [None, 1])
        w = tf.Variable([[0.5]])
        b = tf.Variable([0.1])
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        init = tf.global_variables_initializer()
    return graph, x, y, loss, train, init


def test_shapes_of_fed_batches_are_folded_per_signature():
    graph, x, y, loss, train, init = linear_regression_graph()
    rng = np.random.RandomState(1)
    batches = [(rng.rand(n, 1).astype(np.float32), rng.rand(n, 1).astype(np.float32))
               for n in (100, 7, 100, 1, 7, 0)]
    results = []
    for config in (None, OFF):
        with tf.Session(graph=graph, config=config) as sess:
            sess.run(init)
            losses = [sess.run([loss, train], {x: a, y: b})[0] for a, b in batches]
            results.append(losses + sess.run(_variables(graph)))
            if config is None:
                plan = sess._plan((loss,), (x, y), (train,))
                assert sorted(plan.specialiser.cache) == [((0, 1), (0, 1)), ((1, 1), (1, 1)),
                                                          ((7, 1), (7, 1)),
                                                          ((100, 1), (100, 1))]
                folded = plan.specialiser.rewrites[((7, 1), (7, 1))][0].nodes
                assert "gradients/sub_grad/BroadcastGradientArgs" in folded
                assert "gradients/Mean_grad/Shape" in folded
                generic = len(plan.specialiser.generic[1])
                assert len(plan.specialiser.cache[((7, 1), (7, 1))][1]) < generic
    assert_same_bits(results[0], results[1])


def _variables(graph):
    with graph.as_default():
        return tf.global_variables()


def test_past_the_most_signatures_the_unspecialised_steps_run():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float64, [None])
        g = tf.gradients(tf.reduce_sum(tf.square(x - tf.reduce_mean(x))), x)[0]
    with tf.Session(graph=graph) as sess:
        for n in range(1, specialise.MAX_SIGNATURES + 4):
            value = np.linspace(-1, 1, n)
            expected = 2 * (value - value.mean()) - 2 * (value - value.mean()).sum() / n
            np.testing.assert_allclose(sess.run(g, {x: value}), expected, atol=1e-12)
        plan = sess._plan((g,), (x,), ())
        assert len(plan.specialiser.cache) == specialise.MAX_SIGNATURES


def test_a_failing_step_of_a_specialised_plan_names_its_op():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None])
        w = tf.placeholder(tf.float32, [None])
        y = tf.reduce_sum(x * w) * tf.cast(tf.size(x), tf.float32)
    with tf.Session(graph=graph) as sess:
        assert sess.run(y, {x: np.ones(3), w: np.ones(3)}) == 9.0
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Incompatible shapes: \[3\] vs. \[2\]") as info:
            sess.run(y, {x: np.ones(3), w: np.ones(2)})
        assert info.value.op.name == "mul"


@pytest.mark.parametrize("update", ["assign", "assign_add", "deferred_sgd"])
def test_a_chain_moved_past_a_variable_update_reads_the_value_it_read_before(update):
    # tanh(q) * w runs before the update as built; fused, it runs at exp's place, after
    # it: the value of the read must be the same (variables are copy-on-write).
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [4, 3])
        q = tf.placeholder(tf.float32, [3, 2])
        w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2) / 10)
        m = tf.tanh(q) * w
        if update == "assign":
            up = tf.assign(w, tf.fill([3, 2], 5.0))
        elif update == "assign_add":
            up = tf.assign_add(w, tf.fill([3, 2], 10.0))
        else:                                   # the product deferred into the update
            up = tf.train.GradientDescentOptimizer(0.1).minimize(
                tf.reduce_sum(tf.square(tf.matmul(x, w))))
        z = tf.exp(m) + 1.0
        init = tf.global_variables_initializer()
    feed = {x: np.ones((4, 3), np.float32), q: np.ones((3, 2), np.float32)}
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        assert [r.nodes for r in optimizer.rewrites_of(sess, [z], [x, q], )
                if r.pass_name == "elementwise_chains"]
    on, off = run_both(graph, [z, up], feed, setup=init)
    assert_same_bits(on[:1], off[:1])
    w0 = np.arange(6, dtype=np.float32).reshape(3, 2) / np.float32(10)
    assert same_bits(on[0], np.exp(np.tanh(np.float32(1)) * w0) + np.float32(1))


# -- redundant_shape_ops, the tf.tuple Identities, compiled specialised steps -------------
def _specialised_steps(sess, fetches, fed, targets, signature):
    return sess._plan(tuple(fetches), tuple(fed), tuple(targets)).specialiser.cache[
        signature][1]


def test_the_sum_and_reshape_undoing_no_broadcast_are_read_through_per_signature():
    graph, x, y, loss, train, init = linear_regression_graph()
    batch = np.arange(10, dtype=np.float32).reshape(10, 1) / 10
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        for _ in range(3):
            sess.run([loss, train], {x: batch, y: -batch})
        plan = sess._plan((loss,), (x, y), (train,))
        done = [r for r in plan.specialiser.rewrites[((10, 1), (10, 1))]
                if r.pass_name == "redundant_shape_ops"]
        assert {n for r in done for n in r.nodes} == {"gradients/sub_grad/Sum",
                                                      "gradients/sub_grad/Reshape"}
        steps = _specialised_steps(sess, [loss], [x, y], [train], ((10, 1), (10, 1)))
        names = [s.name for s in steps]
        # the b side's Sum over the batch axis reduces: it runs
        assert "gradients/sub_grad/Sum" not in names and "gradients/add_grad/Sum" in names
        assert not [s for s in steps if s.type == "NoOp"]
        assert "gradients/add_grad/tuple/control_dependency" not in names
        # an update only reads its gradient: the Identity it reads is read through too
        assert "gradients/add_grad/tuple/control_dependency_1" not in names


def test_a_reshape_that_changes_the_shape_and_a_fetched_sum_run():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [2, 3])
        same = tf.reshape(x, [2, 3])
        flat = tf.reshape(tf.exp(same), [6])
        fetched = tf.reduce_sum(x * 2.0, axis=[])
        y = tf.reduce_sum(tf.sin(x), axis=[]) + 1.0
    done = rewrites(graph, [flat, fetched, y], [x])
    read = {n for r in done if r.pass_name == "redundant_shape_ops" for n in r.nodes}
    assert read == {same.op.name, y.op.inputs[0].op.name}
    value = np.array([[-0.0, 1.0, np.nan], [np.inf, -2.5, 0.0]], np.float32)
    on, off = run_both(graph, [flat, fetched, y], {x: value})
    assert_same_bits(on, off)
    with np.errstate(invalid="ignore"):
        expected = [np.exp(value).reshape(6), value * 2, np.sin(value) + 1]
    assert_same_bits(on, expected)


def test_identities_waiting_for_a_state_change_are_kept():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [3])
        v = tf.Variable([1.0, 2.0, 3.0])
        pure = tf.tuple([x * 2.0, x + 1.0])
        tripled = x * 3.0
        with tf.control_dependencies([tf.group(tf.assign_add(v, [1.0, 1.0, 1.0]))]):
            waits = tf.identity(tripled)
        y = pure[0] + pure[1] + waits
    nodes = {n for r in rewrites(graph, [y], [x]) if r.pass_name == "dependency"
             for n in r.nodes}
    assert waits.op.control_inputs and {t.op.name for t in pure} <= nodes
    assert waits.op.name not in nodes


def test_a_compiled_specialised_loop_names_the_failing_op_as_unoptimized():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None])
        i = tf.placeholder(tf.int32, [None])
        y = tf.gather(x, i, name="picked") * tf.cast(tf.size(x), tf.float32)
    good = {x: np.ones(4, np.float32), i: np.array([0, 3], np.int32)}
    bad = {x: np.ones(4, np.float32), i: np.array([0, 9], np.int32)}
    messages = []
    for config in (None, OFF):
        with tf.Session(graph=graph, config=config) as sess:
            for _ in range(4):           # past COMPILE_AFTER_RUNS: straight-line code
                np.testing.assert_array_equal(sess.run(y, good), [4.0, 4.0])
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(y, bad)
            assert info.value.op.name == "picked"
            messages.append(str(info.value))
            if config is None:
                entry = sess._plan((y,), (x, i), ()).specialiser.cache[((4,),)]
                assert entry.loop is not None
    assert messages[0] == messages[1]
