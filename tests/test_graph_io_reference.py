"""GraphDefs, frozen graphs and meta graphs of the notes' models move both ways between
tfteach and TensorFlow (tf.compat.v1 graph mode, ref variables, TF1 control flow).

Each direction builds a model in one library, writes it as a protobuf, imports it into
the other, gives both the same weights (assigned by name) and compares what they compute
and what one training step does to the weights. Skips without TensorFlow.
"""

import numpy as np
import pytest

import tfteach
from tests.graph_io_models import MODELS
from tests.tf_reference import tensorflow_v1, tf1_behaviour

pytestmark = pytest.mark.reference


def _to_library(tf, message):
    """The same protobuf as `tf`'s own message class (TF rejects other classes)."""
    cls = getattr(tf, type(message).__name__)
    return cls.FromString(message.SerializeToString())


def _variable_names(graph_def):
    return [n.name for n in graph_def.node if n.op == "VariableV2"]


def _assign(tf, sess, graph, values):
    with graph.as_default():
        sess.run([tf.assign(graph.get_tensor_by_name(name + ":0"), value)
                  for name, value in values.items()])


def _run(sess, graph, names, inputs):
    feed = {graph.get_tensor_by_name(k): v for k, v in inputs.items()}
    return sess.run([graph.get_tensor_by_name(n) for n in names], feed)


def _build(tf, name):
    graph = tf.Graph()
    with graph.as_default():
        model = MODELS[name](tf)
    return graph, model


def _trained_weights(tf, sess, graph, model, variables):
    """Runs one training step and returns the variables' new values."""
    feed = {graph.get_tensor_by_name(k): v for k, v in model["inputs"].items()}
    sess.run(graph.get_operation_by_name(model["train"]), feed)
    return dict(zip(variables, sess.run([graph.get_tensor_by_name(v + ":0")
                                         for v in variables])))


def _check_both_ways(source_tf, target_tf, name, strip_default_attrs=False):
    graph, model = _build(source_tf, name)
    graph_def = graph.as_graph_def()
    if strip_default_attrs:
        stripped = source_tf.train.export_meta_graph(
            graph=graph, strip_default_attrs=True).graph_def
        def public_attrs(g):
            return sum(1 for n in g.node for key in n.attr if not key.startswith("_"))
        assert public_attrs(stripped) < public_attrs(graph_def)   # some were left out
        graph_def = stripped
    variables = _variable_names(graph_def)
    with source_tf.Session(graph=graph) as sess:
        sess.run(graph.get_operation_by_name(model["init"]))
        weights = dict(zip(variables, sess.run([v + ":0" for v in variables])))
        expected = _run(sess, graph, model["outputs"], model["inputs"])
        stepped = (_trained_weights(source_tf, sess, graph, model, variables)
                   if model["train"] else None)
    imported = target_tf.Graph()
    with imported.as_default():
        target_tf.import_graph_def(_to_library(target_tf, graph_def), name="")
    with target_tf.Session(graph=imported) as sess:
        sess.run(imported.get_operation_by_name(model["init"]))
        _assign(target_tf, sess, imported, weights)
        got = _run(sess, imported, model["outputs"], model["inputs"])
        for e, g in zip(expected, got):
            np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)
        if stepped is not None:
            after = _trained_weights(target_tf, sess, imported, model, variables)
            for v in variables:
                np.testing.assert_allclose(after[v], stepped[v], rtol=1e-4, atol=1e-5,
                                           err_msg=v)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_graph_def_from_tfteach_runs_in_tensorflow(name):
    with tf1_behaviour() as tf:
        _check_both_ways(tfteach, tf, name)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_graph_def_from_tensorflow_runs_in_tfteach(name):
    with tf1_behaviour() as tf:
        _check_both_ways(tf, tfteach, name)


def _frozen(tf, name, graph_util):
    graph, model = _build(tf, name)
    with tf.Session(graph=graph) as sess:
        sess.run(graph.get_operation_by_name(model["init"]))
        expected = _run(sess, graph, model["outputs"], model["inputs"])
        frozen = graph_util.convert_variables_to_constants(
            sess, graph.as_graph_def(), [o.split(":")[0] for o in model["outputs"]])
    return frozen, model, expected


