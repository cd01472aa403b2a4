"""`tf.Variable` (TF 1.x's ref variable) and the functions that list and initialize them.

A Variable is three ops in the graph plus an entry in the Session:
    Variable          VariableV2: a reference to where each Session keeps the value
    Variable/Assign   the initializer: stores `Variable/initial_value` in the Session
    Variable/read     Identity: the value ("snapshot") every expression uses
The graph only describes the variable; its value exists per Session, after the
initializer has run there (`sess.run(tf.global_variables_initializer())`).
"""
from contextlib import nullcontext

from tfteach.framework import convert, tensor_shape
from tfteach.framework import graph as graph_lib
from tfteach.framework.eager_mode import STATE as _EAGER, elementwise_equality
from tfteach.framework.graph import GraphKeys
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.tensor import Reference, Tensor
from tfteach.ops import state_ops
from tfteach.ops.constant_op import identity
from tfteach.ops.dependency_ops import group, no_op

__all__ = ["Variable", "VariableV1", "RefVariable", "global_variables", "all_variables",
           "trainable_variables", "local_variables", "model_variables",
           "moving_average_variables", "global_variables_initializer",
           "initialize_all_variables", "variables_initializer", "initialize_variables",
           "local_variables_initializer", "initialize_local_variables",
           "report_uninitialized_variables", "assert_variables_initialized"]


class _InitScope:
    """TF's `init_scope` in graph mode: no control dependencies, no cond/while context.

    A variable made inside `with tf.control_dependencies(...)` or a loop body must still
    be initializable on its own.
    """

    def __init__(self, graph):
        self._graph = graph

    def __enter__(self):
        self._deps = self._graph.control_dependencies(None)
        self._deps.__enter__()
        self._context = self._graph._get_control_flow_context()
        self._graph._set_control_flow_context(None)

    def __exit__(self, *exc):
        self._graph._set_control_flow_context(self._context)
        self._deps.__exit__(*exc)


def _tensor_method(name):
    """`Variable.<name>`: the Tensor operator, applied to the variable's snapshot.

    Looked up on Tensor when called: the math module installs the operators on Tensor
    after this module is imported.
    """
    def method(self, *args):
        operator = getattr(Tensor, name, None)
        if operator is None:
            return NotImplemented
        return operator(self.value(), *args)
    method.__name__ = name
    return method


# TF 1.15's tf.Variable(...) is VariableMetaclass calling `_variable_v1_call(cls,
# initial_value=None, ...)`: a keyword it does not take (the notes pass get_variable's
# `initializer=`) is Python's TypeError naming that function.
_V1_KEYWORDS = frozenset((
    "initial_value", "trainable", "collections", "validate_shape", "caching_device", "name",
    "variable_def", "dtype", "expected_shape", "import_scope", "constraint", "use_resource",
    "synchronization", "aggregation", "shape"))


def _check_v1_keywords(kwargs):
    for keyword in kwargs:
        if keyword not in _V1_KEYWORDS:
            raise TypeError("_variable_v1_call() got an unexpected keyword argument '%s'"
                            % keyword)


class Variable:
    """A TF 1.x variable: `tf.Variable(initial_value, trainable=True, collections=None, ...)`.

    Note TF1's argument order: the second positional argument is `trainable`.

    As TF 1.15's `tf.Variable` (VariableV1), this class only decides what is made: a graph
    variable is a RefVariable (so `type(v)` and `print(v.eval)` name RefVariable, as in
    TF 1.15), an eager one an EagerVariable; both are instances of `tf.Variable`.
    """

    # NumPy must defer to our operators: `ndarray * variable` calls Variable.__rmul__.
    __array_priority__ = 100

    def __new__(cls, *args, **kwargs):
        if cls is not Variable:
            return super().__new__(cls)
        # Eagerly (or while a tf.function traces) `tf.Variable(...)` is an eager,
        # resource-style variable (tfteach/eager/variables.py), as in TF 2.
        if _EAGER.enabled and (
                not graph_lib._default_graph_stack.graphs or
                getattr(graph_lib._default_graph_stack.graphs[-1], "is_function_trace", False)):
            from tfteach.eager.variables import EagerVariable
            return super().__new__(EagerVariable)
        _check_v1_keywords(kwargs)
        return super().__new__(RefVariable)


