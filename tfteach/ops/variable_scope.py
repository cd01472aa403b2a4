"""`tf.variable_scope` and `tf.get_variable`: sharing variables by name (TF 1.15).

Each graph keeps a *variable store* (full name -> Variable made by `get_variable`) and
a *variable scope store* (the current VariableScope and how often each scope name was
opened). Variable names depend only on variable scopes, never on `tf.name_scope`; a
variable scope also opens a name scope so the ops built inside are grouped with it.
`reuse` decides what `get_variable` does with a name:
    reuse=False/None  create it; it must not exist yet
    reuse=True        return the existing one; it must exist
    tf.AUTO_REUSE     return it if it exists, else create it
"""
import functools
import inspect
import os
import traceback

from tfteach.framework import convert, dtypes, tensor_shape
from tfteach.framework import graph as graph_lib
from tfteach.framework.graph import GraphKeys
from tfteach.framework.graph_functions import name_scope
from tfteach.ops import init_ops, variables

__all__ = ["variable_scope", "get_variable", "get_variable_scope", "VariableScope",
           "AUTO_REUSE", "no_regularizer", "get_local_variable", "variable_op_scope"]


class _ReuseMode:
    """`tf.AUTO_REUSE`: get_variable creates the variable, or returns it if it exists."""

    def __repr__(self):
        return "<_ReuseMode.AUTO_REUSE: 1>"


AUTO_REUSE = _ReuseMode()


def no_regularizer(_):
    """A regularizer that regularizes nothing (overrides a scope's regularizer)."""
    return None


# -- scopes ----------------------------------------------------------------------------
class VariableScope:
    """The defaults `get_variable` uses inside a `variable_scope` (name, reuse, ...)."""

    def __init__(self, reuse, name="", initializer=None, regularizer=None,
                 caching_device=None, partitioner=None, custom_getter=None, name_scope="",
                 dtype=dtypes.float32, use_resource=None, constraint=None):
        self._name = name
        self._initializer = initializer
        self._regularizer = regularizer
        self._reuse = reuse
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint

    name = property(lambda self: self._name)
    original_name_scope = property(lambda self: self._name_scope)
    reuse = property(lambda self: self._reuse)
    initializer = property(lambda self: self._initializer)
    regularizer = property(lambda self: self._regularizer)
    dtype = property(lambda self: self._dtype)
    caching_device = property(lambda self: self._caching_device)
    partitioner = property(lambda self: self._partitioner)
    custom_getter = property(lambda self: self._custom_getter)
    use_resource = property(lambda self: self._use_resource)
    constraint = property(lambda self: self._constraint)

    def reuse_variables(self):
        """From now on, get_variable in this scope returns existing variables."""
        self._reuse = True

    def set_initializer(self, initializer):
        self._initializer = initializer

    def set_regularizer(self, regularizer):
        self._regularizer = regularizer

    def set_dtype(self, dtype):
        self._dtype = dtype

    def set_caching_device(self, caching_device):
        self._caching_device = caching_device

    def set_partitioner(self, partitioner):
        self._partitioner = partitioner

    def set_custom_getter(self, custom_getter):
        self._custom_getter = custom_getter

    def set_use_resource(self, use_resource):
        self._use_resource = use_resource

    def get_collection(self, name):
        scope = self._name + "/" if self._name else ""
        return graph_lib.get_default_graph().get_collection(name, scope)

    def trainable_variables(self):
        return self.get_collection(GraphKeys.TRAINABLE_VARIABLES)

    def global_variables(self):
        return self.get_collection(GraphKeys.GLOBAL_VARIABLES)

    def local_variables(self):
        return self.get_collection(GraphKeys.LOCAL_VARIABLES)

    def get_variable(self, var_store, name, shape=None, dtype=None, initializer=None,
                     regularizer=None, reuse=None, trainable=None, collections=None,
                     caching_device=None, partitioner=None, validate_shape=True,
                     use_resource=None, custom_getter=None, constraint=None):
        """`get_variable` with this scope's defaults filled in."""
        if regularizer is None:
            regularizer = self._regularizer
        if caching_device is None:
            caching_device = self._caching_device
        if reuse is None:
            reuse = self._reuse
        if custom_getter is None:
            custom_getter = self._custom_getter
        full_name = self._name + "/" + name if self._name else name
        # Variable names depend only on variable scopes: leave any name scope for now.
        with name_scope(None):
            if dtype is not None and initializer is not None and not callable(initializer):
                init_dtype = convert.convert_to_tensor(initializer).dtype.base_dtype
                if init_dtype != dtypes.as_dtype(dtype):
                    raise ValueError("Initializer type '%s' and explicit dtype '%s' don't "
                                     "match." % (init_dtype, dtypes.as_dtype(dtype)))
            if initializer is None:
                initializer = self._initializer
            if constraint is None:
                constraint = self._constraint
            if dtype is None:
                dtype = self._dtype
            return var_store.get_variable(
                full_name, shape=shape, dtype=dtype, initializer=initializer,
                regularizer=regularizer, reuse=reuse, trainable=trainable,
                collections=collections, caching_device=caching_device,
                partitioner=partitioner, validate_shape=validate_shape,
                use_resource=use_resource, custom_getter=custom_getter,
                constraint=constraint)

    def __repr__(self):
        return "<tfteach.VariableScope %r reuse=%r>" % (self._name, self._reuse)