def _run_frozen(tf, frozen, model):
    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(_to_library(tf, frozen), name="frozen")
    with tf.Session(graph=graph) as sess:
        return _run(sess, graph, ["frozen/" + o for o in model["outputs"]],
                    {"frozen/" + k: v for k, v in model["inputs"].items()})


@pytest.mark.parametrize("name", sorted(MODELS))
def test_frozen_graph_from_tfteach_runs_in_tensorflow(name):
    with tf1_behaviour() as tf:
        frozen, model, expected = _frozen(tfteach, name, tfteach.graph_util)
        assert not _variable_names(frozen)
        for e, g in zip(expected, _run_frozen(tf, frozen, model)):
            np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_frozen_graph_from_tensorflow_runs_in_tfteach(name):
    with tf1_behaviour() as tf:
        frozen, model, expected = _frozen(tf, name, tf.graph_util)
        for e, g in zip(expected, _run_frozen(tfteach, frozen, model)):
            np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)


def test_freezing_matches_tensorflow_node_for_node():
    """Same GraphDef in, same frozen GraphDef out: node names, ops, inputs, values."""
    with tf1_behaviour() as tf:
        graph, model = _build(tf, "mnist_mlp")
        with tf.Session(graph=graph) as sess:
            sess.run(graph.get_operation_by_name(model["init"]))
            graph_def = graph.as_graph_def()
            theirs = tf.graph_util.convert_variables_to_constants(sess, graph_def, ["loss"])
            ours = tfteach.graph_util.convert_variables_to_constants(sess, graph_def, ["loss"])
        assert [(n.name, n.op, list(n.input)) for n in ours.node] == \
            [(n.name, n.op, list(n.input)) for n in theirs.node]
        for a, b in zip(ours.node, theirs.node):
            if a.op == "Const":
                np.testing.assert_array_equal(tf.make_ndarray(a.attr["value"].tensor),
                                              tf.make_ndarray(b.attr["value"].tensor))


@pytest.mark.parametrize("protected", [None, ["layer1/weights/read"]])
def test_remove_training_nodes_matches_tensorflow(protected):
    with tf1_behaviour() as tf:
        graph, _ = _build(tf, "mnist_mlp")
        graph_def = graph.as_graph_def()
        theirs = tf.graph_util.remove_training_nodes(graph_def, protected)
        ours = tfteach.graph_util.remove_training_nodes(graph_def, protected)
        assert [(n.name, list(n.input)) for n in ours.node] == \
            [(n.name, list(n.input)) for n in theirs.node]


def test_extract_sub_graph_matches_tensorflow():
    with tf1_behaviour() as tf:
        graph, _ = _build(tf, "lenet5")
        graph_def = graph.as_graph_def()
        theirs = tf.graph_util.extract_sub_graph(graph_def, ["prob"])
        ours = tfteach.graph_util.extract_sub_graph(graph_def, ["prob"])
        assert [n.name for n in ours.node] == [n.name for n in theirs.node]


def _collections_of(graph, keys):
    return {k: sorted(getattr(v, "name", v) for v in graph.get_collection(k)) for k in keys}


