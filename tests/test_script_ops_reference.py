"""`tf.py_func`, `tf.make_template` and `tf.contrib.eager`'s gradient functions while a
graph is built, against TensorFlow's (tf.compat.v1 in graph mode): the same values,
names, shapes and dtypes, and TF's error class and words for a function that returns the
wrong number or dtype of values or raises. Executing eagerly: test_tfe_reference.py."""
import re

import numpy as np
import pytest

import tfteach
from tf_reference import first_line, tensorflow_v1

pytest.importorskip("tensorflow")


def own_words(exc):
    """The message line of TF's error (TF 2.x wraps it in 'Graph execution error' and
    'Detected at node' lines; tfteach adds its node line after it)."""
    skipped = ("Graph execution error", "Detected at node", "  File", "    ", "Node:", "\t")
    lines = [line for line in str(exc).splitlines()
             if line.strip() and not line.startswith(skipped)]
    return lines[0]


def tokenless(text):
    """A py_func's token counts the process's py_funcs (pyfunc_4, pyfunc_229): as N."""
    return re.sub(r"pyfunc_\d+", "pyfunc_N", text)


def tfe_of(tf):
    if tf is tfteach:
        return tfteach.contrib.eager
    from tensorflow.python.eager import backprop
    return backprop


# -- py_func -------------------------------------------------------------------------------
RETURNS = {
    "float32": (lambda a: (a * 2).astype(np.float32), "float32"),
    "same_dtype": (lambda a: a * 2, "float32"),
    "int64": (lambda a: np.int64(a.sum()), "int64"),
    "bytes": (lambda a: np.array(["ab", "c"]), "string"),
    "python_str": (lambda a: "text", "string"),
    "two_outputs": (lambda a: (a, a + 1), ["float32", "float32"]),
    "list_of_one": (lambda a: [a], ["float32"]),
    "none_for_no_outputs": (lambda a: None, []),
}

BAD_RETURNS = {
    "float64_for_float32": (lambda a: (a * 2).astype(np.float64), "float32"),
    "int64_for_int32": (lambda a: int(a.sum()), "int32"),
    "int64_for_float32": (lambda a: np.array([1, 2]), "float32"),
    "two_for_one": (lambda a: [a, a], "float32"),
    "two_for_list_of_one": (lambda a: (a, a), ["float32"]),
    "one_for_two": (lambda a: a, ["float32", "float32"]),
    "none_for_one": (lambda a: None, "float32"),
}

RAISES = {
    "ValueError": (lambda a: int("x"), "InvalidArgumentError"),
    "TypeError": (lambda a: len(3), "InvalidArgumentError"),
    "ZeroDivisionError": (lambda a: 1 / 0, "UnknownError"),
    "StopIteration": (lambda a: next(iter(())), "OutOfRangeError"),
    "NotImplementedError": (lambda a: exec("raise NotImplementedError('later')"),
                            "UnimplementedError"),
}


def _tout(tf, spec):
    return [getattr(tf, s) for s in spec] if isinstance(spec, list) else getattr(tf, spec)


def _py_func_run(tf, func, spec, stateful=True):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, name="x")
        y = tf.py_func(func, [x], _tout(tf, spec), stateful=stateful)
        described = [str(t) for t in (y if isinstance(y, list) else [y])] \
            if not hasattr(y, "node_def") and not hasattr(y, "type") else [y.type]
        with tf.Session() as sess:
            try:
                value = sess.run(y, {x: np.array([1.5, 2.5], np.float32)})
            except Exception as e:  # noqa: BLE001 - the error is what we compare
                return described, e
    return described, value


@pytest.mark.parametrize("name", sorted(RETURNS))
@pytest.mark.parametrize("stateful", [True, False])
def test_py_func_returns_what_tensorflows_returns(name, stateful):
    func, spec = RETURNS[name]
    theirs = _py_func_run(tensorflow_v1(), func, spec, stateful)
    ours = _py_func_run(tfteach, func, spec, stateful)
    assert ours[0] == theirs[0]                     # str(): no shape, TF's op names
    for mine, want in zip(ours[1] if isinstance(ours[1], list) else [ours[1]],
                          theirs[1] if isinstance(theirs[1], list) else [theirs[1]]):
        if want is None:
            assert mine is None
            continue
        assert np.asarray(mine).dtype == np.asarray(want).dtype
        assert np.asarray(mine).tolist() == np.asarray(want).tolist()


