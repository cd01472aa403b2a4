"""Whether ops execute eagerly: the one flag the graph-building layers read.

The eager runtime (`tfteach/eager/`) sits above `ops/`, so `ops/op_builder.apply_op`
cannot import it; instead `tfteach.eager` installs its `execute` function here when it is
first imported. Ops execute eagerly when eager execution is enabled (`tf.compat.v1.
enable_eager_execution()` or `import tfteach.v2`) and no graph has been made the default
with `Graph.as_default()` (tf.function tracing does exactly that), as in TensorFlow.
"""
import threading

from tfteach.framework import graph as graph_lib

__all__ = ["STATE", "executing_eagerly"]


class _State:
    __slots__ = ("enabled", "execute", "used", "_thread")

    def __init__(self):
        self.enabled = False      # eager execution switched on for the process
        self.execute = None       # eager/execute.py's `execute(op_type, inputs, attrs, name)`
        self.used = False         # an EagerTensor exists: graph building must capture them
        self._thread = threading.local()

    # The eager name scope ("a/b/"): eager variables' names. Each thread has its own, as
    # in TensorFlow 2 (its eager context keeps the scope per thread): two threads
    # entering and leaving scopes at once must not leave each other's behind.
    @property
    def name_scope(self):
        return getattr(self._thread, "name_scope", "")

    @name_scope.setter
    def name_scope(self, value):
        self._thread.name_scope = value


STATE = _State()


def executing_eagerly():
    """`tf.executing_eagerly()`: eager is on and no graph is the default."""
    return STATE.enabled and not graph_lib._default_graph_stack.graphs
