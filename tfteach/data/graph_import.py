"""tf.data ops read from a GraphDef (TensorFlow's or tfteach's), for `tf.import_graph_def`
and `tf.train.import_meta_graph`.

A dataset op built in Python carries its kernel body (`_make`, a closure over the
element structure and the traced function); an imported node has only TF's attrs. The
importer (framework/importer.py) hands each dataset/iterator node to `rebuild` here,
which makes what the Python method would have made:
- the element's flat Specs from `output_types` (`Toutput_types`) and `output_shapes`;
- for `map`, `filter`, `flat_map`, `interleave`, `map_and_batch` the function named by
  the `func` attr (`f`, `predicate`), read from `GraphDef.library` into a FunctionGraph
  whose captured tensors are the node's `other_arguments` (function_graph.py runs it);
- tfteach's input order (TF's `other_arguments` come before the trailing scalars);
- a OneShotIterator's `dataset_factory` body, imported into the graph under the
  iterator's name (`OneShotIterator/dataset_factory/...`): tfteach's one-shot iterator
  runs its pipeline from there;
- the iterator ops' `_specs` (their components' Specs).
Versions TF 2.x writes besides TF 1.15's are read too where they mean the same
(FixedLengthRecordDatasetV2, ParallelMapDatasetV2, ParallelInterleaveDatasetV4; TF 2's
extra attrs such as `metadata` are dropped).
"""
from tfteach.data import readers, shuffling, streams
from tfteach.data.dataset_ops import function_runner
from tfteach.data.function_graph import FunctionGraph, TracedFunction
from tfteach.data.structure import Spec
from tfteach.framework import dtypes, importer as importer_lib

__all__ = ["register"]


def _element_specs(node_name, attrs):
    types = attrs.get("output_types", attrs.get("Toutput_types"))
    shapes = attrs.get("output_shapes")
    if types is None or shapes is None or len(types) != len(shapes):
        raise ValueError("Node '%s' lacks output_types / output_shapes." % node_name)
    if any(t == dtypes.variant for t in types):
        raise ValueError("Node '%s' has a variant component (a SparseTensor or a nested "
                         "dataset), which tfteach does not import." % node_name)
    return [Spec(t, s) for t, s in zip(types, shapes)]


def _structure(specs):
    return specs[0] if len(specs) == 1 else tuple(specs)


def _input_specs(tensor):
    return _element_specs(tensor.op.name, tensor.op._attrs)


def _imported_function(importer, node, name, element_specs, captured, output_specs,
                       returns_dataset):
    """The TracedFunction of FunctionDef `name`, its captures the tensors `captured`."""
    from tfteach.ops.constant_op import placeholder
    fdef = importer.library.get(name)
    if fdef is None:
        raise ValueError("Node '%s' names function '%s', which the GraphDef's library does "
                         "not define." % (node.name, name))
    args = list(fdef.signature.input_arg)
    if len(args) != len(element_specs) + len(captured):
        raise ValueError("Function '%s' takes %d arguments; node '%s' gives %d components "
                         "and %d captured tensors." % (name, len(args), node.name,
                                                       len(element_specs), len(captured)))
    graph = FunctionGraph(name, importer.graph)
    with graph.as_default(), graph.device("/cpu:0"):
        # named as the FunctionDef names its arguments (args_0, ...), as TF imports them
        arguments = [placeholder(s.dtype, s.shape, name=arg.name)
                     for arg, s in zip(args, element_specs)]
        stand_ins = arguments + [graph.capture(t) for t in captured]
        outputs = importer_lib.import_function_body(
            graph, fdef, {a.name: t for a, t in zip(args, stand_ins)}, "", importer.library)
    if returns_dataset:
        return TracedFunction(graph, arguments, outputs, element_specs, None, None)
    return TracedFunction(graph, arguments, outputs, element_specs,
                          _structure(output_specs), None)


def _simple(make):
    """A rebuild for a dataset op whose kernel body needs only its input values."""
    def rebuild(importer, node, inputs, attrs, functions):
        specs = _element_specs(node.name, attrs)
        return node.op, inputs, _attrs(specs, make, attrs)
    return rebuild


def _attrs(specs, make, original, **extra):
    attrs = {"output_types": [s.dtype for s in specs],
             "output_shapes": [s.shape for s in specs], "_make": make, "_specs": specs}
    if "_class" in original:
        attrs["_class"] = original["_class"]
    attrs.update(extra)
    return attrs


def _with_function(make_for, attr, kind="map", trailing=0, kept=None, as_type=None):
    """A rebuild for an op with a function: TF's inputs are (dataset, *captured,
    *trailing scalars); tfteach's (dataset, *the first `kept` scalars, *captured), its
    op type `as_type` (TF 2's parallel versions read as the plain ones)."""
    def rebuild(importer, node, inputs, attrs, functions):
        specs = _element_specs(node.name, attrs)
        captured = inputs[1:len(inputs) - trailing]
        scalars = inputs[len(inputs) - trailing:][:kept]
        in_specs = _input_specs(inputs[0])
        if kind == "filter":
            out_specs = [Spec(dtypes.bool, [])]
        elif kind == "map_and_batch":
            out_specs = [Spec(s.dtype, s.shape[1:]) for s in specs]
        else:
            out_specs = specs
        traced = _imported_function(importer, node, functions[attr], in_specs, captured,
                                    out_specs, kind == "dataset")
        make = make_for(traced)
        return as_type or node.op, [inputs[0]] + scalars + captured, _attrs(
            specs, make, attrs, f=traced)
    return rebuild


def _map_like(cls):
    def for_traced(traced):
        def make(ctx, stream, *captured):
            return cls(stream, function_runner(ctx, traced), captured)
        return make
    return for_traced


