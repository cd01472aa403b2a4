"""tf.while_loop graphs cross between tfteach and TensorFlow as TF 1.15's control-flow
frames (Enter/Merge/Switch/LoopCond/NextIteration/Exit; gradients with StackV2 pushes
and pops), both ways: same numbers, same training step. Skips without TensorFlow."""
import os

import numpy as np
import pytest
from google.protobuf import text_format

import tfteach
from tests.tf_reference import tf1_behaviour

pytestmark = pytest.mark.reference

RNG = np.random.RandomState(3)
X_SEQ = RNG.rand(3, 5, 2).astype(np.float32)
Y_SEQ = RNG.rand(3, 1).astype(np.float32)


def _to_library(tf, message):
    return getattr(tf, type(message).__name__).FromString(message.SerializeToString())


def counter(tf):
    n = tf.placeholder(tf.int32, [], name="n")
    i, s = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s * 2.0 + 1.0),
                         [tf.constant(0), tf.constant(1.0)])
    return [i, s], {"n:0": 6}


def power_with_gradient(tf):
    """x ** 4 by a loop; the gradient flows through the captured x and the initial x."""
    x = tf.placeholder(tf.float32, [2], name="x")
    _, p = tf.while_loop(lambda i, p: i < 3, lambda i, p: (i + 1, p * x),
                         [tf.constant(0), x], name="power")
    return [p] + tf.gradients(p, [x]), {"x:0": np.array([1.5, -0.5], np.float32)}


def nested(tf):
    n = tf.placeholder(tf.int32, [], name="n")

    def outer_body(i, total):
        _, inner = tf.while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t + j),
                                 [tf.constant(0), total], name="inner")
        return i + 1, inner
    i, total = tf.while_loop(lambda i, t: i < n, outer_body,
                             [tf.constant(0), tf.constant(0)], name="outer")
    return [i, total], {"n:0": 5}


def cond_in_body(tf):
    x = tf.placeholder(tf.float32, [], name="x")
    _, y = tf.while_loop(
        lambda i, y: i < 4,
        lambda i, y: (i + 1, tf.cond(tf.equal(i % 2, 0), lambda: y * x, lambda: y + x)),
        [tf.constant(0), tf.constant(1.0)])
    return [y], {"x:0": 3.0}


def lstm_gradient(tf):
    """dynamic_rnn with an LSTM cell: outputs, loss and the gradients of its weights."""
    from tests.graph_io_models import _rnn_cells
    x = tf.placeholder(tf.float32, [3, 5, 2], name="x")
    cell = _rnn_cells(tf).BasicLSTMCell(4)
    outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    loss = tf.reduce_sum(tf.square(outputs[:, -1, :]), name="loss")
    weights = tf.trainable_variables()
    # (named: tfteach's gradient of a captured weight is an output of its one WhileGrad
    # op, which the GraphDef writes as an Exit of the gradient loop, with another name)
    grads = [tf.identity(g, name="grad_%d" % i)
             for i, g in enumerate(tf.gradients(loss, weights))]
    return [outputs, loss] + grads, {"x:0": X_SEQ}


def cond_in_body_with_gradient(tf):
    x = tf.placeholder(tf.float32, [], name="x")
    _, y = tf.while_loop(
        lambda i, y: i < 4,
        lambda i, y: (i + 1, tf.cond(tf.equal(i % 2, 0), lambda: y * x,
                                     lambda: y + x * x)),
        [tf.constant(0), tf.constant(1.0)])
    return [y, tf.identity(tf.gradients(y, x)[0], name="gx")], {"x:0": 3.0}


