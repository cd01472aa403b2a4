"""Graph building: names, scopes, devices, control dependencies, collections, lookup."""
import pytest

import tfteach as tf


def test_unique_names_follow_tensorflow():
    a = tf.constant(1)
    b = tf.constant(2)
    c = tf.constant(3, name="Const")
    d = tf.identity(a, name="const_1")      # names are unique case-insensitively, as in TF
    assert [a.name, b.name, c.name] == ["Const:0", "Const_1:0", "Const_2:0"]
    assert d.name == "const_1_1:0"


def test_explicit_name_then_default_collides_with_suffix():
    tf.constant(1, name="Const_1")
    a = tf.constant(1)
    b = tf.constant(1)
    assert (a.name, b.name) == ("Const:0", "Const_2:0")


def test_name_scopes_nest_reenter_absolute_and_reset():
    with tf.name_scope("outer"):
        with tf.name_scope("inner") as inner:
            x = tf.constant(1)
        with tf.name_scope("inner"):
            y = tf.constant(1)
        with tf.name_scope(inner):          # "outer/inner/" re-enters verbatim
            z = tf.constant(1)
        with tf.name_scope(None):
            w = tf.constant(1)
    with tf.name_scope("outer"):
        v = tf.constant(1)
    assert inner == "outer/inner/"
    assert x.name == "outer/inner/Const:0"
    assert y.name == "outer/inner_1/Const:0"
    assert z.name == "outer/inner/Const_1:0"
    assert w.name == "Const:0"
    assert v.name == "outer_1/Const:0"


def test_name_scope_default_name_and_invalid_names():
    with tf.name_scope(None, "default") as scope:
        assert scope == "default/"
    with pytest.raises(ValueError, match="is not a valid scope name"):
        with tf.name_scope("<img src=x onerror=alert(1)>"):
            pass
    with pytest.raises(ValueError, match="is not a valid node name"):
        tf.constant(1, name="bad name")


def test_get_operations_and_lookup_by_name():
    a = tf.constant(1.0, name="a")
    b = tf.identity(a, name="b")
    g = tf.get_default_graph()
    assert g.get_operations() == [a.op, b.op]
    assert g.get_operation_by_name("b") is b.op
    assert g.get_tensor_by_name("b:0") is b
    assert g.as_graph_element("a") is a.op
    assert g.as_graph_element("a:0") is a


@pytest.mark.parametrize("name, exc, text", [
    ("nope:0", KeyError, "The name 'nope:0' refers to a Tensor which does not exist. "
                         "The operation, 'nope', does not exist in the graph."),
    ("a:3", KeyError, "The operation, 'a', exists but only has 1 outputs."),
    ("a:x", ValueError, "looks a like a Tensor name, but is not a valid one"),
])
def test_tensor_lookup_errors(name, exc, text):
    tf.constant(1.0, name="a")
    with pytest.raises(exc) as info:
        tf.get_default_graph().get_tensor_by_name(name)
    assert text in str(info.value)


def test_operation_lookup_errors():
    tf.constant(1.0, name="a")
    g = tf.get_default_graph()
    with pytest.raises(KeyError, match="refers to an Operation not in the graph"):
        g.get_operation_by_name("zzz")
    with pytest.raises(ValueError, match="appears to refer to a Tensor, not a Operation"):
        g.get_operation_by_name("a:0")
    with pytest.raises(ValueError, match="refers to an Operation, not a Tensor"):
        g.get_tensor_by_name("a")


def test_graphs_are_independent_and_as_default_nests():
    g1 = tf.Graph()
    with g1.as_default():
        c1 = tf.constant([1.0])
        assert tf.get_default_graph() is g1
    g2 = tf.Graph()
    with g2.as_default() as g:
        assert g is g2
        c2 = tf.constant([2.0])
    assert c1.graph is g1 and c2.graph is g2
    assert c1.name == c2.name == "Const:0"
    assert tf.get_default_graph() not in (g1, g2)


def test_reset_default_graph_inside_nesting_is_refused():
    with tf.Graph().as_default():
        with pytest.raises(AssertionError, match="Do not use tf.reset_default_graph"):
            tf.reset_default_graph()


