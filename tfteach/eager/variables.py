"""Eager `tf.Variable`: a resource-style variable whose value lives in the eager context.

`tf.Variable(...)` made while executing eagerly (or while a tf.function traces, which
lifts variable creation out of the function as TF's `init_scope` does) is an
`EagerVariable`. Its value sits in the eager context's `variable_values` store under a
key of its own and is reached through a `VariableRef`, exactly as a graph variable's
value sits in a Session: so the ops that update variables (`Assign*`, the optimizers'
`Apply*`) run their usual kernels on it, eagerly or inside a traced function.

- Reading it (`v + 1`, `tf.matmul(x, v)`, `v.read_value()`) gives an EagerTensor of the
  current value; a recording GradientTape notes the read (tape.py), so `tape.gradient(
  loss, v)` works as in TF 2.
- Inside a tf.function's trace, it appears in the graph as a `VariableV2` op with a
  `read` Identity (function.py's captures), which the function's Session shares with
  the eager store: updates made by the traced graph are the variable's updates.
- Names are not made unique (two `tf.Variable(1.0)` are both `Variable:0`), as in TF 2.
"""
import itertools

import numpy as np

from tfteach.framework import graph as graph_lib
from tfteach.framework import tensor_shape
from tfteach.framework.graph import GraphKeys
from tfteach.framework.eager_mode import executing_eagerly
from tfteach.kernels.cpu.state_kernels import VariableRef
from tfteach.eager import context
from tfteach.eager.tensor import CPU_DEVICE, EAGER_GRAPH, EagerTensor, _numpy_repr
from tfteach.ops.variables import RefVariable

__all__ = ["EagerVariable"]

_KEYS = itertools.count()


def created_count():
    """How many eager variables were made so far (tf.function counts those of a trace)."""
    return _CREATED[0]


_CREATED = [0]


class _StoreKey:
    """The `op` a VariableRef names: only its name (the store key) is used."""

    def __init__(self, name):
        self.name = name
        self.graph = context.scratch_graph()


class _NamedOp:
    def __init__(self, name):
        self.name = name
        self.type = "VarHandleOp"
        self.graph = EAGER_GRAPH


