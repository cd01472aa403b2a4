"""Session semantics: fetch and feed forms, pruning, caching, freeing, tracing, errors."""
import collections
import gc
import weakref

import numpy as np
import pytest

import tfteach as tf
from tfteach.framework import registry
from tfteach.ops.op_builder import apply_op, same_shape_fn

# A test-only op whose kernel records each call, so tests see exactly what ran.
CALLS = []
PRODUCED = []


def _recording_kernel(ctx, x):
    CALLS.append(ctx.op.name)
    out = np.array(x, copy=True)
    PRODUCED.append((ctx.op.name, weakref.ref(out)))
    return out


# Stateful: its kernel has a side effect (recording), so it is never folded at plan time.
registry.register_op("TestRecord", same_shape_fn, cpu=_recording_kernel, stateful=True)


def record(x, name=None):
    return apply_op("TestRecord", [tf.convert_to_tensor(x)], {}, name or "record")


@pytest.fixture(autouse=True)
def clear_calls():
    CALLS.clear()
    PRODUCED.clear()


def test_run_single_list_tuple_dict_namedtuple_and_ops():
    a = tf.constant([1.0, 2.0], name="a")
    b = tf.identity(a, name="b")
    pair = collections.namedtuple("pair", "x y")
    with tf.Session() as sess:
        assert sess.run(a).tolist() == [1.0, 2.0]
        out = sess.run([a, (b, {"k": a, "op": b.op}), pair(a, b)])
        assert isinstance(out, list) and isinstance(out[1], tuple)
        assert out[1][1]["op"] is None and out[1][1]["k"].tolist() == [1.0, 2.0]
        assert isinstance(out[2], pair) and out[2].y.tolist() == [1.0, 2.0]
        assert sess.run(b.op) is None
        assert sess.run("b:0").tolist() == [1.0, 2.0]
        assert sess.run("b") is None          # an op name fetches the op
        ordered = sess.run(collections.OrderedDict([("z", a), ("y", b)]))
        assert isinstance(ordered, collections.OrderedDict) and list(ordered) == ["z", "y"]


def test_scalar_results_are_numpy_scalars_and_results_are_writable_copies():
    c = tf.constant(3.0)
    v = tf.constant([1.0, 2.0])
    with tf.Session() as sess:
        s = sess.run(c)
        assert isinstance(s, np.float32) and s == 3.0
        out = sess.run(v)
        out[0] = 100.0                        # the student may change their copy ...
        assert sess.run(v).tolist() == [1.0, 2.0]   # ... the graph's constant is untouched


def test_duplicate_fetches_run_once():
    r = record(tf.constant(1.0), name="r")
    with tf.Session() as sess:
        first, second, third = sess.run([r, r, {"again": r}])
    assert CALLS == ["r"]
    assert first == second == third["again"] == 1.0


def test_pruning_runs_only_what_the_fetch_needs():
    # The notes' example: output = (a+b) + (b*c); add2 = c+d is never run.
    a, b, c = (tf.constant(v) for v in (1.0, 2.0, 3.0))
    needed = record(a, name="needed")
    record(b, name="unneeded")
    with tf.Session() as sess:
        sess.run(needed)
    assert CALLS == ["needed"]


def test_fed_tensor_cuts_the_graph():
    x = tf.constant(1.0)
    upstream = record(x, name="upstream")
    downstream = record(upstream, name="downstream")
    with tf.Session() as sess:
        assert sess.run(downstream, {upstream: 5.0}) == 5.0
    assert CALLS == ["downstream"]


def test_plans_are_cached_per_signature():
    x = tf.placeholder(tf.float32, [])
    y = record(x, name="y")
    with tf.Session() as sess:
        for value in range(3):
            assert sess.run(y, {x: value}) == value
        assert len(sess._plans) == 1
        sess.run([y, x], {x: 1.0})
        assert len(sess._plans) == 2


def test_intermediates_are_freed_after_their_last_consumer():
    x = tf.constant(np.ones(1000, np.float32))
    first = record(x, name="first")
    second = record(first, name="second")
    with tf.Session() as sess:
        result = sess.run(second)
    gc.collect()
    alive = {name: ref() is not None for name, ref in PRODUCED}
    assert alive == {"first": False, "second": True}
    assert result.sum() == 1000


def test_feeds_convert_to_placeholder_dtype_and_accept_names():
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    y = tf.identity(x)
    with tf.Session() as sess:
        out = sess.run(y, feed_dict={x: np.array([[1, 1, 1], [2, 4, 6]], dtype=np.int64)})
        assert out.dtype == np.float32 and out.tolist() == [[1, 1, 1], [2, 4, 6]]
        assert sess.run(y, {"x:0": [[0] * 3] * 2}).shape == (2, 3)
        assert sess.run(y, {x: np.zeros((2, 3))}).dtype == np.float32