def test_tensorflows_gradient_through_a_cond_in_a_loop_runs_in_tfteach():
    """TF pushes a branch's values inside the branch (a forward ControlTrigger keeps the
    counter alive when the branch is not taken) and pops them through a Switch of the
    stack handle: tfteach runs that (ControlTrigger handles dead inputs)."""
    with tf1_behaviour() as tf:
        graph_def, names, feed, expected, weights = _run_source(
            tf, cond_in_body_with_gradient)
        got = _run_imported(tfteach, graph_def, names, feed, weights)
    _check(expected, got)
    # y: ((1*3 + 9)*3 + 9) = 45; dy/dx by hand: 39.
    _check([45.0, 39.0], got)


def nested_with_gradient(tf):
    x = tf.placeholder(tf.float32, [], name="x")

    def outer_body(i, y):
        # (i + 1 inner iterations: the stacks see runs of different lengths)
        _, inner = tf.while_loop(lambda j, z: j < i + 1, lambda j, z: (j + 1, z * x),
                                 [tf.constant(0), y], name="inner")
        return i + 1, inner
    _, y = tf.while_loop(lambda i, y: i < 3, outer_body, [tf.constant(0), x], name="outer")
    return [y, tf.identity(tf.gradients(y, x)[0], name="gx")], {"x:0": 1.1}


def test_tensorflows_gradient_of_nested_loops_runs_in_tfteach():
    """TF's per-frame stacks and counters, a frame inside a frame, in both loops."""
    with tf1_behaviour() as tf:
        graph_def, names, feed, expected, weights = _run_source(tf, nested_with_gradient)
        got = _run_imported(tfteach, graph_def, names, feed, weights)
    _check(expected, got)
    _check([1.1 ** 7, 7 * 1.1 ** 6], got)          # y = x * x**(1 + 2 + 3)


def hessians(tf):
    """tf.hessians: a loop over the gradient's entries (TF: with a TensorArray)."""
    x = tf.placeholder(tf.float32, [3], name="x")
    y = tf.reduce_sum(x * x * x) + x[0] * x[1]
    return [tf.identity(tf.hessians(y, x)[0], name="h")], {
        "x:0": np.array([1.0, 2.0, 3.0], np.float32)}


