"""`tf.Session`: where a graph's values live and its ops run.

A Session owns the state of one run of a graph — variable values, random generators,
per-op kernel contexts — so two sessions on one graph are independent, as in TensorFlow.
`run` = validate fetches and feeds -> take the cached Plan for that signature (or build
it: prune, place, order, slots) -> execute -> shape the results like the fetches.

Devices (docs/devices.md): a Session sees the process's devices through its ConfigProto
(`runtime/devices.py`), places its graph with `runtime/placement.py`, and on GPUs keeps
its variables and constants in device memory (`runtime/session_memory.py`) until it is
closed. With `log_device_placement=True` TensorFlow's lines go to Python's stdout and
its log lines to stderr, as TF 1.15 writes them (runtime/placement_log.py), so a notebook
shows them.
"""
import contextlib
import threading
import weakref

import numpy as np

from tfteach.framework import graph as graph_lib
from tfteach.framework.operation import Operation
from tfteach.framework.tensor import Tensor
from tfteach.kernels.cpu import blocking, two_workers
from tfteach.kernels.cpu.run_state import RunStatePool
from tfteach.runtime import config as config_lib
from tfteach.runtime import context_config
from tfteach.runtime import devices as devices_lib
from tfteach.runtime import executor, fed_runs, fetches as fetches_lib, placement, session_memory
from tfteach.runtime import run_observers, session_resources
from tfteach.runtime import placement_log
from tfteach.runtime.run_observers import _observers as _run_observers

__all__ = ["Session", "InteractiveSession", "get_default_session", "run_in_session",
           "KernelContext", "live_sessions"]


class KernelContext:
    """One op's kernel instance inside one Session (TensorFlow's OpKernel object).

    Kernels receive it first: `ctx.attrs` are the op's attributes, `ctx.session` the
    owning session (variables), `ctx.state` a dict private to this op in this session
    (e.g. a random generator, so each new session replays the same random sequence).
    Every thread running the session shares it: what a kernel keeps for one run (a work
    array, a loop's history) goes in the run's RunState instead (kernels/cpu/run_state.py).
    """

    __slots__ = ("op", "attrs", "session", "state", "device", "kernel")

    def __init__(self, op, session, device, kernel):
        self.op = op
        self.attrs = op._attrs
        self.session = session
        self.state = {}
        self.device = device
        self.kernel = kernel


class _DefaultSessionStack(threading.local):
    def __init__(self):
        self.stack = []


_default_sessions = _DefaultSessionStack()


# Every Session not yet closed, held weakly: the notebook layer (tfteach/notebook/
# cell_memory.py) lists them to name what still holds GPU memory and to close the ones
# only IPython's output history keeps alive. A WeakSet never keeps a session alive, and
# it is touched only when a session opens or closes, never in `run`.
_live = weakref.WeakSet()


def live_sessions():
    """The Sessions of this process not closed nor garbage-collected, in no particular
    order. Holding the returned list keeps them alive: drop it soon."""
    return list(_live)


def get_default_session():
    """The innermost session installed by `with sess.as_default()` / `with Session()`."""
    stack = _default_sessions.stack
    return stack[-1] if stack else None


