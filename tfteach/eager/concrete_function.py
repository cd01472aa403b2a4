"""The graphs a tf.function traces: `FuncGraph` (the graph being built, with its
captures of eager variables) and `ConcreteFunction` (one traced graph, run by a Session).

function.py decides when to trace; this module is what a trace produces and how a call
of it runs: the placeholders fed, the eager variables' values shared with the
function's Session before the run and taken back after it, the stateful ops run as
targets (TF's automatic control dependencies).
"""
import itertools

import numpy as np

from tfteach.framework import dtypes, graph as graph_lib
from tfteach.eager import context
from tfteach.eager.tensor import EagerTensor
from tfteach.ops import nest
from tfteach.runtime import context_config

__all__ = ["FuncGraph", "ConcreteFunction", "is_tensor_like", "is_graph_tensor"]


class FuncGraph(graph_lib.Graph):
    """The graph a tf.function's trace builds (TF's FuncGraph)."""

    is_function_trace = True

    def __init__(self, name):
        super().__init__()
        self.name = name
        # TF's FuncGraph takes the global seed (eagerly) or the enclosing graph's: its
        # random ops without a seed get op seeds by TF 1.15's graph rule (random_ops.py).
        self.seed = graph_lib.get_default_graph().seed
        self.inputs = []
        self.outputs = []
        self.structured_outputs = None
        self.variable_captures = {}      # id(eager variable) -> (variable, ref, read)
        self.last_writes = {}            # id(eager variable) -> its last update op
        self.branch_writes = {}          # the same, for updates inside a cond branch
        self.side_effects = []           # ops every call runs (conds with updates)

    @property
    def building_function(self):
        return True

    def capture_variable(self, variable):
        """The graph's VariableV2 (ref) and `read` Identity for an eager variable."""
        entry = self.variable_captures.get(id(variable))
        if entry is None:
            from tfteach.ops import state_ops
            from tfteach.ops.constant_op import identity
            saved = self._control_flow_context
            self._control_flow_context = None      # outside any cond/loop of the trace
            try:
                with self.control_dependencies(None), self.name_scope(None):
                    base = variable.name.split(":")[0]
                    ref = state_ops.variable_op_v2(variable.shape, variable.dtype, name=base)
                    read = identity(ref, name=ref.op.name + "/read")
            finally:
                self._control_flow_context = saved
            entry = self.variable_captures[id(variable)] = (variable, ref, read)
        return entry[1], entry[2]

    def read_variable(self, variable):
        """A read of `variable` in program order: after the function's last update of
        it (TF's automatic control dependencies), else the capture's `read`."""
        ref, read = self.capture_variable(variable)
        last = self.last_writes.get(id(variable))
        if last is None:
            return read
        from tfteach.ops.constant_op import identity
        with self.control_dependencies([last]):
            return identity(ref, name="read")

    def wrote_variable(self, variable, op):
        """`op` updated `variable`: later reads and updates come after it. An update
        inside a tf.cond branch is ordered by the cond's own marker instead (autograph's
        if_stmt calls `after_branches`): a read outside must not wait for a branch op
        that may not run."""
        if op._control_flow_context is not None:
            self.branch_writes[id(variable)] = op
            return
        self.last_writes[id(variable)] = op

    def after_branches(self, marker_op):
        """Updates made in the branches of a cond are done when `marker_op` ran."""
        for key in self.branch_writes:
            self.last_writes[key] = marker_op
        self.branch_writes.clear()
        self.side_effects.append(marker_op)

    def last_write(self, variable):
        return self.last_writes.get(id(variable))

    @property
    def variables(self):
        return tuple(v for v, _, _ in self.variable_captures.values())

    def __repr__(self):
        return "<tfteach FuncGraph %r at %#x>" % (self.name, id(self))


_FUNCTION_UIDS = itertools.count(1)


def is_tensor_like(x):
    return isinstance(x, (EagerTensor, np.ndarray)) or (
        hasattr(x, "dtype") and hasattr(x, "shape") and hasattr(x, "_as_graph_element")
        and not hasattr(x, "_ref_value"))