def test_int_placeholder_truncates_floats_like_numpy_astype():
    x = tf.placeholder(tf.int32, [None])
    with tf.Session() as sess:
        assert sess.run(tf.identity(x), {x: [1.7, -2.5]}).tolist() == [1, -2]


def test_string_feed():
    s = tf.placeholder(tf.string, [None])
    with tf.Session() as sess:
        assert sess.run(tf.identity(s), {s: ["ab", b"c"]}).tolist() == [b"ab", b"c"]


@pytest.mark.parametrize("dtype, value", [
    (tf.int32, 2 ** 40), (tf.int32, -2 ** 31 - 1), (tf.uint8, 256), (tf.uint8, -1),
    (tf.bool, 2), (tf.string, 3), (tf.string, True), (tf.int64, 2 ** 63)])
def test_python_int_that_does_not_fit_the_placeholder_is_tfs_type_error(dtype, value):
    p = tf.placeholder(dtype)
    type_name = "<class 'object'>" if dtype == tf.string else str(dtype.as_numpy_dtype)
    with tf.Session() as sess, pytest.raises(TypeError) as info:
        sess.run(tf.identity(p), {p: value})
    assert str(info.value) == (
        "Type of feed value %s with type %s is not compatible with Tensor type %s. Try "
        "explicitly setting the type of the feed tensor to a larger type (e.g. int64)."
        % (value, type(value), type_name))


def test_python_ints_that_fit_are_fed_as_before():
    values = {tf.int32: -2 ** 31, tf.uint8: 255, tf.bool: True, tf.float32: 2 ** 60 + 1,
              tf.int64: 2 ** 63 - 1, tf.float64: 3}
    with tf.Session() as sess:
        for dtype, value in values.items():
            p = tf.placeholder(dtype)
            got = sess.run(tf.identity(p), {p: value})
            assert got == dtype.as_numpy_dtype(value) and got.dtype == dtype.as_numpy_dtype
        with pytest.raises(OverflowError, match="too large to convert to C long"):
            p = tf.placeholder(tf.int64)
            sess.run(p, {p: 2 ** 70})


@pytest.mark.parametrize("value, kind", [(2.5, "float"), ([b"a", 1], "int"),
                                         (np.array([1.0, 2.0]), "float"),
                                         ([[b"a"], [None]], "NoneType")])
def test_string_placeholder_fed_something_else_is_an_internal_error(value, kind):
    """TF copies a string feed into a tensor element by element; a number (or None)
    among them is its InternalError, not a string tensor holding a number."""
    p = tf.placeholder(tf.string)
    with tf.Session() as sess, pytest.raises(tf.errors.InternalError) as info:
        sess.run(tf.identity(p), {p: value})
    assert str(info.value) == "Unsupported object type %s" % kind


def test_placeholder_with_default():
    d = tf.placeholder_with_default(tf.constant([1.0, 2.0]), shape=[None])
    with tf.Session() as sess:
        assert sess.run(d).tolist() == [1.0, 2.0]
        assert sess.run(d, {d: [5.0, 6.0, 7.0]}).tolist() == [5.0, 6.0, 7.0]


def test_unfed_placeholder_error_names_it_and_the_students_line():
    x = tf.placeholder(tf.float32, [None, 3], name="x")   # <- the line the error names
    y = tf.identity(x)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(y)
    message = str(info.value)
    assert message.splitlines()[0] == ("You must feed a value for placeholder tensor 'x' "
                                       "with dtype float and shape [?,3]")
    assert "[[node x (defined at %s:" % __file__ in message
    assert "tf.placeholder(tf.float32, [None, 3], name=\"x\")" in message
    assert "feed_dict" in message                             # the hint
    assert info.value.op is x.op
    assert info.value.error_code == tf.errors.INVALID_ARGUMENT
    assert isinstance(info.value, tf.errors.OpError)


def test_unfed_placeholder_unknown_shape_message():
    x = tf.placeholder(tf.int32)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(x)
    assert str(info.value).splitlines()[0] == (
        "You must feed a value for placeholder tensor 'Placeholder' with dtype int32")


def test_unneeded_unfed_placeholder_is_fine():
    tf.placeholder(tf.float32)
    c = tf.constant(2.0)
    with tf.Session() as sess:
        assert sess.run(c) == 2.0


