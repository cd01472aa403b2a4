"""`tf.py_func` and `tf.py_function`: a Python function as an op of the graph.

`tf.py_func(func, inp, Tout)` (TF 1.15's `PyFunc`, `PyFuncStateless` with
`stateful=False`) builds an op whose kernel calls `func` with its inputs as NumPy arrays
(strings as bytes in object arrays) each time the op runs, and returns what `func`
returned as the op's outputs, checked as TensorFlow's C++ kernel checks them:
- the number of values against `Tout` ("pyfunc_0 returns 2 values, but expects to see 1
  values.");
- each value's dtype against its `Tout` ("0-th value returned by pyfunc_0 is double, but
  expects float"): NumPy's float64 is not TensorFlow's float32;
- an exception `func` raises becomes TF's error for it (ValueError and TypeError
  InvalidArgumentError, StopIteration OutOfRangeError, NotImplementedError
  UnimplementedError, MemoryError ResourceExhaustedError, others UnknownError), its
  message the Python traceback, as TF's `PyExceptionFetch` gives it.
The outputs' shapes are unknown, as TF's: the op cannot know what Python will return.
It has no gradient (TF: `NotDifferentiable("PyFunc")`). The function stays in this
process (the op's `token` attr names it): a GraphDef or meta graph holding the op can be
written, but the function itself cannot be saved in it, as in TensorFlow.

Executing eagerly, `tf.py_func` simply calls `func` on the inputs' NumPy values and
converts what it returns (TF 1.15's `py_func_common`); one result comes back alone.

`tf.py_function` (`tf.contrib.eager.py_func`, TF's `eager_py_func`) calls `func` with
*tensors*, so the function may use TensorFlow ops and the gradient flows through them.
tfteach runs it while executing eagerly: `func` runs on the EagerTensors under the
active GradientTapes, and each result is converted to its `Tout` dtype. Building a graph,
TensorFlow would make an `EagerPyFunc` op that runs `func` eagerly at each run; tfteach
has no eager execution inside a Session run, and says so (docs/eager.md).
"""
import itertools
import threading
import traceback

import numpy as np

from tfteach.framework import convert, dtypes, errors, tensor_shape
from tfteach.framework.eager_mode import executing_eagerly
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.ops import nest
from tfteach.ops.eager_type_errors import cpp_type_name
from tfteach.ops.op_builder import apply_op

__all__ = ["py_func", "py_function"]

# token -> the Python function, for as long as the process runs (TF's FuncRegistry; the
# graph holds a reference too, as TF's _cleanup_py_funcs_used_in_graph does).
_FUNCS = {}
_TOKENS = itertools.count()
_LOCK = threading.Lock()


def _new_token():
    with _LOCK:
        return "pyfunc_%d" % next(_TOKENS)


def _register(func, graph):
    token = _new_token()
    _FUNCS[token] = func
    graph.__dict__.setdefault("_py_funcs_used_in_graph", []).append(func)
    return token


# -- the kernel ---------------------------------------------------------------------------------
# What TF's py_func.cc makes of an exception the function raised.
_ERROR_CLASSES = ((ValueError, errors.InvalidArgumentError),
                  (TypeError, errors.InvalidArgumentError),
                  (StopIteration, errors.OutOfRangeError),
                  (MemoryError, errors.ResourceExhaustedError),
                  (NotImplementedError, errors.UnimplementedError))


def _raised(exc, op):
    """TF's error for what `func` raised: its class, then the message as TF's
    PyExceptionFetch writes it ("ValueError: bad value", then the traceback)."""
    if isinstance(exc, errors.OpError):
        return type(exc)(None, op, exc.message)
    cls = next((tf_class for py_class, tf_class in _ERROR_CLASSES
                if isinstance(exc, py_class)), errors.UnknownError)
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return cls(None, op, "%s: %s\n%s" % (type(exc).__name__, exc, text.rstrip("\n")))


def _as_output(value):
    """TF's FuncRegistry._convert: NumPy's conversion; text becomes bytes objects."""
    result = np.asarray(value, order="C")
    if result.dtype.char == "S":
        return np.asarray(value, order="C", dtype=object)
    if result.dtype.char == "U":
        return np.vectorize(lambda x: x.encode("utf-8"), otypes=[object])(result)
    return result


def _dtype_name(array):
    try:
        return cpp_type_name(dtypes.as_dtype(array.dtype))
    except TypeError:
        return str(array.dtype)