class _VariableScopeStore:
    """Per graph: the current scope and how many times each scope name was opened."""

    def __init__(self):
        self.current_scope = VariableScope(False)
        self.variable_scopes_count = {}

    def open_variable_scope(self, scope_name):
        self.variable_scopes_count[scope_name] = self.variable_scopes_count.get(
            scope_name, 0) + 1

    def close_variable_subscopes(self, scope_name):
        for k in list(self.variable_scopes_count):
            if scope_name is None or k.startswith(scope_name + "/"):
                self.variable_scopes_count[k] = 0

    def variable_scope_count(self, scope_name):
        return self.variable_scopes_count.get(scope_name, 0)


def _scope_store(graph=None):
    graph = graph or graph_lib.get_default_graph()
    store = getattr(graph, "_variable_scope_store", None)
    if store is None:
        store = graph._variable_scope_store = _VariableScopeStore()
    return store


def _variable_store(graph=None):
    graph = graph or graph_lib.get_default_graph()
    store = getattr(graph, "_variable_store", None)
    if store is None:
        store = graph._variable_store = _VariableStore()
    return store


def get_variable_scope():
    """The current VariableScope (the root scope has name '' and reuse False)."""
    return _scope_store().current_scope


def _unique_variable_scope(prefix):
    """`prefix`, or `prefix_1`, `prefix_2`, ... if that scope was already opened here."""
    store = _scope_store()
    current = store.current_scope
    name = current.name + "/" + prefix if current.name else prefix
    if store.variable_scope_count(name) == 0:
        return prefix
    idx = 1
    while store.variable_scope_count(name + ("_%d" % idx)) > 0:
        idx += 1
    return prefix + ("_%d" % idx)


class _PureVariableScope:
    """Switches the current VariableScope (no name scope): TF's `_pure_variable_scope`."""

    def __init__(self, name_or_scope, reuse, initializer, regularizer, caching_device,
                 old_name_scope, dtype, constraint, custom_getter=None):
        self._name_or_scope = name_or_scope
        self._custom_getter = custom_getter
        self._reuse = reuse
        self._settings = {"initializer": initializer, "regularizer": regularizer,
                          "caching_device": caching_device, "dtype": dtype}
        self._old_name_scope = old_name_scope
        self._constraint = constraint
        self._store = _scope_store()

    def _apply_settings(self, scope):
        for key, value in self._settings.items():
            if value is not None:
                getattr(scope, "set_" + key)(value)
        if self._custom_getter is not None:
            # `scope` still holds the enclosing (or re-entered) scope's getter: nest them.
            scope.set_custom_getter(_maybe_wrap_custom_getter(self._custom_getter,
                                                              scope.custom_getter))

    def __enter__(self):
        store = self._store
        self._old = store.current_scope
        given = self._name_or_scope
        if isinstance(given, VariableScope):
            # Jumping back into a scope object: a copy of it, with any overrides given.
            self._new_name = given.name
            scope = VariableScope(
                self._reuse if self._reuse else given.reuse, name=given.name,
                initializer=given.initializer, regularizer=given.regularizer,
                caching_device=given.caching_device, partitioner=given.partitioner,
                custom_getter=given.custom_getter, name_scope=given.original_name_scope,
                dtype=given.dtype, use_resource=given.use_resource,
                constraint=self._constraint)
            self._apply_settings(scope)
            store.open_variable_scope(self._new_name)
            self._old_subscopes = dict(store.variable_scopes_count)
        else:
            # A sub-scope of the current one: it inherits reuse and the defaults.
            old = self._old
            self._new_name = old.name + "/" + given if old.name else given
            reuse = self._reuse or old.reuse
            scope = VariableScope(
                reuse, name=self._new_name, initializer=old.initializer,
                regularizer=old.regularizer, caching_device=old.caching_device,
                partitioner=old.partitioner, custom_getter=old.custom_getter,
                name_scope=self._old_name_scope if self._old_name_scope is not None
                else given, dtype=old.dtype, use_resource=old.use_resource,
                constraint=self._constraint)
            self._apply_settings(scope)
            store.open_variable_scope(self._new_name)
        store.current_scope = scope
        return scope

    def __exit__(self, *exc):
        if isinstance(self._name_or_scope, VariableScope):
            self._store.variable_scopes_count = self._old_subscopes
        else:
            self._store.close_variable_subscopes(self._new_name)
        self._store.current_scope = self._old


