"""Iterators over datasets: TF 1.15's `tf.data.Iterator` and its ops.

An iterator is a resource of the Session (TF's resource manager; here the op's kernel
state), so two Sessions iterate independently and a Session's threads share one
position. Its ops, named as TF 1.15 names them:
- `Iterator` (IteratorV2): the iterator resource of this Session;
- `MakeIterator(dataset, iterator)`: the initializer; runs the dataset's ops (reading
  placeholders and variables now) and starts a new pass: re-running it restarts;
- `OneShotIterator`: initialises itself at its first run in each Session, running the
  dataset's ops then (TF builds them in a function; tfteach's are in the graph, so the
  pipeline is drawn, but, as in TF, they are not inputs of the iterator: later steps do
  not run them again);
- `IteratorGetNext(iterator)`: the next element, one output per component;
  `OutOfRangeError("End of sequence")` when the pass is over;
- `IteratorToStringHandle` / `IteratorFromStringHandleV2`: a string naming an iterator of
  the Session, to choose the iterator with a fed placeholder (a "feedable" iterator).
`get_next()` is thread-safe: two threads calling it get disjoint elements.
"""
import itertools
import threading
import types
import weakref

import numpy as np

from tfteach.data import sparse, structure
from tfteach.data.dataset_ops import DatasetV1, ElementStructured
from tfteach.data.structure import Spec
from tfteach.framework import convert, dtypes, tensor_shape
from tfteach.framework.errors import (FailedPreconditionError, InvalidArgumentError,
                                      OutOfRangeError)
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.framework.tensor import Tensor
from tfteach.ops.op_builder import apply_op

__all__ = ["Iterator", "EagerIterator", "make_one_shot_iterator",
           "make_initializable_iterator"]


class IteratorResource:
    """One iterator in one Session: the current pass over a dataset's elements."""

    _ids = itertools.count(1)

    def __init__(self, name, types):
        self.name = name
        self.types = list(types)
        self.handle = ("tfteach-iterator:%s:%d" % (name, next(self._ids))).encode()
        self._lock = threading.Lock()
        self._elements = None

    def reset(self, stream):
        elements = stream.elements()
        with self._lock:
            self._elements = elements

    def get_next(self):
        with self._lock:
            if self._elements is None:
                raise FailedPreconditionError(
                    None, None, "GetNext() failed because the iterator has not been "
                    "initialized. Ensure that you have run the initializer operation for "
                    "this iterator before getting the next element.")
            try:
                return next(self._elements)
            except StopIteration:
                raise OutOfRangeError(None, None, "End of sequence") from None


# Session -> {string handle: IteratorResource}, for IteratorFromStringHandleV2.
_handles = weakref.WeakKeyDictionary()
_handles_lock = threading.Lock()


def _resource(ctx):
    resource = ctx.state.get("resource")
    if resource is None:
        def build():
            made = IteratorResource(ctx.op.name, ctx.attrs["output_types"])
            with _handles_lock:
                _handles.setdefault(ctx.session, {})[made.handle] = made
            return made
        resource = ctx.session.build_once(ctx.state, "resource", build)
    return resource


def _check_types(resource, wanted, what):
    if resource.types != list(wanted):
        raise InvalidArgumentError(
            None, None, "%s: expected output types %s but the iterator has %s"
            % (what, [t.name for t in wanted], [t.name for t in resource.types]))


# -- the ops -----------------------------------------------------------------------------------
def _resource_shape(op):
    return [(dtypes.resource, tensor_shape.TensorShape([]))]


def _get_next_shape(op):
    return list(zip(op._attrs["output_types"], op._attrs["output_shapes"]))


def _make_iterator_kernel(ctx, stream, resource):
    resource.reset(stream)


def _one_shot_kernel(ctx):
    """Initialises the iterator at its first run in this Session: runs the dataset's
    ops once, as a sub-plan of the Session (later steps do not run them again)."""
    resource = _resource(ctx)
    if not ctx.state.get("started"):
        with ctx.session._building:
            if not ctx.state.get("started"):
                from tfteach.runtime import executor
                dataset = ctx.attrs["_dataset"]
                stream = executor.Plan(ctx.session, (dataset,), (), ()).run([])[0]
                resource.reset(stream)
                ctx.state["started"] = True
    return resource


