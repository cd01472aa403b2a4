"""Graphs as data without TensorFlow: as_graph_def's nodes and attrs, import_graph_def's
arguments and errors, write_graph, meta graphs and graph_util on tfteach's own graphs.
Expected values come from NumPy or from running the original graph."""
import numpy as np
import pytest
from google.protobuf import text_format

import tfteach as tf
from tfteach.framework.graph_def import NotExportableError


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield


def _node(graph_def, name):
    return [n for n in graph_def.node if n.name == name][0]


def test_nodes_carry_op_types_inputs_devices_and_attrs():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    with tf.device("/cpu:0"):
        w = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
    y = tf.matmul(x, w, transpose_b=False, name="y")
    with tf.control_dependencies([y]):
        tf.no_op(name="after")
    gd = tf.get_default_graph().as_graph_def()
    assert [n.name for n in gd.node] == ["x", "w", "y", "after"]
    x_node, w_node, y_node, after = gd.node
    assert x_node.op == "Placeholder"
    assert x_node.attr["dtype"].type == tf.float32.as_datatype_enum
    assert [d.size for d in x_node.attr["shape"].shape.dim] == [-1, 3]
    assert w_node.device == "/device:CPU:0" or w_node.device == "/cpu:0"
    np.testing.assert_array_equal(tf.make_ndarray(w_node.attr["value"].tensor),
                                  np.arange(6, dtype=np.float32).reshape(3, 2))
    assert y_node.op == "MatMul" and list(y_node.input) == ["x", "w"]
    assert y_node.attr["transpose_a"].b is False and y_node.attr["T"].type == 1
    assert list(after.input) == ["^y"]


def test_conv_attrs_are_lists_and_bytes_as_tensorflow_writes_them():
    img = tf.placeholder(tf.float32, [1, 8, 8, 1])
    tf.nn.conv2d(img, tf.ones([3, 3, 1, 2]), strides=[1, 2, 2, 1], padding="SAME",
                 name="conv")
    conv = _node(tf.get_default_graph().as_graph_def(), "conv")
    assert list(conv.attr["strides"].list.i) == [1, 2, 2, 1]
    assert conv.attr["padding"].s == b"SAME"
    assert conv.attr["data_format"].s == b"NHWC"


def test_fused_random_normal_is_written_as_tensorflows_mul_and_add():
    tf.random_normal([2, 2], mean=1.0, stddev=3.0, seed=1, name="r")
    gd = tf.get_default_graph().as_graph_def()
    assert _node(gd, "r/mul").op == "Mul"
    assert list(_node(gd, "r/mul").input) == ["r/RandomStandardNormal", "r/stddev"]
    assert _node(gd, "r").op == "AddV2" and list(_node(gd, "r").input) == ["r/mul", "r/mean"]
    assert not [n for n in gd.node if n.op == "ScaleShift"]


def test_fused_random_uniform_is_written_as_sub_mul_add_and_computes_the_same():
    r = tf.random_uniform([3], minval=2.0, maxval=5.0, seed=3, name="u")
    gd = tf.get_default_graph().as_graph_def()
    assert [_node(gd, n).op for n in ("u/sub", "u/mul", "u")] == ["Sub", "Mul", "AddV2"]
    with tf.Session() as sess:
        expected = sess.run(r)
    with tf.Graph().as_default():
        (u,) = tf.import_graph_def(gd, return_elements=["u:0"], name="")
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(u), expected, rtol=1e-6)


def test_a_tfteach_only_op_is_refused_by_name():
    tf.reduce_logsumexp(tf.constant([1.0, 2.0]), name="lse")
    with pytest.raises(NotExportableError, match=r"Cannot write op 'lse.*\(type "
                                                 r"ReduceLogSumExp\).*helper op of tfteach"):
        tf.get_default_graph().as_graph_def()
    assert issubclass(NotExportableError, ValueError)


def test_import_prefix_input_map_and_return_elements():
    x = tf.placeholder(tf.float32, [2], name="x")
    tf.multiply(x, 3.0, name="y")
    gd = tf.get_default_graph().as_graph_def()
    with tf.Graph().as_default() as g:
        c = tf.constant([1.0, 2.0])
        y, y_op = tf.import_graph_def(gd, input_map={"x:0": c},
                                      return_elements=["y:0", "y"])
        assert y.name == "import/y:0" and y_op is y.op
        y2 = tf.import_graph_def(gd, input_map={"x": c}, return_elements=["y:0"])[0]
        assert y2.name == "import_1/y:0"
        named = tf.import_graph_def(gd, return_elements=["y:0"], name="net")[0]
        assert named.name == "net/y:0"
        assert tf.import_graph_def(gd) is None
        assert g.get_operation_by_name("import/x").type == "Placeholder"
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run([y, y2]), [[3.0, 6.0], [3.0, 6.0]])