class RefVariable(Variable):
    """A graph variable: TF 1.15's RefVariable (a `float32_ref` VariableV2 op, its
    initializer and its `read` snapshot)."""

    def __init__(self, initial_value=None, trainable=True, collections=None,
                 validate_shape=True, caching_device=None, name=None, variable_def=None,
                 dtype=None, expected_shape=None, import_scope=None, constraint=None,
                 use_resource=None, synchronization=None, aggregation=None, shape=None):
        if variable_def is not None:
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            self._init_from_proto(variable_def, import_scope)
            return
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        if trainable is None:
            trainable = True
        if collections is None:
            collections = [GraphKeys.GLOBAL_VARIABLES]
        if not isinstance(collections, (list, tuple, set)):
            raise ValueError("collections argument to Variable constructor must be a list, "
                             "tuple, or set. Got %s of type %s"
                             % (collections, type(collections)))
        if constraint is not None and not callable(constraint):
            raise ValueError("The `constraint` argument must be a callable.")
        if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections = list(collections) + [GraphKeys.TRAINABLE_VARIABLES]
        self._trainable = trainable
        self._caching_device = caching_device
        self._constraint = constraint
        init_from_fn = callable(initial_value)
        values = [] if init_from_fn else [initial_value]
        graph = graph_lib.get_default_graph()
        with _InitScope(graph), name_scope(name, "Variable", values) as scope:
            graph = graph_lib.get_default_graph()
            # As TF: a callable initializer's ops and the variable are colocated with the
            # variable that does not exist yet (`_class: ["loc:@w"]`).
            with graph._attr_scope({"_class": ["loc:@" + scope[:-1]]}) if init_from_fn \
                    else nullcontext():
                self._initial_value = self._initial_value_tensor(
                    graph, initial_value, init_from_fn, dtype, scope)
                shape = (self._initial_value.shape if validate_shape
                         else tensor_shape.unknown_shape())
                self._variable = state_ops.variable_op_v2(
                    shape, self._initial_value.dtype.base_dtype, name=scope)
            if validate_shape and not self._initial_value.shape.is_fully_defined():
                raise ValueError("initial_value must have a shape specified: %s"
                                 % self._initial_value)
            self._initializer_op = state_ops.assign(
                self._variable, self._initial_value, validate_shape=validate_shape).op
            with graph.device(caching_device) if caching_device else \
                    graph._colocate_with(self._variable.op):
                self._snapshot = identity(self._variable, name="read")
        graph.add_to_collections(collections, self)

    @staticmethod
    def _initial_value_tensor(graph, initial_value, init_from_fn, dtype, scope):
        if init_from_fn:
            with graph.name_scope("Initializer"), graph.device(None):
                return convert.convert_to_tensor(initial_value(), name="initial_value",
                                                 dtype=dtype)
        value = convert.convert_to_tensor(initial_value, name="initial_value", dtype=dtype)
        if value.op._control_flow_context is not None:
            raise ValueError(
                "Initializer for variable %s is from inside a control-flow construct, "
                "such as a loop or conditional. When creating a variable inside a loop or "
                "conditional, use a lambda as the initializer." % scope)
        return value

    # -- VariableDef (meta graphs, framework/meta_graph.py) -----------------------------
    def _init_from_proto(self, variable_def, import_scope=None):
        """Binds this Variable to the ops a VariableDef names in the default graph (TF's
        `Variable(variable_def=...)`); nothing is added to the graph or a collection."""
        from tfteach.io.tf_protos import VariableDef
        if not isinstance(variable_def, VariableDef):
            variable_def = VariableDef.FromString(variable_def.SerializeToString())
        graph = graph_lib.get_default_graph()

        def element(name):
            if import_scope:
                name = import_scope.rstrip("/") + "/" + name
            return graph.as_graph_element(name)
        self._variable = element(variable_def.variable_name)
        self._initializer_op = element(variable_def.initializer_name)
        self._snapshot = element(variable_def.snapshot_name)
        self._initial_value = (element(variable_def.initial_value_name)
                               if variable_def.initial_value_name else None)
        self._trainable = variable_def.trainable
        self._caching_device = None
        self._constraint = None

    def to_proto(self, export_scope=None):
        """This variable's `VariableDef` (the names of its ops), as TF writes in meta graphs."""
        from tfteach.io.tf_protos import VariableDef

        def strip(name):
            if export_scope and name.startswith(export_scope.rstrip("/") + "/"):
                return name[len(export_scope.rstrip("/")) + 1:]
            return name
        if export_scope and not self._variable.name.startswith(export_scope.rstrip("/") + "/"):
            return None
        proto = VariableDef(variable_name=strip(self._variable.name),
                            initializer_name=strip(self._initializer_op.name),
                            snapshot_name=strip(self._snapshot.name),
                            is_resource=False, trainable=self._trainable)
        if self._initial_value is not None:
            proto.initial_value_name = strip(self._initial_value.name)
        return proto

    @staticmethod
    def from_proto(variable_def, import_scope=None):
        return Variable(variable_def=variable_def, import_scope=import_scope)

    # -- identity ------------------------------------------------------------------------
    @property
    def name(self):
        return self._variable.name

    @property
    def op(self):
        return self._variable.op

    @property
    def dtype(self):
        return self._variable.dtype

    @property
    def shape(self):
        return self._variable.shape

    def get_shape(self):
        return self._variable.shape

    @property
    def graph(self):
        return self._variable.graph

    @property
    def device(self):
        return self._variable.device

    @property
    def trainable(self):
        return self._trainable

    @property
    def constraint(self):
        return self._constraint

    @property
    def initializer(self):
        """The op that stores the initial value in the Session (`Variable/Assign`)."""
        return self._initializer_op

    @property
    def initial_value(self):
        return self._initial_value

    def _ref(self):
        """The `float32_ref` tensor: what Assign takes and what fetching returns."""
        return self._variable

    def _as_graph_element(self):
        return self._variable

    # -- reading ---------------------------------------------------------------------------
    def value(self):
        """The snapshot `Variable/read`: the variable's value, as expressions use it."""
        return self._snapshot

    def read_value(self):
        """A new Identity (`read`) of the variable, in the current name scope."""
        return identity(self._variable, name="read")

    def initialized_value(self):
        """The variable's value if it is initialized, else its initial value.

        TF 1.15's `cond(is_variable_initialized(v), v.read_value, lambda: initial_value)`
        (ops `IsVariableInitialized`, `cond/...`, `cond/read`, `cond/Merge` in the
        current name scope): `sess.run(v.initialized_value())` works before any
        initializer ran, and `tf.Variable(v.initialized_value() * 2)` initializes
        whether or not `v`'s initializer ran first.
        """
        from tfteach.ops.cond_ops import cond     # cond_ops imports this module's peers
        with _InitScope(self.graph), self.graph.as_default():
            return cond(state_ops.is_variable_initialized(self._variable), self.read_value,
                        lambda: self._initial_value)

    def eval(self, session=None):
        """The variable's value in `session` (or the default session)."""
        return self._variable.eval(session=session)

    # -- changing ----------------------------------------------------------------------------
    def assign(self, value, use_locking=False, name=None, read_value=True):
        op = state_ops.assign(self._variable, value, use_locking=use_locking, name=name)
        return op if read_value else op.op

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        op = state_ops.assign_add(self._variable, delta, use_locking=use_locking, name=name)
        return op if read_value else op.op

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        op = state_ops.assign_sub(self._variable, delta, use_locking=use_locking, name=name)
        return op if read_value else op.op

    def load(self, value, session=None):
        """Stores `value` in the Session by running the initializer with it fed."""
        from tfteach.runtime.session import get_default_session
        session = session or get_default_session()
        if session is None:
            raise ValueError("Either session argument should be provided or default "
                             "session should be established")
        session.run(self._initializer_op, {self._initializer_op.inputs[1]: value})

    # -- python protocol -----------------------------------------------------------------------
    def __repr__(self):
        return "<tf.Variable '%s' shape=%s dtype=%s>" % (self.name, self.shape,
                                                         self.dtype.name)

    # TF1 graph variables compare and hash by identity, like Tensors; `tf.equal` compares
    # values. With tensor equality on (TF 2 behaviour), TF 1.15's rule for an eager
    # variable: `==`/`!=` elementwise and no hash (`v.experimental_ref()` is a key).
    def _compares_elementwise(self):
        return _EAGER.tensor_equality and elementwise_equality(self.graph)

    def __hash__(self):
        if self._compares_elementwise():
            raise TypeError("Variable is unhashable if Tensor equality is enabled. Instead, "
                            "use tensor.experimental_ref() as the key.")
        return id(self)

    def __eq__(self, other):
        if not self._compares_elementwise():
            return self is other
        return Tensor.__eq__(self.value(), other)

    def __ne__(self, other):
        if not self._compares_elementwise():
            return self is not other
        return Tensor.__ne__(self.value(), other)

    def experimental_ref(self):
        """A hashable reference to this variable (TF 1.15); `.deref()` gives it back."""
        return Reference(self)

    def __iter__(self):
        raise TypeError("'Variable' object is not iterable.")

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(
            "Cannot convert a symbolic Variable (%s) to a numpy array. Run it in a Session "
            "(sess.run(v) or v.eval()) to get its value." % self.name)

    for _operator in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
                      "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__",
                      "__mod__", "__rmod__", "__pow__", "__rpow__", "__matmul__",
                      "__rmatmul__", "__and__", "__rand__", "__or__", "__ror__", "__xor__",
                      "__rxor__", "__lt__", "__le__", "__gt__", "__ge__",
                      "__neg__", "__abs__", "__invert__", "__bool__"):
        locals()[_operator] = _tensor_method(_operator)
    del _operator

    def __getitem__(self, slice_spec):
        # TF's _SliceHelperVar: a slice of the value that knows its variable, so that
        # `v[0, :].assign(...)` writes into it (ops/slice_assign.py)
        from tfteach.ops.slicing import _slice_helper
        return _slice_helper(self.value(), slice_spec, var=self)


