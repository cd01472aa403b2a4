"""`Dataset.from_generator`: elements a Python generator yields.

As in TF 1.15, `generator` (a callable returning an iterator) is called anew for every
pass over the dataset (each initialisation, each epoch of a `repeat`), with `args`
(tensors, evaluated when the iterator is initialised) as NumPy values. Each yielded
element is checked against `output_types` and `output_shapes` with TF's messages: a
value that does not convert to the dtype, or has an incompatible shape, stops the
iterator with InvalidArgumentError at `get_next()`. An exception the generator itself
raises is the error TF's py_func makes of it (ZeroDivisionError: UnknownError, ValueError:
InvalidArgumentError, ..., the message "ZeroDivisionError: division by zero" and the
traceback), as TF runs the generator in a py_func.
"""
import numpy as np

from tfteach.data import streams, structure
from tfteach.data.dataset_ops import dataset_op
from tfteach.data.structure import Spec
from tfteach.framework import convert, dtypes, tensor_shape
from tfteach.framework.errors import InvalidArgumentError
from tfteach.ops.script_ops import _raised as _py_func_error

__all__ = ["from_generator"]


def _failure(exc_class, text):
    # TF runs the generator in a py_func, which reports a Python exception this way.
    return InvalidArgumentError(None, None, "%s: %s" % (exc_class.__name__, text))


def _convert(value, dtype):
    if dtype == dtypes.string:
        result = np.asarray(value, dtype=object)
        return np.vectorize(lambda v: v.encode("utf-8") if isinstance(v, str) else v,
                            otypes=[object])(result) if result.size else result
    return np.asarray(value, dtype=dtype.np, order="C")


def _checked(element, output_types, flat_types, flat_shapes):
    try:
        if structure.is_structure(output_types):
            if not structure.same_structure(output_types, element):
                raise TypeError
            values = structure.flatten(element)
        else:
            values = [element]
    except TypeError:
        raise _failure(TypeError, "`generator` yielded an element that did not match the "
                       "expected structure. The expected structure was %s, but the yielded "
                       "element was %s." % (output_types, element)) from None
    arrays = []
    for value, dtype, shape in zip(values, flat_types, flat_shapes):
        try:
            array = _convert(value, dtype)
        except (TypeError, ValueError):
            raise _failure(TypeError, "`generator` yielded an element that could not be "
                           "converted to the expected type. The expected type was %s, but "
                           "the yielded element was %s." % (dtype.name, value)) from None
        if not shape.is_compatible_with(array.shape):
            raise _failure(ValueError, "`generator` yielded an element of shape %s where an "
                           "element of shape %s was expected."
                           % (array.shape, shape))
        arrays.append(array)
    return arrays


def _generated(step):
    """`step()` (calling the generator, or taking its next item); what it raises other
    than the end of the items is the error of TF's py_func around the generator."""
    try:
        return step()
    except StopIteration:
        raise
    except Exception as exc:  # noqa: BLE001 - TF's py_func reports any exception
        raise _py_func_error(exc, None) from exc


def from_generator(generator, output_types, output_shapes=None, args=None):
    if not callable(generator):
        raise TypeError("`generator` must be callable.")
    types = structure.map_structure(lambda t: dtypes.as_dtype(t).base_dtype, output_types)
    if output_shapes is None:
        shapes = structure.map_structure(lambda _: tensor_shape.unknown_shape(), types)
    else:
        shapes = structure.map_structure(tensor_shape.as_shape, output_shapes) \
            if structure.is_structure(output_shapes) else tensor_shape.as_shape(output_shapes)
        if not structure.same_structure(types, shapes):
            raise TypeError("`output_shapes` must have the same structure as "
                            "`output_types`: %s and %s" % (output_types, output_shapes))
    flat_types, flat_shapes = structure.flatten(types), structure.flatten(shapes)
    element = structure.pack(types, [Spec(t, s) for t, s in zip(flat_types, flat_shapes)])
    arg_tensors = [convert.convert_to_tensor(a, name="generator_arg_%d" % i)
                   for i, a in enumerate(args or ())]

    def make(ctx, *arg_values):
        def elements():
            items = _generated(lambda: iter(generator(*arg_values)))
            while True:
                try:
                    item = _generated(lambda: next(items))
                except StopIteration:
                    return
                yield _checked(item, types, flat_types, flat_shapes)
        return streams.FromIterable(elements)

    return dataset_op("GeneratorDataset", arg_tensors, element, make)
