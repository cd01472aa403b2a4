"""tf.while_loop written as TF 1.15's frames and read back, without TensorFlow: the
frame's nodes and attrs, tfteach -> GraphDef -> tfteach round trips (values checked
against NumPy), the stack and TensorArray ops such GraphDefs use, and their errors in
TensorFlow's words (checked against TensorFlow 2.21's messages)."""
import numpy as np
import pytest

import tfteach as tf
from tfteach.framework.attr_values import to_attr_value
from tfteach.framework.graph_def import NotExportableError
from tfteach.io.tf_protos import GraphDef, NodeDef


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as graph:
        yield graph


def _nodes(graph_def):
    return {n.name: n for n in graph_def.node}


def test_a_counter_loop_is_written_as_a_frame():
    n = tf.placeholder(tf.int32, [], name="n")
    i, s = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s * 2.0),
                         [tf.constant(0), tf.constant(1.0)], parallel_iterations=4)
    nodes = _nodes(tf.get_default_graph().as_graph_def())
    assert "while" not in nodes                    # no one-node While
    enter, merge, switch = nodes["while/Enter"], nodes["while/Merge"], nodes["while/Switch"]
    assert enter.op == "Enter" and not enter.attr["is_constant"].b
    assert enter.attr["frame_name"].s == b"while/while_context"
    assert enter.attr["parallel_iterations"].i == 4
    assert list(merge.input) == ["while/Enter", "while/NextIteration"]
    assert list(switch.input) == ["while/Merge", "while/LoopCond"]
    assert nodes["while/Identity"].op == "Identity"
    assert list(nodes["while/Identity"].input) == ["while/Switch:1"]
    assert list(nodes["while/Exit"].input) == ["while/Switch"]
    # The condition reads the Merge; the outside `n` comes in through a constant Enter.
    less = nodes["while/Less"]
    assert less.input[0] == "while/Merge"
    n_enter = nodes[less.input[1]]
    assert n_enter.op == "Enter" and n_enter.attr["is_constant"].b and n_enter.input[0] == "n"
    # A body constant waits for the body's pivot, so it belongs to the frame.
    assert "^while/Identity" in nodes["while/add/y"].input
    assert i.name == "while/Exit:0" and s.name == "while/Exit_1:0"


def _round_trip(fetches, feed):
    graph = tf.get_default_graph()
    with tf.Session() as sess:
        expected = sess.run(fetches, feed)
    graph_def = graph.as_graph_def()
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess:
            got = sess.run([t.name for t in fetches],
                           {k.name: v for k, v in feed.items()})
    return expected, got


def test_a_loop_and_its_gradient_come_back_as_a_while_op():
    x = tf.placeholder(tf.float32, [2], name="x")
    _, p = tf.while_loop(lambda i, p: i < 3, lambda i, p: (i + 1, p * x),
                         [tf.constant(0), x], name="power")
    g = tf.identity(tf.gradients(p, x)[0], name="g")
    value = np.array([1.5, -2.0], np.float32)
    expected, got = _round_trip([p, g], {x: value})
    np.testing.assert_allclose(got[0], value ** 4, rtol=1e-6)
    np.testing.assert_allclose(got[1], 4 * value ** 3, rtol=1e-6)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-6)


def test_imported_frames_become_one_while_op_per_frame():
    _, total = tf.while_loop(lambda i, t: i < 4, lambda i, t: (i + 1, t + i),
                             [tf.constant(0), tf.constant(0)], name="outer")
    graph_def = tf.get_default_graph().as_graph_def()
    with tf.Graph().as_default() as graph:
        tf.import_graph_def(graph_def, name="imported")
        types = {op.name: op.type for op in graph.get_operations()}
        assert types["imported/outer"] == "While"
        assert types["imported/outer/Exit_1"] == "Exit"
        assert types["imported/outer/Identity"] == "LoopVar"
        with tf.Session() as sess:
            assert sess.run("imported/outer/Exit_1:0") == 0 + 1 + 2 + 3


def test_a_nested_loop_round_trips():
    def outer_body(i, total):
        _, inner = tf.while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t + j),
                                 [tf.constant(0), total], name="inner")
        return i + 1, inner
    _, total = tf.while_loop(lambda i, t: i < 5, outer_body,
                             [tf.constant(0), tf.constant(0)], name="outer")
    expected, got = _round_trip([total], {})
    assert got == expected == [sum(j for i in range(5) for j in range(i))]


