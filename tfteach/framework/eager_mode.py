"""Whether ops execute eagerly: the one flag the graph-building layers read.

The eager runtime (`tfteach/eager/`) sits above `ops/`, so `ops/op_builder.apply_op`
cannot import it; instead `tfteach.eager` installs its `execute` function here when it is
first imported. Ops execute eagerly when eager execution is enabled (`tf.compat.v1.
enable_eager_execution()` or `import tfteach.v2`) and no graph has been made the default
with `Graph.as_default()` (tf.function tracing does exactly that), as in TensorFlow.
The eager context's global seed lives here too (`set_global_seed`, `operation_seed`):
ops/random_ops.py reads it, and the eager runtime hooks its stream reset onto it.
"""
import random
import threading

from tfteach.framework import graph as graph_lib

__all__ = ["STATE", "executing_eagerly", "elementwise_equality", "set_global_seed",
           "operation_seed"]

_MAXINT32 = 2 ** 31 - 1


class _State:
    __slots__ = ("enabled", "v2", "tensor_equality", "execute", "used", "_thread",
                 "seed_source", "seed_lock", "on_set_seed")

    def __init__(self):
        self.enabled = False      # eager execution switched on for the process
        # TF 2 behaviour (TF 1.15's `tf2.enabled()`): `import tfteach.v2`,
        # `enable_v2_behavior()`; what Keras reports a metric as depends on it
        self.v2 = False
        # TF 1.15's `Tensor._USE_EQUALITY` (on with TF 2 behaviour, or
        # `enable_tensor_equality()`): `==` elementwise and tensors unhashable, eagerly
        self.tensor_equality = False
        self.execute = None       # eager/execute.py's `execute(op_type, inputs, attrs, name)`
        self.used = False         # an EagerTensor exists: graph building must capture them
        self._thread = threading.local()
        # (global seed, the random.Random eager op seeds come from): operation_seed
        self.seed_source = (None, random.Random())
        self.seed_lock = threading.Lock()
        # eager/context.py's: seeded eager ops start their streams again
        self.on_set_seed = None

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


def elementwise_equality(graph):
    """Whether `==` on a tensor (or variable) of `graph` is `tf.equal`, TF 1.15's rule
    (math_ops.tensor_equals): tensor equality is on, execution is eager outside any
    function being traced (TF's `executing_eagerly_outside_functions`: no Graph of
    one's own made the default), and the tensor is eager or in a function's graph.
    Otherwise `==` is identity and tensors hash, as TF 1's graphs."""
    if not (STATE.tensor_equality and STATE.enabled):
        return False
    if any(not g.building_function for g in graph_lib._default_graph_stack.graphs):
        return False
    return getattr(graph, "executes_eagerly", False) or graph.building_function


def set_global_seed(seed):
    """`tf.set_random_seed(seed)` while executing eagerly, as TF's eager context does it:
    the op seeds of ops without one are drawn anew from `seed`, and seeded ops start
    their streams again."""
    with STATE.seed_lock:
        STATE.seed_source = (seed, random.Random(seed))
    if STATE.on_set_seed is not None:
        STATE.on_set_seed()


def operation_seed(global_seed):
    """The op seed of an eager random op built without one under `global_seed`: TF's
    eager context draws it from Python's `random.Random(global seed)`, so a program's
    seedless eager ops repeat from run to run."""
    with STATE.seed_lock:
        seed, source = STATE.seed_source
        if seed != global_seed:                # the seed was set before eager mode was on
            STATE.seed_source = seed, source = global_seed, random.Random(global_seed)
        return source.randint(0, _MAXINT32)
