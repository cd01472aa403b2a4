"""tf.data ops written as TF 1.15's NodeDefs (and their functions as FunctionDefs).

tfteach's dataset ops already have TF's op types, inputs and `output_types` /
`output_shapes`; what a GraphDef needs besides (graph_def.py calls these writers):
- the traced function of `map`, `filter`, `flat_map`, `interleave`, `map_and_batch` as a
  FunctionDef of `GraphDef.library` (function_def.py), named by a `func` attr (`f`;
  `predicate` for FilterDataset) with `Targuments`, the captured tensors' types;
- TF 1.15's input order where tfteach's differs: the captured tensors (TF's
  `other_arguments`) right after the input dataset, before `cycle_length` /
  `block_length` (InterleaveDataset) or `batch_size`, ... (MapAndBatchDataset);
- `Toutput_types` instead of `output_types` (TensorSliceDataset, TensorDataset,
  PaddedBatchDatasetV2, with `N`), `N` for ZipDataset; FixedLengthRecordDatasetV2 for
  tfteach's FixedLengthRecordDataset (it has TF 1.15's V2 inputs, compression last);
- a one-shot iterator's `dataset_factory`: a FunctionDef with no arguments whose body is
  the pipeline and which returns the dataset, as TF 1.15's `make_one_shot_iterator`.
Attrs with TF 1.15 defaults are left out; TensorFlow's importer fills them.
`from_generator` (a Python generator) and SparseTensor components stay refused.
"""
from tfteach.data.dataset_ops import DATASET_OP_TYPES
from tfteach.framework import function_def as function_def_lib
from tfteach.framework import graph_def as graph_def_lib
from tfteach.framework.attr_values import to_attr_value
from tfteach.framework.graph_def import NotExportableError

__all__ = ["register"]

_FUNCTION_ATTR = {"FilterDataset": "predicate"}
# tfteach's inputs (after the dataset) that TF puts after the captured tensors.
_TRAILING_INPUTS = {"InterleaveDataset": 2, "MapAndBatchDataset": 3}
_TOUTPUT_TYPES = ("TensorSliceDataset", "TensorDataset", "PaddedBatchDatasetV2")
_RENAMED = {"FixedLengthRecordDataset": "FixedLengthRecordDatasetV2"}


def _refuse_sparse(op):
    specs = list(op._attrs.get("_specs") or ())
    traced = op._attrs.get("f")
    if traced is not None:
        specs += list(traced.argument_specs) + list(_flat_specs(traced.output_structure))
    if any(getattr(s, "sparse", False) for s in specs or ()):
        raise NotExportableError(
            "Cannot write op '%s' (type %s) as a TensorFlow NodeDef: tfteach does not write "
            "SparseTensor components of a dataset's elements." % (op.name, op.type))


def _flat_specs(output_structure):
    from tfteach.data import structure
    return [] if output_structure is None else structure.flatten(output_structure)


def traced_function_def(traced, context):
    """The FunctionDef of a traced dataset function (written once per GraphDef)."""
    if context.has_function(traced.name):
        return traced.name
    arguments = [("args_%d" % i, t) for i, t in enumerate(traced.arguments)]
    arguments += [("captured_%d" % i, t) for i, t in enumerate(traced.graph.captures.values())]
    outputs = [("output_%d" % i, t) for i, t in enumerate(traced.outputs)]
    fdef = function_def_lib.function_def(traced.name, traced.graph.get_operations(),
                                         arguments, outputs, context, NotExportableError)
    context.add_function(fdef)
    return traced.name


def _dataset_writer(op, context):
    if op.type == "GeneratorDataset":
        raise NotExportableError(
            "Cannot write op '%s' (type GeneratorDataset) as a TensorFlow NodeDef: "
            "Dataset.from_generator runs a Python generator, which a GraphDef cannot "
            "hold." % op.name)
    _refuse_sparse(op)
    node = context.node_def(op, skip=("f",))
    if op.type in _RENAMED:
        node.op = _RENAMED[op.type]
    if op.type == "TensorSliceDataset" and \
            len(op.inputs) != len(op._attrs["output_types"]):
        raise NotExportableError(
            "Cannot write op '%s' (type TensorSliceDataset) as a TensorFlow NodeDef: "
            "Dataset.list_files' slice of the matching files is tfteach's own "
            "(TF 1.15 writes it as a function)." % op.name)
    traced = op._attrs.get("f")
    if traced is not None:
        name = traced_function_def(traced, context)
        node.attr[_FUNCTION_ATTR.get(op.type, "f")].func.name = name
        node.attr["Targuments"].CopyFrom(to_attr_value([t.dtype.base_dtype
                                                        for t in traced.captured]))
        trailing = _TRAILING_INPUTS.get(op.type, 0)
        if trailing:
            inputs = list(node.input)
            captured = len(traced.captured)
            data = [i for i in inputs if not i.startswith("^")]
            controls = [i for i in inputs if i.startswith("^")]
            reordered = [data[0]] + data[1 + trailing:1 + trailing + captured] + \
                data[1:1 + trailing] + controls
            del node.input[:]
            node.input.extend(reordered)
    if op.type in _TOUTPUT_TYPES:
        node.attr["Toutput_types"].CopyFrom(node.attr["output_types"])
        del node.attr["output_types"]
    if op.type == "ZipDataset":
        node.attr["N"].i = len(op.inputs)
    if op.type == "PaddedBatchDatasetV2":
        node.attr["N"].i = len(op._attrs["output_shapes"])
    return [node]


def _iterator_writer(op, context):
    _refuse_sparse(op)
    return [context.node_def(op)]


def _one_shot_writer(op, context):
    """TF 1.15's OneShotIterator: the pipeline in a `dataset_factory` function. (The
    pipeline's ops stay in the graph as well: tfteach built them there.)"""
    _refuse_sparse(op)
    dataset = op._attrs["_dataset"]
    name = "_make_dataset_%s" % op.name.replace("/", "_")
    if not context.has_function(name):
        ops = _ops_before(dataset.op)
        fdef = function_def_lib.function_def(name, ops, [], [("dataset", dataset)],
                                             context, NotExportableError, stateful=True)
        fdef.signature.description = "Factory function for a dataset."
        context.add_function(fdef)
    node = context.node_def(op)
    node.attr["dataset_factory"].func.name = name
    return [node]


def _ops_before(last):
    """`last` and every op it depends on, in the graph's (creation) order."""
    seen, pending = set(), [last]
    while pending:
        op = pending.pop()
        if op in seen:
            continue
        seen.add(op)
        pending.extend(t.op for t in op.inputs)
        pending.extend(op.control_inputs)
    return sorted(seen, key=lambda o: o._id)


def register():
    for op_type in DATASET_OP_TYPES:
        graph_def_lib.register_node_writer(op_type, _dataset_writer)
    graph_def_lib.register_node_writer("OneShotIterator", _one_shot_writer)
    for op_type in ("IteratorV2", "IteratorGetNext", "IteratorFromStringHandleV2"):
        graph_def_lib.register_node_writer(op_type, _iterator_writer)
