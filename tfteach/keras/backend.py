"""`tf.keras.backend` (TF 1.15, graph mode): the Session Keras runs in, and small helpers.

In TF 1.15 Keras builds ordinary graph nodes in the default graph; `fit`/`predict` call
`sess.run` on the Session `get_session()` returns. That Session is created on first use
(or given with `set_session`, the notes' TF1 + Keras pattern) and, each time Keras asks
for it, the variables of the graph that are not initialized yet are initialized (so a
student never runs `global_variables_initializer` for a Keras model, but a variable
trained in that Session is never reset).

`learning_phase()` is a bool `placeholder_with_default(False)` named
`keras_learning_phase`: layers that behave differently while training (Dropout,
BatchNormalization) read it, and `fit` feeds True.
"""
import numpy as np

import tfteach as tf
from tfteach.framework import graph as graph_lib

__all__ = ["get_session", "set_session", "clear_session", "learning_phase",
           "set_learning_phase", "floatx", "set_floatx", "epsilon", "set_epsilon",
           "image_data_format", "set_image_data_format", "get_uid", "reset_uids",
           "get_value", "set_value", "batch_get_value", "batch_set_value", "int_shape",
           "placeholder", "variable", "eval", "is_keras_tensor"]

_SESSION = None          # the Session set with set_session, or the one Keras made
_FLOATX = "float32"
_EPSILON = 1e-7
_IMAGE_DATA_FORMAT = "channels_last"
_EAGER_LEARNING_PHASE = [False]   # eagerly, fit sets it True around its forward pass


def executing_eagerly():
    from tfteach.framework.eager_mode import executing_eagerly as eagerly
    return eagerly()


def _graph_state(name, default):
    """Per-graph state (layer-name counters, the learning phase), kept on the graph."""
    graph = graph_lib.get_default_graph()
    store = graph.__dict__.setdefault("_keras_state", {})
    if name not in store:
        store[name] = default()
    return store[name]


# -- the Session -------------------------------------------------------------------------
def get_session():
    """The Session Keras runs in, with every variable of the graph initialized.

    Order as TF 1.15: the default Session if one is entered (`with sess.as_default()`),
    else the one given to `set_session`, else a new one on the default graph.
    """
    global _SESSION
    session = tf.get_default_session()
    if session is None:
        graph = graph_lib.get_default_graph()
        if (_SESSION is None or getattr(_SESSION, "_closed", False)
                or _SESSION.graph is not graph):
            _SESSION = tf.Session(graph=graph)
        session = _SESSION
    _initialize_variables(session)
    return session


def set_session(session):
    """Make Keras run in `session` (e.g. one created with a ConfigProto)."""
    global _SESSION
    _SESSION = session


def clear_session():
    """Forget the Session and start a new default graph (names count from 0 again)."""
    global _SESSION
    if _SESSION is not None and not getattr(_SESSION, "_closed", False):
        _SESSION.close()
    _SESSION = None
    tf.reset_default_graph()


def _initialize_variables(session):
    """Initialize the graph's variables this Session has not seen initialized yet.

    Each variable is checked once per Session (`is_variable_initialized`, one run for
    all new ones), so a variable the student restored or trained is never reset.
    """
    graph = session.graph
    checked = session.__dict__.setdefault("_keras_checked_variables", set())
    fresh = [v for v in graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)
             + graph.get_collection(tf.GraphKeys.LOCAL_VARIABLES)
             if id(v) not in checked]
    if not fresh:
        return
    with graph.as_default():
        flags = [_is_initialized_op(v) for v in fresh]
        states = session.run(flags)
        todo = [v.initializer for v, done in zip(fresh, states) if not done]
        if todo:
            session.run(todo)
    checked.update(id(v) for v in fresh)


def _is_initialized_op(variable):
    op = getattr(variable, "_keras_is_initialized", None)
    if op is None:
        with tf.name_scope(None):
            op = tf.is_variable_initialized(variable)
        variable._keras_is_initialized = op
    return op


# -- the learning phase -------------------------------------------------------------------
def learning_phase():
    """The bool tensor (or fixed Python int set with set_learning_phase) for training."""
    if executing_eagerly():
        return _EAGER_LEARNING_PHASE[0]
    fixed = _graph_state("fixed_learning_phase", lambda: [None])
    if fixed[0] is not None:
        return fixed[0]

    def make():
        with tf.name_scope(None):
            return tf.placeholder_with_default(False, shape=(),
                                               name="keras_learning_phase")
    return _graph_state("learning_phase", make)


