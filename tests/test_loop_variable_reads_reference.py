"""Differential tests: a ref variable read inside a tf.while_loop that writes it is live.

In TF 1.15 a loop body's `v * 2`, `tf.identity(v)`, `v + 0` read `v/read` through a
constant Enter, and both forward the variable's buffer, which the loop's assignments
write into: each iteration (and each op ordered after an assignment in it) sees the
variable's current value (runtime/loop_live_reads.py). Each program runs on
TensorFlow's `tf.compat.v1` (graph mode, ref variables, control flow v1: 1.15's
defaults) and on tfteach, with `parallel_iterations=1`: TF then runs the iterations one
at a time, as tfteach does (with the default 10, TF's result depends on its schedule).
The loops also cross between the two libraries as GraphDefs (RefEnter/Enter frames).
Skips without TensorFlow.
"""
import numpy as np
import pytest

import tfteach
from tests.tf_reference import tensorflow_v1, tf1_behaviour

pytestmark = pytest.mark.reference


@pytest.fixture(autouse=True, scope="module")
def tensorflow_1_15_control_flow():
    with tf1_behaviour():
        yield


def loop(tf, cond, body, loop_vars, **kwargs):
    return tf.while_loop(cond, body, loop_vars, parallel_iterations=1, **kwargs)


def run(tf, build):
    """Runs `build(tf)`'s fetches after the initializer, then the variables' values."""
    graph = tf.Graph()
    with graph.as_default():
        fetches = build(tf)
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            result = sess.run(fetches)
            return result, sess.run(tf.global_variables())


def flat(results):
    if isinstance(results, (list, tuple)):
        return [x for r in results for x in flat(r)]
    return [np.asarray(results)]


def assert_same_as_tensorflow(build):
    expected = flat(run(tensorflow_v1(), build))
    actual = flat(run(tfteach, build))
    assert len(actual) == len(expected)
    for x, y in zip(expected, actual):
        assert y.dtype == x.dtype and y.shape == x.shape
        np.testing.assert_allclose(y, x, rtol=1e-6)
    return expected


# -- reads in the body --------------------------------------------------------------------
READS = {"identity": lambda tf, v: tf.identity(v),
         "read_value": lambda tf, v: v.read_value(),
         "plus_zero": lambda tf, v: v + 0,
         "stop_gradient": lambda tf, v: tf.stop_gradient(v)}


@pytest.mark.parametrize("read", sorted(READS))
def test_a_read_after_assign_add_sees_every_iteration(read):
    def build(tf):
        v = tf.Variable(0.0)

        def body(i, acc):
            with tf.control_dependencies([tf.assign_add(v, 1.0)]):
                r = READS[read](tf, v)
            return i + 1, acc + r
        return loop(tf, lambda i, a: i < 3, body, [0, 0.0])
    expected = assert_same_as_tensorflow(build)
    assert float(expected[1]) == 6.0            # 1 + 2 + 3, the brief's repro


def test_an_assignment_nothing_waits_for_does_not_run():
    # `v.value()` builds no op under the control dependency: nothing in the body waits
    # for the assign_add, so neither library runs it (the classic TF1 gotcha).
    def build(tf):
        v = tf.Variable(0.0)

        def body(i, acc):
            with tf.control_dependencies([tf.assign_add(v, 1.0)]):
                r = v.value()
            return i + 1, acc + r
        return loop(tf, lambda i, a: i < 3, body, [0, 0.0])
    assert [float(x) for x in assert_same_as_tensorflow(build)] == [3.0, 0.0, 0.0]


def test_assign_of_a_doubling_reads_the_latest_value():
    def build(tf):
        v = tf.Variable([1.0, 2.0, 3.0])

        def body(i, acc):
            update = tf.assign(v, v * 2 + 1)
            with tf.control_dependencies([update]):
                after = tf.reduce_sum(tf.identity(v))
            return i + 1, acc + after
        return loop(tf, lambda i, a: i < 3, body, [0, 0.0])
    assert_same_as_tensorflow(build)


def test_a_read_the_assignment_waits_for_sees_the_iterations_start():
    def build(tf):
        v = tf.Variable(0.0)

        def body(i, acc):
            before = v * 1
            with tf.control_dependencies([before]):
                update = tf.assign_add(v, 1.0)
            with tf.control_dependencies([update]):
                return i + 1, acc + before      # 0 + 1 + 2
        return loop(tf, lambda i, a: i < 3, body, [0, 0.0])
    assert float(assert_same_as_tensorflow(build)[1]) == 3.0


def test_the_condition_reads_the_variable_the_body_counts_down():
    # With the entry value the condition would never turn false.
    def build(tf):
        v = tf.Variable(10.0)

        def body(x):
            with tf.control_dependencies([tf.assign_sub(v, 3.0)]):
                return x + v
        return loop(tf, lambda x: v > 0.0, body, [0.0])
    assert_same_as_tensorflow(build)