class EagerVariable(RefVariable):
    """A variable of eager execution (TF 2's ResourceVariable); see the module docs."""

    def __init__(self, initial_value=None, trainable=None, collections=None,
                 validate_shape=True, caching_device=None, name=None, variable_def=None,
                 dtype=None, expected_shape=None, import_scope=None, constraint=None,
                 use_resource=None, synchronization=None, aggregation=None, shape=None):
        from tfteach.framework import convert
        if variable_def is not None:
            raise ValueError("Creating a variable from a VariableDef is not supported when "
                             "eager execution is enabled.")
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        if constraint is not None and not callable(constraint):
            raise ValueError("The `constraint` argument must be a callable.")
        with context.eager_mode_scope():        # lifted out of a tf.function's trace
            if callable(initial_value):
                initial_value = initial_value()
            if getattr(initial_value, "_value", None) is None and hasattr(
                    initial_value, "graph") and not isinstance(initial_value, EagerVariable):
                initial_value = _value_of_graph_tensor(initial_value)
            value = convert.convert_to_tensor(initial_value, dtype=dtype)
        self._dtype = value.dtype.base_dtype
        array = np.asarray(value.numpy() if isinstance(value, EagerTensor) else value)
        if shape is not None:
            self._shape = tensor_shape.as_shape(shape)
            if not self._shape.is_compatible_with(array.shape):
                raise ValueError("The initial value's shape (%s) is not compatible with the "
                                 "explicitly supplied `shape` argument (%s)."
                                 % (tensor_shape.TensorShape(array.shape), self._shape))
        elif validate_shape:
            self._shape = tensor_shape.TensorShape(array.shape)
        else:
            self._shape = tensor_shape.unknown_shape()
        from tfteach.framework.eager_mode import STATE
        self._name = STATE.name_scope + (name or "Variable").rstrip("/") + ":0"
        self._trainable = True if trainable is None else bool(trainable)
        self._constraint = constraint
        self._caching_device = caching_device
        # Made in this order (TF's unique ids: tfe.implicit_gradients lists variables so).
        self._creation_index = next(_KEYS)
        self._key = "_eager_variable_%d" % self._creation_index
        _CREATED[0] += 1
        self._ref_value = VariableRef(context.eager_session().variable_values,
                                      _StoreKey(self._key))
        self._ref_value.store_value(array)
        self._initial_value = value
        self._ref_tensor = EagerTensor(self._ref_value, self._dtype._as_ref)
        if collections is not None and GraphKeys.GLOBAL_STEP in collections:
            # Eager variables join no collection, except the global step's, as TF's
            # ResourceVariable: get_or_create_global_step then finds it again.
            graph_lib.get_default_graph().add_to_collection(GraphKeys.GLOBAL_STEP, self)

    # -- identity ---------------------------------------------------------------------------
    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    @property
    def device(self):
        return CPU_DEVICE

    @property
    def graph(self):
        if executing_eagerly():
            return EAGER_GRAPH
        from tfteach.framework import graph as graph_lib
        return graph_lib.get_default_graph()      # the tf.function being traced

    @property
    def op(self):
        # TF 2 has a handle op here; the optimizers read `var.op.name` to name scopes.
        return _NamedOp(self._name.split(":")[0])

    @property
    def initializer(self):
        return None

    @property
    def initial_value(self):
        return self._initial_value

    @property
    def handle(self):
        return self._ref_tensor

    # -- reading ----------------------------------------------------------------------------
    def _eager_tensor(self, as_ref=False):
        if as_ref:
            return self._ref_tensor
        tensor = EagerTensor(self._ref_value.deref(), self._dtype)
        if context.TAPES:
            from tfteach.eager import tape
            tape.variable_accessed(self, tensor)
        return tensor

    def _graph_tensor(self, as_ref=False):
        """In a tf.function's trace: the graph's stand-in for this variable."""
        from tfteach.framework import graph as graph_lib
        graph = graph_lib.get_default_graph()
        capture = getattr(graph, "capture_variable", None)
        if capture is None:
            raise ValueError("An eager tf.Variable (%s) cannot be used in a graph built "
                             "outside tf.function." % self._name)
        if as_ref:
            return capture(self)[0]
        return graph.read_variable(self)

    def _ref(self):
        return self._eager_tensor(as_ref=True) if executing_eagerly() else \
            self._graph_tensor(as_ref=True)

    def value(self):
        return self._eager_tensor() if executing_eagerly() else self._graph_tensor()

    def read_value(self):
        return self.value()

    def _as_graph_element(self):
        return self._ref()

    def numpy(self):
        array = np.asarray(self._ref_value.deref())
        return array[()] if array.ndim == 0 else array

    def __array__(self, dtype=None, copy=None):
        array = np.asarray(self._ref_value.deref())
        return array if dtype is None else array.astype(dtype, copy=False)

    def initialized_value(self):
        return self.value()

    def eval(self, session=None):
        raise NotImplementedError("eval is not supported when eager execution is enabled, "
                                  "is .numpy() what you're looking for?")

    # -- changing ---------------------------------------------------------------------------
    def _update(self, method, value, name, read_value):
        from tfteach.ops import state_ops
        if not executing_eagerly():
            from tfteach.framework import graph as graph_lib
            from tfteach.framework.graph_functions import control_dependencies
            graph = graph_lib.get_default_graph()
            ref = self._graph_tensor(as_ref=True)
            last = graph.last_write(self)
            with control_dependencies([last] if last is not None else []):
                op = getattr(state_ops, method)(ref, value, name=name)
            graph.wrote_variable(self, op.op)
            return self if read_value else op.op
        if method == "assign":
            # TF 1.15's ResourceVariable.assign checks the shape in Python first.
            from tfteach.framework import convert
            value = convert.convert_to_tensor(value, dtype=self._dtype)
            self._shape.assert_is_compatible_with(value.shape)
        getattr(state_ops, method)(self._ref_tensor, value, name=name)
        return self if read_value else None

    def assign(self, value, use_locking=False, name=None, read_value=True):
        return self._update("assign", value, name, read_value)

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        return self._update("assign_add", delta, name, read_value)

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        return self._update("assign_sub", delta, name, read_value)

    def load(self, value, session=None):
        self.assign(value)

    # -- Python protocol --------------------------------------------------------------------
    def __repr__(self):
        return "<tf.Variable '%s' shape=%s dtype=%s, numpy=%s>" % (
            self._name, self._shape, self._dtype.name, _numpy_repr(self.numpy()))

    def __bool__(self):
        return bool(self._eager_tensor())

    def __int__(self):
        return int(self._eager_tensor())

    def __float__(self):
        return float(self._eager_tensor())

    def __len__(self):
        # TF's variables have no len() (a tensor has): Python's words for TF's class
        raise TypeError("object of type 'ResourceVariable' has no len()")

    def __iter__(self):
        return iter(self._eager_tensor())

    def __reduce__(self):
        raise TypeError("can't pickle an eager tf.Variable; save it with "
                        "tf.train.Checkpoint")


def _value_of_graph_tensor(tensor):
    """A variable's initial value built in a tf.function's trace (`tf.Variable(tf.
    random.normal(...))` inside the function): computed once, in a Session of its own
    graph, as TF's init_scope computes it eagerly."""
    from tfteach.runtime.session import Session
    with Session(graph=tensor.graph) as sess:
        return sess.run(tensor)

