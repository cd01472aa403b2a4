"""`tf.Tensor`: a symbolic handle to one output of an Operation.

A Tensor holds no value. It knows its producer (`op`, `value_index`), its `dtype` and its
static `shape`; its value exists only inside a `Session.run`. Python operators build ops
(the op modules install them with `Tensor._override_operator`, as TensorFlow does).
"""
from tfteach.framework import tensor_shape

__all__ = ["Tensor", "Reference"]


class Tensor:
    """One output of an Operation, as `tf.Tensor` in graph mode."""

    # NumPy must defer to our operators: `ndarray * tensor` calls Tensor.__rmul__.
    __array_priority__ = 100

    def __init__(self, op, value_index, dtype, shape):
        self._op = op
        self._value_index = value_index
        self._dtype = dtype
        self._shape = tensor_shape.as_shape(shape)
        self._consumers = []

    # -- identity ----------------------------------------------------------------
    @property
    def op(self):
        return self._op

    @property
    def value_index(self):
        return self._value_index

    @property
    def graph(self):
        return self._op.graph

    @property
    def name(self):
        return "%s:%d" % (self._op.name, self._value_index)

    @property
    def dtype(self):
        return self._dtype

    @property
    def device(self):
        return self._op.device

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    def set_shape(self, shape):
        """Narrows the static shape; incompatible shapes raise TF's ValueError."""
        self._shape = self._shape.merge_with(shape)

    def consumers(self):
        return list(self._consumers)

    def _as_node_def_input(self):
        return self._op.name if self._value_index == 0 else self.name

    def _as_graph_element(self):
        return self

    # -- evaluation ----------------------------------------------------------------
    def eval(self, feed_dict=None, session=None):
        """`sess.run(self)` in the given or the default session."""
        from tfteach.runtime import session as session_lib
        return session_lib.run_in_session(self, feed_dict, session, what="tensor")

    # -- python protocol -------------------------------------------------------------
    def __repr__(self):
        return "<tf.Tensor '%s' shape=%s dtype=%s>" % (self.name, self._shape, self._dtype.name)

    def __str__(self):
        # TF's order, and no shape at all when even the rank is unknown (a py_func's
        # output, `tf.placeholder(tf.float32)`): `Tensor("PyFunc:0", dtype=float32)`.
        return 'Tensor("%s"%s, dtype=%s%s)' % (
            self.name,
            ", shape=%s" % self._shape if self._shape.ndims is not None else "",
            self._dtype.name,
            ", device=%s" % self.device if self.device else "")

    # TF1 graph tensors compare and hash by identity; `tf.equal` compares values. With
    # TF 2 behaviour `==` and `!=` become elementwise for eager tensors and those of a
    # tf.function's graph (ops/tensor_operators.py installs them, as TF's math_ops).
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def experimental_ref(self):
        """A hashable reference to this tensor (TF 1.15), for sets and dict keys when
        tensor equality makes the tensor itself unhashable; `.deref()` gives it back."""
        return Reference(self)

    def __bool__(self):
        raise TypeError(
            "Using a `tf.Tensor` as a Python `bool` is not allowed. Use `if t is not None:` "
            "instead of `if t:` to test if a tensor is defined, and use TensorFlow ops such "
            "as tf.cond to execute subgraphs conditioned on the value of a tensor.")

    def __iter__(self):
        # TF 1.15 iterates a graph tensor by slicing it, when its first dimension is known.
        shape = self._shape
        if shape.ndims is None:
            raise TypeError("Cannot iterate over a tensor with unknown shape.")
        if shape.ndims == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        if shape[0].value is None:
            raise TypeError("Cannot iterate over a tensor with unknown first dimension.")
        return (self[i] for i in range(shape[0].value))

    def __len__(self):
        raise TypeError("len is not well defined for symbolic Tensors. (%s) Please call "
                        "`x.shape` rather than `len(x)` for shape information." % self.name)

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(
            "Cannot convert a symbolic Tensor (%s) to a numpy array. Run it in a Session "
            "(sess.run(t) or t.eval()) to get its value." % self.name)

    @classmethod
    def _override_operator(cls, operator, func):
        """Installs `func` as `Tensor.<operator>` (e.g. `__add__`)."""
        setattr(cls, operator, func)


class Reference:
    """`t.experimental_ref()` (TF 1.15's object_identity.Reference): equal and hashed by
    the identity of the object it wraps."""

    __slots__ = ("_wrapped",)

    def __init__(self, wrapped):
        self._wrapped = wrapped

    def deref(self):
        return self._wrapped

    def __eq__(self, other):
        return isinstance(other, Reference) and self._wrapped is other._wrapped

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return id(self._wrapped)

    def __repr__(self):
        return "<Reference wrapping %r>" % (self._wrapped,)
