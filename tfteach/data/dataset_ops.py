"""`tf.data.Dataset`: a pipeline of dataset ops in the graph (TF 1.15's DatasetV1).

Each `Dataset` is one op of the graph whose output is a `variant` scalar (TF's dataset
handle), built when the Python method is called: `from_tensor_slices(x).shuffle(100)
.batch(32)` adds `TensorSliceDataset`, `ShuffleDataset` and `BatchDatasetV2`, each
taking the previous one's output, so `%%tfgraph` draws the pipeline as a chain. The
Python object keeps the element structure (nested tuples/dicts of dtype and static
shape) that TF infers, for `output_types`, `output_shapes` and `get_next()`.

Nothing runs until an iterator is initialised (iterator_ops.py): then the chain's
kernels run once and each returns a `streams.Stream` describing its elements. Dataset
ops are stateful for the executor (never constant-folded): each initialisation builds a
fresh pipeline from the current values of its inputs (placeholders, variables).

Functions given to `map`, `filter`, `flat_map` and `interleave` are traced once into a
`FunctionGraph` (function_graph.py); the dataset op's `f` attribute names it and
`Dataset.traced_functions` lists the graphs.
"""
import os

from tfteach.data import sparse, streams, structure
from tfteach.data.function_graph import FunctionRunner, trace
from tfteach.data.structure import Spec
from tfteach.framework import convert, dtypes, tensor_shape
from tfteach.framework import graph as graph_lib
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.framework.tensor import Tensor
from tfteach.ops.op_builder import apply_op, constant_value

__all__ = ["Dataset", "DatasetV1", "DATASET_OP_TYPES", "dataset_op", "function_runner",
           "int64_scalar"]

# TF 1.15's op types for the dataset ops tfteach builds.
DATASET_OP_TYPES = (
    "TensorSliceDataset", "TensorDataset", "RangeDataset", "ZipDataset",
    "ConcatenateDataset", "MapDataset", "FilterDataset", "FlatMapDataset",
    "InterleaveDataset", "BatchDatasetV2", "PaddedBatchDatasetV2", "ShuffleDataset",
    "RepeatDataset", "TakeDataset", "SkipDataset", "PrefetchDataset", "CacheDataset",
    "UnbatchDataset", "GeneratorDataset", "TFRecordDataset", "TextLineDataset",
    "FixedLengthRecordDataset", "MapAndBatchDataset")


def _dataset_shape(op):
    return [(dtypes.variant, tensor_shape.TensorShape([]))]


def _dataset_kernel(ctx, *inputs):
    return ctx.attrs["_make"](ctx, *inputs)


for _type in DATASET_OP_TYPES:
    register_op(_type, _dataset_shape, cpu=_dataset_kernel, stateful=True)
    not_differentiable(_type)


def dataset_op(op_type, inputs, element_structure, make, attrs=None, name=None):
    """Adds one dataset op; returns the Dataset of its output.

    `make(ctx, *input_values)` is its kernel's body: it returns the op's Stream."""
    flat = structure.flatten(element_structure)
    attrs = dict(attrs or {}, output_types=[s.dtype for s in flat],
                 output_shapes=[s.shape for s in flat], _make=make,
                 _specs=flat)             # (GraphDef export refuses sparse components)
    variant = apply_op(op_type, list(inputs), attrs, name or op_type)
    return DatasetV1(variant, element_structure)


def function_runner(ctx, traced):
    """A new FunctionRunner of `traced` in ctx's Session. The dataset op runs once per
    initialisation of an iterator, so each iterator gets its own (its random ops start
    their sequences again, as TF instantiates a function's kernels per iterator), and
    two iterators of one dataset share nothing. Making one costs ~0.15 ms."""
    return FunctionRunner(traced, ctx.session)


def _class_of(spec):
    return sparse.SparseTensor if spec.sparse else Tensor


def int64_scalar(value, name):
    return convert.convert_to_tensor(value, dtype=dtypes.int64, name=name)


def _bool_scalar(value, name):
    return convert.convert_to_tensor(value, dtype=dtypes.bool, name=name)


def _static_int(tensor):
    value = constant_value(tensor)
    return None if value is None else int(value)


def _unknown_batch(spec, size=None):
    return spec.with_shape(tensor_shape.TensorShape([size]).concatenate(spec.shape))