def test_import_orders_nodes_listed_before_their_inputs():
    a = tf.constant(2.0, name="a")
    tf.square(a, name="sq")
    gd = tf.get_default_graph().as_graph_def()
    reversed_gd = tf.GraphDef()
    reversed_gd.node.extend(reversed(gd.node))
    with tf.Graph().as_default():
        (sq,) = tf.import_graph_def(reversed_gd, return_elements=["sq:0"])
        with tf.Session() as sess:
            assert sess.run(sq) == 4.0


def test_import_errors_as_tensorflow_words_them():
    tf.constant(1.0, name="a")
    gd = tf.get_default_graph().as_graph_def()
    with pytest.raises(TypeError, match="graph_def must be a GraphDef proto."):
        tf.import_graph_def("not a graph")
    with pytest.raises(ValueError, match=r"Attempted to map inputs that were not found in "
                                         r"graph_def: \[b:0\]"):
        tf.import_graph_def(gd, input_map={"b:0": tf.constant(1.0)})
    with pytest.raises(ValueError, match="Requested return_element 'zz:0' not found"):
        tf.import_graph_def(gd, return_elements=["zz:0"])
    bad = tf.GraphDef()
    bad.node.add(name="n", op="NoSuchOp")
    with pytest.raises(ValueError, match="Op type not registered 'NoSuchOp'.*node 'n'"):
        tf.import_graph_def(bad)


def test_write_graph_text_and_binary(tmp_path):
    tf.add(tf.constant(1, name="a"), tf.constant(2, name="b"), name="c")
    text_path = tf.train.write_graph(tf.get_default_graph(), str(tmp_path / "d"), "g.pbtxt")
    bin_path = tf.train.write_graph(tf.get_default_graph().as_graph_def(),
                                    str(tmp_path / "d"), "g.pb", as_text=False)
    assert text_path == str(tmp_path / "d" / "g.pbtxt")
    from_text = text_format.Parse(open(text_path).read(), tf.GraphDef())
    from_bin = tf.GraphDef.FromString(open(bin_path, "rb").read())
    assert from_text == from_bin == tf.get_default_graph().as_graph_def()


def _small_model():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable([[1.0], [2.0]], name="w")
    b = tf.Variable([0.5], name="b")
    y = tf.add(tf.matmul(x, w), b, name="y")
    out = tf.identity(y, name="out")
    return x, w, b, out


def test_freezing_replaces_variables_by_their_session_values():
    x, w, b, out = _small_model()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(w.assign([[3.0], [4.0]]))
        frozen = tf.graph_util.convert_variables_to_constants(
            sess, tf.get_default_graph().as_graph_def(), ["out"])
    consts = {n.name: tf.make_ndarray(n.attr["value"].tensor)
              for n in frozen.node if n.op == "Const"}
    np.testing.assert_array_equal(consts["w"], [[3.0], [4.0]])
    np.testing.assert_array_equal(consts["b"], [0.5])
    assert not [n for n in frozen.node if n.op in ("VariableV2", "Assign")]
    with tf.Graph().as_default():
        x2, out2 = tf.import_graph_def(frozen, return_elements=["x:0", "out:0"])
        with tf.Session() as sess:
            feed = np.array([[1.0, 1.0]], np.float32)
            np.testing.assert_allclose(sess.run(out2, {x2: feed}), feed @ [[3.0], [4.0]] + 0.5)


def test_extract_sub_graph_and_its_errors():
    _small_model()
    gd = tf.get_default_graph().as_graph_def()
    sub = tf.graph_util.extract_sub_graph(gd, ["y"])
    assert {n.name for n in sub.node} == {"x", "w", "w/read", "b", "b/read", "MatMul", "y"}
    with pytest.raises(TypeError, match="dest_nodes must be a list."):
        tf.graph_util.extract_sub_graph(gd, "y")
    with pytest.raises(TypeError, match="graph_def must be a graph_pb2.GraphDef proto."):
        tf.graph_util.extract_sub_graph("gd", ["y"])
    with pytest.raises(AssertionError, match="nope is not in graph"):
        tf.graph_util.extract_sub_graph(gd, ["nope"])


def test_remove_training_nodes_drops_check_numerics_and_identities():
    _small_model()
    gd = tf.get_default_graph().as_graph_def()
    check = gd.node.add(name="check", op="CheckNumerics", input=["y"])
    check.attr["message"].s = b"bad"
    _node(gd, "out").input.append("^check")     # as tf.add_check_numerics_ops links it
    cleaned = tf.graph_util.remove_training_nodes(gd)
    names = {n.name for n in cleaned.node}
    assert "check" not in names and "out" not in names and "w/read" not in names
    assert list(_node(cleaned, "MatMul").input) == ["x", "w"]
    kept = tf.graph_util.remove_training_nodes(gd, protected_nodes=["out", "check"])
    assert list(_node(kept, "out").input) == ["y", "^check"]
    assert list(_node(kept, "check").input) == ["y"]