VariableV1 = Variable


def _variable_to_tensor(variable, dtype=None, name=None, as_ref=False):
    # In expressions a Variable means its snapshot; ops that change it ask for the ref.
    return variable._ref() if as_ref else variable.value()


convert.register_tensor_conversion_function(Variable, _variable_to_tensor, priority=50)


# -- collections ---------------------------------------------------------------------------
def _collection(key, scope=None):
    return graph_lib.get_default_graph().get_collection(key, scope)


def global_variables(scope=None):
    """Variables in the GLOBAL_VARIABLES collection (every `tf.Variable` by default)."""
    return _collection(GraphKeys.GLOBAL_VARIABLES, scope)


def all_variables():
    """Deprecated alias of `global_variables()`."""
    return global_variables()


def trainable_variables(scope=None):
    return _collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope=None):
    return _collection(GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope=None):
    return _collection(GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope=None):
    return _collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


# -- initializers ------------------------------------------------------------------------------
def variables_initializer(var_list, name="init"):
    """One op (a NoOp named `init`) that runs the initializer of every variable listed."""
    if var_list:
        return group(*[v.initializer for v in var_list], name=name)
    return no_op(name=name)


def initialize_variables(var_list, name="init"):
    """Deprecated alias of `variables_initializer`."""
    return variables_initializer(var_list, name=name)