def test_the_gradient_of_a_nested_loop_round_trips():
    """The inner loop's stacks live outside both loops: pushed through all the outer
    iterations in order, popped in exactly the reverse order by the outer gradient."""
    x = tf.placeholder(tf.float32, [], name="x")

    def outer_body(i, y):
        _, inner = tf.while_loop(lambda j, z: j < i + 1, lambda j, z: (j + 1, z * x),
                                 [tf.constant(0), y], name="inner")
        return i + 1, inner
    _, y = tf.while_loop(lambda i, y: i < 3, outer_body, [tf.constant(0), x], name="outer")
    g = tf.identity(tf.gradients(y, x)[0], name="g")
    expected, got = _round_trip([y, g], {x: np.float32(1.1)})
    # y = x * x**(1 + 2 + 3) = x**7 (the inner loop runs i + 1 times).
    np.testing.assert_allclose(got, [1.1 ** 7, 7 * 1.1 ** 6], rtol=1e-5)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def _loop_with_cond(tf, nested=False):
    x = tf.placeholder(tf.float32, [], name="x")

    def branch_true(y):
        if nested:
            return tf.cond(y > 5.0, lambda: y * x, lambda: y * x * x)
        return y * x
    _, y = tf.while_loop(
        lambda i, y: i < 4,
        lambda i, y: (i + 1, tf.cond(tf.equal(i % 2, 0), lambda: branch_true(y),
                                     lambda: y + x * x)),
        [tf.constant(0), tf.constant(1.0)])
    return x, y


def test_the_gradient_through_a_cond_in_a_loop_body_round_trips():
    """Branch values are pushed only in the iterations that take the branch and popped
    through a Switch of the stack handle; ControlTriggers keep the counters going."""
    x, y = _loop_with_cond(tf)
    g = tf.identity(tf.gradients(y, x)[0], name="g")
    expected, got = _round_trip([y, g], {x: np.float32(3.0)})
    # i = 0: y = x; i = 1: x + x^2; i = 2: x^2 + x^3; i = 3: 2x^2 + x^3.
    value = 3.0
    y4, dy = 2 * value ** 2 + value ** 3, 4 * value + 3 * value ** 2
    np.testing.assert_allclose(got, [y4, dy], rtol=1e-6)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_the_gradient_through_a_cond_in_a_cond_in_a_loop_is_refused_by_name():
    x, y = _loop_with_cond(tf, nested=True)
    assert any(n.op == "Enter" for n in tf.get_default_graph().as_graph_def().node)
    g = tf.gradients(y, x)[0]
    with tf.Session() as sess:                       # tfteach itself runs it
        sess.run(g, {x: 3.0})
    with pytest.raises(NotExportableError, match="nested in another tf.cond"):
        tf.get_default_graph().as_graph_def()


# -- the stack and TensorArray ops of TF's loop gradients and dynamic_rnn ------------------------
def _node(graph_def, name, op, inputs=(), **attrs):
    node = NodeDef(name=name, op=op)
    node.input.extend(inputs)
    for key, value in attrs.items():
        node.attr[key].CopyFrom(to_attr_value(value))
    graph_def.node.add().CopyFrom(node)


def _const(graph_def, name, value):
    value = np.asarray(value)
    _node(graph_def, name, "Const", dtype=tf.as_dtype(value.dtype), value=value)


def _run(graph_def, fetch):
    with tf.Graph().as_default():
        (out,) = tf.import_graph_def(graph_def, name="", return_elements=[fetch])
        with tf.Session() as sess:
            return sess.run(out)


def _array(size=3, shape=None):
    gd = GraphDef()
    _const(gd, "size", np.int32(size))
    attrs = {"dtype": tf.float32, "dynamic_size": False, "clear_after_read": True,
             "identical_element_shapes": True, "tensor_array_name": "ta"}
    if shape is not None:
        attrs["element_shape"] = tf.TensorShape(shape)
    _node(gd, "ta", "TensorArrayV3", ["size"], **attrs)
    return gd


def test_a_stack_pops_last_pushed_first_and_refuses_an_empty_pop():
    gd = GraphDef()
    _const(gd, "max", np.int32(-1))
    _node(gd, "s", "StackV2", ["max"], elem_type=tf.float32, stack_name="acc")
    _const(gd, "a", np.float32(1.0))
    _const(gd, "b", np.float32(2.0))
    _node(gd, "push_a", "StackPushV2", ["s", "a"], T=tf.float32, swap_memory=False)
    _node(gd, "push_b", "StackPushV2", ["s", "b", "^push_a"], T=tf.float32,
          swap_memory=False)
    _node(gd, "pop", "StackPopV2", ["s", "^push_b"], elem_type=tf.float32)
    _node(gd, "pop2", "StackPopV2", ["s", "^pop"], elem_type=tf.float32)
    _node(gd, "pop3", "StackPopV2", ["s", "^pop2"], elem_type=tf.float32)
    assert _run(gd, "pop:0") == 2.0
    assert _run(gd, "pop2:0") == 1.0
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Stack\[acc\] is empty when calling Pop\(\)\."):
        _run(gd, "pop3:0")