class BaseSession:
    def __init__(self, target="", graph=None, config=None):
        if graph is None:
            graph = graph_lib.get_default_graph()
        elif not isinstance(graph, graph_lib.Graph):
            raise TypeError("graph must be a tf.Graph, but got %s" % type(graph))
        if config is not None and not isinstance(config, config_lib.ConfigProto):
            raise TypeError("config must be a tf.ConfigProto, but got %s" % type(config))
        if config is None:
            # As TF 1.15: the options tf.config.threading / tf.config.optimizer set
            # for the process (runtime/context_config.py), or None when none are.
            config = context_config.session_config()
        self._graph = graph
        self._target = target
        # None stands for the default options until someone asks for them (`config`):
        # a tiny run loads no protobuf (tests/test_lazy_imports.py).
        self._config = config
        # ConfigProto.operation_timeout_in_ms: the deadline of every blocking op of a run
        # that sets no RunOptions.timeout_in_ms of its own (<= 0: none, as in TF).
        self._operation_timeout_ms = max(0, config.operation_timeout_in_ms) \
            if config is not None else 0
        self._closed = False
        self._plans = {}
        self._fed_runs = {}     # (fetch, feed keys) -> fed_runs.FedRun: the fast path
        self._contexts = {}
        # Session.run is thread-safe (docs/engine.md, "Threads"): each run in progress
        # has its own kernel state from this pool; building a plan (placement, kernel
        # contexts, constants held on a GPU) is done by one thread at a time. Nothing is
        # locked while a plan runs.
        self._run_states = RunStatePool()
        two_workers.fit_blas_to_cpus()      # once a process: BLAS within the CPU quota
        self._building = threading.RLock()
        self._context_stack = []
        # Queues, readers and the runner threads feeding them (session_resources.py).
        self.resources = session_resources.SessionResources()
        self._devices = devices_lib.session_devices(self._config)
        self._placer = placement.Placer(graph, self._devices, self._config)
        if self._devices.has_gpu:
            # The first session decides each GPU's GPUOptions (TF's process-wide state).
            for gpu in self._devices.gpus:
                gpu.allocator.configure(self._gpu_options())
            # VariableV2 op name -> its value in this session (GPU values accounted)
            self.variable_values = session_memory.DeviceVariableStore(self._placer)
            self._memory = session_memory.SessionMemory(self.variable_values)
            # Freed when the session is closed or garbage-collected (TF's __del__).
            self._finalizer = weakref.finalize(self, self._memory.release)
        else:
            self.variable_values = {}   # VariableV2 op name -> its value in this session
            self._memory = None
        _live.add(self)                   # once fully built (a failed __init__ is not)
        if self._config is not None and self._config.log_device_placement:
            placement_log.log_device_mapping(self._devices.mapping_lines())

    # -- properties -----------------------------------------------------------------------
    @property
    def graph(self):
        return self._graph

    @property
    def graph_def(self):
        """The graph's GraphDef; with `GraphOptions(infer_shapes=True)` each node carries
        its `_output_shapes`, as TF 1.15's Session adds them (`add_shapes`)."""
        if not hasattr(self._graph, "as_graph_def"):
            return None
        add_shapes = self._config is not None and self._config.graph_options.infer_shapes
        return self._graph.as_graph_def(add_shapes=add_shapes)

    @property
    def sess_str(self):
        return self._target

    @property
    def config(self):
        if self._config is None:
            self._config = config_lib.ConfigProto()
        return self._config

    def _gpu_options(self):
        """The GPUOptions the session was made with (None: the defaults)."""
        return self._config.gpu_options if self._config is not None else None

    # -- lifetime ---------------------------------------------------------------------------
    def close(self):
        """Frees this session's state; later runs raise RuntimeError."""
        self._closed = True
        _live.discard(self)
        self.resources.close()          # wakes ops waiting in queues; joins runner threads
        self._plans.clear()
        self._fed_runs.clear()
        self._contexts.clear()
        self._run_states.clear()
        self.variable_values.clear()
        if self._memory is not None:
            self._memory.release()      # variables and constants leave the GPUs

    def held_device_memory(self):
        """{Allocator: bytes} of GPU memory this open session holds (its variables and
        constants); {} for a CPU-only or closed session. For the notebook's summary."""
        return {} if self._memory is None else self._memory.held_bytes()

    def _check_open(self):
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")

    @contextlib.contextmanager
    def as_default(self):
        """Makes this the session `Tensor.eval()` and `Operation.run()` use."""
        _default_sessions.stack.append(self)
        try:
            yield self
        finally:
            _default_sessions.stack.remove(self)

    def __enter__(self):
        graph_cm = self._graph.as_default()
        session_cm = self.as_default()
        graph_cm.__enter__()
        session_cm.__enter__()
        self._context_stack.append((graph_cm, session_cm))
        return self

    def __exit__(self, exc_type, exc_value, tb):
        graph_cm, session_cm = self._context_stack.pop()
        session_cm.__exit__(exc_type, exc_value, tb)
        graph_cm.__exit__(exc_type, exc_value, tb)
        self.close()

    # -- running ------------------------------------------------------------------------------
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs what `fetches` need, with `feed_dict` replacing tensors' values."""
        self._check_open()
        if self._memory is not None:
            # A GPU given back whole (release_memory(), the notebook's end of cell) forgot
            # its GPUOptions; the open session that uses it next applies its own again,
            # as it did at creation, instead of running under the defaults.
            for gpu in self._devices.gpus:
                gpu.allocator.configure(self._gpu_options())
        if self._graph.version == 0:
            raise RuntimeError("The Session graph is empty.  Add operations to the graph "
                               "before calling run().")
        if _run_observers and not run_observers.is_inner_run(options):
            # A tool (%%tfgraph) watches runs: trace this one and tell it (run_observers).
            return run_observers.observed_run(self, fetches, feed_dict, options, run_metadata)
        if not run_metadata:
            run_metadata = None                # TF fills none that is false ({}, None)
        else:
            run_metadata.clear_for_run()       # TF replaces it after every run given one
        if options is not None:
            if type(options) is not config_lib.RunOptions:
                options = _as_run_options(options)
            if options is None or _asks_nothing(options):
                options = None                 # a MonitoredSession's default RunOptions
        if options is None and not self._operation_timeout_ms:
            if type(fetches) is Tensor and not feed_dict:
                return self._run_single(fetches)     # the common case, kept lean
            signature = fed_runs.signature_of(fetches, feed_dict)
            if signature is not None:
                fed_run = self._fed_runs.get(signature)
                if fed_run is not None:           # checked before: only the values now
                    values = fed_run.feed_values(feed_dict.values() if feed_dict else ())
                    if values is not None:
                        return _fast_results(fed_run, fed_run.plan.run(values), fetches)
        else:
            signature = None
        structure = fetches_lib.FetchStructure(self._graph, fetches)
        if feed_dict:
            if not isinstance(feed_dict, dict):
                raise TypeError("feed_dict must be a dictionary, got %s" % type(feed_dict))
            feed_tensors, feed_values = fetches_lib.process_feeds(self._graph, feed_dict)
        else:
            feed_tensors, feed_values = [], []
        tensors = [e for e in structure.elements if isinstance(e, Tensor)]
        targets = [e for e in structure.elements if isinstance(e, Operation)]
        for t in tensors:
            if not self._graph.is_fetchable(t):
                raise ValueError("Operation %r has been marked as not fetchable." % t.op.name)
        plan = self._plan(tuple(tensors), tuple(feed_tensors), tuple(targets))
        trace = options is not None and getattr(options, "trace_level", 0) >= 1
        step_stats = run_metadata.step_stats if (trace and run_metadata is not None) else None
        report_oom = options is not None and options.report_tensor_allocations_upon_oom
        if signature is not None and fed_runs.FedRun.applies_to(feed_dict, feed_tensors):
            self._fed_runs[signature] = fed_runs.FedRun(plan, feed_tensors, self._graph,
                                                        fetches, tensors)
        timeout_ms = _timeout_ms(options, self._operation_timeout_ms)
        if timeout_ms:
            # Bounds the waits of queue ops in this run (kernels/cpu/blocking.py).
            with blocking.run_deadline(timeout_ms):
                values = plan.run(feed_values, step_stats, report_oom)
        else:
            values = plan.run(feed_values, step_stats, report_oom)
        if options is not None and options.output_partition_graphs and run_metadata is not None:
            run_metadata.partition_graphs = list(plan.partition_graphs())
        fed = set(feed_tensors)
        results = iter([_to_result(v, t, t in fed) for v, t in zip(values, tensors)])
        element_values = [next(results) if isinstance(e, Tensor) else None
                          for e in structure.elements]
        return structure.build(element_values)

    def _run_single(self, tensor):
        if tensor.graph is not self._graph:
            fetches_lib.FetchStructure(self._graph, tensor)    # raises TF's ValueError
        plan = self._plans.get((tensor,))
        if plan is None:
            if not self._graph.is_fetchable(tensor):
                raise ValueError("Operation %r has been marked as not fetchable." % tensor.op.name)
            plan = self._plan((tensor,), (), ())
            self._plans[(tensor,)] = plan
        return _to_result(plan.run(())[0], tensor)

    def _plan(self, tensors, feeds, targets):
        key = (tensors, feeds, targets)
        plan = self._plans.get(key)
        if plan is None:
            plan = self.build_once(self._plans, key, lambda: executor.Plan(
                self, tensors, feeds, targets))
        return plan

    def build_once(self, cache, key, build):
        """cache[key], built by `build()` if missing, by one thread at a time: two threads
        asking at once get the same object (one set of kernel contexts, constants held
        once on a GPU)."""
        with self._building:
            value = cache.get(key)
            if value is None:
                value = cache[key] = build()
            return value

    def _kernel_context(self, op):
        ctx = self._contexts.get(op)
        if ctx is None:
            return self.build_once(self._contexts, op, lambda: self._new_kernel_context(op))
        return ctx

    def _new_kernel_context(self, op):
        device = self._placer.device_of(op)
        kernel = op._op_def.kernels.get(device.kernel_type)
        if kernel is None:
            from tfteach.framework import errors
            raise errors.UnimplementedError(
                op.node_def, op, "No registered kernel for op '%s' (%s) on %s"
                % (op.name, op.type, device.kernel_type))
        # A kernel that dispatches per op (e.g. on dtype) names its choice up front.
        kernel_for_op = getattr(kernel, "kernel_for_op", None)
        if kernel_for_op is not None:
            kernel = kernel_for_op(op)
        if device.kind == "cuda" and device.physical_index:
            # Launch (and allocate outputs) on the op's own card (kernels/cuda/cards.py).
            from tfteach.kernels.cuda import cards
            kernel = cards.on_card(kernel, device.physical_index)
        return KernelContext(op, self, device.name, kernel)

    def _hold_on_device(self, allocator, value, name):
        """Accounts a value the session keeps on a GPU until it closes (a constant)."""
        self._memory.hold(allocator, value, name)

    def partial_run_setup(self, fetches, feeds=None):
        raise NotImplementedError("partial_run is not supported by tfteach")

    def list_devices(self):
        """TensorFlow's `Session.list_devices()`: name, device_type, memory_limit_bytes."""
        return [devices_lib.SessionDeviceAttributes(d) for d in self._devices.devices]