def global_variables_initializer():
    """`variables_initializer(global_variables())`: run it once per Session."""
    return variables_initializer(global_variables())


def initialize_all_variables():
    """Deprecated alias of `global_variables_initializer()`."""
    return global_variables_initializer()


def local_variables_initializer():
    return variables_initializer(local_variables())


def initialize_local_variables():
    """Deprecated alias of `local_variables_initializer()`."""
    return local_variables_initializer()


def _default_var_list():
    var_list = global_variables() + local_variables()
    if not var_list:       # variables made without the Variable class: their ref tensors
        var_list = [op.outputs[0] for op in graph_lib.get_default_graph().get_operations()
                    if op.type in ("Variable", "VariableV2")]
    return var_list


def _array_ops():
    # Looked up when called: these ops live in modules written after this one.
    import tfteach
    return tfteach


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """A 1-D string tensor: the names of the variables not yet initialized in the Session."""
    if var_list is None:
        var_list = _default_var_list()
    tf = _array_ops()
    with name_scope(name):
        init_vars = [state_ops.is_variable_initialized(v) for v in var_list]
        with graph_lib.get_default_graph().device("/cpu:0"):
            if not var_list:
                return tf.constant([], dtype=tf.string)
            mask = tf.logical_not(tf.stack(init_vars))
            names = tf.constant([v.op.name for v in var_list])
            return tf.boolean_mask(names, mask)


def assert_variables_initialized(var_list=None):
    """An op that fails (FailedPreconditionError) if a variable is not initialized."""
    if var_list is None:
        var_list = _default_var_list()
    if not var_list:
        return None
    tf = _array_ops()
    from tfteach.ops.shape_ops import rank_internal
    # Rank ops that run (not the constants a known rank folds to): reading an
    # uninitialized variable is what fails, as in TF
    ranks = []
    for v in var_list:
        with tf.colocate_with(v.op):
            ranks.append(rank_internal(v._ref() if isinstance(v, Variable) else v,
                                       optimize=False))
    return ranks[0] if len(ranks) == 1 else tf.stack(ranks)


