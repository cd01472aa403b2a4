"""Differential tests: variables, get_variable and variable_scope against TensorFlow.

TensorFlow's `tf.compat.v1` in graph mode, with resource variables disabled, builds TF1
ref variables: the graph (op names, types, inputs), collections, values and error texts
must match. Skipped when TensorFlow is not installed.
"""
import numpy as np
import pytest

import tfteach
from tests.tf_reference import errors_of_both, tensorflow_v1


@pytest.fixture(scope="module", autouse=True)
def ref_variables():
    tensorflow_v1().disable_resource_variables()


def structure(tf, build):
    """(ops as (name, type, inputs, control inputs), collections by name) of `build`."""
    graph = tf.Graph()
    with graph.as_default():
        build(tf)
    ops = [(op.name, op.type, [t.name for t in op.inputs], [c.name for c in op.control_inputs])
           for op in graph.get_operations()]
    collections = {key: [getattr(v, "name", None) for v in graph.get_collection(key)]
                   for key in ("variables", "trainable_variables", "local_variables")}
    return ops, collections


def structures_of_both(build):
    return structure(tensorflow_v1(), build), structure(tfteach, build)


def first_message_line(exc):
    """The first line that is TF's own message (TF 2's session adds a header line)."""
    for line in str(exc).splitlines():
        if line and line != "Graph execution error:" and not line.startswith(
                ("Detected at node", "  File", "    ", "Node: ")):
            return line
    return ""


# -- graph structure ---------------------------------------------------------------------
def build_variables(tf):
    a = tf.Variable([1.0, 2.0])
    tf.Variable(3, name="count", trainable=False)
    tf.Variable(lambda: [1.0, 2.0, 3.0], name="w")
    tf.Variable(a.initial_value, collections=["mine"])
    with tf.name_scope("layer"):
        tf.Variable(1.0, name="b", dtype=tf.float64)
    tf.Variable(1.0)
    tf.assign(a, [5.0, 6.0])
    tf.assign_add(a, [1.0, 1.0], name="bump")
    tf.assign_sub(a, [1.0, 1.0])
    a.assign([0.0, 0.0])
    a.assign_add([1.0, 1.0], read_value=False)
    tf.is_variable_initialized(a)
    tf.global_variables_initializer()
    tf.variables_initializer([a], name="just_a")
    tf.local_variables_initializer()


def test_variable_graphs_match():
    ours, theirs = structures_of_both(build_variables)
    assert ours == theirs


def build_scopes(tf):
    with tf.variable_scope("foo") as scope:
        tf.get_variable("v", [2], initializer=tf.constant_initializer(1.0))
        tf.constant(1.0)
        with tf.name_scope("ns"):
            tf.get_variable("w", [1], initializer=tf.constant_initializer(2.0))
            tf.Variable(1.0, name="plain")
    with tf.variable_scope(scope, reuse=True):
        tf.get_variable("v")
        tf.constant(1.0)
    with tf.variable_scope("bar", reuse=tf.AUTO_REUSE):
        tf.get_variable("x", initializer=tf.constant([1.0, 2.0]))
        tf.get_variable("x", [2])
        tf.get_variable("z", initializer=3)
        tf.get_variable("n", [1], trainable=False,
                        initializer=tf.constant_initializer(0.0))
    for _ in range(2):
        with tf.variable_scope(None, default_name="layer"):
            tf.get_variable("a", [1], initializer=tf.constant_initializer(0.0))
            tf.constant(0)
    with tf.variable_scope("outer"):
        with tf.variable_scope("inner"):
            tf.get_variable("deep", [], initializer=tf.constant_initializer(0.0))


def test_variable_scope_graphs_match():
    ours, theirs = structures_of_both(build_scopes)
    assert ours == theirs


# -- values ------------------------------------------------------------------------------------
def test_values_across_assignments_match():
    def build(tf):
        v = tf.Variable([1.0, 2.0])
        counter = tf.Variable(0)
        grow = tf.assign(v, [1.0, 2.0, 3.0], validate_shape=False)
        steps = [tf.assign_add(counter, 1) for _ in range(3)]
        return None, None, (v, counter, grow, steps)

    def run(tf):
        graph = tf.Graph()
        with graph.as_default():
            _, _, (v, counter, grow, steps) = build(tf)
            with tf.Session(graph=graph) as sess:
                sess.run(tf.global_variables_initializer())
                out = [sess.run(v), sess.run(steps[0]), sess.run(steps[1])]
                out += [sess.run(grow), sess.run(v), sess.run(counter)]
                out.append(sess.run(v, {v: [9.0, 9.0]}))
                out.append(sess.run(tf.is_variable_initialized(v)))
                return out

    ours, theirs = run(tfteach), run(tensorflow_v1())
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)
        assert np.asarray(a).dtype == np.asarray(b).dtype


def test_get_variable_values_match():
    def build(tf):
        with tf.variable_scope("s", reuse=tf.AUTO_REUSE):
            a = tf.get_variable("a", [2, 2], initializer=tf.ones_initializer())
            b = tf.get_variable("b", [3], initializer=tf.constant_initializer([1.0, 2.0]))
            c = tf.get_variable("c", [2], dtype=tf.int32)
            d = tf.get_variable("d", initializer=[[1, 2]])
        return [a, b, c, d]

    def run(tf):
        graph = tf.Graph()
        with graph.as_default():
            fetches = build(tf)
            with tf.Session(graph=graph) as sess:
                sess.run(tf.global_variables_initializer())
                return sess.run(fetches)

    theirs, ours = run(tensorflow_v1()), run(tfteach)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype


# -- errors ------------------------------------------------------------------------------------
def test_uninitialized_errors_match():
    def fetch(tf):
        v = tf.Variable([1.0, 2.0], name="W")
        return v, None

    def read(tf):
        v = tf.Variable([1.0, 2.0], name="W")
        return tf.identity(v), None

    def add(tf):
        v = tf.Variable(1.0, name="W")
        return tf.assign_add(v, 1.0), None

    for build in (fetch, read, add):
        theirs, ours = errors_of_both(build)
        assert type(ours).__name__ == type(theirs).__name__ == "FailedPreconditionError"
        assert first_message_line(ours) == first_message_line(theirs) == (
            "Attempting to use uninitialized value W")


def test_runtime_assign_errors_match():
    def shape_mismatch(tf):
        v = tf.Variable([1.0, 2.0])
        p = tf.placeholder(tf.float32)
        return [v.initializer, tf.assign(v, p)], {p: [1.0, 2.0, 3.0]}

    def size_mismatch(tf):
        v = tf.Variable([1.0, 2.0])
        p = tf.placeholder(tf.float32)
        with tf.control_dependencies([v.initializer]):
            return tf.assign_add(v, p), {p: [1.0, 2.0, 3.0]}

    for build in (shape_mismatch, size_mismatch):
        theirs, ours = errors_of_both(build)
        assert type(ours).__name__ == type(theirs).__name__ == "InvalidArgumentError"
        assert first_message_line(ours) == first_message_line(theirs)


def build_error(kind):
    def build(tf):
        if kind == "exists":
            with tf.variable_scope("foo"):
                tf.get_variable("v", [2])
            with tf.variable_scope("foo"):
                tf.get_variable("v", [2])
        elif kind == "missing":
            with tf.variable_scope("foo", reuse=True):
                tf.get_variable("u", [3])
        elif kind == "share_shape":
            with tf.variable_scope("foo"):
                tf.get_variable("v", [2])
            with tf.variable_scope("foo", reuse=True):
                tf.get_variable("v", [3])
        elif kind == "share_dtype":
            with tf.variable_scope("foo"):
                tf.get_variable("v", [2])
            with tf.variable_scope("foo", reuse=True):
                tf.get_variable("v", [2], dtype=tf.int32)
        elif kind == "constant_with_shape":
            tf.get_variable("c", [2], initializer=tf.constant([1.0, 2.0]))
        elif kind == "initializer_needs_shape":
            tf.get_variable("z", initializer=tf.zeros_initializer())
        elif kind == "initializer_dtype":
            tf.get_variable("d", initializer=3, dtype=tf.float32)
        elif kind == "no_initial_value":
            tf.Variable()
        elif kind == "collections":
            tf.Variable(1.0, collections="abc")
        elif kind == "assign_dtype":
            tf.assign(tf.Variable([1.0, 2.0]), tf.constant([1, 2]))
        elif kind == "assign_rank":
            tf.assign(tf.Variable([1.0, 2.0]), 5.0)
        elif kind == "reuse_without_name":
            with tf.variable_scope(None, default_name="x", reuse=True):
                pass
        return tf.constant(0), None
    return build


@pytest.mark.parametrize("kind", [
    "exists", "missing", "share_shape", "share_dtype", "constant_with_shape",
    "initializer_needs_shape", "initializer_dtype", "no_initial_value", "collections",
    "assign_dtype", "assign_rank", "reuse_without_name"])
def test_build_errors_match(kind):
    theirs, ours = errors_of_both(build_error(kind))
    assert theirs is not None and type(ours) is type(theirs)
    our_line, their_line = str(ours).splitlines()[0], str(theirs).splitlines()[0]
    if kind == "assign_rank":
        # TF 2 prints the node as '{{node Assign}} = ...'; TF 1.15 as 'Assign' (op: ...).
        our_line, their_line = our_line.split(" for ")[0], their_line.split(" for ")[0]
    assert our_line == their_line


def _initialized_checks(tf):
    """tf.assert_variables_initialized with one of two variables initialized, then both:
    its graph and what each run gives (the error's class and first line, or the ranks)."""
    graph = tf.Graph()
    with graph.as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        w = tf.Variable(3.0, name="w")
        check = tf.assert_variables_initialized()
        ops = [(op.name, op.type) for op in graph.get_operations()]
        results = []
        with tf.Session(graph=graph) as sess:
            for init in (v.initializer, w.initializer):
                sess.run(init)
                try:
                    results.append(sess.run(check).tolist())
                except Exception as e:  # noqa: BLE001 - the error is what we compare
                    results.append((type(e).__name__, first_message_line(e)))
    return ops, results


def test_assert_variables_initialized_reads_the_variables_as_tensorflow():
    # Before, its Rank ops were folded to constants, so it passed with w uninitialized.
    assert _initialized_checks(tfteach) == _initialized_checks(tensorflow_v1())