def test_with_maximum_iterations():
    def build(tf):
        v = tf.Variable(1.0)

        def body(x):
            with tf.control_dependencies([tf.assign(v, v * 3)]):
                return x + tf.identity(v)
        return loop(tf, lambda x: x < 1000.0, body, [0.0], maximum_iterations=4)
    assert_same_as_tensorflow(build)


def test_a_reshape_made_outside_the_loop_is_live_too():
    def build(tf):
        v = tf.Variable([1.0, 2.0])
        column = tf.reshape(v, [2, 1])

        def body(i, acc):
            with tf.control_dependencies([tf.assign_add(v, [1.0, 1.0])]):
                return i + 1, acc + tf.reduce_sum(column * 1)
        return loop(tf, lambda i, a: i < 3, body, [0, 0.0])
    assert_same_as_tensorflow(build)


def test_a_cond_in_the_body_reads_the_variable():
    def build(tf):
        v = tf.Variable(0.0)

        def body(i, acc):
            with tf.control_dependencies([tf.assign_add(v, 1.0)]):
                r = tf.cond(i < 2, lambda: v * 1, lambda: v * 10)
            return i + 1, acc + r
        return loop(tf, lambda i, a: i < 3, body, [0, 0.0])
    assert_same_as_tensorflow(build)


def test_an_inner_loop_writes_what_the_outer_loop_reads():
    def build(tf):
        v = tf.Variable(0.0)

        def inner(j, acc):
            with tf.control_dependencies([tf.assign_add(v, 1.0)]):
                return j + 1, acc + tf.identity(v)

        def outer(i, acc):
            _, acc = loop(tf, lambda j, a: j < 2, inner, [0, acc])
            with tf.control_dependencies([acc]):
                return i + 1, acc + v * 100     # after the inner loop: its writes
        return loop(tf, lambda i, a: i < 2, outer, [0, 0.0])
    assert_same_as_tensorflow(build)


def test_reads_outside_the_loop_ordered_after_it_see_its_writes():
    def build(tf):
        v = tf.Variable(0.0)
        read = tf.identity(v)

        def body(i):
            with tf.control_dependencies([tf.assign_add(v, 1.0)]):
                return i + 1
        n = loop(tf, lambda i: i < 3, body, [0])
        with tf.control_dependencies([n]):
            after = read + 0
        return [n, after, v.value()]
    assert float(assert_same_as_tensorflow(build)[1]) == 3.0


def test_a_fed_read_is_the_same_in_every_iteration():
    # The Enter forwards the fed value, not the variable's buffer.
    def run_fed(tf):
        graph = tf.Graph()
        with graph.as_default():
            v = tf.Variable(0.0)

            def body(i, acc):
                with tf.control_dependencies([tf.assign_add(v, 1.0)]):
                    return i + 1, acc + tf.identity(v)
            out = loop(tf, lambda i, a: i < 3, body, [0, 0.0])
            with tf.Session(graph=graph) as sess:
                sess.run(v.initializer)
                return sess.run(out, {v.value(): 10.0}), sess.run(v)
    (i, acc), v = run_fed(tensorflow_v1())
    assert (int(i), float(acc), float(v)) == (3, 30.0, 3.0)
    (i, acc), v = run_fed(tfteach)
    assert (int(i), float(acc), float(v)) == (3, 30.0, 3.0)


def test_an_assignment_of_a_new_size_leaves_the_read_its_old_buffer():
    def build(tf):
        v = tf.Variable([1.0, 2.0], validate_shape=False)

        def body(i, acc):
            grow = tf.assign(v, tf.zeros([3]), validate_shape=False)
            with tf.control_dependencies([grow]):
                return i + 1, acc + tf.reduce_sum(tf.identity(v))
        return loop(tf, lambda i, a: i < 2, body, [0, 0.0])
    assert float(assert_same_as_tensorflow(build)[1]) == 6.0


def test_a_resource_variable_read_in_the_body_is_live_too():
    def build(tf):
        v = tf.get_variable("r", initializer=0.0, use_resource=True)

        def body(i, acc):
            with tf.control_dependencies([v.assign_add(1.0)]):
                return i + 1, acc + v.read_value()
        return loop(tf, lambda i, a: i < 3, body, [0, 0.0])
    assert_same_as_tensorflow(build)


def test_a_loop_that_only_reads_its_variable_and_its_gradient():
    def build(tf):
        v = tf.Variable(2.0)
        x = tf.constant(1.5)
        _, y = loop(tf, lambda i, a: i < 3, lambda i, a: (i + 1, a * v + x), [0, 1.0])
        return [y] + tf.gradients(y, [v, x])
    assert_same_as_tensorflow(build)


GRADIENT_BODIES = {
    # x * tf.identity(v): TF pushes the read (the variable's buffer) on its stack, and
    # the gradient loop pops the buffer as the forward loop left it: 4 * 4 * 4.
    "identity": lambda tf, v, x: x * tf.identity(v),
    # x * (v * 1): a Mul's output is a new tensor, pushed with each iteration's value.
    "computed": lambda tf, v, x: x * (v * 1.0),
    "square": lambda tf, v, x: x * x * tf.identity(v)}