def test_feed_shape_mismatch():
    x = tf.placeholder(tf.float32, [2, 3])
    with tf.Session() as sess, pytest.raises(ValueError) as info:
        sess.run(x, {x: [[1, 2], [3, 4]]})
    assert str(info.value) == ("Cannot feed value of shape (2, 2) for Tensor "
                               "'Placeholder:0', which has shape '(2, 3)'")


def test_ragged_feed_gives_numpy_message_line_and_hint():
    x = tf.placeholder(tf.int32, [None, None], name="ids")
    with tf.Session() as sess, pytest.raises(ValueError) as info:
        sess.run(x, {x: [[1, 2, 3], [1, 2]]})
    lines = str(info.value).splitlines()
    assert lines[0].startswith("setting an array element with a sequence.")
    assert "[[node ids (defined at" in lines[1]
    assert "pad" in lines[-1]


def test_feed_value_that_is_a_tensor_is_rejected():
    x = tf.placeholder(tf.float32)
    with tf.Session() as sess, pytest.raises(TypeError,
                                             match="The value of a feed cannot be a tf.Tensor"):
        sess.run(x, {x: tf.constant(1.0)})


def test_bad_feed_keys_and_unfeedable_tensors():
    x = tf.placeholder(tf.float32)
    g = tf.get_default_graph()
    with tf.Session() as sess:
        with pytest.raises(TypeError, match="Cannot interpret feed_dict key as Tensor"):
            sess.run(x, {"nope:0": 1.0})
        with pytest.raises(TypeError, match="Cannot interpret feed_dict key as Tensor"):
            sess.run(x, {3: 1.0})
        g.prevent_feeding(x)
        with pytest.raises(ValueError, match="may not be fed"):
            sess.run(x, {x: 1.0})


def test_bad_fetches():
    tf.constant(1.0)
    with tf.Session() as sess:
        with pytest.raises(TypeError, match="Fetch argument None has invalid type"):
            sess.run(None)
        with pytest.raises(TypeError, match="Fetch argument 3 has invalid type"):
            sess.run(3)
        with pytest.raises(ValueError, match="cannot be interpreted as a Tensor"):
            sess.run("nope:0")


def test_fetch_from_another_graph_is_the_notes_error():
    g1, g2 = tf.Graph(), tf.Graph()
    with g1.as_default():
        c1 = tf.constant([1.0])
    with g2.as_default():
        tf.constant([2.0])
    with tf.Session(graph=g2) as sess, pytest.raises(ValueError) as info:
        sess.run(c1)
    assert str(info.value) == (
        "Fetch argument <tf.Tensor 'Const:0' shape=(1,) dtype=float32> cannot be interpreted "
        "as a Tensor. (Tensor Tensor(\"Const:0\", shape=(1,), dtype=float32) is not an "
        "element of this graph.)")


def test_closed_session_and_empty_graph():
    c = tf.constant(1.0)
    sess = tf.Session()
    sess.close()
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
        sess.run(c)
    with tf.Session(graph=tf.Graph()) as empty, pytest.raises(RuntimeError,
                                                             match="The Session graph is empty"):
        empty.run([])


def test_eval_and_op_run_use_the_default_session():
    c = tf.constant([1.0, 2.0])
    r = record(c, name="r")
    with pytest.raises(ValueError, match="No default session is registered"):
        c.eval()
    with pytest.raises(ValueError, match="Cannot execute operation using `run\\(\\)`"):
        r.op.run()
    with tf.Session():
        assert c.eval().tolist() == [1.0, 2.0]
        r.op.run()
    sess = tf.Session()
    with sess.as_default():
        assert tf.get_default_session() is sess
        assert c.eval().tolist() == [1.0, 2.0]
    assert c.eval(session=sess).tolist() == [1.0, 2.0]
    assert tf.get_default_session() is None
    assert CALLS == ["r"]


def test_eval_with_a_session_of_another_graph():
    c = tf.constant(1.0)
    other = tf.Session(graph=tf.Graph())
    with pytest.raises(ValueError, match="the tensor's graph is different from the session's"):
        c.eval(session=other)
    with other.as_default(), pytest.raises(ValueError, match="Cannot use the default session"):
        c.eval()


def test_interactive_session_installs_itself_until_closed():
    c = tf.constant(4.0)
    sess = tf.InteractiveSession()
    try:
        assert tf.get_default_session() is sess
        assert c.eval() == 4.0
    finally:
        sess.close()
    assert tf.get_default_session() is None