def _relaxed(a, b):
    """The most specific shape compatible with both (concatenate's element shape)."""
    if a.ndims is None or b.ndims is None or a.ndims != b.ndims:
        return tensor_shape.unknown_shape()
    return tensor_shape.TensorShape([x if x == y else None
                                     for x, y in zip(a.as_list(), b.as_list())])


def _tensor_structure(value, name):
    """`value` (nested tuples/dicts of tensor-like values) as a structure of tensors."""
    leaves = structure.flatten(value)
    tensors = [v if isinstance(v, (Tensor, sparse.SparseTensor)) else
               convert.convert_to_tensor(v, name="%s_%d" % (name, i))
               for i, v in enumerate(leaves)]
    return structure.pack(value, tensors)


class ElementStructured:
    """`element_spec`, `output_types`, `output_shapes` and `output_classes` of what has
    an element structure in `_structure` (a dataset, an iterator)."""

    @property
    def element_spec(self):
        """The element's structure of `tf.TensorSpec` (`tf.SparseTensorSpec`) objects."""
        return structure.type_specs(self._structure)

    @property
    def output_types(self):
        return structure.describe(self._structure, lambda s: s.dtype)

    @property
    def output_shapes(self):
        return structure.describe(self._structure, lambda s: s.shape)

    @property
    def output_classes(self):
        return structure.describe(self._structure, _class_of)