def _interleave(traced):
    def make(ctx, stream, cycle, block, *captured):
        return streams.Interleave(stream, function_runner(ctx, traced), captured, cycle, block)
    return make


def _map_and_batch(traced):
    from tfteach.data.experimental import _MapThenBatch

    def make(ctx, stream, n, _calls, d, *captured):
        return _MapThenBatch(stream, function_runner(ctx, traced), captured, n, bool(d))
    return make


def _zip(importer, node, inputs, attrs, functions):
    specs = _element_specs(node.name, attrs)
    sizes = [len(_input_specs(t)) for t in inputs]
    return node.op, inputs, _attrs(specs, lambda ctx, *ins: streams.Zip(ins, sizes), attrs)


def _shuffle(importer, node, inputs, attrs, functions):
    specs = _element_specs(node.name, attrs)
    reshuffle = bool(attrs.get("reshuffle_each_iteration", True))

    def make(ctx, stream, size, first, second):
        return streams.Shuffle(stream, size,
                               shuffling._Seeds(first, second, reshuffle).next_seed)
    return node.op, inputs, _attrs(specs, make, attrs, reshuffle_each_iteration=reshuffle)


def _padded_batch(importer, node, inputs, attrs, functions):
    specs = _element_specs(node.name, attrs)
    n = len(specs)

    def make(ctx, stream, size_value, *rest):
        shapes_v, values_v, drop_v = rest[:n], rest[n:2 * n], rest[2 * n]
        return streams.PaddedBatch(stream, size_value, shapes_v, values_v, bool(drop_v))
    return node.op, inputs, _attrs(specs, make, attrs)


def _file(read, op_type):
    def rebuild(importer, node, inputs, attrs, functions):
        return op_type, inputs, _attrs([Spec(dtypes.string, [])],
                                       readers.file_stream_maker(read), attrs)
    return rebuild


def _iterator_specs(importer, node, inputs, attrs, functions):
    specs = _element_specs(node.name, attrs)
    attrs = dict(attrs, _specs=specs)
    return node.op, inputs, attrs


def _one_shot(importer, node, inputs, attrs, functions):
    """The factory's pipeline is imported into the graph; the iterator runs it."""
    fdef = importer.library.get(functions.get("dataset_factory"))
    if fdef is None:
        raise ValueError("OneShotIterator '%s' names no function of the GraphDef's "
                         "library." % node.name)
    prefix = importer.prefix + node.name + "/dataset_factory/"
    dataset, = importer_lib.import_function_body(importer.graph, fdef, {}, prefix,
                                                 importer.library)
    attrs = dict(attrs, _specs=_element_specs(node.name, attrs), _dataset=dataset)
    return node.op, inputs, attrs


_REBUILDS = {
    "TensorSliceDataset": _simple(lambda ctx, *comps: streams.Slices(comps)),
    "TensorDataset": _simple(lambda ctx, *values: streams.Single(values)),
    "RangeDataset": _simple(lambda ctx, a, b, c: streams.Range(a, b, c)),
    "ZipDataset": _zip,
    "ConcatenateDataset": _simple(lambda ctx, a, b: streams.Concatenate(a, b)),
    "MapDataset": _with_function(_map_like(streams.Map), "f"),
    "FilterDataset": _with_function(_map_like(streams.Filter), "predicate", "filter"),
    "FlatMapDataset": _with_function(_map_like(streams.FlatMap), "f", "dataset"),
    "InterleaveDataset": _with_function(_interleave, "f", "dataset", trailing=2),
    "MapAndBatchDataset": _with_function(_map_and_batch, "f", "map_and_batch", trailing=3),
    # TF 2's `map(num_parallel_calls=...)` and `interleave(..., num_parallel_calls=...)`
    # (TF 1.15 wrote ParallelMapDataset / ParallelInterleaveDatasetV2): the same
    # elements in the same order (deterministic), made one after the other in tfteach.
    "ParallelMapDatasetV2": _with_function(_map_like(streams.Map), "f", trailing=1, kept=0,
                                           as_type="MapDataset"),
    "ParallelInterleaveDatasetV4": _with_function(_interleave, "f", "dataset", trailing=5,
                                                  kept=2, as_type="InterleaveDataset"),
    "BatchDatasetV2": _simple(lambda ctx, stream, n, d: streams.Batch(stream, n, bool(d))),
    "PaddedBatchDatasetV2": _padded_batch,
    "ShuffleDataset": _shuffle,
    "RepeatDataset": _simple(lambda ctx, stream, n: streams.Repeat(stream, n)),
    "TakeDataset": _simple(lambda ctx, stream, n: streams.Take(stream, n)),
    "SkipDataset": _simple(lambda ctx, stream, n: streams.Skip(stream, n)),
    "PrefetchDataset": _simple(lambda ctx, stream, n: stream),
    "CacheDataset": _simple(lambda ctx, stream, f: streams.Cache(stream, {})),
    "UnbatchDataset": _simple(lambda ctx, stream: streams.Unbatch(stream)),
    "TFRecordDataset": _file(readers._records, "TFRecordDataset"),
    "TextLineDataset": _file(readers._lines, "TextLineDataset"),
    "FixedLengthRecordDatasetV2": _file(readers._fixed_records, "FixedLengthRecordDataset"),
    "IteratorV2": _iterator_specs,
    "IteratorGetNext": _iterator_specs,
    "IteratorFromStringHandleV2": _iterator_specs,
    "OneShotIterator": _one_shot,
}


def register():
    for op_type, rebuild in _REBUILDS.items():
        importer_lib.register_node_importer(op_type, rebuild)