def test_finalize_forbids_new_ops():
    g = tf.Graph()
    with g.as_default():
        tf.constant(1)
        g.finalize()
        assert g.finalized
        with pytest.raises(RuntimeError, match="Graph is finalized and cannot be modified."):
            tf.constant(2)


def test_device_scopes_merge_and_reset():
    with tf.device("/cpu:0"):
        a = tf.constant(1)
        with tf.device("/job:localhost/replica:0/task:0"):
            b = tf.constant(1)
        with tf.device("/gpu:1"):
            c = tf.constant(1)
        with tf.device(None):
            d = tf.constant(1)
    with tf.device(lambda op: "/device:GPU:0" if op.type == "Const" else ""):
        e = tf.constant(1)
    assert a.device == "/device:CPU:0"
    assert b.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    assert c.device == "/device:GPU:1"
    assert d.device == ""
    assert e.device == "/device:GPU:0"


def test_control_dependencies_nest_and_clear():
    a = tf.constant(1, name="a")
    b = tf.constant(2, name="b")
    with tf.control_dependencies([a]):
        c = tf.constant(3)
        with tf.control_dependencies([b.op]):
            d = tf.constant(4)
            with tf.control_dependencies(None):
                e = tf.constant(5)
        f = tf.identity(c)        # c was built inside this block: no extra edge needed
    assert c.op.control_inputs == [a.op]
    assert d.op.control_inputs == [a.op, b.op]
    assert e.op.control_inputs == []
    assert f.op.control_inputs == []
    assert "^a" in c.op.node_def.input


def test_control_dependencies_rejects_non_ops():
    with pytest.raises(TypeError, match="Control input must be Operation or Tensor"):
        with tf.control_dependencies([3]):
            pass


def test_collections():
    tf.add_to_collection("losses", 1)
    tf.add_to_collections(["losses", "other"], 2)
    ref = tf.get_collection_ref("losses")
    ref.append(3)
    assert tf.get_collection("losses") == [1, 2, 3]
    assert tf.get_collection("other") == [2]
    assert tf.get_collection("missing") == []
    a = tf.constant(1, name="scope_a")
    tf.add_to_collection("tensors", a)
    assert tf.get_collection("tensors", scope="scope") == [a]
    assert tf.get_collection("tensors", scope="other") == []
    assert tf.GraphKeys.GLOBAL_VARIABLES == "variables"


def test_tensor_python_protocol_errors():
    t = tf.constant([1.0, 2.0])
    with pytest.raises(TypeError, match="Using a `tf.Tensor` as a Python `bool` is not allowed"):
        bool(t)
    with pytest.raises(TypeError, match="Cannot iterate over a scalar tensor."):
        iter(tf.constant(1.0))
    with pytest.raises(TypeError, match="len is not well defined for symbolic Tensors"):
        len(t)
    p = tf.placeholder(tf.float32, [None, 3])
    with pytest.raises(TypeError, match="unknown first dimension"):
        iter(p)
    assert t == t and not (t == tf.constant([1.0, 2.0]))   # TF1: identity comparison


def test_tensor_and_operation_repr():
    t = tf.constant([[1.0, 2.0]], name="c")
    assert repr(t) == "<tf.Tensor 'c:0' shape=(1, 2) dtype=float32>"
    assert str(t) == 'Tensor("c:0", shape=(1, 2), dtype=float32)'
    assert repr(t.op) == "<tf.Operation 'c' type=Const>"
    assert 'name: "c"' in str(t.op) and 'op: "Const"' in str(t.op)
    assert t.op.get_attr("dtype") == tf.float32
    with pytest.raises(ValueError, match="No attr named 'zzz'"):
        t.op.get_attr("zzz")


def test_set_shape_merges_and_rejects_incompatible():
    p = tf.placeholder(tf.float32, [None, 3])
    p.set_shape([4, None])
    assert p.shape.as_list() == [4, 3]
    with pytest.raises(ValueError, match="are not compatible"):
        p.set_shape([5, 3])


def test_consumers_and_inputs():
    a = tf.constant(1.0)
    b = tf.identity(a)
    assert a.consumers() == [b.op]
    assert list(b.op.inputs) == [a]
    assert b.op.outputs == [b]