def hessians_of_a_cond(tf):
    """The loop captures gradient tensors of both branches: dead ones when a branch is
    not taken (here the true branch)."""
    x = tf.placeholder(tf.float32, [2], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    y = tf.cond(p, lambda: tf.reduce_sum(x * x * x), lambda: tf.reduce_sum(x * x * 2.0))
    return [tf.identity(tf.hessians(y, x)[0], name="h")], {
        "x:0": np.array([1.0, 2.0], np.float32), "p:0": False}


def _loop_in_cond(taken):
    def build(tf):
        """A loop (and its gradient) inside a tf.cond branch: dead when not taken."""
        x = tf.placeholder(tf.float32, [], name="x")
        p = tf.placeholder(tf.bool, [], name="p")
        r = tf.cond(p, lambda: tf.while_loop(lambda i, y: i < 3,
                                             lambda i, y: (i + 1, y * x),
                                             [tf.constant(0), x])[1],
                    lambda: x - 1.0)
        return [r, tf.identity(tf.gradients(r, x)[0], name="g")], {"x:0": 1.5, "p:0": taken}
    return build


PROGRAMS = {"counter": counter, "power_with_gradient": power_with_gradient,
            "loop_in_taken_cond": _loop_in_cond(True),
            "loop_in_untaken_cond": _loop_in_cond(False),
            "nested": nested, "cond_in_body": cond_in_body,
            "nested_with_gradient": nested_with_gradient, "hessians": hessians,
            "cond_in_body_with_gradient": cond_in_body_with_gradient,
            "hessians_of_a_cond": hessians_of_a_cond}


def _run_source(library, build, seeded_weights=None):
    graph = library.Graph()
    with graph.as_default():
        fetches, feed = build(library)
        names = [t.name for t in fetches]
        with library.Session() as sess:
            sess.run(library.global_variables_initializer())
            if seeded_weights is not None:
                for v in library.global_variables():
                    v.load(seeded_weights(v), sess)
            values = sess.run(fetches, feed)
            weights = {v.op.name: sess.run(v) for v in library.global_variables()}
    return graph.as_graph_def(), names, feed, values, weights


def _run_imported(library, graph_def, names, feed, weights):
    graph = library.Graph()
    with graph.as_default():
        library.import_graph_def(_to_library(library, graph_def), name="")
        with library.Session() as sess:
            for name, value in weights.items():
                sess.run(library.assign(graph.get_tensor_by_name(name + ":0"), value))
            return sess.run(names, feed)


def _check(expected, got):
    for e, g in zip(expected, got):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_loop_from_tfteach_runs_in_tensorflow(name):
    with tf1_behaviour() as tf:
        graph_def, names, feed, expected, weights = _run_source(tfteach, PROGRAMS[name])
        assert any(n.op == "Enter" for n in graph_def.node)
        _check(expected, _run_imported(tf, graph_def, names, feed, weights))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_loop_from_tensorflow_runs_in_tfteach(name):
    """TF's frames, its gradient loop included (stacks, counters, the ControlTrigger
    that orders the pops), rebuilt as tfteach While ops."""
    with tf1_behaviour() as tf:
        graph_def, names, feed, expected, weights = _run_source(tf, PROGRAMS[name])
        _check(expected, _run_imported(tfteach, graph_def, names, feed, weights))


def test_loop_written_by_tfteach_reads_back_into_tfteach():
    with tf1_behaviour():
        for build in list(PROGRAMS.values()) + [lstm_gradient]:
            graph_def, names, feed, expected, weights = _run_source(tfteach, build)
            _check(expected, _run_imported(tfteach, graph_def, names, feed, weights))


def test_dynamic_rnn_lstm_and_its_gradients_run_in_tensorflow():
    with tf1_behaviour() as tf:
        graph_def, names, feed, expected, weights = _run_source(tfteach, lstm_gradient)
        types = {n.op for n in graph_def.node}
        assert {"Enter", "Exit", "StackPushV2", "StackPopV2", "LoopCond"} <= types
        _check(expected, _run_imported(tf, graph_def, names, feed, weights))


def test_tensorflows_dynamic_rnn_and_its_gradients_run_in_tfteach():
    """TF's dynamic_rnn keeps its steps in TensorArrays (TensorArrayV3, ScatterV3,
    ReadV3, WriteV3, GatherV3, and GradV3 in the gradient): tfteach runs them."""
    with tf1_behaviour() as tf:
        graph_def, names, feed, expected, weights = _run_source(tf, lstm_gradient)
        assert {"TensorArrayV3", "TensorArrayGradV3"} <= {n.op for n in graph_def.node}
        _check(expected, _run_imported(tfteach, graph_def, names, feed, weights))


def _lstm_training(tf):
    from tests.graph_io_models import _rnn_cells
    x = tf.placeholder(tf.float32, [None, 5, 2], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    cell = _rnn_cells(tf).BasicLSTMCell(8)
    outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    w = tf.Variable(tf.truncated_normal([8, 1], stddev=0.1, seed=7), name="out_w")
    pred = tf.matmul(outputs[:, -1, :], w, name="pred")
    loss = tf.reduce_mean(tf.square(pred - y), name="loss")
    train = tf.train.AdamOptimizer(0.01).minimize(loss, name="train")
    tf.add_to_collection("train_op", train)


def test_tensorflows_lstm_meta_graph_and_checkpoint_train_on_in_tfteach(tmp_path):
    """The other way: TF saves the notes' LSTM (dynamic_rnn, Adam) with its .meta;
    tfteach imports the meta graph (TensorArrays, both loops, the stacks), restores the
    checkpoint, and one training step lands on TF's weights and loss."""
    feed = {"x:0": X_SEQ, "y:0": Y_SEQ}
    with tf1_behaviour() as tf:
        with tf.Graph().as_default():
            _lstm_training(tf)
            saver = tf.train.Saver()
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                path = saver.save(sess, str(tmp_path / "lstm"))
                before = sess.run(["pred:0", "loss:0"], feed)
                sess.run("train", feed)
                names = [v.name for v in tf.trainable_variables()]
                after = sess.run(names + ["loss:0"], feed)
    with tfteach.Graph().as_default():
        restorer = tfteach.train.import_meta_graph(path + ".meta")
        # TF's WhileContextDefs are not copied in: the contexts are tfteach's own.
        from tfteach.ops.while_ops import WhileContext
        contexts = tfteach.get_collection("while_context")
        assert contexts and all(isinstance(c, WhileContext) for c in contexts)
        with tfteach.Session() as sess:
            restorer.restore(sess, path)
            _check(before, sess.run(["pred:0", "loss:0"], feed))
            sess.run(tfteach.get_collection("train_op")[0], feed)
            _check(after, sess.run(names + ["loss:0"], feed))


def test_lstm_checkpoint_and_meta_graph_train_on_in_tensorflow(tmp_path):
    """The notes' LSTM (dynamic_rnn) saved by tfteach's Saver — now with its .meta —
    restores in TensorFlow, and one training step there moves the loss as it does in
    tfteach."""
    feed = {"x:0": X_SEQ, "y:0": Y_SEQ}
    with tfteach.Graph().as_default():
        _lstm_training(tfteach)
        saver = tfteach.train.Saver()
        with tfteach.Session() as sess:
            sess.run(tfteach.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "lstm"), global_step=1)
            before = sess.run(["pred:0", "loss:0"], feed)
            sess.run("train", feed)
            after = sess.run(["pred:0", "loss:0"], feed)
    assert os.path.exists(path + ".meta")
    with tf1_behaviour() as tf:
        with tf.Graph().as_default():
            restorer = tf.train.import_meta_graph(path + ".meta")
            with tf.Session() as sess:
                restorer.restore(sess, path)
                _check(before, sess.run(["pred:0", "loss:0"], feed))
                sess.run("train", feed)
                _check(after, sess.run(["pred:0", "loss:0"], feed))


MALFORMED = {
    "exit without enter": ('node { name: "c" op: "Const" attr { key: "dtype" value { type: '
                           'DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT '
                           'tensor_shape {} float_val: 1 } } } } node { name: "e" op: "Exit" '
                           'input: "c" attr { key: "T" value { type: DT_FLOAT } } }',
                           "Invalid Exit op: Cannot find a corresponding Enter op."),
}


def _frame_text(fault=None):
    """A one-variable loop counting to 3; `fault` breaks it: "merge" makes the Merge
    take the body's value without a NextIteration, "dangling" adds a NextIteration
    that feeds nothing."""
    def node(name, op, inputs, attrs=""):
        return 'node { name: "%s" op: "%s" %s %s }' % (
            name, op, " ".join('input: "%s"' % i for i in inputs), attrs)
    t = 'attr { key: "T" value { type: DT_INT32 } }'
    enter = (t + ' attr { key: "frame_name" value { s: "w" } } attr { key: "is_constant" '
             'value { b: false } }')
    const = ('attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { '
             'tensor { dtype: DT_INT32 tensor_shape {} int_val: %d } } }')
    merge_inputs = ["e", "add"] if fault == "merge" else ["e", "n"]
    nodes = [node("zero", "Const", [], const % 0), node("e", "Enter", ["zero"], enter),
             node("m", "Merge", merge_inputs, t + ' attr { key: "N" value { i: 2 } }'),
             node("three", "Const", ["^m"], const % 3), node("lt", "Less", ["m", "three"], t),
             node("lc", "LoopCond", ["lt"]), node("s", "Switch", ["m", "lc"], t),
             node("id", "Identity", ["s:1"], t), node("one", "Const", ["^id"], const % 1),
             node("add", "AddV2", ["id", "one"], t), node("n", "NextIteration", ["add"], t),
             node("x", "Exit", ["s"], t)]
    if fault == "dangling":
        nodes.append(node("n2", "NextIteration", ["add"], t))
    return " ".join(nodes)


def test_a_hand_written_frame_imports_and_runs():
    with tfteach.Graph().as_default():
        gd = text_format.Parse(_frame_text(), tfteach.GraphDef())
        (x,) = tfteach.import_graph_def(gd, name="", return_elements=["x:0"])
        with tfteach.Session() as sess:
            assert sess.run(x) == 3


@pytest.mark.parametrize("text,message", [
    MALFORMED["exit without enter"],
    (_frame_text("dangling"), "NextIteration op 'n2' of frame 'w' does not feed the Merge"),
    (_frame_text("merge"), "Merge op 'm' of frame 'w' must merge an Enter and a "
                           "NextIteration"),
])
def test_malformed_frames_are_invalid_argument_errors(text, message):
    with tfteach.Graph().as_default():
        gd = text_format.Parse(text, tfteach.GraphDef())
        with pytest.raises(tfteach.errors.InvalidArgumentError, match=message):
            tfteach.import_graph_def(gd, name="")


def test_stripped_op_list_holds_tensorflows_op_defs(tmp_path):
    """Every op type of an exported meta graph (the LSTM training graph, with its loop
    frames and stacks) has TensorFlow's OpDef in stripped_op_list, docs stripped; and
    TF's import_meta_graph takes the file."""
    from tensorflow.python.framework import op_def_registry
    with tfteach.Graph().as_default():
        _lstm_training(tfteach)
        tfteach.train.Saver()
        meta = tfteach.train.export_meta_graph(filename=str(tmp_path / "m.meta"))
    ops = meta.meta_info_def.stripped_op_list.op
    assert [o.name for o in ops] == sorted({n.op for n in meta.graph_def.node})
    for ours in ops:
        theirs = type(ours)()
        theirs.ParseFromString(op_def_registry.get(ours.name).SerializeToString())
        theirs.ClearField("summary")
        theirs.ClearField("description")
        for arg in list(theirs.input_arg) + list(theirs.output_arg):
            arg.ClearField("description")
        for attr in theirs.attr:
            attr.ClearField("description")
        assert ours == theirs, ours.name
    assert any(o.input_arg and o.attr for o in ops)
    with tf1_behaviour() as tf:
        with tf.Graph().as_default():
            tf.train.import_meta_graph(str(tmp_path / "m.meta"))
            assert tf.get_default_graph().get_operation_by_name("train").type == "NoOp"


def _gather_rnn_training(tf):
    """A recurrent net written with tf.while_loop and tf.gather (no TensorArray), the
    state h <- tanh(x_t W + h U), trained by gradient descent."""
    x = tf.placeholder(tf.float32, [3, 5, 2], name="x")
    y = tf.placeholder(tf.float32, [3, 1], name="y")
    w = tf.Variable(tf.truncated_normal([2, 4], stddev=0.5, seed=1), name="w")
    u = tf.Variable(tf.truncated_normal([4, 4], stddev=0.5, seed=2), name="u")
    v = tf.Variable(tf.truncated_normal([4, 1], stddev=0.5, seed=3), name="v")
    steps = tf.transpose(x, [1, 0, 2])
    _, h = tf.while_loop(
        lambda t, h: t < 5,
        lambda t, h: (t + 1, tf.tanh(tf.matmul(tf.gather(steps, t), w) + tf.matmul(h, u))),
        [tf.constant(0), tf.zeros([3, 4])], name="rnn")
    pred = tf.matmul(h, v, name="pred")
    loss = tf.reduce_mean(tf.square(pred - y), name="loss")
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss, name="train")
    tf.add_to_collection("train_op", train)