class variable_scope:  # noqa: N801 - TensorFlow's name
    """`with tf.variable_scope(name_or_scope, default_name=None, values=None, ...)`.

    Opens a variable scope and a name scope. A string nests under the current variable
    scope; a VariableScope object re-enters that scope (its name scope becomes new:
    `scope_1`); `None` uses `default_name`, made unique (`layer`, `layer_1`).
    """

    def __init__(self, name_or_scope, default_name=None, values=None, initializer=None,
                 regularizer=None, caching_device=None, partitioner=None,
                 custom_getter=None, reuse=None, dtype=None, use_resource=None,
                 constraint=None, auxiliary_name_scope=True):
        if default_name is None and name_or_scope is None:
            raise TypeError("If default_name is None then name_or_scope is required")
        if reuse is False:
            reuse = None          # TF: False means "inherit", like None
        if not (reuse is True or reuse is None or reuse is AUTO_REUSE):
            raise ValueError("The reuse parameter must be True or False or None.")
        if name_or_scope is not None and not isinstance(name_or_scope,
                                                        (VariableScope, str)):
            raise TypeError("VariableScope: name_or_scope must be a string or "
                            "VariableScope.")
        self._name_or_scope = name_or_scope
        self._default_name = default_name
        self._values = list(values) if values is not None else []
        self._settings = dict(initializer=initializer, regularizer=regularizer,
                              caching_device=caching_device, dtype=dtype,
                              constraint=constraint, custom_getter=custom_getter)
        self._reuse = reuse
        self._auxiliary_name_scope = auxiliary_name_scope
        self._stack = []

    def _name_scope_of(self, name):
        if self._auxiliary_name_scope:
            return name_scope(name, values=self._values)
        current = graph_lib.get_default_graph().get_name_scope()
        return name_scope(current + "/" if current else current, values=self._values)

    def __enter__(self):
        try:
            return self._enter()
        except BaseException as e:
            self._unwind(type(e), e, e.__traceback__)   # leave no scope half-open
            raise

    def _enter(self):
        graph = _graph_of_values(self._values)
        graph_cm = graph.as_default()
        graph_cm.__enter__()
        self._stack.append(graph_cm)
        given = self._name_or_scope
        if given is None:
            if self._reuse:
                raise ValueError("reuse=True cannot be used without a name_or_scope")
            name_cm = self._name_scope_of(self._default_name)
            current_name_scope = name_cm.__enter__()
            self._stack.append(name_cm)
            pure_name = _unique_variable_scope(self._default_name)
            old_name_scope = current_name_scope
        else:
            short = given if isinstance(given, str) else given.name.split("/")[-1]
            if short or not self._auxiliary_name_scope:
                name_cm = self._name_scope_of(short)
                current_name_scope = name_cm.__enter__()
                self._stack.append(name_cm)
                old_name_scope = (current_name_scope if isinstance(given, str)
                                  else given.original_name_scope)
            else:
                old_name_scope = None       # entering the root scope
            pure_name = given
        pure = _PureVariableScope(pure_name, self._reuse, old_name_scope=old_name_scope,
                                  **self._settings)
        scope = pure.__enter__()
        self._stack.append(pure)
        return scope

    def __exit__(self, *exc):
        self._unwind(*exc)
        return False

    def _unwind(self, *exc):
        while self._stack:
            self._stack.pop().__exit__(*exc)