def test_graph_util_importable_as_the_notes_write_it():
    from tfteach.python.framework import graph_util
    assert graph_util.convert_variables_to_constants is \
        tf.graph_util.convert_variables_to_constants


def test_meta_graph_keeps_collections_and_variables(tmp_path):
    x, w, b, out = _small_model()
    tf.add_to_collection("outputs", out)
    tf.add_to_collection("labels", "digit")
    tf.add_to_collection("sizes", 7)
    path = str(tmp_path / "m.meta")
    meta = tf.train.export_meta_graph(filename=path, clear_devices=True)
    assert meta.collection_def["outputs"].node_list.value == ["out:0"]
    assert meta.meta_info_def.tensorflow_version == "1.15.0"
    tf.train.export_meta_graph(filename=path + "txt", as_text=True)
    for source in (path, path + "txt", meta):
        with tf.Graph().as_default() as g:
            tf.train.import_meta_graph(source)
            assert [v.name for v in tf.global_variables()] == ["w:0", "b:0"]
            assert [v.name for v in tf.trainable_variables()] == ["w:0", "b:0"]
            assert tf.get_collection("outputs")[0] is g.get_tensor_by_name("out:0")
            assert tf.get_collection("labels") == [b"digit"]
            assert tf.get_collection("sizes") == [7]
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                np.testing.assert_allclose(
                    sess.run("out:0", {"x:0": [[1.0, 1.0]]}), [[3.5]])


def test_import_meta_graph_scope_and_missing_file(tmp_path):
    _small_model()
    meta = tf.train.export_meta_graph()
    with tf.Graph().as_default():
        tf.train.import_meta_graph(meta, import_scope="net")
        assert [v.name for v in tf.global_variables()] == ["net/w:0", "net/b:0"]
        assert tf.global_variables()[0].initializer.name == "net/w/Assign"
    with pytest.raises(IOError, match="does not exist"):
        tf.train.import_meta_graph(str(tmp_path / "missing.meta"))


def test_the_notes_freeze_and_load_program(tmp_path):
    """Note 004 (convert_variables_to_constants): save v1 + v2 frozen, load, run."""
    from tfteach.python.framework import graph_util
    v1 = tf.Variable(tf.constant(1.0, shape=[1]), name="v1")
    v2 = tf.Variable(tf.constant(2.0, shape=[1]), name="v2")
    v1 + v2
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        graph_def = tf.get_default_graph().as_graph_def()
        output_graph_def = graph_util.convert_variables_to_constants(sess, graph_def, ["add"])
    (tmp_path / "combined_model.pb").write_bytes(output_graph_def.SerializeToString())
    with tf.Graph().as_default():
        graph_def = tf.GraphDef()
        graph_def.ParseFromString((tmp_path / "combined_model.pb").read_bytes())
        result = tf.import_graph_def(graph_def, return_elements=["add:0"])
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(result), [np.array([3.0], np.float32)])
    meta = tf.train.export_meta_graph()
    names = [op.name for op in meta.meta_info_def.stripped_op_list.op]
    assert names == sorted(set(n.op for n in meta.graph_def.node))


def _gradient_case_ids():
    from tests.gradient_cases import CASES
    return sorted(CASES)


def test_every_gradient_case_survives_export_and_import():
    """Each op type of tests/gradient_cases.py, with its gradient ops: the imported graph
    computes what the original computed (values and gradients), or the export refuses
    a tfteach-only op by name."""
    from tests.gradient_cases import CASES
    checked, refused = 0, []
    for op_type in _gradient_case_ids():
        case = CASES[op_type]
        with tf.Graph().as_default() as graph:
            xs = [tf.constant(v) for v in case.inputs]
            y = case.build(tf, *xs)
            ys = y if isinstance(y, (list, tuple)) else [y]
            fetch = ys + [t for t in tf.gradients(ys, xs) if t is not None]
            with tf.Session() as sess:
                expected = sess.run(fetch)
            try:
                graph_def = graph.as_graph_def()
            except NotExportableError as e:
                refused.append(op_type)
                assert "as a TensorFlow NodeDef" in str(e)
                continue
        with tf.Graph().as_default():
            tf.import_graph_def(graph_def, name="")
            with tf.Session() as sess:
                got = sess.run([t.name for t in fetch])
        # AttrValue keeps float attrs as 32-bit floats (as TensorFlow does): an epsilon
        # of 0.001 comes back as float32(0.001), which moves float64 results by ~1e-9.
        for e, g in zip(expected, got):
            np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-12, equal_nan=True,
                                       err_msg=op_type)
        checked += 1
    assert checked > 100
    # reduce_logsumexp's helper op (while loops are written as TF 1.15's frames).
    assert set(refused) <= {"ReduceLogSumExp"}, refused