def _get_next_kernel(ctx, resource):
    element = sparse.unpack_values(ctx.attrs["_specs"], resource.get_next())
    types = ctx.attrs["output_types"]
    if len(element) != len(types):
        raise InvalidArgumentError(None, None, "Expected %d components but the iterator "
                                   "produced %d" % (len(types), len(element)))
    values = []
    for value, dtype, shape in zip(element, types, ctx.attrs["output_shapes"]):
        value = np.asarray(value) if dtype != dtypes.string else np.asarray(value,
                                                                             dtype=object)
        if not shape.is_compatible_with(value.shape):
            raise InvalidArgumentError(
                None, None, "An element of the dataset has shape %s, which is not "
                "compatible with the iterator's output shape %s"
                % (list(value.shape), shape))
        values.append(value)
    return values[0] if len(values) == 1 else tuple(values)


def _to_string_handle_kernel(ctx, resource):
    return np.array(resource.handle, dtype=object)


def _from_string_handle_kernel(ctx, handle):
    key = handle.item() if isinstance(handle, np.ndarray) else handle
    key = key.encode() if isinstance(key, str) else key
    with _handles_lock:
        resource = _handles.get(ctx.session, {}).get(key)
    if resource is None:
        raise InvalidArgumentError(None, None, "Could not parse string_handle as a valid "
                                   "ResourceHandle (no iterator of this Session has handle "
                                   "%r)" % key)
    _check_types(resource, ctx.attrs["output_types"], "IteratorFromStringHandle")
    return resource


register_op("IteratorV2", _resource_shape, cpu=lambda ctx: _resource(ctx), stateful=True)
register_op("MakeIterator", lambda op: [], cpu=_make_iterator_kernel, stateful=True)
register_op("OneShotIterator", _resource_shape, cpu=_one_shot_kernel, stateful=True)
register_op("IteratorGetNext", _get_next_shape, cpu=_get_next_kernel, stateful=True)
register_op("IteratorToStringHandle", lambda op: [(dtypes.string, tensor_shape.scalar())],
            cpu=_to_string_handle_kernel, stateful=True)
register_op("IteratorFromStringHandleV2", _resource_shape, cpu=_from_string_handle_kernel,
            stateful=True)
for _type in ("IteratorV2", "MakeIterator", "OneShotIterator", "IteratorGetNext",
              "IteratorToStringHandle", "IteratorFromStringHandleV2"):
    not_differentiable(_type)


def _type_attrs(element):
    """The iterator ops' attrs: the graph tensors' types and shapes (three per sparse
    component, sparse.py), and the element's flat Specs."""
    flat = structure.flatten(element)
    signature = sparse.graph_signature(flat)
    return {"output_types": [d for d, _ in signature],
            "output_shapes": [s for _, s in signature], "_specs": flat}