def _as_run_options(options):
    """TF serializes `options` and its runtime parses the bytes as RunOptions: another
    message is read as RunOptions, anything else fails as TF's does (AttributeError: no
    SerializeToString); a false one ({}) is ignored, as TF ignores it."""
    if not options:
        return None
    return config_lib.RunOptions.FromString(options.SerializeToString())


def _asks_nothing(options):
    """Whether RunOptions ask for nothing a run does (no trace, partition graphs, timeout
    or OOM report): such a run takes the fast paths a run without options takes."""
    return not (options.trace_level or options.output_partition_graphs or
                options.timeout_in_ms or options.report_tensor_allocations_upon_oom)


def _timeout_ms(options, operation_timeout_ms):
    """A run's deadline, as TF's DirectSession picks it: the RunOptions' timeout_in_ms
    when positive, else the session's ConfigProto.operation_timeout_in_ms (0: none)."""
    if options is not None and options.timeout_in_ms > 0:
        return options.timeout_in_ms
    return operation_timeout_ms


def _fast_results(fed_run, values, fetches):
    """What the general path's FetchStructure builds, for a fetch or a flat list/tuple of
    fetches (fed_runs.FedRun.positions)."""
    positions = fed_run.positions
    fed = fed_run.fed
    if positions is None:
        return _to_result(values[0], fetches, fed[0])
    tensors = fed_run.tensors
    # One result per distinct tensor (a fetch listed twice is one object, as in TF);
    # `[train_op, loss]` fetches one.
    results = ([_to_result(values[0], tensors[0], fed[0])] if len(tensors) == 1 else
               [_to_result(v, t, f) for v, t, f in zip(values, tensors, fed)])
    out = [None if p < 0 else results[p] for p in positions]
    return out if type(fetches) is list else tuple(out)


