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
            return v.graph
    return graph_lib.get_default_graph()


@contextlib.contextmanager
def name_scope(name, default_name=None, values=None):
    """TF1's `tf.name_scope(name, default_name=None, values=None)`.

    `name` None uses `default_name` (made unique); the graph of `values` becomes the
    default graph inside, as TensorFlow does for op-building functions.
    """
    if name is None and default_name is None and values is not None:
        raise ValueError("At least one of name (%s) and default_name (%s) must be provided."
                         % (name, default_name))
    scope_name = name if name is not None else default_name
    if _EAGER.enabled and not graph_lib._default_graph_stack:
        # Eagerly a scope only names (variables: `a/b/w:0`), as in TF 2; no graph is
        # made the default, which would switch eager execution off inside. Names are
        # not made unique; "c/" is absolute, None/"" resets.
        saved = _EAGER.name_scope
        if not scope_name:
            new = ""
        elif scope_name.endswith("/"):
            new = scope_name
        else:
            new = saved + scope_name + "/"
        _EAGER.name_scope = new
        try:
            yield new
        finally:
            _EAGER.name_scope = saved
        return
    graph = _graph_for(values)
    with graph.as_default(), graph.name_scope(scope_name) as scope:
        yield scope


def device(device_name_or_function):
    """Ops created inside are placed on this device (`tf.device`)."""
    return graph_lib.get_default_graph().device(device_name_or_function)


def control_dependencies(control_inputs):
    """Ops created inside run only after `control_inputs` (`tf.control_dependencies`).
    Eagerly, ops run in program order: a no-op, as in TensorFlow."""
    if _EAGER.enabled and not graph_lib._default_graph_stack:
        return contextlib.nullcontext()
    return graph_lib.get_default_graph().control_dependencies(control_inputs)


@contextlib.contextmanager
def container(container_name):
    yield container_name


@contextlib.contextmanager
def colocate_with(op, ignore_existing=False):
    yield


def add_to_collection(name, value):
    graph_lib.get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    graph_lib.get_default_graph().add_to_collections(names, value)


def get_collection(key, scope=None):
    return graph_lib.get_default_graph().get_collection(key, scope)


def get_collection_ref(key):
    return graph_lib.get_default_graph().get_collection_ref(key)
