"""Static shapes as TensorFlow 1.x knows them: `TensorShape` made of `Dimension`s.

A dimension may be unknown (`None`, printed `?`); a shape may have unknown rank
(printed `<unknown>`). Indexing a TF1 shape gives a `Dimension`, whose `.value` is
the int — the notes trip over exactly that, so it is kept.
"""

__all__ = ["ShapeError", "Dimension", "TensorShape", "as_shape", "as_dimension", "unknown_shape",
           "scalar", "dimension_value", "of_array_shape"]


class ShapeError(ValueError):
    """Raised by an op's shape function; the graph adds TF's `for 'NAME' (op: ...)` tail."""


class ShapeTensorError(ValueError):
    """A shape given as a tensor that describes no shape ("Invalid value in tensor used
    for shape: -3"): raised by TF's shape refiner while it reads the tensor, so the graph
    raises it as a plain ValueError naming no op. Eager ops run no shape inference: there
    the kernel's own error is raised instead (eager/execute.py)."""


class Dimension:
    """One dimension of a static shape; `value` is an int or None (unknown)."""

    __slots__ = ("_value",)

    def __init__(self, value):
        if value is None:
            self._value = None
        elif isinstance(value, Dimension):
            self._value = value._value
        else:
            if isinstance(value, (bool,)) or not hasattr(value, "__index__"):
                raise TypeError("Dimension value must be integer or None or have an "
                                "__index__ method, got value '%r' with type '%r'"
                                % (value, type(value)))
            self._value = int(value.__index__())
            if self._value < 0:
                raise ValueError("Dimension %d must be >= 0" % self._value)

    @property
    def value(self):
        return self._value

    def __repr__(self):
        return "Dimension(%r)" % (self._value,)

    def __str__(self):
        return "?" if self._value is None else str(self._value)

    def __int__(self):
        return self._value

    def __index__(self):
        return self._value

    def __hash__(self):
        return hash(self._value)

    def __eq__(self, other):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other._value is None:
            return None
        return self._value == other._value

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is None or eq is NotImplemented else not eq

    def __lt__(self, other):
        other = as_dimension(other)
        return None if self._value is None or other._value is None else self._value < other._value

    def __le__(self, other):
        other = as_dimension(other)
        return None if self._value is None or other._value is None else self._value <= other._value

    def __gt__(self, other):
        other = as_dimension(other)
        return None if self._value is None or other._value is None else self._value > other._value

    def __ge__(self, other):
        other = as_dimension(other)
        return None if self._value is None or other._value is None else self._value >= other._value

    def _arith(self, other, fn):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other._value is None:
            return Dimension(None)
        return Dimension(fn(self._value, other._value))

    def __add__(self, other):
        return self._arith(other, lambda a, b: a + b)

    __radd__ = __add__

    def __sub__(self, other):
        return self._arith(other, lambda a, b: a - b)

    def __rsub__(self, other):
        return as_dimension(other) - self

    def __mul__(self, other):
        return self._arith(other, lambda a, b: a * b)

    __rmul__ = __mul__

    def __floordiv__(self, other):
        return self._arith(other, lambda a, b: a // b)

    def __rfloordiv__(self, other):
        return as_dimension(other) // self

    def __mod__(self, other):
        return self._arith(other, lambda a, b: a % b)

    def is_compatible_with(self, other):
        other = as_dimension(other)
        return self._value is None or other._value is None or self._value == other._value

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError("Dimensions %s and %s are not compatible" % (self, other))

    def merge_with(self, other):
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(self._value if self._value is not None else other._value)


def as_dimension(value):
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(dimension):
    return dimension.value if isinstance(dimension, Dimension) else dimension


class TensorShape:
    """A possibly partially known shape, as `tf.TensorShape` in TF 1.x."""

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, (str, bytes)):
            raise TypeError("A string has ambiguous TensorShape, please wrap in a list "
                            "or convert to an int: %s" % (dims,))
        else:
            try:
                it = iter(dims)
            except TypeError:
                self._dims = [as_dimension(dims)]
            else:
                self._dims = [as_dimension(d) for d in it]

    # -- queries -------------------------------------------------------------------
    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    @property
    def ndims(self):
        return None if self._dims is None else len(self._dims)

    @property
    def rank(self):
        return self.ndims

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return [d.value for d in self._dims]

    def as_tuple(self):
        """Engine helper: a tuple of ints/None, or None for unknown rank."""
        return None if self._dims is None else tuple(d.value for d in self._dims)

    def is_fully_defined(self):
        return self._dims is not None and all(d.value is not None for d in self._dims)

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError("Shape %s is not fully defined" % self)

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d.value
        return n

    def is_compatible_with(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a.is_compatible_with(b) for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError("Shapes %s and %s are incompatible" % (self, other))

    def merge_with(self, other):
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        try:
            if len(self._dims) != len(other._dims):
                raise ValueError
            return TensorShape([a.merge_with(b) for a, b in zip(self._dims, other._dims)])
        except ValueError:
            raise ValueError("Shapes %s and %s are not compatible" % (self, other))

    def assert_has_rank(self, rank):
        if self.ndims not in (None, rank):
            raise ValueError("Shape %s must have rank %d" % (self, rank))

    def with_rank(self, rank):
        try:
            return self.merge_with(unknown_shape(rank=rank))
        except ValueError:
            raise ValueError("Shape %s must have rank %d" % (self, rank))

    def with_rank_at_least(self, rank):
        if self.ndims is not None and self.ndims < rank:
            raise ValueError("Shape %s must have rank at least %d" % (self, rank))
        return self

    def concatenate(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return unknown_shape()
        return TensorShape(self._dims + other._dims)

    # -- python protocol ---------------------------------------------------------------
    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of Shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is not None:
            if isinstance(key, slice):
                return TensorShape(self._dims[key])
            return self._dims[key]
        if isinstance(key, slice):
            return unknown_shape()
        return Dimension(None)

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except TypeError:
            return NotImplemented
        return self._dims == other._dims if self._dims is not None and other._dims is not None \
            else self._dims is None and other._dims is None

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(self.as_tuple())

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return "TensorShape(%r)" % (self._dims,)

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return "(%s,)" % self._dims[0]
        return "(%s)" % ", ".join(str(d) for d in self._dims)

    def debug_string(self):
        """The `[?,3]` form TensorFlow's runtime messages use."""
        if self._dims is None:
            return "<unknown>"
        return "[%s]" % ",".join(str(d) for d in self._dims)


def as_shape(shape):
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


# Dimensions of the sizes arrays usually have, made once: a Dimension never changes, so
# shapes may share them. An eager op's output gets its TensorShape from its value's
# shape (of_array_shape) at ~0.3 us instead of ~1.5 us for TensorShape(...).
_SHARED_SIZES = 1025
_SHARED = [Dimension(size) for size in range(_SHARED_SIZES)]


def of_array_shape(sizes):
    """TensorShape(sizes) for a NumPy shape (a tuple of non-negative ints)."""
    shape = TensorShape.__new__(TensorShape)
    shared = _SHARED
    shape._dims = [shared[d] if d < _SHARED_SIZES else Dimension(d) for d in sizes]
    return shape


def unknown_shape(rank=None, ndims=None):
    if ndims is not None:
        rank = ndims
    return TensorShape(None) if rank is None else TensorShape([None] * rank)


def scalar():
    return TensorShape([])