def _interactive_session_and_reset(tf, explicit_graph):
    """What a notebook sees around tf.reset_default_graph() with an InteractiveSession
    open: whether the reset was refused, and which graph is the default at each step."""
    tf.reset_default_graph()
    first = tf.get_default_graph()
    sess = tf.InteractiveSession(graph=tf.Graph() if explicit_graph else None)
    seen = [tf.get_default_graph() is sess.graph]
    try:
        tf.reset_default_graph()
        seen.append("reset")
    except AssertionError as e:
        seen.append(str(e))
    seen += [tf.get_default_graph() is sess.graph, sess.graph is first,
             tf.get_default_session() is sess]
    sess.close()
    seen += [tf.get_default_graph() is sess.graph, tf.get_default_session() is None]
    tf.reset_default_graph()
    return seen


@pytest.mark.parametrize("explicit_graph", [False, True], ids=["default_graph", "graph_arg"])
def test_interactive_session_makes_its_graph_the_default_only_when_passed(explicit_graph):
    # TF's InteractiveSession enters graph.as_default() only for an explicit graph=: on
    # the default graph, reset_default_graph() works while it is open (tfteach refused
    # it with AssertionError) and the session keeps the old graph.
    from tf_reference import tf1_behaviour
    with tf1_behaviour() as tf1:
        expected = _interactive_session_and_reset(tf1, explicit_graph)
    assert _interactive_session_and_reset(tf, explicit_graph) == expected
    if not explicit_graph:
        assert expected == [True, "reset", False, True, True, False, True]


def test_session_accepts_config_objects():
    config = tf.ConfigProto(log_device_placement=True)
    config.gpu_options.allow_growth = True
    config.gpu_options.per_process_gpu_memory_fraction = 0.4
    with tf.Session(config=config) as sess:
        assert sess.config.gpu_options.allow_growth
    with pytest.raises(AttributeError, match="\"allow_grwoth\""):   # protobuf's words
        config.gpu_options.allow_grwoth = True
    with pytest.raises(TypeError, match="config must be a tf.ConfigProto"):
        tf.Session(config={"allow_growth": True})


def test_full_trace_records_each_executed_node_in_order():
    a = tf.constant(np.ones(4, np.float32), name="a")
    b = record(a, name="b")
    record(a, name="never")
    c = record(b, name="c")
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    metadata = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(c, options=options, run_metadata=metadata)
    nodes = metadata.step_stats.all_nodes()
    assert [n.node_name for n in nodes] == ["a", "b", "c"]
    assert metadata.executed_nodes() == ["a", "b", "c"]
    assert [n.op for n in nodes] == ["Const", "TestRecord", "TestRecord"]
    assert all(n.device.endswith("device:CPU:0") for n in nodes)
    assert all(n.output_bytes == 16 for n in nodes)
    assert all(n.op_end_rel_micros >= 0 for n in nodes)


def test_kernel_failure_inside_a_run_keeps_the_session_usable():
    x = tf.placeholder(tf.float32, [])
    y = record(x, name="y")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(y)
        assert sess.run(y, {x: 2.0}) == 2.0


def test_two_sessions_are_independent_objects():
    c = tf.constant(1.0)
    with tf.Session() as s1, tf.Session() as s2:
        assert s1.run(c) == s2.run(c) == 1.0
        assert s1._contexts is not s2._contexts


def test_control_dependency_on_a_fed_placeholder_is_satisfied_by_the_feed():
    x = tf.placeholder(tf.float32, [])
    with tf.control_dependencies([x]):
        y = tf.constant(3.0)
    with tf.Session() as sess:
        assert sess.run(y, {x: 1.0}) == 3.0
        with pytest.raises(tf.errors.InvalidArgumentError, match="You must feed a value"):
            sess.run(y)


def test_unfetchable_tensor_is_refused_in_every_fetch_form():
    c = tf.constant(1.0)
    tf.get_default_graph().prevent_fetching(c.op)
    with tf.Session() as sess:
        for fetch in (c, [c]):
            with pytest.raises(ValueError, match="has been marked as not fetchable"):
                sess.run(fetch)


def test_pure_ops_on_constants_are_folded_once_but_traced_runs_show_them():
    c = tf.constant([1.0, 2.0])
    d = tf.identity(tf.identity(c), name="d")
    x = tf.placeholder(tf.float32, [2])
    e = tf.identity(x + d, name="e")
    with tf.Session() as sess:
        assert sess.run(e, {x: [1.0, 1.0]}).tolist() == [2.0, 3.0]
        plan = next(iter(sess._plans.values()))
        assert {s.op.name for s in plan.fast_steps} == {"add", "e"}
        out = sess.run(d)
        out[0] = 9.0                              # a folded value is never handed out shared
        assert sess.run(d).tolist() == [1.0, 2.0]
        metadata = tf.RunMetadata()
        sess.run(e, {x: [1.0, 1.0]}, options=tf.RunOptions(trace_level=3),
                 run_metadata=metadata)
        assert "d" in metadata.executed_nodes()