def set_learning_phase(value):
    if value not in (0, 1):
        raise ValueError("Expected learning phase to be 0 or 1.")
    _graph_state("fixed_learning_phase", lambda: [None])[0] = value


def _learning_phase_placeholder():
    """The placeholder itself when it exists (fit feeds it), else None."""
    store = graph_lib.get_default_graph().__dict__.get("_keras_state", {})
    return store.get("learning_phase")


# -- settings -------------------------------------------------------------------------------
def floatx():
    return _FLOATX


def set_floatx(value):
    global _FLOATX
    if value not in {"float16", "float32", "float64"}:
        raise ValueError("Unknown floatx type: " + str(value))
    _FLOATX = str(value)


def epsilon():
    return _EPSILON


def set_epsilon(value):
    global _EPSILON
    _EPSILON = value


def image_data_format():
    return _IMAGE_DATA_FORMAT


def set_image_data_format(data_format):
    global _IMAGE_DATA_FORMAT
    if data_format not in {"channels_last", "channels_first"}:
        raise ValueError("Unknown data_format: " + str(data_format))
    _IMAGE_DATA_FORMAT = str(data_format)


# -- names ------------------------------------------------------------------------------------
def get_uid(prefix=""):
    """1, 2, 3, ... per prefix and graph (Keras names inputs 'input_1', 'input_2')."""
    uids = _graph_state("uids", dict)
    uids[prefix] = uids.get(prefix, 0) + 1
    return uids[prefix]


def reset_uids():
    _graph_state("uids", dict).clear()
    _graph_state("object_names", dict).clear()


def unique_object_name(base):
    """'dense', then 'dense_1', 'dense_2' ... per graph (Keras' layer names)."""
    names = _graph_state("object_names", dict)
    count = names.get(base, 0)
    names[base] = count + 1
    return base if count == 0 else "%s_%d" % (base, count)


# -- values ------------------------------------------------------------------------------------
def batch_get_value(tensors):
    if not tensors:
        return []
    if executing_eagerly():
        return [np.array(t.numpy()) for t in tensors]
    return get_session().run(list(tensors))


def get_value(x):
    value = batch_get_value([x])[0]
    # a scalar is a NumPy scalar (np.float32(0.01)), as Session.run and .numpy() give
    return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value


def batch_set_value(tuples):
    """Assign NumPy values to variables through one cached assign op per variable."""
    if not tuples:
        return
    if executing_eagerly():
        for variable, value in tuples:
            variable.assign(np.asarray(value,
                                       dtype=variable.dtype.base_dtype.as_numpy_dtype))
        return
    ops, feed = [], {}
    for variable, value in tuples:
        value = np.asarray(value, dtype=variable.dtype.base_dtype.as_numpy_dtype)
        assign = getattr(variable, "_keras_assign", None)
        if assign is None:
            with variable.graph.as_default(), tf.name_scope(None):
                holder = tf.placeholder(variable.dtype.base_dtype, shape=None,
                                        name=variable.op.name + "/assign_placeholder")
                assign = (holder, tf.assign(variable, holder))
            variable._keras_assign = assign
        ops.append(assign[1].op)
        feed[assign[0]] = value
    get_session().run(ops, feed_dict=feed)


def set_value(x, value):
    batch_set_value([(x, value)])


def int_shape(x):
    """The static shape as a tuple of ints and None (None when the rank is unknown)."""
    shape = x.get_shape()
    return None if shape.ndims is None else tuple(shape.as_list())


def placeholder(shape=None, ndim=None, dtype=None, name=None):
    if ndim and shape is None:
        shape = (None,) * ndim
    return tf.placeholder(dtype or floatx(), shape=shape, name=name)


def variable(value, dtype=None, name=None, constraint=None):
    value = np.asarray(value, dtype=dtype or floatx())
    return tf.Variable(value, name=name, constraint=constraint)


def eval(x):  # noqa: A001 - Keras' name
    return get_value(x)


def is_keras_tensor(x):
    return hasattr(x, "_keras_history")


def __getattr__(name):
    """`K.sum`, `K.mean`, `K.sqrt`, ... (keras/backend_math.py), found on first use: as
    module globals they would hide Python's sum/max/min/all here."""
    from tfteach.keras import backend_math
    if name in backend_math.__all__:
        return getattr(backend_math, name)
    raise AttributeError("module 'tfteach.keras.backend' has no attribute %r" % name)
