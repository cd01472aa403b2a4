"""`EagerTensor`: a tensor that holds its value, as TF 2's `tf.Tensor` in eager mode.

It is a `Tensor` (so every op function, operator and `isinstance` check of the graph
layers accepts it) whose value is a NumPy array (or NumPy scalar) computed by the op's
kernel when the op was called. It prints as TensorFlow 2 prints:

    >>> tf.constant([1, 2])
    <tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>
    >>> print(tf.constant([1, 2]))
    tf.Tensor([1 2], shape=(2,), dtype=int32)

Python conversions follow TF: `int(t)`, `float(t)`, `bool(t)` for one-element tensors,
`len(t)` and iteration over the first dimension, `np.asarray(t)` without a copy.
"""
import contextlib

import numpy as np

from tfteach.framework import eager_mode, tensor_shape
from tfteach.framework.tensor import Tensor

__all__ = ["EagerTensor", "CPU_DEVICE"]

CPU_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


class _EagerTensorBase(Tensor):
    """A value-holding tensor; see the module docstring. Its methods live here, in a base
    named as TensorFlow's, so `print(t.numpy)` shows `<bound method
    _EagerTensorBase.numpy of ...>` as TF does (note 002 §3.4); instances are
    EagerTensor."""

    # `_op`: the eager Operation that made it, kept only while a GradientTape records
    # it (otherwise every tensor would keep its whole history alive).
    __slots__ = ("_value", "_dtype", "_shape_cache", "_op", "_value_index", "_device",
                 "_graph_captures")

    def __init__(self, value, dtype, op=None, value_index=0, device=CPU_DEVICE):
        self._value = value
        self._dtype = dtype
        self._shape_cache = None
        self._op = op
        self._value_index = value_index
        self._device = device
        self._graph_captures = None

    # -- what a graph tensor has, answered for a value -------------------------------------
    @property
    def _shape(self):
        shape = self._shape_cache
        if shape is None:
            if self._dtype._is_ref:         # a variable's handle: the value's shape now
                return tensor_shape.TensorShape(np.shape(self._value.deref()))
            shape = self._shape_cache = tensor_shape.of_array_shape(np.shape(self._value))
        return shape

    # `shape` and `get_shape` are Tensor's: they read `_shape`, the property above.

    def set_shape(self, shape):
        if not self._shape.is_compatible_with(shape):
            raise ValueError("Tensor's shape %s is not compatible with supplied shape %s"
                             % (self._shape, tensor_shape.as_shape(shape)))

    @property
    def _consumers(self):
        return []           # nobody keeps a list of an eager tensor's readers

    @property
    def device(self):
        return self._device

    @property
    def name(self):
        raise AttributeError("Tensor.name is meaningless when eager execution is enabled.")

    @property
    def op(self):
        # TF raises; tfteach's library code asks for `t.op` of what it built (e.g. an
        # optimizer's update), so an eager tensor answers with a stand-in op.
        return self._op if self._op is not None else _EagerOpStub(self)

    @property
    def graph(self):
        # TF raises here; tfteach's op functions ask `x.graph` to build in x's graph, so
        # an eager tensor answers with a graph whose scopes change nothing.
        return EAGER_GRAPH

    @property
    def ndim(self):
        return np.ndim(self._value)

    def _rank(self):
        return np.ndim(self._value)

    def eval(self, feed_dict=None, session=None):
        raise NotImplementedError("eval is not supported when eager execution is enabled, "
                                  "is .numpy() what you're looking for?")

    # -- the value --------------------------------------------------------------------------
    def numpy(self):
        """The value as a NumPy array (a NumPy scalar for a 0-d tensor, as TF)."""
        value = self._value
        if self._dtype.is_ref_dtype:
            value = value.deref()
        array = np.asarray(value)
        if array.ndim == 0:
            scalar = array[()]
            # A string scalar is Python `bytes` in TF (a kernel may hand NumPy's bytes_,
            # whose repr NumPy 2 writes "np.bytes_(b'ab')").
            return bytes(scalar) if isinstance(scalar, np.bytes_) else scalar
        return array

    def __array__(self, dtype=None, copy=None):
        array = np.asarray(self._value)
        return array if dtype is None else array.astype(dtype, copy=False)

    def _captured_in_graph(self):
        """This value as a constant of the graph being built (a tf.function's trace):
        one Const per graph, made on first use."""
        from tfteach.framework import graph as graph_lib
        from tfteach.ops.constant_op import constant
        graph = graph_lib.get_default_graph()
        captures = self._graph_captures
        if captures is None:
            captures = self._graph_captures = {}
        const = captures.get(graph)
        if const is None:
            const = captures[graph] = constant(np.asarray(self._value), dtype=self._dtype,
                                               name="captured")
        return const

    # -- Python protocol -------------------------------------------------------------------
    def __repr__(self):
        return "<tf.Tensor: shape=%s, dtype=%s, numpy=%s>" % (
            _shape_text(np.shape(self._value)), self._dtype.name, _numpy_repr(self.numpy()))

    def __str__(self):
        return "tf.Tensor(%s, shape=%s, dtype=%s)" % (
            _numpy_str(self.numpy()), _shape_text(np.shape(self._value)), self._dtype.name)

    def __format__(self, format_spec):
        # TF formats the NumPy value, also without a spec: f"{loss}" is "1.5", not the
        # "tf.Tensor(...)" of str().
        return format(self.numpy(), format_spec)

    def __bool__(self):
        # TF 1.15: `bool(self.numpy())`, and NumPy then said False for an empty array
        # (TF 2 says so explicitly); more than one element is ambiguous.
        array = np.asarray(self._value)
        if array.size == 0:
            return False
        if array.size != 1:
            raise ValueError("The truth value of an array with more than one element is "
                             "ambiguous. Use a.any() or a.all()")
        return bool(array.reshape(())[()])

    def __int__(self):
        return int(self._single_value())

    def __float__(self):
        return float(self._single_value())

    def __index__(self):
        # TF: `self.numpy().__index__()`, so NumPy's errors: a non-scalar array's
        # TypeError, a float scalar's missing method.
        if np.ndim(self._value) != 0 or self._dtype.is_bool:
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        if not self._dtype.is_integer:
            scalar = type(self.numpy())
            raise AttributeError("'%s.%s' object has no attribute '__index__'"
                                 % (scalar.__module__, scalar.__name__))
        return int(self._value)

    def __complex__(self):
        return complex(self._single_value())

    def _single_value(self):
        # int(t), float(t), complex(t): TF 1.15 converted `self.numpy()`, so NumPy 1's
        # rule: any one-element array converts, others are a TypeError.
        array = np.asarray(self._value)
        if array.size != 1:
            raise TypeError("only size-1 arrays can be converted to Python scalars")
        return array.reshape(())[()]

    def __len__(self):
        if np.ndim(self._value) == 0:
            raise TypeError("Scalar tensor has no `len()`")
        return np.shape(self._value)[0]

    def __iter__(self):
        if np.ndim(self._value) == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (self[i] for i in range(np.shape(self._value)[0]))

    def __reduce__(self):
        from tfteach.ops.constant_op import constant
        return constant, (self.numpy(),)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        from tfteach.ops.constant_op import constant
        return constant(np.array(self._value), dtype=self._dtype)

    # `==` is identity and tensors hash, as TF 1's eager mode; with tensor equality on
    # (TF 2 behaviour, `import tfteach.v2`) `==` is elementwise (Tensor's operator,
    # ops/tensor_operators.py) and an eager tensor is unhashable, as TF 1.15's rule.
    def __eq__(self, other):
        return Tensor.__eq__(self, other)

    def __ne__(self, other):
        return Tensor.__ne__(self, other)

    def __hash__(self):
        if eager_mode.STATE.tensor_equality and eager_mode.elementwise_equality(EAGER_GRAPH):
            raise TypeError("Tensor is unhashable if Tensor equality is enabled. Instead, "
                            "use tensor.experimental_ref() as the key.")
        return id(self)


