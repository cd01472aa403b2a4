"""Executing eagerly, `tf.contrib.eager`'s gradient functions, `tf.py_func`,
`tf.py_function` and `tf.make_template` against TensorFlow 2's eager execution (TF's
`backprop.gradients_function` & co. are still in TF 2, unexported): the same values,
dtypes, variable names and errors. Note 001's eager section lists `tfe.*`; before, `tf.
contrib.eager` did not exist in tfteach (lesson 31 said so)."""
import importlib.util
import json
import textwrap

import pytest

from device_helpers import virtual_gpus  # noqa: F401 - fixture
from eager_helpers import eager  # noqa: F401 - fixture
from tf_reference import eager_tensorflow_json

pytestmark = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None,
                                reason="TensorFlow is not installed")

PROGRAM = """
def run(tf, tfe, np):
    v1 = tf.compat.v1
    out = {}

    def show(x):
        if isinstance(x, (list, tuple)):
            return [show(i) for i in x]
        if x is None:
            return None
        if hasattr(x, "numpy"):
            return [x.dtype.name, np.round(x.numpy(), 5).tolist()]
        return repr(x)

    def attempt(name, f):
        try:
            out[name] = show(f())
        except Exception as e:
            text = str(e).split(" [Op:")[0].split("}} ")[-1]
            # a py_func's token counts the process's py_funcs: pyfunc_4, pyfunc_229
            text = " ".join("pyfunc_N" if w.startswith("pyfunc_") else w
                            for w in text.split(" "))
            out[name] = [type(e).__name__, text.splitlines()[0] if text else ""]

    f = lambda x, y: x * x * x * y - x * y * y
    attempt("all_params", lambda: tfe.gradients_function(f)(2.0, 3.0))
    attempt("params_by_position", lambda: tfe.gradients_function(f, params=[1])(2.0, 3.0))
    attempt("params_by_name", lambda: tfe.gradients_function(f, params=["y"])(2.0, 3.0))
    attempt("integers", lambda: tfe.gradients_function(f)(2, 3))
    one = tf.constant(1.)
    attempt("same_tensor_twice", lambda: tfe.gradients_function(lambda x, y: x * y)(one, one))
    attempt("list_result_is_summed",
            lambda: tfe.gradients_function(lambda x: [x * 2., x * x])(3.))
    attempt("dy", lambda: tfe.gradients_function(lambda x: x * x)(3., dy=2.))
    attempt("vector_dy", lambda: tfe.gradients_function(lambda x: x * x)([1., 2.],
                                                                         dy=[2., 3.]))
    attempt("value_and_gradients",
            lambda: tfe.value_and_gradients_function(lambda x: tf.reduce_sum(x * x))([1., 2.]))
    attempt("second_derivative", lambda: tfe.gradients_function(
        lambda x: tfe.gradients_function(lambda y: y * y * y)(x)[0])(2.))
    attempt("bad_params", lambda: tfe.gradients_function(f, params=[0.5])(2.0, 3.0))
    attempt("returns_none", lambda: tfe.gradients_function(lambda x: None)(1.))
    attempt("keyword_argument", lambda: tfe.gradients_function(f)(2.0, y=3.0))
    attempt("unconnected", lambda: tfe.gradients_function(lambda x, y: x * 2.)(1., 2.))
    w = tf.Variable([1., 2.], name="w")
    b = tf.Variable(0.5, name="b")
    u = tf.Variable(3., trainable=False, name="u")
    loss = lambda x: tf.reduce_sum(w * x) + b * u
    attempt("implicit", lambda: [(g, v.name) for g, v in tfe.implicit_gradients(loss)([3., 4.])])
    attempt("implicit_value",
            lambda: tfe.implicit_value_and_gradients(lambda: b * 2. + u)()[0])
    attempt("implicit_order", lambda: [v.name for g, v in tfe.implicit_value_and_gradients(
        lambda: b * 2. + w[0])()[1]])
    attempt("implicit_no_variables", lambda: tfe.implicit_gradients(lambda: u * 2.)())
    value, vjp = tfe.make_vjp(lambda x: x * x)(tf.constant(3.))
    attempt("make_vjp", lambda: [value, vjp(), vjp(dy=tf.constant(2.))])

    c = tf.constant([1., 2.])
    attempt("py_func", lambda: v1.py_func(lambda a: a * 2, [c], tf.float32))
    attempt("py_func_two", lambda: v1.py_func(lambda a: (a, a), [c], [tf.float32, tf.float32]))
    attempt("py_function", lambda: tf.py_function(lambda a: a * 2, [c], tf.float32))
    attempt("py_function_list", lambda: tf.py_function(lambda a: [a * 2], [c], [tf.float32]))
    attempt("py_function_dtype", lambda: tf.py_function(lambda a: a * 2, [c], tf.int32))
    attempt("py_function_extra_value", lambda: tf.py_function(lambda a: [a, a], [c],
                                                              tf.float32))
    attempt("py_function_too_few", lambda: tf.py_function(lambda a: a, [c],
                                                          [tf.float32, tf.float32]))
    attempt("py_function_numpy_result",
            lambda: tf.py_function(lambda a: np.array([1., 2.]), [c], tf.float32))
    attempt("py_function_raises", lambda: tf.py_function(lambda a: 1 / 0, [c], tf.float32))
    attempt("py_function_none", lambda: tf.py_function(lambda a: None, [c], []))
    x = tf.constant(3.)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.py_function(lambda a: a * a, [x], tf.float32)
    attempt("py_function_gradient", lambda: tape.gradient(y, x))

    def layer(x):
        w = v1.get_variable("w", [2], initializer=v1.ones_initializer())
        return x * w
    t = v1.make_template("lin", layer)
    attempt("template_calls", lambda: [t(tf.constant([1., 2.])), t(tf.constant([3., 4.]))])
    attempt("template_variables", lambda: [v.name for v in t.variables])
    attempt("template_trainable", lambda: [v.name for v in t.trainable_variables])
    t2 = v1.make_template("lin", layer)
    attempt("second_template", lambda: t2(tf.constant([1., 2.])))
    attempt("second_template_variables", lambda: [v.name for v in t2.variables])
    attempt("scope_name", lambda: t.variable_scope_name)
    attempt("unique_name_eagerly", lambda: v1.make_template("x", layer, unique_name_="y"))
    return out
"""

