"""TensorFlow's dtypes: `tf.float32`, `tf.int32`, ... and their reference twins.

A DType wraps a NumPy dtype and knows TensorFlow's names for it: the Python name
(`float32`), the name TensorFlow's C++ messages print (`float`), and whether it is the
`_ref` type a TF1 variable's output carries (`float32_ref`).
"""
import numpy as np

__all__ = [
    "DType", "as_dtype",
    "float16", "half", "float32", "float64", "double",
    "int8", "int16", "int32", "int64", "uint8", "uint16", "bool", "string",
    "complex64", "complex128", "variant", "resource",
    "QUANTIZED_DTYPES",
]


class DType:
    """A tensor element type, as `tf.DType`."""

    def __init__(self, name, numpy_dtype, c_name, enum, is_ref=False):
        self._name = name
        self._numpy_dtype = numpy_dtype
        self._c_name = c_name          # the name TF's C++ messages use: "float", "double"
        self._enum = enum
        self._is_ref = is_ref

    # -- identity -------------------------------------------------------------
    @property
    def name(self):
        return self._name + ("_ref" if self._is_ref else "")

    @property
    def c_name(self):
        """The name TensorFlow's runtime messages print: `float`, `double`, `int32`."""
        return self._c_name

    @property
    def as_datatype_enum(self):
        return self._enum + (100 if self._is_ref else 0)

    @property
    def base_dtype(self):
        return _BASE[self._name] if self._is_ref else self

    @property
    def _as_ref(self):
        return _REF[self._name]

    @property
    def is_ref_dtype(self):
        return self._is_ref

    @property
    def real_dtype(self):
        """The dtype of a complex number's real and imaginary parts (complex64 ->
        float32, complex128 -> float64); any other dtype is its own real dtype."""
        base = self.base_dtype
        return _REAL_OF_COMPLEX.get(base._name, base)

    # -- numpy side -------------------------------------------------------------
    @property
    def as_numpy_dtype(self):
        return self._numpy_dtype.type

    @property
    def np(self):
        """The NumPy dtype object (engine-internal shorthand)."""
        return self._numpy_dtype

    @property
    def size(self):
        return 1 if self._name == "string" else self._numpy_dtype.itemsize

    # -- kinds ------------------------------------------------------------------
    @property
    def is_floating(self):
        return self._numpy_dtype.kind == "f"

    @property
    def is_integer(self):
        return self._numpy_dtype.kind in "iu"

    @property
    def is_unsigned(self):
        return self._numpy_dtype.kind == "u"

    @property
    def is_bool(self):
        return self._name == "bool"

    @property
    def is_complex(self):
        return self._numpy_dtype.kind == "c"

    @property
    def is_quantized(self):
        return False

    @property
    def is_numpy_compatible(self):
        return self._name not in ("resource", "variant")   # handles, as in TF

    @property
    def min(self):
        if self.is_floating:
            return float(np.finfo(self._numpy_dtype).min)
        if self.is_integer:
            return int(np.iinfo(self._numpy_dtype).min)
        raise TypeError("Cannot find minimum value of %s." % self)

    @property
    def max(self):
        if self.is_floating:
            return float(np.finfo(self._numpy_dtype).max)
        if self.is_integer:
            return int(np.iinfo(self._numpy_dtype).max)
        raise TypeError("Cannot find maximum value of %s." % self)

    def is_compatible_with(self, other):
        return self._name == as_dtype(other)._name

    # -- python protocol ----------------------------------------------------------
    def __eq__(self, other):
        if other is None:
            return False
        try:
            other = as_dtype(other)
        except TypeError:
            return False
        return self._name == other._name and self._is_ref == other._is_ref

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((self._name, self._is_ref))

    def __repr__(self):
        return "tf." + self.name

    def __str__(self):
        return "<dtype: %r>" % self.name

    def __reduce__(self):
        return as_dtype, (self.name,)


_SPECS = [
    # name,      numpy dtype,        C++ name,  enum
    ("float16", np.dtype(np.float16), "half", 19),
    ("float32", np.dtype(np.float32), "float", 1),
    ("float64", np.dtype(np.float64), "double", 2),
    ("int8", np.dtype(np.int8), "int8", 6),
    ("int16", np.dtype(np.int16), "int16", 5),
    ("int32", np.dtype(np.int32), "int32", 3),
    ("int64", np.dtype(np.int64), "int64", 9),
    ("uint8", np.dtype(np.uint8), "uint8", 4),
    ("uint16", np.dtype(np.uint16), "uint16", 17),
    ("bool", np.dtype(np.bool_), "bool", 10),
    ("complex64", np.dtype(np.complex64), "complex64", 8),
    ("complex128", np.dtype(np.complex128), "complex128", 18),
    ("string", np.dtype(object), "string", 7),
    # Opaque handles (tf.data): a dataset's `variant` tensor, an iterator's `resource`.
    # Their values are Python objects the data kernels hand each other (tfteach/data/).
    ("resource", np.dtype(object), "resource", 20),
    ("variant", np.dtype(object), "variant", 21),
]
_BASE = {n: DType(n, d, c, e) for n, d, c, e in _SPECS}
_REF = {n: DType(n, d, c, e, is_ref=True) for n, d, c, e in _SPECS}

float16 = half = _BASE["float16"]
float32 = _BASE["float32"]
float64 = double = _BASE["float64"]
int8 = _BASE["int8"]
int16 = _BASE["int16"]
int32 = _BASE["int32"]
int64 = _BASE["int64"]
uint8 = _BASE["uint8"]
uint16 = _BASE["uint16"]
bool = _BASE["bool"]  # noqa: A001 - TensorFlow's public name
string = _BASE["string"]
complex64 = _BASE["complex64"]
complex128 = _BASE["complex128"]
resource = _BASE["resource"]
variant = _BASE["variant"]
_REAL_OF_COMPLEX = {"complex64": float32, "complex128": float64}
QUANTIZED_DTYPES = frozenset()

_BY_NAME = dict(_BASE)
_BY_NAME.update({n + "_ref": d for n, d in _REF.items()})
_BY_NAME.update({"half": float16, "double": float64, "float": float32})
_BY_NUMPY = {d.np: d for d in _BASE.values() if d.np.kind != "O"}   # object: string
_BY_ENUM = {d.as_datatype_enum: d for d in list(_BASE.values()) + list(_REF.values())}


def as_dtype(type_value):
    """Converts a DType, NumPy dtype, Python type or name into a `DType`, as `tf.as_dtype`."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str):
        try:
            return _BY_NAME[type_value]
        except KeyError:
            pass
    elif isinstance(type_value, (int, np.integer)) and not isinstance(type_value, type(True)):
        if int(type_value) in _BY_ENUM:
            return _BY_ENUM[int(type_value)]
    elif type_value in (float,):
        return float64
    elif type_value in (int,):
        return int64
    elif type_value is type(True):
        return bool
    elif type_value in (bytes, str, np.bytes_, np.str_):
        return string
    elif type_value is not None:        # NumPy reads None as float64; TF has no such rule
        try:
            npd = np.dtype(type_value)
        except TypeError:
            npd = None
        if npd is not None:
            if npd in _BY_NUMPY:
                return _BY_NUMPY[npd]
            if npd.kind in "SUO":
                return string
    raise TypeError("Cannot convert value %r to a TensorFlow DType." % (type_value,))