class EagerTensor(_EagerTensorBase):
    """What `tf.constant(...)` gives eagerly (TF's EagerTensor)."""

    __slots__ = ()


class _EagerOpStub:
    """`EagerTensor.op`: an op that already ran (TF 2 eager has none to show)."""

    type = "EagerOp"
    name = "eager_op"
    inputs = ()
    control_inputs = ()
    _control_inputs = ()
    _control_flow_context = None
    device = CPU_DEVICE

    def __init__(self, tensor):
        self.outputs = [tensor]
        self._outputs = self.outputs

    @property
    def graph(self):
        return EAGER_GRAPH

    def run(self, feed_dict=None, session=None):
        return None


class _EagerGraph:
    """What `EagerTensor.graph` answers: `as_default`, `name_scope`,
    `control_dependencies` that keep eager execution on (no graph becomes the default),
    everything else the eager context's scratch graph."""

    # An eager tensor's graph, for TF's rules that ask "is this tensor eager?"
    # (eager_mode.elementwise_equality).
    executes_eagerly = True
    building_function = False

    @contextlib.contextmanager
    def as_default(self):
        yield self

    @contextlib.contextmanager
    def name_scope(self, name):
        yield (name.rstrip("/") + "/") if name else ""

    def control_dependencies(self, control_inputs):
        return contextlib.nullcontext()

    def unique_name(self, name, mark_as_used=True):
        return name

    def __getattr__(self, name):
        from tfteach.eager import context
        return getattr(context.scratch_graph(), name)


EAGER_GRAPH = _EagerGraph()


def _shape_text(shape):
    if len(shape) == 1:
        return "(%d,)" % shape[0]
    return "(%s)" % ", ".join(str(d) for d in shape)


def _numpy_repr(value):
    if isinstance(value, (np.ndarray, bytes)):
        text = repr(value)
    else:
        text = str(value)     # NumPy 2's repr of a scalar is "np.int32(0)"; TF shows "0"
    return "\n" + text if "\n" in text else text      # TF's numpy_text


def _numpy_str(value):
    text = str(value)
    return "\n" + text if "\n" in text else text