KEYS = ["variables", "trainable_variables", "moving_average_variables", "train_op"]


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("direction", ["tfteach_to_tf", "tf_to_tfteach"])
def test_meta_graph_round_trip_with_collections(direction, name, tmp_path):
    """export_meta_graph in one library, import_meta_graph in the other: the same
    collections (variables rebuilt from their VariableDefs), the same outputs for the
    same weights, and a training step that moves the weights the same way."""
    with tf1_behaviour() as tf:
        source, target = (tfteach, tf) if direction == "tfteach_to_tf" else (tf, tfteach)
        graph, model = _build(source, name)
        with graph.as_default():
            if model["train"]:
                graph.add_to_collection("train_op",
                                        graph.get_operation_by_name(model["train"]))
            source.train.export_meta_graph(filename=str(tmp_path / "model.meta"))
        expected = _collections_of(graph, KEYS)
        variables = sorted(v.split(":")[0] for v in expected["variables"])
        with source.Session(graph=graph) as sess:
            sess.run(graph.get_operation_by_name(model["init"]))
            weights = dict(zip(variables, sess.run([v + ":0" for v in variables])))
            outputs = _run(sess, graph, model["outputs"], model["inputs"])
            stepped = (_trained_weights(source, sess, graph, model, variables)
                       if model["train"] else None)
        imported = target.Graph()
        with imported.as_default():
            target.train.import_meta_graph(str(tmp_path / "model.meta"))
            assert _collections_of(imported, KEYS) == expected
            assert all(v.trainable for v in target.trainable_variables())
            with target.Session() as sess:
                sess.run(target.global_variables_initializer())
                _assign(target, sess, imported, weights)
                got = _run(sess, imported, model["outputs"], model["inputs"])
                for e, g in zip(outputs, got):
                    np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)
                if stepped is None:
                    return
                sess.run(target.get_collection("train_op")[0],
                         {imported.get_tensor_by_name(k): v
                          for k, v in model["inputs"].items()})
                after = dict(zip([v.op.name for v in target.global_variables()],
                                 sess.run(target.global_variables())))
        # The weights and the global step; TensorFlow's executor may let the moving
        # averages read a weight's `read` snapshot before or after the in-place update
        # (the shadows are compared in the GraphDef tests above, where it reads after).
        for v in variables:
            if "ExponentialMovingAverage" not in v:
                np.testing.assert_allclose(after[v], stepped[v], rtol=1e-4, atol=1e-5,
                                           err_msg=v)


def _fetches(tf, case):
    xs = [tf.constant(v) for v in case.inputs]
    y = case.build(tf, *xs)
    ys = list(y) if isinstance(y, (list, tuple)) else [y]
    return ys + [t for t in tf.gradients(ys, xs) if t is not None]


def _cases():
    from tests.gradient_cases import CASES
    return {k: c for k, c in sorted(CASES.items()) if c.tf_ref and not c.tf_float32}


# Ops TensorFlow 2.21 writes that TF 1.15 did not (MatrixDiagV3, BroadcastTo in Prod's
# gradient, ParallelDynamicStitch) and TF's while-loop frames (a cycle through Merge).
_TF_ONLY = {"DynamicPartition", "MatrixDiag", "MatrixDiagPart", "MatrixSetDiag", "Prod",
            "Exit", "While"}
# tfteach's reduce_logsumexp helper has no NodeDef (its while loops are written as
# TF 1.15's frames: tests/test_loop_frames_reference.py).
_TFTEACH_ONLY = {"ReduceLogSumExp"}


def _compare_everywhere(source_tf, target_tf, allowed_failures):
    failures, checked = {}, 0
    for op_type, case in _cases().items():
        graph = source_tf.Graph()
        with graph.as_default():
            fetch = _fetches(source_tf, case)
            with source_tf.Session() as sess:
                expected = sess.run(fetch)
            try:
                graph_def = graph.as_graph_def()
            except ValueError as e:
                failures[op_type] = str(e)
                continue
        imported = target_tf.Graph()
        with imported.as_default():
            try:
                target_tf.import_graph_def(_to_library(target_tf, graph_def), name="")
            except ValueError as e:
                failures[op_type] = str(e)
                continue
            with target_tf.Session() as sess:
                got = sess.run([t.name for t in fetch])
        for e, g in zip(expected, got):
            np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-9, equal_nan=True,
                                       err_msg=op_type)
        checked += 1
    assert set(failures) <= allowed_failures, failures
    assert checked >= 110


def test_every_gradient_case_from_tfteach_runs_in_tensorflow():
    """Each op type (and its gradient ops) written by tfteach computes the same numbers
    in TensorFlow."""
    with tf1_behaviour() as tf:
        _compare_everywhere(tfteach, tf, _TFTEACH_ONLY)


def test_every_gradient_case_from_tensorflow_runs_in_tfteach():
    with tf1_behaviour() as tf:
        _compare_everywhere(tf, tfteach, _TF_ONLY)


