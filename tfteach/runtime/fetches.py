"""What `Session.run` accepts as fetches and feeds, and how results are shaped back.

Fetches may be a Tensor, an Operation (result None), a tensor or op name (`"x:0"`,
`"x"`), a Variable, a SparseTensor (result a SparseTensorValue), or any nesting of list / tuple / namedtuple / dict of those. Each
distinct graph element is computed once; the result has the fetches' structure.

A feed_dict key may itself be a nesting of tensors (a tuple, a namedtuple such as an RNN's
`LSTMStateTuple`) whose value has the same nesting — the notes' RNN programs feed the
previous state back that way. As TF 1.15's `nest.flatten_dict_items`, each key and its
value are flattened side by side (an ndarray is one leaf), so a key of 2 tensors needs a
value of 2 leaves and no tensor may be fed twice.
"""
import collections

import numpy as np

from tfteach.framework import errors
from tfteach.framework.operation import Operation
from tfteach.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tfteach.framework.tensor import Tensor
from tfteach.runtime import errors_text

__all__ = ["FetchStructure", "process_feeds"]


class FetchStructure:
    """Flattens nested fetches into unique elements, and rebuilds results."""

    def __init__(self, graph, fetches):
        self.graph = graph
        self.elements = []          # unique Tensors / Operations, first-seen order
        self._index = {}
        self._template = self._flatten(fetches)

    def _element(self, fetch):
        if fetch is None:
            raise TypeError("Fetch argument None has invalid type %s" % type(None))
        if isinstance(fetch, (Tensor, Operation, str)) or hasattr(fetch, "_as_graph_element"):
            try:
                element = self.graph.as_graph_element(fetch, allow_tensor=True,
                                                      allow_operation=True)
            except TypeError as e:
                raise TypeError("Fetch argument %r has invalid type %r, must be a string or "
                                "Tensor. (%s)" % (fetch, type(fetch), e)) from None
            except (ValueError, KeyError) as e:
                raise ValueError("Fetch argument %r cannot be interpreted as a Tensor. (%s)"
                                 % (fetch, e.args[0] if e.args else e)) from None
        else:
            raise TypeError("Fetch argument %r has invalid type %r, must be a string or "
                            "Tensor. (Can not convert a %s into a Tensor or Operation.)"
                            % (fetch, type(fetch), type(fetch).__name__))
        if element not in self._index:
            self._index[element] = len(self.elements)
            self.elements.append(element)
        return self._index[element]

    def _flatten(self, fetch):
        if isinstance(fetch, SparseTensor):
            # Three tensors fetched, one SparseTensorValue returned (TF's fetch mapper).
            return (SparseTensorValue, [self._flatten(t) for t in
                                        (fetch.indices, fetch.values, fetch.dense_shape)])
        if isinstance(fetch, (list, tuple)) and not hasattr(fetch, "_as_graph_element"):
            return (type(fetch), [self._flatten(f) for f in fetch])
        if isinstance(fetch, dict):
            return (type(fetch), [(k, self._flatten(v)) for k, v in fetch.items()])
        return self._element(fetch)

    def build(self, element_values):
        return self._build(self._template, element_values)

    def _build(self, template, values):
        if isinstance(template, int):
            return values[template]
        kind, parts = template
        if issubclass(kind, dict):
            out = [(k, self._build(v, values)) for k, v in parts]
            if kind is collections.defaultdict:
                return dict(out)
            try:
                return kind(out)
            except TypeError:
                return dict(out)
        items = [self._build(p, values) for p in parts]
        if hasattr(kind, "_fields"):           # namedtuple
            return kind(*items)
        return kind(items)


def _feed_target(graph, key):
    try:
        return graph.as_graph_element(key, allow_tensor=True, allow_operation=False)
    except (TypeError, ValueError, KeyError) as e:
        raise TypeError("Cannot interpret feed_dict key as Tensor: %s"
                        % (e.args[0] if e.args else e)) from None


def _is_nested(value):
    return isinstance(value, (list, tuple, dict))


def _leaves(value):
    """TF's `nest.flatten` (dicts in sorted key order); the runtime cannot import ops/."""
    if not _is_nested(value):
        return [value]
    children = [value[k] for k in sorted(value)] if isinstance(value, dict) else value
    return [leaf for child in children for leaf in _leaves(child)]