def _to_result(value, tensor, fed=False):
    """What `sess.run` hands back: NumPy values the student may freely modify. A scalar
    is a NumPy scalar (`np.float32(1.5)`), except where the fetched tensor was fed: TF
    returns the fed array itself then, a 0-d array (`array(1.5, dtype=float32)`)."""
    if value is executor.DEAD:
        from tfteach.framework import errors
        raise errors.InvalidArgumentError(
            None, tensor.op, "Retval[0] does not have value: %s was computed in a tf.cond "
            "branch that was not taken" % tensor.name)
    if isinstance(value, np.ndarray):
        if value.ndim == 0 and not fed:
            return value[()]
        if not value.flags.writeable:
            return value.copy()
    return value


class Session(BaseSession):
    """`tf.Session(target='', graph=None, config=None)`."""

    def __init__(self, target="", graph=None, config=None):
        super().__init__(target, graph, config)

    @staticmethod
    def reset(target, containers=None, config=None):
        pass


class InteractiveSession(BaseSession):
    """A session that installs itself as the default session, for notebooks.

    As in TensorFlow, it installs its graph as the default graph too only when that graph
    was passed (`graph=g`): an InteractiveSession on the default graph pushes nothing on
    the graph stack, so `tf.reset_default_graph()` still works while it is open (and the
    session keeps running the old graph)."""

    def __init__(self, target="", graph=None, config=None):
        super().__init__(target, graph, config)
        self._default_session_cm = self.as_default()
        self._default_session_cm.__enter__()
        self._default_graph_cm = None
        if graph is not None:
            self._default_graph_cm = graph.as_default()
            self._default_graph_cm.__enter__()
        self._explicitly_closed = False

    def close(self):
        super().close()
        if not self._explicitly_closed:
            self._explicitly_closed = True
            try:
                if self._default_graph_cm is not None:
                    self._default_graph_cm.__exit__(None, None, None)
                self._default_session_cm.__exit__(None, None, None)
            except ValueError:
                pass


def run_in_session(element, feed_dict, session, what):
    """`Tensor.eval` / `Operation.run`: run in the given or the default session."""
    verb, noun = ("evaluate", "tensor") if what == "tensor" else ("execute", "operation")
    if session is None:
        session = get_default_session()
        if session is None:
            if what == "tensor":
                raise ValueError("Cannot evaluate tensor using `eval()`: No default session is "
                                 "registered. Use `with sess.as_default()` or pass an explicit "
                                 "session to `eval(session=sess)`")
            raise ValueError("Cannot execute operation using `run()`: No default session is "
                             "registered. Use `with sess.as_default():` or pass an explicit "
                             "session to `run(session=sess)`")
        if session.graph is not element.graph:
            raise ValueError("Cannot use the default session to %s %s: the %s's graph is "
                             "different from the session's graph. Pass an explicit session to "
                             "`%s(session=sess)`." % (verb, noun, noun,
                                                      "eval" if what == "tensor" else "run"))
    elif session.graph is not element.graph:
        raise ValueError("Cannot use the given session to %s %s: the %s's graph is different "
                         "from the session's graph." % (verb, noun, noun))
    return session.run(element, feed_dict)
