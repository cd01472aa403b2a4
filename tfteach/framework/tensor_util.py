"""Python values -> NumPy arrays with TensorFlow 1.x's rules (its `make_tensor_proto`).

- Python floats become float32, ints int32 (int64 when they do not fit), bools bool,
  complex numbers complex128, str/bytes string; NumPy arrays keep their dtype.
- A requested dtype casts NumPy values silently (as TF1 does), but a Python value that
  does not fit raises `TypeError: Expected int32, got 1.5 of type 'float' instead.`
- `shape=` reshapes, and a value with fewer elements is padded with its last element
  (TF1's constant quirk); ragged lists raise TF's "Argument must be a dense tensor".
"""
import numbers

import numpy as np

from tfteach.framework import dtypes

__all__ = ["make_ndarray", "infer_dtype"]

_INT32_MIN, _INT32_MAX = -2 ** 31, 2 ** 31 - 1


def _flatten(values):
    if isinstance(values, (list, tuple)):
        for v in values:
            yield from _flatten(v)
    else:
        yield values


def _nested_shape(values):
    """The shape a nested list would have, or raise TF's ragged-list ValueError."""
    if not isinstance(values, (list, tuple)):
        return ()
    if not values:
        return (0,)
    shapes = [_nested_shape(v) for v in values]
    first = shapes[0]
    for s in shapes[1:]:
        if s != first:
            raise ValueError("Argument must be a dense tensor: %r - got shape [%s], but "
                             "wanted [%s]." % (values, len(values),
                                               ", ".join(str(d) for d in (len(values),) + first)))
    return (len(values),) + first


def infer_dtype(values):
    """The dtype TF1 gives a Python scalar or nested list."""
    if values is None:      # TF's make_tensor_proto (tf.constant(None))
        raise ValueError("None values not supported.")
    kinds = set()
    big = False
    for v in _flatten(values):
        if isinstance(v, (bool, np.bool_)):
            kinds.add("bool")
        elif isinstance(v, (numbers.Integral, np.integer)):
            kinds.add("int")
            if not _INT32_MIN <= int(v) <= _INT32_MAX:
                big = True
        elif isinstance(v, (numbers.Real, np.floating)):
            kinds.add("float")
        elif isinstance(v, (numbers.Complex, np.complexfloating)):
            kinds.add("complex")    # Python complex numbers are complex128, as in TF
        elif isinstance(v, (str, bytes)):
            kinds.add("string")
        else:
            raise TypeError("Failed to convert object of type %s to Tensor. Contents: %s. "
                            "Consider casting elements to a supported type."
                            % (type(values), values))
    if not kinds:
        return dtypes.float32
    if kinds == {"bool"}:
        return dtypes.bool
    if kinds <= {"int", "bool"}:
        return dtypes.int64 if big else dtypes.int32
    if "string" in kinds:
        if kinds != {"string"}:
            raise TypeError("Failed to convert object of type %s to Tensor. Contents: %s. "
                            "Consider casting elements to a supported type."
                            % (type(values), values))
        return dtypes.string
    if "complex" in kinds:
        return dtypes.complex128
    return dtypes.float32


def _check_compatible(values, dtype):
    """TF1's _AssertCompatible: a Python value must fit the requested dtype's kind. TF
    checks with isinstance against Python's number classes, where a Python bool is an
    Integral (so `tf.constant(True, tf.int32)` is 1, as in TF); NumPy's bool_ is not."""
    for v in _flatten(values):
        if dtype.is_bool:
            ok = isinstance(v, (bool, np.bool_))
        elif dtype.is_integer:
            ok = isinstance(v, (numbers.Integral, np.integer))
        elif dtype.is_floating:
            ok = (isinstance(v, (numbers.Real, np.number))
                  and not isinstance(v, (complex, np.complexfloating)))
        elif dtype.is_complex:
            ok = isinstance(v, (numbers.Number, np.number)) and not isinstance(v, np.bool_)
        else:  # string
            ok = isinstance(v, (str, bytes))
        if not ok:
            raise TypeError("Expected %s, got %s of type '%s' instead."
                            % (dtype.name, repr(v), type(v).__name__))


def _to_string_array(values):
    flat = [v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in _flatten(values)]
    arr = np.empty(len(flat), dtype=object)
    arr[:] = flat
    return arr.reshape(_nested_shape(values))


def make_ndarray(values, dtype=None, shape=None, verify_shape=False):
    """The NumPy array a `tf.constant(values, dtype, shape)` holds."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype).base_dtype
    if isinstance(values, (np.ndarray, np.generic)):
        arr = np.asarray(values)
        if arr.dtype.kind in "SUO":
            arr = _to_string_array(arr.tolist())
        if dtype is not None and dtype != dtypes.string:
            arr = arr.astype(dtype.np)
        elif dtype is None:
            dtypes.as_dtype(arr.dtype)   # rejects dtypes TF has no tensor type for
    else:
        if isinstance(values, (list, tuple)):
            _nested_shape(values)
        inferred = infer_dtype(values)
        if dtype is None:
            dtype = inferred
        else:
            _check_compatible(values, dtype)
        if dtype == dtypes.string:
            arr = _to_string_array(values)
        else:
            try:
                arr = np.array(values, dtype=dtype.np)
            except OverflowError:
                raise TypeError("Value out of range for %s: %r" % (dtype.name, values)) from None
            # An empty list infers float32 but fits any dtype (tf.constant([], tf.int32)).
            if dtype.is_integer and inferred.is_floating and arr.size:
                raise TypeError("Expected %s, got %r instead." % (dtype.name, values))
    if shape is None:
        return arr
    shape = [int(d) for d in (shape if isinstance(shape, (list, tuple)) else
                              getattr(shape, "as_list", lambda: [shape])())]
    if verify_shape and list(arr.shape) != shape:
        raise TypeError("Expected Tensor's shape: %s, got %s." % (tuple(shape), arr.shape))
    wanted = int(np.prod(shape, dtype=np.int64))
    if arr.size == wanted:
        return arr.reshape(shape)
    if arr.size == 1:
        return np.full(shape, arr.reshape(()), dtype=arr.dtype)
    if arr.size > wanted:
        raise ValueError("Too many elements provided. Needed at most %d, but received %d"
                        % (wanted, arr.size))
    if arr.size == 0:
        raise ValueError("Cannot create a tensor of shape %s from an empty value." % shape)
    flat = arr.reshape(-1)
    padded = np.concatenate([flat, np.repeat(flat[-1:], wanted - flat.size)])
    return padded.reshape(shape)