NAMES = ["all_params", "params_by_position", "params_by_name", "integers",
         "same_tensor_twice", "list_result_is_summed", "dy", "vector_dy",
         "value_and_gradients", "second_derivative", "bad_params", "returns_none",
         "keyword_argument", "unconnected", "implicit", "implicit_value", "implicit_order",
         "implicit_no_variables", "make_vjp", "py_func", "py_func_two", "py_function",
         "py_function_list", "py_function_dtype", "py_function_extra_value",
         "py_function_too_few", "py_function_numpy_result", "py_function_raises",
         "py_function_none", "py_function_gradient", "template_calls", "template_variables",
         "template_trainable", "second_template", "second_template_variables",
         "scope_name", "unique_name_eagerly"]


@pytest.fixture(scope="module")
def tensorflow():
    code = "\n".join([
        "import json", "import numpy as np", "import tensorflow as tf",
        "from tensorflow.python.eager import backprop as tfe",
        # TF 1.15's tfe names of these functions (tensorflow/contrib/eager/python/tfe.py)
        "tfe.value_and_gradients_function = tfe.val_and_grad_function",
        "tfe.implicit_gradients = tfe.implicit_grad",
        "tfe.implicit_value_and_gradients = tfe.implicit_val_and_grad",
        textwrap.dedent(PROGRAM), "print(json.dumps(run(tf, tfe, np)))"])
    return eager_tensorflow_json(code)


@pytest.fixture
def ours(eager):
    import numpy as np
    import tfteach.v2 as tf2
    namespace = {}
    exec(textwrap.dedent(PROGRAM), namespace)           # noqa: S102 - the shared program
    return json.loads(json.dumps(namespace["run"](tf2, eager.contrib.eager, np)))


def test_every_case_is_compared():
    assert sorted(NAMES) == sorted(set(NAMES))
    assert all('"%s"' % name in PROGRAM for name in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_same_as_tensorflow(tensorflow, ours, name):
    assert ours[name] == tensorflow[name]


def test_the_notes_tfe_names(eager):
    """Note 001's list: tfe.enable_eager_execution, tfe.Variable, tfe.Iterator,
    tfe.make_template, tfe.py_func and the four gradient functions."""
    tfe = eager.contrib.eager
    assert tfe.executing_eagerly() and tfe.in_eager_mode() and not tfe.in_graph_mode()
    v = tfe.Variable(2.0, name="v")
    assert float(v.numpy()) == 2.0
    dataset = eager.data.Dataset.range(3)
    assert [int(x) for x in tfe.Iterator(dataset)] == [0, 1, 2]
    square = tfe.defun(lambda x: x * x)
    assert float(square(eager.constant(3.0))) == 9.0
    assert tfe.py_func(lambda a: a + 1, [eager.constant(1.0)], eager.float32).numpy() == 2.0
    assert tfe.GradientTape is eager.GradientTape
    assert tfe.make_template is eager.make_template and tfe.function is eager.function
    from tfteach.python.client import device_lib
    assert tfe.num_gpus() == sum(d.device_type == "GPU"
                                 for d in device_lib.list_local_devices())
    assert tfe.Checkpoint is eager.train.Checkpoint
    with pytest.raises(AttributeError, match="has no attribute 'Network'"):
        tfe.Network                                      # noqa: B018 - removed in TF 1.15


def test_tfe_iterator_and_py_function_building_a_graph():
    import tfteach as tf
    tfe = tf.contrib.eager
    with pytest.raises(RuntimeError, match="can only be used when eager execution is "
                                           "enabled, use tf.data.Dataset.make_initial"):
        tfe.Iterator(tf.data.Dataset.range(3))
    with pytest.raises(NotImplementedError, match="only while executing eagerly"):
        tf.py_function(lambda a: a, [tf.constant(1.0)], tf.float32)


def test_num_gpus_counts_the_processes_gpus(virtual_gpus):
    import tfteach as tf
    virtual_gpus(2)
    assert tf.contrib.eager.num_gpus() == 2          # the course kernel's are virtual