# -- the Python object -------------------------------------------------------------------------
class Iterator(ElementStructured):
    """`tf.data.Iterator`: `get_next()`, `initializer`, `make_initializer(dataset)`."""

    def __init__(self, iterator_resource, initializer, element_structure):
        self._iterator_resource = iterator_resource
        self._initializer = initializer
        self._structure = element_structure
        # TF 1.15 makes the handle op with the iterator; `string_handle()` returns it
        with iterator_resource.graph.as_default():
            self._string_handle = _to_string_handle(iterator_resource, None)

    @staticmethod
    def from_structure(output_types, output_shapes=None, shared_name=None,
                       output_classes=None):
        """An iterator not bound to a dataset: `make_initializer(dataset)` for each
        dataset of this structure it should iterate over."""
        element = _element_structure(output_types, output_shapes, output_classes)
        resource = apply_op("IteratorV2", [], dict(_type_attrs(element), container="",
                                                    shared_name=shared_name or ""),
                            "IteratorV2")
        return Iterator(resource, None, element)

    @staticmethod
    def from_string_handle(string_handle, output_types, output_shapes=None,
                           output_classes=None):
        """The iterator whose `string_handle()` value `string_handle` holds (fed)."""
        element = _element_structure(output_types, output_shapes, output_classes)
        handle = convert.convert_to_tensor(string_handle, dtype=dtypes.string)
        resource = apply_op("IteratorFromStringHandleV2", [handle], _type_attrs(element),
                            "IteratorFromStringHandleV2")
        return Iterator(resource, None, element)

    @property
    def initializer(self):
        if self._initializer is None:
            raise ValueError("Iterator does not have an initializer.")
        return self._initializer

    def make_initializer(self, dataset, name=None):
        """The op that starts this iterator on `dataset` (types and shapes must fit)."""
        if not structure.same_structure(self._structure, dataset._structure):
            raise TypeError("Expected output types %r but got dataset with output types %r."
                            % (self.output_types, dataset.output_types))
        if dataset.output_classes != self.output_classes:
            raise TypeError("Expected output classes %r but got dataset with output class "
                            "%r." % (self.output_classes, dataset.output_classes))
        if dataset.output_types != self.output_types:
            raise TypeError("Expected output types %r but got dataset with output types %r."
                            % (self.output_types, dataset.output_types))
        for mine, theirs in zip(structure.flatten(self._structure),
                                structure.flatten(dataset._structure)):
            if not mine.shape.is_compatible_with(theirs.shape):
                raise TypeError("Expected output shapes compatible with %r but got dataset "
                                "with output shapes %r."
                                % (self.output_shapes, dataset.output_shapes))
        with self._iterator_resource.graph.as_default():
            return _make_iterator(dataset, self._iterator_resource, name or "make_initializer")

    def get_next(self, name=None):
        """Tensors of the next element (a new `IteratorGetNext` op at every call)."""
        outputs = apply_op("IteratorGetNext", [self._iterator_resource],
                           _type_attrs(self._structure), name or "IteratorGetNext")
        if isinstance(outputs, Tensor):
            outputs = [outputs]
        elif not isinstance(outputs, list):          # no components: the op itself
            outputs = []
        components = sparse.from_tensors(structure.flatten(self._structure), outputs)
        return structure.pack(self._structure, components)

    def string_handle(self, name=None):
        """The iterator's handle, a string tensor (the one op made with the iterator; a
        new op when `name` is given, as in TF)."""
        if name is None:
            return self._string_handle
        return _to_string_handle(self._iterator_resource, name)


def _to_string_handle(iterator_resource, name):
    return apply_op("IteratorToStringHandle", [iterator_resource], {},
                    name or "IteratorToStringHandle")


def _make_iterator(dataset, iterator_resource, name):
    """The op that (re)starts `iterator_resource` on `dataset`."""
    return apply_op("MakeIterator", [dataset._variant, iterator_resource], {}, name)


def _element_structure(output_types, output_shapes, output_classes=None):
    """The Spec structure of `from_structure` / `from_string_handle`'s arguments; a
    component whose class is `tf.SparseTensor` is a sparse one (classes default to
    `tf.Tensor`, as in TF)."""
    types = structure.map_structure(lambda t: dtypes.as_dtype(t).base_dtype, output_types)
    if output_shapes is None:
        shapes = structure.map_structure(lambda _: tensor_shape.unknown_shape(), types)
    else:
        shapes = (structure.map_structure(tensor_shape.as_shape, output_shapes)
                  if structure.is_structure(output_shapes)
                  else tensor_shape.as_shape(output_shapes))
    if not structure.same_structure(types, shapes):
        raise TypeError("output_shapes %s must have the structure of output_types %s"
                        % (output_shapes, output_types))
    flat_types, flat_shapes = structure.flatten(types), structure.flatten(shapes)
    classes = ([Tensor] * len(flat_types) if output_classes is None
               else structure.flatten(output_classes))
    return structure.pack(types, [Spec(t, s, c is sparse.SparseTensor) for t, s, c
                                  in zip(flat_types, flat_shapes, classes)])


