"""Module-level graph functions of TF 1.x that act on the default graph.

`tf.name_scope`, `tf.device`, `tf.control_dependencies`, `tf.add_to_collection`, ...
are thin wrappers over the default `Graph`'s methods, as in TensorFlow.
"""
import contextlib

from tfteach.framework import graph as graph_lib
from tfteach.framework.eager_mode import STATE as _EAGER
from tfteach.framework.tensor import Tensor

__all__ = ["name_scope", "device", "control_dependencies", "add_to_collection",
           "add_to_collections", "get_collection", "get_collection_ref", "container",
           "colocate_with"]


def _graph_for(values):
    for v in values or ():
        if isinstance(v, Tensor) or hasattr(v, "graph") and hasattr(v, "_as_graph_element"):
            return graph_lib.building_graph(v.graph)
    return graph_lib.get_default_graph()


def name_scope(name, default_name=None, values=None):
    """TF1's `tf.name_scope(name, default_name=None, values=None)`.

    `name` None uses `default_name` (made unique); the graph of `values` becomes the
    default graph inside, as TensorFlow does for op-building functions.
    """
    return _NameScope(name, default_name, values)


class _NameScope:
    """name_scope's context manager. A class rather than a generator: every eager op
    enters one or two, and a class's enter and exit cost ~1 us less than contextlib's.
    What it does is decided on entering, as before (eager, or the graph's scope)."""

    __slots__ = ("_name", "_default_name", "_values", "_saved", "_graph_scope")

    def __init__(self, name, default_name, values):
        self._name, self._default_name, self._values = name, default_name, values
        self._graph_scope = None

    @property
    def name(self):
        """The name it was given (TF's `name_scope.name`; a module's is `"mlp/"`)."""
        return self._name

    def __enter__(self):
        name, default_name = self._name, self._default_name
        if name is None and default_name is None and self._values is not None:
            raise ValueError("At least one of name (%s) and default_name (%s) must be "
                             "provided." % (name, default_name))
        scope_name = name if name is not None else default_name
        if _EAGER.enabled and not graph_lib._default_graph_stack.graphs:
            # Eagerly a scope only names (variables: `a/b/w:0`), as in TF 2; no graph
            # is made the default, which would switch eager execution off inside.
            # Names are not made unique; "c/" is absolute, None/"" resets.
            saved = self._saved = _EAGER.name_scope
            if not scope_name:
                new = ""
            elif scope_name.endswith("/"):
                new = scope_name
            else:
                new = saved + scope_name + "/"
            _EAGER.name_scope = new
            return new
        self._graph_scope = _graph_name_scope(scope_name, self._values)
        return self._graph_scope.__enter__()

    def __exit__(self, *exc_info):
        graph_scope = self._graph_scope
        if graph_scope is None:
            _EAGER.name_scope = self._saved
            return False
        self._graph_scope = None
        return graph_scope.__exit__(*exc_info)


@contextlib.contextmanager
def _graph_name_scope(scope_name, values):
    graph = _graph_for(values)
    with graph.as_default(), graph.name_scope(scope_name) as scope:
        yield scope


def device(device_name_or_function):
    """Ops created inside are placed on this device (`tf.device`)."""
    return graph_lib.get_default_graph().device(device_name_or_function)


def control_dependencies(control_inputs):
    """Ops created inside run only after `control_inputs` (`tf.control_dependencies`).
    Eagerly, ops run in program order: a no-op, as in TensorFlow."""
    if _EAGER.enabled and not graph_lib._default_graph_stack.graphs:
        return contextlib.nullcontext()
    return graph_lib.get_default_graph().control_dependencies(control_inputs)


@contextlib.contextmanager
def container(container_name):
    yield container_name


def colocate_with(op, ignore_existing=False):
    """Ops created inside are colocated with `op` (an Operation, Tensor or Variable):
    they share its device and list its colocation groups in their `_class` attr."""
    if op is not None and not hasattr(op, "colocation_groups"):
        op = _op_to_colocate_with(op)
    return graph_lib.get_default_graph()._colocate_with(op, ignore_existing)


def _op_to_colocate_with(value):
    """The op `colocate_with` means: a tensor's op; a variable's VariableV2 op."""
    ref = getattr(value, "_ref", None)
    if callable(ref):
        value = ref()
    return getattr(value, "op", value)


def add_to_collection(name, value):
    graph_lib.get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    graph_lib.get_default_graph().add_to_collections(names, value)


def get_collection(key, scope=None):
    return graph_lib.get_default_graph().get_collection(key, scope)


def get_collection_ref(key):
    return graph_lib.get_default_graph().get_collection_ref(key)