def test_a_meta_graph_tensorflow_trains_with_a_loop_trains_the_same_in_tfteach(tmp_path):
    """TF writes checkpoint + .meta of a loop model; tfteach imports it (TF's gradient
    loop with its stacks), restores, and one training step lands on TF's weights."""
    feed = {"x:0": X_SEQ, "y:0": Y_SEQ}
    with tf1_behaviour() as tf:
        with tf.Graph().as_default():
            _gather_rnn_training(tf)
            saver = tf.train.Saver()
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                path = saver.save(sess, str(tmp_path / "rnn"))
                before = sess.run("loss:0", feed)
                sess.run("train", feed)
                expected = sess.run(["w:0", "u:0", "v:0", "loss:0"], feed)
    with tfteach.Graph().as_default():
        restorer = tfteach.train.import_meta_graph(path + ".meta")
        with tfteach.Session() as sess:
            restorer.restore(sess, path)
            _check([before], [sess.run("loss:0", feed)])
            sess.run(tfteach.get_collection("train_op")[0], feed)
            _check(expected, sess.run(["w:0", "u:0", "v:0", "loss:0"], feed))


def test_tensorflows_dynamic_rnn_goes_through_tfteach_and_back():
    """TF -> tfteach (While ops, TensorArrays, stacks as host objects) -> TF: the frames
    are written again (resource handles as DT_RESOURCE, colocations with the replaced
    Merges dropped) and TF computes what it computed first."""
    with tf1_behaviour() as tf:
        graph_def, names, feed, expected, weights = _run_source(tf, lstm_gradient)
        with tfteach.Graph().as_default() as graph:
            tfteach.import_graph_def(_to_library(tfteach, graph_def), name="")
        _check(expected, _run_imported(tf, graph.as_graph_def(), names, feed, weights))