def _refuse_captured_state(dataset):
    """TF 1.15: a one-shot iterator's dataset is built in a function that captures
    values by value, so a placeholder or a stateful node (a variable) is refused."""
    from tfteach.data.dataset_ops import DATASET_OP_TYPES
    seen, pending = set(), [dataset._variant.op]
    while pending:
        op = pending.pop()
        if op in seen:
            continue
        seen.add(op)
        if op.type in ("Placeholder", "PlaceholderWithDefault"):
            raise ValueError("Cannot capture a placeholder (name:%s, type:%s) by value."
                             % (op.name, op.type))
        if op._op_def.stateful and op.type not in DATASET_OP_TYPES and \
                op.type != "MatchingFiles":
            raise ValueError(
                "Failed to create a one-shot iterator for a dataset. "
                "`Dataset.make_one_shot_iterator()` does not support datasets that capture "
                "stateful objects, such as a `Variable` or `LookupTable`. In these cases, "
                "use `Dataset.make_initializable_iterator()`. (Original error: Cannot "
                "capture a stateful node (name:%s, type:%s) by value.)" % (op.name, op.type))
        pending.extend(t.op for t in op.inputs)
        pending.extend(op.control_inputs)


class EagerIterator(ElementStructured):
    """Iterating a dataset while executing eagerly (TF 1.15's `IteratorV2` in eager
    mode): `for element in dataset`, `iter(dataset)`, `make_one_shot_iterator(dataset)`.

    Executing eagerly, the dataset's ops ran when it was made, so its variant holds the
    Stream itself (streams.py); an iterator is a new pass over it. Each element comes
    back as EagerTensors in the dataset's structure; `next()` ends with StopIteration,
    `get_next()` with TF's OutOfRangeError("End of sequence")."""

    def __init__(self, dataset):
        self._structure = dataset._structure
        self._specs = structure.flatten(dataset._structure)
        self._attrs = _type_attrs(dataset._structure)
        self._resource = IteratorResource("Iterator", self._attrs["output_types"])
        self._resource.reset(dataset._variant._value)
        # what the IteratorGetNext kernel reads of its context: the op's attrs
        self._kernel_context = types.SimpleNamespace(attrs=self._attrs)

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return self.get_next()
        except OutOfRangeError:
            raise StopIteration from None

    def get_next(self, name=None):
        from tfteach.eager.tensor import EagerTensor
        values = _get_next_kernel(self._kernel_context, self._resource)
        values = [values] if len(self._attrs["output_types"]) == 1 else list(values)
        tensors = [EagerTensor(v, dtype) for v, dtype
                   in zip(values, self._attrs["output_types"])]
        components = sparse.from_tensors(self._specs, tensors)
        return structure.pack(self._structure, components)

    def __repr__(self):
        return "<tfteach.data EagerIterator of %s>" % (self.output_types,)


def _eager_dataset(dataset):
    """True when `dataset` was made executing eagerly (its variant holds its Stream)."""
    return hasattr(dataset._variant, "_value")


def make_one_shot_iterator(dataset):
    """An iterator that initialises itself (its dataset may not read placeholders)."""
    if not isinstance(dataset, DatasetV1):
        raise TypeError("make_one_shot_iterator expects a Dataset, got %r" % (dataset,))
    if _eager_dataset(dataset):
        return EagerIterator(dataset)
    _refuse_captured_state(dataset)
    with dataset.graph.as_default():
        resource = apply_op("OneShotIterator", [],
                            dict(_type_attrs(dataset._structure), container="",
                                 shared_name="", _dataset=dataset._variant),
                            "OneShotIterator")
    return Iterator(resource, None, dataset._structure)


def make_initializable_iterator(dataset, shared_name=None):
    """An iterator whose `initializer` (re)starts it on `dataset`."""
    if not isinstance(dataset, DatasetV1):
        raise TypeError("make_initializable_iterator expects a Dataset, got %r" % (dataset,))
    if _eager_dataset(dataset):
        raise RuntimeError("dataset.make_initializable_iterator is not supported when eager "
                           "execution is enabled. Use `for element in dataset` instead.")
    with dataset.graph.as_default():
        resource = apply_op("IteratorV2", [], dict(_type_attrs(dataset._structure),
                                                    container="",
                                                    shared_name=shared_name or ""),
                            "IteratorV2")
        initializer = _make_iterator(dataset, resource, "MakeIterator")
        return Iterator(resource, initializer, dataset._structure)