class DatasetV1(ElementStructured):
    """`tf.data.Dataset` (TF 1.15's DatasetV1): build pipelines, make iterators."""

    def __init__(self, variant, element_structure):
        self._variant = variant
        self._structure = element_structure

    @property
    def _variant_tensor(self):
        """TF's name for the dataset op's output (the `variant` scalar)."""
        return self._variant

    @property
    def graph(self):
        return self._variant.graph

    @property
    def traced_functions(self):
        """The FunctionGraphs of this pipeline's functions (map, filter, ...), first op
        first: each can be drawn (`tfteach.notebook` views take any graph)."""
        found, seen, pending = [], set(), [self._variant.op]
        while pending:
            op = pending.pop()
            if op in seen:
                continue
            seen.add(op)
            if "f" in op._attrs:
                found.append((op._id, op._attrs["f"].graph))
            pending.extend(t.op for t in op.inputs)
        return [g for _, g in sorted(found, key=lambda pair: pair[0])]

    def __iter__(self):
        if not hasattr(self._variant, "_value"):        # a graph's dataset
            raise RuntimeError("dataset.__iter__() is only supported when eager execution "
                               "is enabled.")
        from tfteach.data.iterator_ops import EagerIterator
        return EagerIterator(self)

    def __repr__(self):
        return "<DatasetV1Adapter shapes: %s, types: %s>" % (
            _describe(self.output_shapes), _describe(self.output_types))

    # -- sources -----------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors):
        """One element per row (first dimension) of every component of `tensors`."""
        with graph_lib.get_default_graph().name_scope("tensors"):
            values = _tensor_structure(tensors, "component")
        flat = structure.flatten(values)
        if any(isinstance(t, sparse.SparseTensor) for t in flat):
            raise TypeError("tfteach cannot slice SparseTensor components yet "
                            "(Dataset.from_tensor_slices).")
        batch = tensor_shape.Dimension(None)
        for t in flat:
            if t.shape.ndims == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            first = t.shape[0] if t.shape.ndims is not None else tensor_shape.Dimension(None)
            batch.assert_is_compatible_with(first)
            batch = batch.merge_with(first)
        specs = structure.map_structure(
            lambda t: Spec(t.dtype, t.shape[1:] if t.shape.ndims is not None
                           else tensor_shape.unknown_shape()), values)
        return dataset_op("TensorSliceDataset", flat, specs,
                          lambda ctx, *comps: streams.Slices(comps))

    @staticmethod
    def from_tensors(tensors):
        """One element: `tensors` themselves (SparseTensors too)."""
        with graph_lib.get_default_graph().name_scope("tensors"):
            values = _tensor_structure(tensors, "component")
        specs = structure.specs_of(values)
        flat_specs = structure.flatten(specs)
        inputs = [t for v in structure.flatten(values) for t in sparse.to_tensors(v)]
        return dataset_op("TensorDataset", inputs, specs, lambda ctx, *graph_values:
                          streams.Single(sparse.pack_values(flat_specs, graph_values)))

    @staticmethod
    def range(*args):
        """`range(stop)`, `range(start, stop)`, `range(start, stop, step)`: int64s."""
        if not 1 <= len(args) <= 3:
            raise ValueError("Invalid arguments to RangeDataset: %s" % (args,))
        start, stop, step = ((0, args[0], 1) if len(args) == 1 else
                             (args[0], args[1], 1) if len(args) == 2 else args)
        inputs = [int64_scalar(start, "start"), int64_scalar(stop, "stop"),
                  int64_scalar(step, "step")]
        return dataset_op("RangeDataset", inputs, Spec(dtypes.int64, []),
                          lambda ctx, a, b, c: streams.Range(a, b, c))

    @staticmethod
    def zip(datasets):
        """Elements of several datasets side by side (a nesting of datasets)."""
        leaves = structure.flatten(datasets)
        for d in leaves:
            if not isinstance(d, DatasetV1):
                raise TypeError("The argument to `Dataset.zip()` must be a nested structure "
                                "of `Dataset` objects.")
        element = structure.pack(datasets, [d._structure for d in leaves])
        sizes = [len(structure.flatten(d._structure)) for d in leaves]
        return dataset_op("ZipDataset", [d._variant for d in leaves], element,
                          lambda ctx, *ins: streams.Zip(ins, sizes))

    @staticmethod
    def from_generator(generator, output_types, output_shapes=None, args=None):
        from tfteach.data.generator import from_generator
        return from_generator(generator, output_types, output_shapes, args)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None):
        from tfteach.data.readers import list_files
        return list_files(file_pattern, shuffle, seed)

    # -- transformations -----------------------------------------------------------------------
    def concatenate(self, dataset):
        if not structure.same_structure(self._structure, dataset._structure) or \
                self.output_types != dataset.output_types:
            raise TypeError("Two datasets to concatenate have different types %s and %s"
                            % (self.output_types, dataset.output_types))
        if any(a.sparse != b.sparse for a, b in zip(structure.flatten(self._structure),
                                                      structure.flatten(dataset._structure))):
            raise TypeError("Two datasets to concatenate have different classes %s and %s"
                            % (self.output_classes, dataset.output_classes))
        flat = [a.with_shape(_relaxed(a.shape, b.shape)) for a, b in
                zip(structure.flatten(self._structure), structure.flatten(dataset._structure))]
        element = structure.pack(self._structure, flat)
        return dataset_op("ConcatenateDataset", [self._variant, dataset._variant], element,
                          lambda ctx, a, b: streams.Concatenate(a, b))

    def _traced(self, fn, what, returns_dataset=False):
        name = "%s_%s_%d" % (what, getattr(fn, "__name__", "fn").strip("<>"),
                             self.graph._last_id + 1)
        return trace(fn, name, self._structure, graph_lib.get_default_graph(),
                     returns_dataset)

    def map(self, map_func, num_parallel_calls=None):
        """`map_func` traced once on one element; run on every element."""
        traced = self._traced(map_func, "Dataset_map")
        return self._with_function("MapDataset", traced, traced.output_structure,
                                   streams.Map)

    def filter(self, predicate):
        traced = self._traced(predicate, "Dataset_filter")
        out = traced.output_structure
        if not isinstance(out, Spec) or out.dtype != dtypes.bool or \
                not out.shape.is_compatible_with([]):
            raise ValueError("`predicate` must return a scalar boolean tensor.")
        return self._with_function("FilterDataset", traced, self._structure, streams.Filter)

    def flat_map(self, map_func):
        traced = self._traced(map_func, "Dataset_flat_map", returns_dataset=True)
        return self._with_function("FlatMapDataset", traced,
                                   traced.returned_dataset._structure, streams.FlatMap)

    def interleave(self, map_func, cycle_length=-1, block_length=1, num_parallel_calls=None):
        traced = self._traced(map_func, "Dataset_interleave", returns_dataset=True)
        if cycle_length == -1:                     # AUTOTUNE: TF uses the CPU count
            cycle_length = os.cpu_count() or 1
        extra = [int64_scalar(cycle_length, "cycle_length"),
                 int64_scalar(block_length, "block_length")]

        def make(ctx, stream, cycle, block, *captured):
            return streams.Interleave(stream, function_runner(ctx, traced), captured,
                                      cycle, block)

        return dataset_op("InterleaveDataset", [self._variant] + extra + traced.captured,
                          traced.returned_dataset._structure, make, {"f": traced})

    def _with_function(self, op_type, traced, element, stream_class):
        def make(ctx, stream, *captured):
            return stream_class(stream, function_runner(ctx, traced), captured)

        return dataset_op(op_type, [self._variant] + traced.captured, element, make,
                          {"f": traced})

    def batch(self, batch_size, drop_remainder=False):
        size = int64_scalar(batch_size, "batch_size")
        drop = _bool_scalar(drop_remainder, "drop_remainder")
        static_drop = constant_value(drop)
        known = _static_int(size) if static_drop is not None and bool(static_drop) else None
        element = structure.map_structure(lambda s: _unknown_batch(s, known), self._structure)
        return dataset_op("BatchDatasetV2", [self._variant, size, drop], element,
                          lambda ctx, stream, n, d: streams.Batch(stream, n, bool(d)))

    def padded_batch(self, batch_size, padded_shapes, padding_values=None,
                     drop_remainder=False):
        from tfteach.data.padding import padded_batch
        return padded_batch(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None):
        from tfteach.data.shuffling import shuffle
        return shuffle(self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count=None):
        count = int64_scalar(-1 if count is None else count, "count")
        return dataset_op("RepeatDataset", [self._variant, count], self._structure,
                          lambda ctx, stream, n: streams.Repeat(stream, n))

    def take(self, count):
        count = int64_scalar(count, "count")
        return dataset_op("TakeDataset", [self._variant, count], self._structure,
                          lambda ctx, stream, n: streams.Take(stream, n))

    def skip(self, count):
        count = int64_scalar(count, "count")
        return dataset_op("SkipDataset", [self._variant, count], self._structure,
                          lambda ctx, stream, n: streams.Skip(stream, n))

    def prefetch(self, buffer_size):
        """Accepted for TF's programs; tfteach produces elements when asked (no
        background thread), so the stream is unchanged."""
        size = int64_scalar(buffer_size, "buffer_size")
        return dataset_op("PrefetchDataset", [self._variant, size], self._structure,
                          lambda ctx, stream, n: stream)

    def cache(self, filename=""):
        """Keeps the first complete pass in memory (a `filename` is accepted, and the
        cache is kept in memory too: docs/tf_data.md)."""
        name = convert.convert_to_tensor(filename, dtype=dtypes.string, name="filename")
        return dataset_op("CacheDataset", [self._variant, name], self._structure,
                          lambda ctx, stream, f: streams.Cache(stream, {}))

    def unbatch(self):
        for s in structure.flatten(self._structure):
            if s.shape.ndims == 0:
                raise ValueError("Cannot unbatch an input with scalar components.")
            if s.sparse:
                raise TypeError("tfteach cannot unbatch SparseTensor components yet.")
        element = structure.map_structure(
            lambda s: Spec(s.dtype, s.shape[1:] if s.shape.ndims is not None
                           else tensor_shape.unknown_shape()), self._structure)
        return dataset_op("UnbatchDataset", [self._variant], element,
                          lambda ctx, stream: streams.Unbatch(stream))

    def apply(self, transformation_func):
        dataset = transformation_func(self)
        if not isinstance(dataset, DatasetV1):
            raise TypeError("`transformation_func` must return a Dataset. Got %s."
                            % dataset)
        return dataset

    def with_options(self, options):
        return self

    # -- iterators (iterator_ops.py) ---------------------------------------------------------
    def make_one_shot_iterator(self):
        from tfteach.data.iterator_ops import make_one_shot_iterator
        return make_one_shot_iterator(self)

    def make_initializable_iterator(self, shared_name=None):
        from tfteach.data.iterator_ops import make_initializable_iterator
        return make_initializable_iterator(self, shared_name)


Dataset = DatasetV1


def _describe(value):
    """TF 1.15's repr of a structure of dtypes or shapes (DatasetV1Adapter.__repr__:
    `str` of the structure of their texts, quotes removed): (tf.int64, tf.float32),
    ((?,), (?, 2)), {a: (), b: (3,)}."""
    texts = structure.map_structure(
        lambda v: str(v) if isinstance(v, tensor_shape.TensorShape) else repr(v), value)
    return str(texts).replace("'", "")