def test_a_tensor_array_scatters_reads_writes_and_gathers():
    gd = _array(3, [2])
    values = np.arange(6, dtype=np.float32).reshape(3, 2)
    _const(gd, "values", values)
    _const(gd, "indices", np.array([0, 1, 2], np.int32))
    _node(gd, "scatter", "TensorArrayScatterV3", ["ta", "indices", "values", "ta:1"],
          T=tf.float32)
    _const(gd, "one", np.int32(1))
    _node(gd, "read", "TensorArrayReadV3", ["ta", "one", "scatter"], dtype=tf.float32)
    _node(gd, "size_of", "TensorArraySizeV3", ["ta", "scatter"])
    _const(gd, "reversed", np.array([2, 1, 0], np.int32))
    _node(gd, "gather", "TensorArrayGatherV3", ["ta", "reversed", "scatter"],
          dtype=tf.float32, element_shape=tf.TensorShape([2]))
    np.testing.assert_array_equal(_run(gd, "read:0"), values[1])
    assert _run(gd, "size_of:0") == 3
    np.testing.assert_array_equal(_run(gd, "gather:0"), values[::-1])


def test_a_gradient_tensor_array_adds_writes_and_reads_zeros_where_unwritten():
    gd = _array(2, [2])
    _node(gd, "grad", "TensorArrayGradV3", ["ta", "ta:1"], source="gradients")
    _const(gd, "zero", np.int32(0))
    _const(gd, "one", np.int32(1))
    _const(gd, "v", np.array([1.0, 2.0], np.float32))
    _node(gd, "w1", "TensorArrayWriteV3", ["grad", "zero", "v", "grad:1"], T=tf.float32)
    _node(gd, "w2", "TensorArrayWriteV3", ["grad", "zero", "v", "w1"], T=tf.float32)
    _node(gd, "sum", "TensorArrayReadV3", ["grad", "zero", "w2"], dtype=tf.float32)
    _node(gd, "unwritten", "TensorArrayReadV3", ["grad", "one", "w2"], dtype=tf.float32)
    np.testing.assert_array_equal(_run(gd, "sum:0"), [2.0, 4.0])
    np.testing.assert_array_equal(_run(gd, "unwritten:0"), [0.0, 0.0])


@pytest.mark.parametrize("index,twice,message", [
    (0, True, "TensorArray ta: Could not write to TensorArray index 0 because it has "
              "already been written to."),
    (5, False, "TensorArray ta: Tried to write to index 5 but array is not resizeable and "
               "size is: 3"),
])
def test_bad_tensor_array_writes_are_tensorflows_errors(index, twice, message):
    gd = _array()
    _const(gd, "i", np.int32(index))
    _const(gd, "v", np.float32(1.0))
    _node(gd, "w", "TensorArrayWriteV3", ["ta", "i", "v", "ta:1"], T=tf.float32)
    _node(gd, "w2", "TensorArrayWriteV3", ["ta", "i", "v", "w" if twice else "ta:1"],
          T=tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=message.replace(".", r"\.")):
        _run(gd, "w2:0")


@pytest.mark.parametrize("index,message", [
    (5, "Tried to read from index 5 but array size is: 3"),
    (1, "TensorArray ta: Could not read from TensorArray index 1.  Furthermore, the "
        "element shape is not fully defined: <unknown>."),
])
def test_bad_tensor_array_reads_are_tensorflows_errors(index, message):
    gd = _array()
    _const(gd, "i", np.int32(index))
    _node(gd, "r", "TensorArrayReadV3", ["ta", "i", "ta:1"], dtype=tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=message.replace(".", r"\.")):
        _run(gd, "r:0")


def test_a_cycle_that_is_not_a_loop_is_a_value_error():
    """TensorFlow: `ValueError: 2 nodes in a cycle`; never a hang."""
    gd = GraphDef()
    _node(gd, "a", "Identity", ["b"], T=tf.float32)
    _node(gd, "b", "Identity", ["a"], T=tf.float32)
    with pytest.raises(ValueError, match="cycle through node"):
        tf.import_graph_def(gd, name="")