@pytest.mark.parametrize("name", sorted(BAD_RETURNS))
def test_a_wrong_return_gets_tensorflows_error(name):
    func, spec = BAD_RETURNS[name]
    theirs = _py_func_run(tensorflow_v1(), func, spec)[1]
    ours = _py_func_run(tfteach, func, spec)[1]
    assert isinstance(theirs, Exception) and isinstance(ours, tfteach.errors.OpError)
    assert type(ours).__name__ == type(theirs).__name__
    assert tokenless(first_line(ours)) == tokenless(own_words(theirs))


@pytest.mark.parametrize("name", sorted(RAISES))
def test_an_exception_in_the_function_gets_tensorflows_class(name):
    func, tf_class = RAISES[name]
    theirs = _py_func_run(tensorflow_v1(), func, "float32")[1]
    ours = _py_func_run(tfteach, func, "float32")[1]
    assert type(theirs).__name__ == type(ours).__name__ == tf_class
    # The message starts with the Python error, then its traceback, as TF's.
    assert first_line(ours) == own_words(theirs) == name + ": " + own_words(theirs).split(
        ": ", 1)[1]
    assert "Traceback (most recent call last):" in str(ours)


def test_py_func_ops_nodes_and_gradient_are_tensorflows():
    def build(tf):
        with tf.Graph().as_default() as g:
            x = tf.placeholder(tf.float32, [2], name="x")
            y = tf.py_func(lambda a: a, [x, tf.constant(1)], [tf.float32], name="mine")[0]
            z = tf.py_func(lambda a: a, [x], tf.float32, stateful=False)
            grads = tf.gradients(y * 2.0 + z, x)
            nodes = {n.name: (n.op, sorted(n.attr), list(n.input))
                     for n in g.as_graph_def().node if n.op.startswith("PyFunc")}
            tin = [n.attr["Tin"].list.type for n in g.as_graph_def().node
                   if n.name == "mine"][0]
            return nodes, list(tin), grads, y.shape.ndims
    ours, theirs = build(tfteach), build(tensorflow_v1())
    assert ours[0] == theirs[0] and ours[1] == theirs[1]
    assert ours[2] == theirs[2] == [None]          # no gradient through Python
    assert ours[3] is theirs[3] is None


def test_a_graph_def_with_py_func_runs_in_the_process_that_made_it():
    with tfteach.Graph().as_default() as g:
        x = tfteach.placeholder(tfteach.float32, name="x")
        tfteach.py_func(lambda a: a * 3, [x], tfteach.float32, name="triple")
        graph_def = g.as_graph_def()
    with tfteach.Graph().as_default():
        tfteach.import_graph_def(graph_def, name="")
        with tfteach.Session() as sess:
            assert sess.run("triple:0", {"x:0": np.float32(2)}) == 6
    # TensorFlow reads the node (its function lives only in this process, as in TF).
    tf = tensorflow_v1()
    theirs = tf.GraphDef.FromString(graph_def.SerializeToString())
    with tf.Graph().as_default():
        tf.import_graph_def(theirs, name="")


def test_py_func_in_threads_and_a_queue_of_work():
    import threading
    with tfteach.Graph().as_default():
        x = tfteach.placeholder(tfteach.float32, [])
        calls = []
        y = tfteach.py_func(lambda a: calls.append(float(a)) or a * a, [x], tfteach.float32)
        sess = tfteach.Session()
        results = {}

        def work(i):
            results[i] = float(sess.run(y, {x: float(i)}))
        threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert results == {i: float(i * i) for i in range(8)}
    assert sorted(calls) == [float(i) for i in range(8)]


