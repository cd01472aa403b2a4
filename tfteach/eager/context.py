"""The eager context: whether ops run eagerly, and the state eager ops share.

What a Session owns for a graph, the eager context owns for eager ops: variable values
(`variable_values`, the store `VariableRef`s point into, as in a Session), the random
generators of seeded random ops (so `tf.random.normal([2], seed=1)` called twice draws
the next numbers of one stream, as TF's eager kernel cache does), and the device scope.
It is one per process, like TensorFlow's eager context.
"""
import contextlib
import threading

from tfteach.framework import eager_mode
from tfteach.framework import graph as graph_lib
from tfteach.eager.tensor import CPU_DEVICE

__all__ = ["executing_eagerly", "enable_eager_execution", "eager_session", "kernel_state",
           "placement", "scratch_graph", "TAPES", "eager_mode_scope", "eager_mode_on",
           "v2_mode_on",
           "enable_v2_behavior", "disable_v2_behavior", "disable_eager_execution",
           "enable_tensor_equality", "disable_tensor_equality",
           "reset_random_states"]

executing_eagerly = eager_mode.executing_eagerly

class _ThreadTapes(threading.local):
    """The GradientTapes recording now in this thread, innermost last (tape.py): as in
    TensorFlow, a tape records the ops of the thread that entered it only."""

    def __init__(self):
        self.tapes = []

    def __bool__(self):
        return bool(self.tapes)

    def __iter__(self):
        return iter(list(self.tapes))

    def __len__(self):
        return len(self.tapes)

    def append(self, tape):
        self.tapes.append(tape)

    def remove(self, tape):
        self.tapes.remove(tape)

    def clear(self):
        del self.tapes[:]


TAPES = _ThreadTapes()


class _EagerSession:
    """Stands in for the Session a kernel's `ctx.session` names."""

    def __init__(self):
        self.variable_values = {}       # eager Variable key -> its value (VariableRef store)
        self.lock = threading.Lock()
        self.random_states = {}         # (op type, seed, seed2) -> the kernel's state dict


_SESSION = _EagerSession()
_SCRATCH = []


def eager_session():
    return _SESSION


def scratch_graph():
    """The graph eager Operations name as theirs (gradient functions read `op.graph`)."""
    if not _SCRATCH:
        _SCRATCH.append(graph_lib.Graph())
    return _SCRATCH[0]


def kernel_state(op):
    """`ctx.state` for an eager op: a seeded random op's persists between calls."""
    attrs = op._attrs
    seed2 = attrs.get("seed2")
    if seed2 is None or not op._op_def.stateful or (attrs.get("seed") == 0 and seed2 == 0):
        return {}
    key = (op.type, attrs.get("seed"), seed2, str(attrs.get("dtype")))
    with _SESSION.lock:
        return _SESSION.random_states.setdefault(key, {})


def reset_random_states():
    """`tf.random.set_seed` in eager mode: seeded ops start their streams again
    (framework/eager_mode.set_global_seed calls it)."""
    with _SESSION.lock:
        _SESSION.random_states.clear()


eager_mode.STATE.on_set_seed = reset_random_states


def placement(device_stack):
    """(device name, allocator or None) for eager ops under the `tf.device` scopes of
    `device_stack` (the global graph's): a virtual GPU runs the CPU kernels and accounts
    each output on its allocator while the tensor lives, as a Session does; the CPU, a
    real CUDA card (eager ops have no CUDA path) or a device that does not exist give the
    CPU (TF 2's soft placement). Device functions are ignored."""
    from tfteach.framework import device_spec
    from tfteach.runtime.config import ConfigProto
    from tfteach.runtime.devices import local_devices
    spec = ""
    for entry in reversed(device_stack):
        if entry is None:
            break
        if isinstance(entry, str):
            spec = device_spec.merge_device(entry, spec)
    parsed = device_spec.DeviceSpec.from_string(spec)
    if parsed.device_type != "GPU":
        return CPU_DEVICE, None
    index = parsed.device_index or 0
    for device in local_devices():
        if device.device_type == "GPU" and device.index == index and device.is_virtual:
            device.allocator.configure(ConfigProto().gpu_options)   # first use decides
            return device.name, device.allocator
    return CPU_DEVICE, None


