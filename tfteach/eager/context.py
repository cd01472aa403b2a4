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
           "current_device", "scratch_graph", "TAPES", "eager_mode_scope", "graph_mode"]

executing_eagerly = eager_mode.executing_eagerly

# The GradientTapes recording now, innermost last (tape.py).
TAPES = []


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
    """`tf.random.set_seed` in eager mode: seeded ops start their streams again."""
    with _SESSION.lock:
        _SESSION.random_states.clear()


def current_device():
    """The device eager ops run on: always the CPU (a `tf.device` scope is recorded on
    tensors' `.device` only when it names the CPU; docs/eager.md)."""
    return CPU_DEVICE


def _install():
    from tfteach.eager.execute import execute
    eager_mode.STATE.execute = execute
    eager_mode.STATE.used = True


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """`tf.enable_eager_execution()`: from now on ops run as they are called.

    As TF 1.15: it must come before any graph op is built in the default graph.
    """
    if eager_mode.STATE.enabled:
        return
    graph = graph_lib.get_default_graph()
    if graph_lib._default_graph_stack or graph.get_operations():
        raise ValueError("tf.enable_eager_execution must be called at program startup.")
    _install()
    eager_mode.STATE.enabled = True


def eager_mode_on():
    """Eager execution on, whatever was built before (`import tfteach.v2`: TF 2 has no
    other mode)."""
    _install()
    eager_mode.STATE.enabled = True


def enable_v2_behavior():
    enable_eager_execution()


def disable_eager_execution():
    """`tf.compat.v1.disable_eager_execution()`: back to graphs and Sessions."""
    eager_mode.STATE.enabled = False


@contextlib.contextmanager
def eager_mode_scope():
    """Eager execution inside (TF's `context.eager_mode()`), whatever the process uses:
    no graph is the default inside. tf.function lifts variable creation out with it."""
    _install()
    saved_stack = list(graph_lib._default_graph_stack)
    saved_enabled = eager_mode.STATE.enabled
    del graph_lib._default_graph_stack[:]
    eager_mode.STATE.enabled = True
    try:
        yield
    finally:
        graph_lib._default_graph_stack[:] = saved_stack
        eager_mode.STATE.enabled = saved_enabled


def graph_mode():
    """Graph building inside: a new Graph as the default."""
    return graph_lib.Graph().as_default()