# -- make_template -------------------------------------------------------------------------
def _template_program(tf):
    with tf.Graph().as_default():
        def dense(x, units):
            w = tf.get_variable("w", [3, units], initializer=tf.ones_initializer())
            return tf.matmul(x, w)
        layer = tf.make_template("layer", dense, units=2)
        a, b = tf.ones([1, 3]), tf.ones([1, 3]) * 2
        ya, yb = layer(a), layer(b)
        other = tf.make_template("layer", dense, units=4)
        other(a)
        now = tf.make_template("now", dense, create_scope_now_=True, units=1)
        with tf.variable_scope("outer"):
            now(a)
            inner = tf.make_template("inner", dense, units=1)
            inner(a)
        named = tf.make_template("x", dense, unique_name_="fixed", units=1)
        named(a)
        def nested(x):
            with tf.variable_scope("dense"):
                return dense(x, 2) + tf.get_variable("b", [2], initializer=tf.zeros_initializer())
        fresh = tf.make_template("layer", nested)
        fresh(a)
        fresh(b)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run([ya, yb]) if tf is tfteach else sess.run([ya, yb])
        out = {"globals": [v.name for v in tf.global_variables()],
               "layer": [v.name for v in layer.variables],
               "trainable": [v.name for v in other.trainable_variables],
               "scopes": [t.variable_scope_name for t in (layer, other, now, inner, named,
                                                          fresh)],
               "values": [v.tolist() for v in values], "name": layer.name,
               "outputs": [ya.name, yb.name]}
        bad = tf.make_template("bad", lambda x: x * tf.Variable(1.0))
        bad(a)
        try:
            bad(a)
        except ValueError as e:
            out["second_variable"] = str(e).split(": [")[0]
            out["originally"] = "originally defined at:" in str(e)
        try:
            tf.make_template(None, dense)
        except ValueError as e:
            out["no_name"] = str(e)
        return out


def test_make_template_shares_and_names_variables_as_tensorflow():
    ours, theirs = _template_program(tfteach), _template_program(tensorflow_v1())
    assert ours == theirs
    assert ours["layer"] == ["layer/w:0"] and ours["values"] == [[[3.0, 3.0]], [[6.0, 6.0]]]


# -- tf.contrib.eager's gradient functions, building a graph ------------------------------------
def _gradient_functions_program(tf):
    tfe = tfe_of(tf)
    implicit = getattr(tfe, "implicit_gradients", None) or tfe.implicit_grad
    with tf.Graph().as_default():
        f = lambda x, y: x * x * x * y - x * y * y          # noqa: E731 - the notes' form
        grads = tfe.gradients_function(f)(2.0, 3.0)
        only_y = tfe.gradients_function(f, params=["y"])(2.0, 3.0)
        w = tf.Variable([1.0, 2.0], name="w")
        tf.Variable(5.0, name="unused")
        b = tf.Variable(0.5, name="b")
        pairs = implicit(lambda x: tf.reduce_sum(w * x) + b)([3.0, 4.0])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run([grads, only_y, [g for g, _ in pairs]])
        return {"values": [[np.asarray(v).tolist() for v in group] for group in values],
                "vars": [v.name for _, v in pairs]}


def test_gradient_functions_work_building_a_graph_as_tensorflows():
    ours = _gradient_functions_program(tfteach)
    # TF's tape sees resource variables only: TF 2's default, which other reference
    # tests of the same process may have switched off for good.
    tf1 = tensorflow_v1()
    resource = tf1.resource_variables_enabled()
    tf1.enable_resource_variables()
    try:
        theirs = _gradient_functions_program(tf1)
    finally:
        if not resource:
            tf1.disable_resource_variables()
    assert ours == theirs
    assert ours["values"][0] == [27.0, -4.0] and ours["vars"] == ["w:0", "b:0"]


# -- how tensors print (a py_func's outputs have no shape at all) --------------------------------
def test_tensors_print_and_name_themselves_in_errors_as_tensorflows():
    def build(tf):
        with tf.Graph().as_default():
            texts = [str(tf.placeholder(tf.float32)), str(tf.placeholder(tf.int32, [2]))]
            with tf.device("/cpu:0"):
                texts.append(str(tf.constant(1.0)))
            try:
                tf.convert_to_tensor(tf.constant([1.0, 2.0], name="c"), tf.int32)
            except ValueError as e:
                texts.append(str(e))
            return texts
    assert build(tfteach) == build(tensorflow_v1())
    # TF 1.15 writes an unknown dimension as ?, TF 2 as None: tfteach as 1.15.
    assert str(tfteach.placeholder(tfteach.int32, [None, 2])).endswith(
        "shape=(?, 2), dtype=int32)")