def flatten_feed_dict(feed_dict):
    """TF 1.15's `nest.flatten_dict_items`: nested keys paired leaf by leaf with their
    values (TF's ValueErrors for a count that differs or a key fed twice)."""
    flat = {}
    for key, value in feed_dict.items():
        if isinstance(key, SparseTensor):
            pairs = _sparse_feed_pairs(key, value)
        elif not _is_nested(key):
            pairs = [(key, value)]
        else:
            keys, values = _leaves(key), _leaves(value)
            if len(keys) != len(values):
                raise ValueError("Could not flatten dictionary. Key had %d elements, but value "
                                 "had %d elements. Key: %s, value: %s."
                                 % (len(keys), len(values), keys, values))
            pairs = zip(keys, values)
        for leaf_key, leaf_value in pairs:
            if leaf_key in flat:
                raise ValueError("Could not flatten dictionary: key %s is not unique."
                                 % (leaf_key,))
            flat[leaf_key] = leaf_value
    return flat


def _sparse_feed_pairs(key, value):
    """A sparse placeholder takes a SparseTensorValue or an (indices, values, dense_shape)
    triple, fed to its three tensors (TF's feed function for a SparseTensor key)."""
    if not isinstance(value, (tuple, list)) or len(value) != 3:
        raise TypeError("The value of a SparseTensor feed must be a SparseTensorValue or a "
                        "tuple (indices, values, dense_shape), got %r" % (value,))
    return list(zip((key.indices, key.values, key.dense_shape), value))


def process_feeds(graph, feed_dict):
    """Validated (tensors, arrays) for a feed_dict, with TensorFlow's checks and texts."""
    tensors, values = [], []
    for key, value in flatten_feed_dict(feed_dict).items():
        tensor = _feed_target(graph, key)
        if isinstance(value, Tensor) or (hasattr(value, "_as_graph_element") and
                                         not isinstance(value, (np.ndarray, np.generic))):
            raise TypeError(
                "The value of a feed cannot be a tf.Tensor object. Acceptable feed values "
                "include Python scalars, strings, lists, numpy ndarrays, or TensorHandles. "
                "For reference, the tensor object was %s which was passed to the feed with "
                "key %s." % (value, tensor))
        if not graph.is_feedable(tensor):
            raise ValueError("Tensor %s may not be fed." % tensor)
        dtype = tensor.dtype.base_dtype
        _check_python_int(value, dtype)
        try:
            if dtype.name == "string":
                array = _string_feed(value)
            else:
                array = np.asarray(value, dtype=dtype.np)
        except ValueError as e:
            message = str(e)
            if "sequence" in message or "inhomogeneous" in message:
                message = errors_text.located_message(message, tensor.op,
                                                      errors_text.HINTS["ragged"])
            raise ValueError(message) from None
        if not tensor.shape.is_compatible_with(array.shape):
            raise ValueError("Cannot feed value of shape %r for Tensor %r, which has shape %r"
                             % (array.shape, tensor.name, str(tensor.shape)))
        tensors.append(tensor)
        values.append(array)
    return tensors, values


def _check_python_int(value, dtype):
    """TF's check of a Python int (or bool) fed to a tensor: it must survive conversion to
    the tensor's type unchanged (3 for a string, 300 for a uint8, 2 for a bool do not)."""
    if not isinstance(value, int):
        return
    numpy_type = object if dtype.name == "string" else dtype.np.type
    if numpy_type is object:
        same = False                      # TF compares str(value) with the int
    else:
        try:
            same = bool(numpy_type(value) == value)
        except OverflowError:
            # Beyond 64 bits NumPy cannot even read the int, and TF lets that OverflowError
            # through ("... too large to convert to C long"); within them it just does not
            # fit this type.
            if not -2 ** 63 <= value < 2 ** 64:
                raise
            same = False
    if not same:
        raise TypeError("Type of feed value %s with type %s is not compatible with Tensor "
                        "type %s. Try explicitly setting the type of the feed tensor to a "
                        "larger type (e.g. int64)." % (value, type(value), numpy_type))


def _string_feed(value):
    """An object array of bytes (str encoded as UTF-8). Any other element is TF's
    InternalError, which TF raises when it copies the feed into a tensor."""
    array = np.asarray(value, dtype=object)
    flat = array.reshape(-1)
    for i, v in enumerate(flat):
        if isinstance(v, str):
            flat[i] = v.encode("utf-8")
        elif not isinstance(v, bytes):
            kind = type(v)
            name = kind.__name__ if kind.__module__ == "builtins" else "%s.%s" % (
                kind.__module__.split(".")[0], kind.__name__)
            raise errors.InternalError(None, None, "Unsupported object type %s" % name)
    return array
