"""Colocation as TensorFlow writes it (framework/graph.py `_colocate_with`): the `_class`
attr (`loc:@w`) of every op that TF 1.15 colocates, compared with TensorFlow's GraphDef
for the same program, node by node (on the nodes both graphs have: tfteach builds fewer
gradient and cond nodes, docs/gradients.md). TF colocates an op with the variables it
takes by reference (op_def_library), a variable's snapshot and a callable initializer
with the variable, a `tuple`'s identities and a cond's Switch with their input, slots
and updates with their variable, and whatever `tf.colocate_with` surrounds. Before,
`tf.colocate_with` did nothing and no op had the attr."""
import pytest

import tfteach
from tf_reference import tensorflow_v1, tf1_behaviour


def program(tf):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable(tf.ones([2, 1]), name="w")
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    c = tf.get_variable("c", initializer=tf.constant([1.0]))
    y = tf.matmul(x, w) + b + c
    loss = tf.reduce_mean(tf.square(y))
    step = tf.train.get_or_create_global_step()
    tf.train.AdamOptimizer(0.1).minimize(loss, global_step=step)
    tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    tf.assign_add(w, tf.ones([2, 1]))
    tf.cond(x[0, 0] > 0, lambda: x * 2.0, lambda: x)
    with tf.colocate_with(x):
        tf.identity(x, name="z")
    with tf.colocate_with(w):
        tf.identity(x, name="z2")
    with tf.colocate_with(w.op), tf.colocate_with(b.op):
        tf.identity(x, name="z3")
    with tf.colocate_with(w.op), tf.colocate_with(None, ignore_existing=True):
        tf.identity(x, name="z4")
    tf.train.Saver()


def colocation(tf):
    graph = tf.Graph()
    with graph.as_default():
        program(tf)
    return {n.name: [s.decode() for s in n.attr["_class"].list.s] if "_class" in n.attr
            else None for n in graph.as_graph_def().node}


def test_ops_are_colocated_as_tensorflow_colocates_them():
    tensorflow_v1()
    with tf1_behaviour():
        theirs = colocation(tensorflow_v1())
    ours = colocation(tfteach)
    common = sorted(set(theirs) & set(ours))
    assert len(common) > 100
    # (a tuple's identity after the bias gradient's Reshape, which tfteach does not
    # build, is colocated with the op before it: only groups of nodes both graphs have)
    differ = {name: (ours[name], theirs[name]) for name in common
              if ours[name] != theirs[name] and
              all(group[5:] in ours for group in theirs[name] or ())}
    assert differ == {}
    colocated = [name for name in common if theirs[name]]
    assert len(colocated) > 60 and {"w/read", "Adam/update_w/ApplyAdam", "z3", "save/Assign",
                                    "cond/Switch_1", "w/Momentum"} <= set(colocated)


def test_a_colocated_op_takes_the_device_of_what_it_is_colocated_with():
    with tfteach.Graph().as_default():
        with tfteach.device("/cpu:0"):
            w = tfteach.Variable(1.0, name="w")
        with tfteach.device("/gpu:0"):
            update = tfteach.assign_add(w, 1.0)         # by reference: with w, as TF
            with tfteach.colocate_with(w):
                snapshot = tfteach.identity(w)
        assert update.device == snapshot.device == "/device:CPU:0"
        assert w.op.colocation_groups() == [b"loc:@w"]
        assert snapshot.op.colocation_groups() == [b"loc:@w"]
        assert 'key: "_class"' in str(update.op.node_def)
        with pytest.raises(ValueError, match="ignore_existing is not True"):
            with tfteach.colocate_with(None):
                pass