def _install():
    from tfteach.eager.execute import execute
    from tfteach.kernels.cpu import two_workers
    from tfteach.runtime import context_config
    # Until the first eager op, tf.config.threading may still change the thread counts
    # (TF initializes its context then): the first op goes through _first_op.
    eager_mode.STATE.execute = execute if context_config.eager_initialized() else _first_op
    eager_mode.STATE.used = True
    # Eager ops make no Session: BLAS within the CPU quota from here (as a first Session).
    two_workers.fit_blas_to_cpus()


def _first_op(op_type, inputs, attrs=None, name=None, control_inputs=()):
    """The first eager op of the process: the thread counts are fixed from now on
    (runtime/context_config.py), then every op goes straight to execute."""
    from tfteach.eager.execute import execute
    from tfteach.runtime import context_config
    context_config.mark_eager_initialized()
    eager_mode.STATE.execute = execute
    return execute(op_type, inputs, attrs, name, control_inputs)


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """`tf.enable_eager_execution()`: from now on ops run as they are called.

    As TF 1.15: it must come before any graph op is built in the default graph. A
    `config`'s thread counts become the process's (tf.config.threading's); its other
    fields are for Sessions, which take their own.
    """
    if config is not None:
        from tfteach.runtime import config as config_lib
        if not isinstance(config, config_lib.ConfigProto):
            raise TypeError("config must be a tf.ConfigProto, but got %s" % type(config))
    if not eager_mode.STATE.enabled:
        graph = graph_lib.get_default_graph()
        if graph_lib._default_graph_stack.graphs or graph.get_operations():
            raise ValueError("tf.enable_eager_execution must be called at program startup.")
    if config is not None:          # (a call refused above changes nothing)
        from tfteach.runtime import context_config
        context_config.set_intra_op_threads(config.intra_op_parallelism_threads)
        context_config.set_inter_op_threads(config.inter_op_parallelism_threads)
    if eager_mode.STATE.enabled:
        return
    _install()
    eager_mode.STATE.enabled = True


def eager_mode_on():
    """Eager execution on, whatever was built before (`import tfteach.v2`: TF 2 has no
    other mode)."""
    _install()
    eager_mode.STATE.enabled = True


def v2_mode_on():
    """TF 2 for the process (`import tfteach.v2`): eager execution and TF 2's rules."""
    eager_mode_on()
    _tf2_rules(True)


def enable_v2_behavior():
    """TF 2's behaviour: eager execution, and TF 2's rules where TF 1.15 keeps two (a
    Keras metric is reported by the name compile was given)."""
    enable_eager_execution()
    _tf2_rules(True)


def disable_v2_behavior():
    """`tf.compat.v1.disable_v2_behavior()`: graphs and Sessions, TF 1's rules."""
    disable_eager_execution()
    _tf2_rules(False)


def _tf2_rules(on):
    """TF 2's rules beside eager execution: metric names as compiled, tensor equality."""
    eager_mode.STATE.v2 = on
    eager_mode.STATE.tensor_equality = on


def enable_tensor_equality():
    """`tf.compat.v1.enable_tensor_equality()` (part of TF 2 behaviour): `==` and `!=` on
    eager tensors and variables, and on a tf.function's tensors, are elementwise, and
    eager tensors and variables are unhashable (use `t.experimental_ref()` as a key)."""
    eager_mode.STATE.tensor_equality = True


def disable_tensor_equality():
    """`tf.compat.v1.disable_tensor_equality()`: `==` is identity, tensors hash."""
    eager_mode.STATE.tensor_equality = False


def disable_eager_execution():
    """`tf.compat.v1.disable_eager_execution()`: back to graphs and Sessions."""
    eager_mode.STATE.enabled = False


@contextlib.contextmanager
def eager_mode_scope():
    """Eager execution inside (TF's `context.eager_mode()`), whatever the process uses:
    no graph is the default inside. tf.function lifts variable creation out with it."""
    _install()
    saved_stack = list(graph_lib._default_graph_stack.graphs)
    saved_enabled = eager_mode.STATE.enabled
    del graph_lib._default_graph_stack.graphs[:]
    eager_mode.STATE.enabled = True
    try:
        yield
    finally:
        graph_lib._default_graph_stack.graphs[:] = saved_stack
        eager_mode.STATE.enabled = saved_enabled