def test_the_op_def_table_covers_every_op_type_tensorflow_knows():
    """op_defs.pbtxt is up to date: each tfteach op type that is also one of TF's has
    its OpDef there (else rerun scripts/generate_op_defs.py after adding ops)."""
    import importlib
    import pkgutil

    from tensorflow.python.framework import op_def_registry
    from tfteach.framework import op_defs, registry
    for module in pkgutil.walk_packages(tfteach.__path__, "tfteach."):
        if ".kernel." in module.name + "." or module.name.startswith("tfteach.notebook"):
            continue
        importlib.import_module(module.name)
    missing = [t for t in registry.registered_op_types()
               if op_def_registry.get(t) is not None and op_defs.op_def(t) is None]
    assert not missing, missing


def _notes_sin_lstm(tf):
    """The notes' sin-curve predictor (test_rnn_training.py): two stacked LSTM layers
    of 16 units over 10 steps, a linear read-out, MSE, Adam."""
    from tests.graph_io_models import _rnn_cells
    cells = _rnn_cells(tf)
    x = tf.placeholder(tf.float32, [None, 10, 1], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    cell = cells.MultiRNNCell([cells.BasicLSTMCell(16) for _ in range(2)])
    outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    w = tf.get_variable("w", [16, 1], initializer=tf.truncated_normal_initializer(
        stddev=0.3, seed=5))
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    pred = tf.add(tf.matmul(outputs[:, -1, :], w), b, name="pred")
    loss = tf.losses.mean_squared_error(labels=y, predictions=pred)
    tf.identity(loss, name="loss")
    tf.train.AdamOptimizer(0.01).minimize(loss, name="train")


@pytest.mark.parametrize("direction", ["tfteach_to_tf", "tf_to_tfteach"])
def test_the_notes_sin_lstm_trains_on_across_libraries(direction, tmp_path):
    """Saver.save (checkpoint + .meta) in one library, import_meta_graph + restore in
    the other, two training steps there: the same loss and weights."""
    t = np.arange(60) * 0.01
    x_val = np.stack([np.sin(t[i:i + 10]) for i in range(8)])[..., None].astype(np.float32)
    y_val = np.sin(t[10:18])[:, None].astype(np.float32)
    feed = {"x:0": x_val, "y:0": y_val}
    with tf1_behaviour() as tf:
        source, target = (tfteach, tf) if direction == "tfteach_to_tf" else (tf, tfteach)
        with source.Graph().as_default():
            _notes_sin_lstm(source)
            saver = source.train.Saver()
            names = [v.name for v in source.trainable_variables()]
            with source.Session() as sess:
                sess.run(source.global_variables_initializer())
                path = saver.save(sess, str(tmp_path / "sin"), global_step=0)
                for _ in range(2):
                    sess.run("train", feed)
                expected = sess.run(names + ["loss:0"], feed)
        with target.Graph().as_default():
            restorer = target.train.import_meta_graph(path + ".meta")
            with target.Session() as sess:
                restorer.restore(sess, path)
                for _ in range(2):
                    sess.run("train", feed)
                _check(expected, sess.run(names + ["loss:0"], feed))


def _lstm_last_output(tf):
    from tests.graph_io_models import _rnn_cells
    x = tf.placeholder(tf.float32, [3, 5, 2], name="x")
    outputs, _ = tf.nn.dynamic_rnn(_rnn_cells(tf).BasicLSTMCell(4), x, dtype=tf.float32)
    tf.identity(outputs[:, -1, :], name="last")


@pytest.mark.parametrize("direction", ["tfteach_to_tf", "tf_to_tfteach"])
def test_a_frozen_dynamic_rnn_moves_between_the_libraries(direction):
    """convert_variables_to_constants of a dynamic_rnn LSTM (its weights read inside
    the loop through constant Enters) in one library, run in the other."""
    with tf1_behaviour() as tf:
        source, target = (tfteach, tf) if direction == "tfteach_to_tf" else (tf, tfteach)
        with source.Graph().as_default() as graph:
            _lstm_last_output(source)
            with source.Session() as sess:
                sess.run(source.global_variables_initializer())
                expected = sess.run("last:0", {"x:0": X_SEQ})
                frozen = source.graph_util.convert_variables_to_constants(
                    sess, graph.as_graph_def(), ["last"])
        assert not [n for n in frozen.node if n.op == "VariableV2"]
        with target.Graph().as_default():
            target.import_graph_def(_to_library(target, frozen), name="")
            with target.Session() as sess:
                _check([expected], [sess.run("last:0", {"x:0": X_SEQ})])


def test_tfteach_differentiates_tensorflows_dynamic_rnn():
    """A forward-only GraphDef of TF's dynamic_rnn (TensorArrays, no gradient ops):
    tfteach's tf.gradients goes through the imported loop and its TensorArrays
    (ops/tensor_array_grad.py) to TF's gradients of the weights and the input."""
    with tf1_behaviour() as tf:
        with tf.Graph().as_default() as graph:
            _lstm_last_output(tf)
            loss = tf.reduce_sum(tf.square(graph.get_tensor_by_name("last:0")), name="loss")
            graph_def = graph.as_graph_def()
            names = [v.op.name for v in tf.trainable_variables()]
            grads = tf.gradients(loss, tf.trainable_variables() + [graph.get_tensor_by_name("x:0")])
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                weights = dict(zip(names, sess.run(tf.trainable_variables())))
                expected = sess.run(grads, {"x:0": X_SEQ})
    with tfteach.Graph().as_default() as graph:
        tfteach.import_graph_def(graph_def, name="")
        xs = [graph.get_tensor_by_name(n + ":0") for n in names] + \
            [graph.get_tensor_by_name("x:0")]
        grads = tfteach.gradients(graph.get_tensor_by_name("loss:0"), xs)
        with tfteach.Session() as sess:
            for name, value in weights.items():
                sess.run(tfteach.assign(graph.get_tensor_by_name(name + ":0"), value))
            _check(expected, sess.run(grads, {"x:0": X_SEQ}))