@pytest.mark.parametrize("body", sorted(GRADIENT_BODIES))
def test_the_gradient_of_a_loop_that_writes_what_it_reads(body):
    def build(tf):
        v = tf.Variable(1.0)
        x0 = tf.constant(2.0)

        def step(i, x):
            with tf.control_dependencies([tf.assign_add(v, 1.0)]):
                return i + 1, GRADIENT_BODIES[body](tf, v, x)
        _, y = loop(tf, lambda i, x: i < 3, step, [0, x0])
        return [y] + tf.gradients(y, [x0])
    assert_same_as_tensorflow(build)


def test_an_uninitialized_variable_fails_as_in_tensorflow():
    def build(tf):
        v = tf.Variable(0.0)

        def body(i, acc):
            with tf.control_dependencies([tf.assign_add(v, 1.0)]):
                return i + 1, acc + tf.identity(v)
        return loop(tf, lambda i, a: i < 3, body, [0, 0.0])

    def error(tf):
        graph = tf.Graph()
        with graph.as_default():
            fetches = build(tf)
            with tf.Session(graph=graph) as sess:
                with pytest.raises(tf.errors.FailedPreconditionError) as info:
                    sess.run(fetches)
        return info.value
    theirs, ours = error(tensorflow_v1()), error(tfteach)
    words = "Attempting to use uninitialized value Variable"
    assert words in theirs.message and "{{node Variable/read}}" in theirs.message
    assert ours.message.startswith(words) and ours.op.name == "Variable/read"


# -- as GraphDefs, both ways --------------------------------------------------------------
def assigning_loop(tf):
    v = tf.Variable(0.0, name="v")

    def body(i, acc):
        with tf.control_dependencies([tf.assign_add(v, 1.0)]):
            reads = tf.identity(v) + v.read_value() + (v + 0)
        return i + 1, acc + reads
    return loop(tf, lambda i, a: i < 3, body, [0, 0.0])


def _written(library):
    graph = library.Graph()
    with graph.as_default():
        outputs = assigning_loop(library)
        return graph.as_graph_def(), [t.name for t in outputs]


def _run_imported(library, graph_def, names):
    graph = library.Graph()
    with graph.as_default():
        message = getattr(library, "GraphDef").FromString(graph_def.SerializeToString())
        library.import_graph_def(message, name="")
        with library.Session() as sess:
            sess.run(graph.get_operation_by_name("v/Assign"))
            return sess.run(names), sess.run("v:0")


def _loop_nodes(graph_def):
    return sorted((n.name, n.op, tuple(sorted(n.input)), n.attr["is_constant"].b)
                  for n in graph_def.node if n.name.startswith("while/"))


def test_the_frames_are_tensorflows_refenter_for_the_ref_and_enter_for_the_read():
    theirs, _ = _written(tensorflow_v1())
    ours, _ = _written(tfteach)
    assert _loop_nodes(ours) == _loop_nodes(theirs)
    enters = {n.name: (n.op, list(n.input)) for n in ours.node if "Enter" in n.op}
    assert enters["while/AssignAdd/RefEnter"] == ("RefEnter", ["v"])
    assert enters["while/Identity_2/Enter"] == ("Enter", ["v/read"])


@pytest.mark.parametrize("source, target", [("tfteach", "tensorflow"),
                                            ("tensorflow", "tfteach")])
def test_the_loop_crosses_libraries_and_reads_live_there(source, target):
    libraries = {"tfteach": tfteach, "tensorflow": tensorflow_v1()}
    graph_def, names = _written(libraries[source])
    (i, acc), v = _run_imported(libraries[target], graph_def, names)
    # reads after each assign_add: 3 reads of 1, of 2, of 3
    assert (int(i), float(acc), float(v)) == (3, 18.0, 3.0)


@pytest.mark.parametrize("source, target", [("tfteach", "tensorflow"),
                                            ("tensorflow", "tfteach")])
def test_the_loop_crosses_libraries_as_a_meta_graph(source, target, tmp_path):
    libraries = {"tfteach": tfteach, "tensorflow": tensorflow_v1()}
    writer, reader = libraries[source], libraries[target]
    path = str(tmp_path / "loop.meta")
    with writer.Graph().as_default():
        _, acc = assigning_loop(writer)
        writer.add_to_collection("acc", acc)
        writer.train.export_meta_graph(path)
    with reader.Graph().as_default():
        reader.train.import_meta_graph(path)
        (acc,) = reader.get_collection("acc")
        with reader.Session() as sess:
            sess.run(reader.global_variables_initializer())
            assert float(sess.run(acc)) == 18.0
            assert float(sess.run(acc)) == 45.0    # v goes on from 3: 3 * (4 + 5 + 6)