def _py_func_kernel(ctx, *inputs):
    token = ctx.attrs["token"]
    func = _FUNCS.get(token)
    if func is None:
        raise errors.UnknownError(None, ctx.op, "ValueError: callback %s is not found"
                                  % token)
    args = [np.asarray(x) for x in inputs]
    try:
        ret = func(*args)
    except Exception as exc:  # noqa: BLE001 - the function's error becomes TF's
        raise _raised(exc, ctx.op) from exc
    expected = ctx.attrs["Tout"]
    # A list or tuple is the outputs, None is none (TF's py_func.cc), anything else one.
    values = [_as_output(x) for x in ret] if isinstance(ret, (list, tuple)) \
        else ([] if ret is None else [_as_output(ret)])
    if len(values) != len(expected):
        raise errors.InvalidArgumentError(
            None, ctx.op, "%s returns %d values, but expects to see %d values."
            % (token, len(values), len(expected)))
    for i, (value, dtype) in enumerate(zip(values, expected)):
        want = dtypes.as_dtype(dtype)
        # strings come back as object arrays of bytes (_as_output)
        matches = (value.dtype == object if want == dtypes.string
                   else value.dtype == want.as_numpy_dtype)
        if not matches:
            raise errors.InvalidArgumentError(
                None, ctx.op, "%d-th value returned by %s is %s, but expects %s"
                % (i, token, _dtype_name(value), cpp_type_name(want)))
    if len(values) == 1:
        return values[0]
    return tuple(values)


def _py_func_shapes(op):
    return [(dtypes.as_dtype(t), tensor_shape.unknown_shape()) for t in op._attrs["Tout"]]


for _type, _stateful in (("PyFunc", True), ("PyFuncStateless", False)):
    register_op(_type, _py_func_shapes, cpu=_py_func_kernel, stateful=_stateful)
    not_differentiable(_type)          # TF's NotDifferentiable: Python is opaque to it


# -- the functions -------------------------------------------------------------------------
def _flat_tout(Tout):
    if isinstance(Tout, (list, tuple)):
        return [dtypes.as_dtype(t) for t in Tout], True
    return [dtypes.as_dtype(Tout)], False


def py_func(func, inp, Tout, stateful=True, name=None):
    """`tf.py_func` (`tf.compat.v1.py_func`, `tf.numpy_function`): `func` on NumPy values
    as an op; see the module docstring."""
    if executing_eagerly():
        result = func(*[np.array(x) for x in inp])
        result = [x if x is None else convert.convert_to_tensor(x)
                  for x in nest.flatten(result)]
        return result[0] if len(result) == 1 else result
    from tfteach.framework import graph as graph_lib
    tout, as_list = _flat_tout(Tout)
    tensors = [convert.convert_to_tensor(x) for x in inp]
    token = _register(func, graph_lib.get_default_graph())
    out = apply_op("PyFunc" if stateful else "PyFuncStateless", tensors,
                   {"token": token, "Tin": [t.dtype.base_dtype for t in tensors],
                    "Tout": tout}, name or ("PyFunc" if stateful else "PyFuncStateless"))
    if not tout:
        # TF's generated wrappers: PyFunc gives back its op, PyFuncStateless no tensors.
        return out if stateful else []
    outputs = list(out) if isinstance(out, (list, tuple)) else [out]
    return outputs if as_list else outputs[0]


def numpy_function(func, inp, Tout, name=None):
    """`tf.numpy_function`: `tf.py_func` with stateful=True."""
    return py_func(func, inp, Tout, stateful=True, name=name)


def _eager_error(error):
    """`error` as the EagerPyFunc op's, executing eagerly: TF ends its message so."""
    return type(error)(None, None, error.message + " [Op:EagerPyFunc]")


def py_function(func, inp, Tout, name=None):
    """`tf.py_function` (`tf.contrib.eager.py_func`): `func` on tensors, executing eagerly
    (see the module docstring)."""
    if not executing_eagerly():
        raise NotImplementedError(
            "tfteach runs tf.py_function (tfe.py_func) only while executing eagerly: "
            "TensorFlow's EagerPyFunc op runs the Python function eagerly inside a "
            "Session's run, which tfteach does not do. In a graph, use tf.py_func, whose "
            "function receives NumPy arrays.")
    tout, as_list = _flat_tout(Tout)
    token = _new_token()                # TF registers each call's function
    args = [convert.convert_to_tensor(x) for x in inp]
    try:
        result = func(*args)
    except Exception as exc:  # noqa: BLE001 - the function's error becomes TF's
        raise _eager_error(_raised(exc, None)) from exc
    # As TF's EagerFunc: a list or tuple gives one output per Tout (zip: extra values are
    # dropped), None none, anything else one.
    if isinstance(result, (list, tuple)):
        pairs = list(zip(result, tout))
    else:
        pairs = [] if result is None else [(result, tout[0])] if tout else []
    if len(pairs) != len(tout):
        raise _eager_error(errors.InvalidArgumentError(
            None, None, "%s returns %d values, but expects to see %d values."
            % (token, len(pairs), len(tout))))
    from tfteach.ops import constant_op
    outputs = []
    for value, dtype in pairs:
        try:
            tensor = convert.convert_to_tensor(value, dtype=dtype)
        except (TypeError, ValueError) as exc:
            raise _eager_error(_raised(exc, None)) from exc
        outputs.append(constant_op.identity(tensor))
    return outputs if as_list else outputs[0]