class ConcreteFunction:
    """One traced graph of a tf.function, for one input signature."""

    def __init__(self, graph, placeholders, structured_outputs, function_name):
        self.graph = graph
        self.name = function_name
        self.inputs = list(placeholders)
        self.structured_input_signature = None      # (args, kwargs): set by its Function
        self.structured_outputs = structured_outputs
        flat = nest.flatten(structured_outputs)
        self._flat_outputs = flat
        self._fetch_positions = [i for i, o in enumerate(flat) if is_graph_tensor(o)]
        self.outputs = [flat[i] for i in self._fetch_positions]
        graph.outputs = self.outputs
        # Stateful ops nobody fetches still run, as TF's automatic control dependencies.
        fetched_ops = {t.op for t in self.outputs}
        self._targets = [op for op in graph.get_operations()
                         if (op._op_def.ref_inputs
                             or op.type in ("Print", "PrintV2", "Assert", "PyWriteSummary"))
                         and op._control_flow_context is None and op not in fetched_ops]
        self._targets += [op for op in graph.side_effects if op not in fetched_ops]
        self._session = None
        self._options_version = None     # context_config.version() of that Session
        # TF's name of the function's op: __inference_<name>_<a number of the process>
        self._inference_name = "__inference_%s_%d" % (function_name, next(_FUNCTION_UIDS))

    @property
    def variables(self):
        return self.graph.variables

    @property
    def trainable_variables(self):
        return tuple(v for v in self.graph.variables if v.trainable)

    def __call__(self, *args, **kwargs):
        flat = [x for x in nest.flatten((args, kwargs)) if is_tensor_like(x)]
        self._check_input_dtypes(flat)
        return self._call_flat(flat)

    def _check_input_dtypes(self, values):
        """Called directly, a concrete function takes tensors of its inputs' dtypes only:
        TF runs it as one op (`__inference_<name>_<n>`), whose inputs the runtime checks
        as any op's (ops/eager_type_errors.py), never converting them."""
        from tfteach.framework import errors
        from tfteach.ops.eager_type_errors import cpp_type_name
        for i, (value, placeholder) in enumerate(zip(values, self.inputs)):
            dtype = dtypes.as_dtype(value.dtype)
            if dtype.base_dtype != placeholder.dtype.base_dtype:
                op_name = self._inference_name
                raise errors.InvalidArgumentError(
                    None, None, "cannot compute %s as input #%d(zero-based) was expected to "
                    "be a %s tensor but is a %s tensor [Op:%s]"
                    % (op_name, i, cpp_type_name(placeholder.dtype), cpp_type_name(dtype),
                       op_name))

    def _call_flat(self, values):
        from tfteach.runtime.session import Session
        if len(values) != len(self.inputs):
            raise TypeError("%s takes %d tensor arguments, got %d"
                            % (self.name, len(self.inputs), len(values)))
        version = context_config.version()
        session = self._session
        if session is None or self._options_version != version:
            # The first call, or tf.config.threading / tf.config.optimizer changed since
            # the last: a Session with the options now (the variables' values live in
            # the eager store). The old one is not closed: another thread may be
            # running it; each call runs the Session it took here.
            session = Session(graph=self.graph, config=_function_config())
            self._session, self._options_version = session, version
        store = context.eager_session().variable_values
        captures = list(self.graph.variable_captures.values())
        for var, ref, _ in captures:
            session.variable_values[ref.op.name] = store[var._key]
        feed = {p: np.asarray(v) for p, v in zip(self.inputs, values)}
        # (a function of no tensors that returns nothing has nothing to run)
        to_run = self.outputs + self._targets
        results = session.run(to_run, feed) if to_run else []
        for var, ref, _ in captures:
            store[var._key] = session.variable_values[ref.op.name]
        flat = list(self._flat_outputs)
        for i, value in zip(self._fetch_positions, results):
            dtype = self.outputs[self._fetch_positions.index(i)].dtype.base_dtype
            if dtype == dtypes.string:        # held as eager strings are: bytes objects
                value = np.asarray(value, dtype=object)
            flat[i] = EagerTensor(value, dtype)
        for i, o in enumerate(flat):
            if isinstance(o, graph_lib.Graph) or hasattr(o, "node_def") and not \
                    is_graph_tensor(o):
                flat[i] = None            # an Operation returned: TF gives None
        return nest.pack_sequence_as(self.structured_outputs, flat)

    def __repr__(self):
        return "<ConcreteFunction %s at %#x>" % (self.name, id(self))


def _function_config():
    """The ConfigProto of a function's Session: the options tf.config set for the
    process; the CPU and virtual GPUs as a graph gets them; with real CUDA cards, the
    CPU only — the eager variables the graph shares live
    in host memory, and a real card's kernels keep theirs on the card (docs/eager.md)."""
    from tfteach.runtime import config as config_lib
    from tfteach.runtime.devices import local_devices
    config = context_config.session_config()     # tf.config's options, or None
    if any(d.kind == "cuda" for d in local_devices()):
        config = config or config_lib.ConfigProto()
        config.device_count["GPU"] = 0
    return config


def is_graph_tensor(x):
    from tfteach.framework.tensor import Tensor
    return isinstance(x, Tensor) and not isinstance(x, EagerTensor)