def _graph_of_values(values):
    """The graph of `values` (Tensors, Variables), else the default graph."""
    for v in values:
        if hasattr(v, "graph") and hasattr(v, "_as_graph_element"):
            return v.graph
    return graph_lib.get_default_graph()


def variable_op_scope(values, name_or_scope, default_name=None, initializer=None,
                      regularizer=None, caching_device=None, partitioner=None,
                      custom_getter=None, reuse=None, dtype=None, use_resource=None,
                      constraint=None):
    """Deprecated: `variable_scope(name_or_scope, default_name, values, ...)`."""
    return variable_scope(name_or_scope, default_name=default_name, values=values,
                          initializer=initializer, regularizer=regularizer,
                          caching_device=caching_device, reuse=reuse, dtype=dtype,
                          constraint=constraint)


# -- the store -------------------------------------------------------------------------------
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _student_traceback():
    """The creating call stack outside tfteach, innermost first (TF shows 5 frames)."""
    frames = [f for f in traceback.extract_stack()[:-1]
              if not f.filename.startswith(_PACKAGE_DIR) and "contextlib" not in f.filename]
    return frames[::-1][:5]


def _needs_no_arguments(fn):
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in parameters)


def _accepts(fn, argument):
    try:
        parameters = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return True
    return argument in parameters or any(p.kind == p.VAR_KEYWORD
                                         for p in parameters.values())


def _default_initializer(name, dtype):
    """glorot_uniform for floats, zeros for integers, bools and strings (TF 1.15)."""
    if dtype.is_floating:
        return init_ops.glorot_uniform_initializer()
    if dtype.is_integer or dtype.is_bool or dtype == dtypes.string:
        return init_ops.zeros_initializer()
    raise ValueError("An initializer for variable %s of %s is required"
                     % (name, dtype.base_dtype))


