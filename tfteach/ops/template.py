"""`tf.make_template`: a function that makes its variables on the first call and shares
them on every later call (TF 1.15's `tensorflow/python/ops/template.py`).

    dense = tf.make_template("dense", lambda x: tf.layers.dense(x, 3))
    y1 = dense(x1)          # makes dense/dense/kernel, dense/dense/bias
    y2 = dense(x2)          # the same two variables

The first call opens a new variable scope (`dense`, then `dense_1` for a second
template of that name) and runs the function in it; later calls re-enter that scope
with `reuse=True`, so every `tf.get_variable` (and every `tf.layers` function) gets the
variable the first call made. A later call that makes a new *trainable* variable
(`tf.Variable` where `tf.get_variable` was meant) raises TensorFlow's ValueError. An
error raised inside the function says where the template was made ("originally defined
at:"), as TF's does.

Executing eagerly (note 001: "functional layers only work if wrapped in
tfe.make_template") the same sharing holds: tfteach's eager `get_variable` keeps the
variables it made in the variable store, so a template's later calls find them.
"""
import functools
import traceback

from tfteach.framework import graph as graph_lib
from tfteach.framework.eager_mode import executing_eagerly
from tfteach.ops import variable_scope as vs

__all__ = ["make_template", "Template"]

_KEYS = graph_lib.GraphKeys
_GLOBAL, _TRAINABLE, _LOCAL = (_KEYS.GLOBAL_VARIABLES, _KEYS.TRAINABLE_VARIABLES,
                               _KEYS.LOCAL_VARIABLES)


def make_template(name_, func_, create_scope_now_=False, unique_name_=None,
                  custom_getter_=None, **kwargs):
    """A Template sharing `func_`'s variables across calls; `kwargs` are bound to
    `func_` (TF's trailing-underscore names leave every plain name to them)."""
    if kwargs:
        func_ = functools.partial(func_, **kwargs)
    if executing_eagerly() and unique_name_ is not None:
        raise ValueError("unique_name_ cannot be used when eager execution is enabled.")
    return Template(name_, func_, create_scope_now=create_scope_now_,
                    unique_name=unique_name_, custom_getter=custom_getter_)


def _collection(key):
    return graph_lib.get_default_graph().get_collection_ref(key)


def _skip_common_stack_elements(stacktrace, base_case):
    for i, (trace, base) in enumerate(zip(stacktrace, base_case)):
        if trace != base:
            return stacktrace[i:]
    return stacktrace[-1:]


class Template:
    """What `make_template` returns: call it as the function it wraps."""

    def __init__(self, name, func, create_scope_now=False, unique_name=None,
                 custom_getter=None):
        if name is None:
            raise ValueError("name cannot be None.")
        self._func = func
        self._stacktrace = traceback.format_stack()[:-2]
        self._name = name
        self._unique_name = unique_name
        self._custom_getter = custom_getter
        self._variable_scope = None
        if create_scope_now:
            with vs._PureVariableScope(unique_name or vs._unique_variable_scope(name),
                                       reuse=None, initializer=None, regularizer=None,
                                       caching_device=None, old_name_scope=None,
                                       dtype=None, constraint=None,
                                       custom_getter=custom_getter) as scope:
                self._variable_scope = scope
        self._variables_created = False
        self._first_call = True

    def __call__(self, *args, **kwargs):
        if self._variable_scope is not None:
            # Only reuse the variables once a call has made them.
            with vs.variable_scope(self._variable_scope, reuse=not self._first_call or None):
                return self._call_func(args, kwargs)
        with vs.variable_scope(self._unique_name, self._name,
                               custom_getter=self._custom_getter) as scope:
            self._variable_scope = scope
            return self._call_func(args, kwargs)

    def _call_func(self, args, kwargs):
        try:
            if self._variables_created:
                trainable_at_start = len(_collection(_TRAINABLE))
                result = self._func(*args, **kwargs)
                trainable = _collection(_TRAINABLE)
                if len(trainable) != trainable_at_start:
                    raise ValueError(
                        "Trainable variable created when calling a template after the "
                        "first time, perhaps you used tf.Variable when you meant "
                        "tf.get_variable: %s" % (trainable[trainable_at_start:],))
                return result
            if self._first_call:
                self._first_call = False
                try:
                    result = self._func(*args, **kwargs)
                except BaseException:
                    self._first_call = True
                    raise
                self._variables_created = True
                return result
            return self._func(*args, **kwargs)       # called from another thread at once
        except Exception as exc:
            arg0 = exc.args[0] if exc.args else ""
            trace = "".join(_skip_common_stack_elements(self._stacktrace,
                                                        traceback.format_stack()))
            exc.args = ("%s\n\noriginally defined at:\n%s" % (arg0, trace),) + exc.args[1:]
            raise

    @property
    def name(self):
        return self._name

    @property
    def func(self):
        return self._func

    @property
    def variable_scope(self):
        return self._variable_scope

    @property
    def variable_scope_name(self):
        if self._variable_scope is not None:
            name = self._variable_scope.name
            return name if not name or name.endswith("/") else name + "/"
        return None

    def _in_scope(self, key):
        if not self._variables_created:
            return []
        if executing_eagerly():
            # No collections while executing eagerly (as in TF): the variables the
            # template's get_variable calls made, from the variable store, in order.
            if key == _LOCAL:
                return []
            prefix = self.variable_scope_name
            return [v for name, v in vs._variable_store()._vars.items()
                    if name.startswith(prefix) and (key == _GLOBAL or v.trainable)]
        return graph_lib.get_default_graph().get_collection(key, self.variable_scope_name)

    @property
    def global_variables(self):
        return self._in_scope(_GLOBAL)

    @property
    def trainable_variables(self):
        return self._in_scope(_TRAINABLE)

    @property
    def local_variables(self):
        return self._in_scope(_LOCAL)

    @property
    def non_trainable_variables(self):
        trainable = set(map(id, self.trainable_variables))
        return [v for v in self.global_variables if id(v) not in trainable]

    @property
    def variables(self):
        return self.global_variables + self.local_variables

    weights = variables
    trainable_weights = trainable_variables
    non_trainable_weights = non_trainable_variables