CONSTANTS = {"s": np.array([b"ab", b"\xff\x00"], dtype=object),
             "b": np.array([True, False]), "i64": np.array([2 ** 40, -3], np.int64),
             "h": np.array([1.5, -2.25], np.float16), "c": np.array([1 + 2j], np.complex64),
             "u8": np.array([[255, 0]], np.uint8), "sc": np.float64(3.25),
             "i8": np.array([-5], np.int8)}


def _constants_through(source_tf, target_tf):
    graph = source_tf.Graph()
    with graph.as_default():
        for name, value in CONSTANTS.items():
            source_tf.constant(value, name=name)
        graph_def = graph.as_graph_def()
    with target_tf.Graph().as_default():
        out = target_tf.import_graph_def(_to_library(target_tf, graph_def),
                                         return_elements=[k + ":0" for k in CONSTANTS])
        with target_tf.Session() as sess:
            return dict(zip(CONSTANTS, sess.run(out)))


@pytest.mark.parametrize("direction", ["tfteach_to_tf", "tf_to_tfteach"])
def test_constants_of_every_dtype_cross_over(direction):
    tf = tensorflow_v1()
    source, target = (tfteach, tf) if direction == "tfteach_to_tf" else (tf, tfteach)
    for name, value in _constants_through(source, target).items():
        value = np.asarray(value)
        assert value.dtype == CONSTANTS[name].dtype, name
        np.testing.assert_array_equal(value, CONSTANTS[name], err_msg=name)


def test_tensorflows_compact_constants_import():
    """TF stores tf.zeros([1000]) as one float and a shape: the value repeats."""
    tf = tensorflow_v1()
    graph = tf.Graph()
    with graph.as_default():
        tf.zeros([1000], name="z")
        tf.constant(5.0, shape=[4], name="rep")
        graph_def = graph.as_graph_def()
    with tfteach.Graph().as_default():
        z, rep = tfteach.import_graph_def(graph_def, return_elements=["z:0", "rep:0"])
        with tfteach.Session() as sess:
            z, rep = sess.run([z, rep])
    np.testing.assert_array_equal(z, np.zeros(1000, np.float32))
    np.testing.assert_array_equal(rep, np.full(4, 5.0, np.float32))



@pytest.mark.parametrize("name", sorted(MODELS))
def test_graph_def_without_default_attrs_from_tensorflow_runs_in_tfteach(name):
    """TF's export_meta_graph(strip_default_attrs=True) leaves out every attr equal to
    its OpDef's default (MatMul's transpose_a=False, Conv2D's dilations, ...); importing
    fills them back from the OpDefs, as TF's importer does."""
    tf = tensorflow_v1()
    with tf1_behaviour():
        _check_both_ways(tf, tfteach, name, strip_default_attrs=True)


@pytest.mark.parametrize("value, dtype", [
    (0.1, "float32"), ([[1.5]], "float64"), (7, "int32"), (2 ** 40, "int64"),
    ([True, False, True], "bool"), ([1.0, 2.0, 3.0], "float32"), (1 + 2j, "complex64"),
    ([[1, 2], [3, 4]], "int64"), (b"s", "string")])
def test_tensor_protos_are_encoded_as_tensorflows(value, dtype):
    # TF's make_tensor_proto: one element in its typed field (float_val: 0.1), more in
    # tensor_content, bools and complex numbers always typed; a Const holds the same.
    tf1 = tensorflow_v1()
    theirs = tf1.make_tensor_proto(value, dtype=tf1.as_dtype(dtype))
    ours = tfteach.make_tensor_proto(value, dtype=tfteach.as_dtype(dtype))
    assert ours.SerializeToString() == theirs.SerializeToString()
    graph_defs = []
    for tf in (tf1, tfteach):
        with tf.Graph().as_default() as graph:
            tf.constant(value, tf.as_dtype(dtype), name="c")
            graph_defs.append(graph.as_graph_def().node[0].attr["value"].SerializeToString())
    assert graph_defs[1] == graph_defs[0]