class _VariableStore:
    """The variables `get_variable` made in one graph, by full name."""

    def __init__(self):
        self._vars = {}
        self._tracebacks = {}

    def get_variable(self, name, shape=None, dtype=dtypes.float32, initializer=None,
                     regularizer=None, reuse=None, trainable=None, collections=None,
                     caching_device=None, partitioner=None, validate_shape=True,
                     use_resource=None, custom_getter=None, constraint=None):
        if custom_getter is None:
            return self._true_getter(name, shape=shape, dtype=dtype, initializer=initializer,
                                     regularizer=regularizer, reuse=reuse,
                                     trainable=trainable, collections=collections,
                                     caching_device=caching_device,
                                     validate_shape=validate_shape, constraint=constraint)
        # TF's custom getter: called with the true getter and every argument by keyword;
        # it may change them, wrap the variable it gets, or return something else.
        if not callable(custom_getter):
            raise ValueError("Passed a custom_getter which is not callable: %s"
                             % custom_getter)
        kwargs = dict(getter=self._true_getter, name=name, shape=shape, dtype=dtype,
                      initializer=initializer, regularizer=regularizer, reuse=reuse,
                      trainable=trainable, collections=collections,
                      caching_device=caching_device, partitioner=partitioner,
                      validate_shape=validate_shape, use_resource=use_resource,
                      synchronization=None, aggregation=None)
        if _accepts(custom_getter, "constraint"):
            kwargs["constraint"] = constraint
        return custom_getter(**kwargs)

    def _true_getter(self, name, shape=None, dtype=dtypes.float32, initializer=None,
                     regularizer=None, reuse=None, trainable=None, collections=None,
                     caching_device=None, partitioner=None, validate_shape=True,
                     use_resource=None, constraint=None, synchronization=None,
                     aggregation=None):
        """Creates or shares the variable `name` (partitioner, use_resource,
        synchronization and aggregation are accepted and ignored: no partitioned or
        resource variables here)."""
        dtype = dtypes.as_dtype(dtype).base_dtype
        if trainable is None:
            trainable = True
        initializing_from_value = initializer is not None and not callable(initializer)
        if shape is not None and initializing_from_value:
            raise ValueError("If initializer is a constant, do not specify shape.")
        shape = tensor_shape.as_shape(shape) if shape is not None else None

        if name in self._vars:
            return self._existing(name, shape, dtype, reuse)
        if reuse is True:
            raise ValueError("Variable %s does not exist, or was not created with "
                             "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in "
                             "VarScope?" % name)
        init_val, variable_dtype = self._initial_value(name, shape, dtype, initializer,
                                                       initializing_from_value)
        graph = graph_lib.get_default_graph()
        with graph.control_dependencies(None):
            var = variables.Variable(initial_value=init_val, name=name, trainable=trainable,
                                     collections=collections, caching_device=caching_device,
                                     dtype=variable_dtype, validate_shape=validate_shape,
                                     constraint=constraint)
        self._vars[name] = var
        self._tracebacks[name] = _student_traceback()
        if regularizer:
            with graph.control_dependencies(None), name_scope(name + "/Regularizer/"):
                loss = regularizer(var)
            if loss is not None:
                graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
        return var

    def _existing(self, name, shape, dtype, reuse):
        var = self._vars[name]
        if reuse is False or reuse is None:
            message = ("Variable %s already exists, disallowed. Did you mean to set "
                       "reuse=True or reuse=tf.AUTO_REUSE in VarScope?" % name)
            raise ValueError("%s Originally defined at:\n\n%s" % (
                message, "".join(traceback.format_list(self._tracebacks[name]))))
        if shape is not None and not shape.is_compatible_with(var.get_shape()):
            raise ValueError("Trying to share variable %s, but specified shape %s and found "
                             "shape %s." % (name, shape, var.get_shape()))
        if not dtype.is_compatible_with(var.dtype):
            raise ValueError("Trying to share variable %s, but specified dtype %s and found "
                             "dtype %s." % (name, dtype.name, var.dtype.name))
        return var

    @staticmethod
    def _initial_value(name, shape, dtype, initializer, initializing_from_value):
        """(initial value or function making it, dtype for tf.Variable)."""
        if initializing_from_value:
            return initializer, None
        if initializer is None:
            initializer = _default_initializer(name, dtype)
            if shape is None or not shape.is_fully_defined():
                raise ValueError("Shape of a new variable (%s) must be fully defined, but "
                                 "instead was %s." % (name, shape if shape is not None
                                                      else tensor_shape.unknown_shape()))
        if inspect.isclass(initializer):
            initializer = initializer()
        if shape is not None and shape.is_fully_defined():
            dims = shape.as_list()
            if _accepts(initializer, "partition_info"):
                return (lambda: initializer(dims, dtype=dtype, partition_info=None)), dtype
            return (lambda: initializer(dims, dtype=dtype)), dtype
        if _needs_no_arguments(initializer):
            return initializer, None
        raise ValueError("The initializer passed is not valid. It should be a callable with "
                         "no arguments and the shape should not be provided or an instance "
                         "of `tf.keras.initializers.*' and `shape` should be fully defined.")


def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                 trainable=None, collections=None, caching_device=None, partitioner=None,
                 validate_shape=True, use_resource=None, custom_getter=None, constraint=None,
                 synchronization=None, aggregation=None):
    """The variable `<current variable scope>/name`: created, or shared if reuse allows."""
    return get_variable_scope().get_variable(
        _variable_store(), name, shape=shape, dtype=dtype, initializer=initializer,
        regularizer=regularizer, trainable=trainable, collections=collections,
        caching_device=caching_device, partitioner=partitioner,
        validate_shape=validate_shape, use_resource=use_resource,
        custom_getter=custom_getter, constraint=constraint)


def get_local_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                       trainable=False, collections=None, caching_device=None,
                       partitioner=None, validate_shape=True, use_resource=None,
                       custom_getter=None, constraint=None):
    """`get_variable` in LOCAL_VARIABLES (not saved, not trained)."""
    collections = list(collections or []) + [GraphKeys.LOCAL_VARIABLES]
    return get_variable(name, shape=shape, dtype=dtype, initializer=initializer,
                        regularizer=regularizer, trainable=False, collections=collections,
                        caching_device=caching_device, validate_shape=validate_shape,
                        constraint=constraint)


def _maybe_wrap_custom_getter(custom_getter, old_getter):
    """TF's nesting of custom getters: the inner scope's getter runs first, and the
    `getter` it is given runs the enclosing scope's getter (then the true getter)."""
    if old_getter is None:
        return custom_getter

    def wrapped_custom_getter(getter, *args, **kwargs):
        return custom_getter(functools.partial(old_getter, getter), *args, **kwargs)
    return wrapped_custom_getter
