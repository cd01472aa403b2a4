"""`tf.data` (TF 1.15): input pipelines as dataset ops in the graph, read by iterators.

docs/tf_data.md tells the whole story; the modules:
- structure.py: nesting of elements (tuples, dicts; lists are values), Specs;
- dataset_ops.py: the Dataset class and its dataset ops (sources, transformations);
- shuffling.py, padding.py, generator.py, readers.py: the larger transformations and
  sources; experimental.py: `tf.data.experimental`;
- function_graph.py: dataset functions traced into graphs, and run per element;
- sparse.py: SparseTensor components of elements;
- streams.py: what the dataset kernels return (the elements, in Python);
- iterator_ops.py: iterators (one-shot, initializable, reinitializable, feedable).
"""
from tfteach.data import experimental  # noqa: F401
from tfteach.data.dataset_ops import Dataset, DatasetV1  # noqa: F401
from tfteach.data.iterator_ops import (Iterator, make_initializable_iterator,  # noqa: F401
                                       make_one_shot_iterator)
from tfteach.data.readers import (FixedLengthRecordDataset, TextLineDataset,  # noqa: F401
                                  TFRecordDataset)
from tfteach.data import graph_export as _graph_export
from tfteach.data import graph_import as _graph_import

__all__ = ["Dataset", "DatasetV1", "Iterator", "TFRecordDataset", "TextLineDataset",
           "FixedLengthRecordDataset", "experimental", "make_one_shot_iterator",
           "make_initializable_iterator", "get_output_types", "get_output_shapes",
           "get_output_classes"]


def get_output_types(dataset_or_iterator):
    """`tf.compat.v1.data.get_output_types`: the element's dtypes."""
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator):
    """`tf.compat.v1.data.get_output_shapes`: the element's static shapes."""
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator):
    """`tf.compat.v1.data.get_output_classes`: the element's classes (tf.Tensor)."""
    return dataset_or_iterator.output_classes


# The dataset ops are written into GraphDefs as TF 1.15's (their functions as
# FunctionDefs) and read back from TensorFlow's: graph_export.py, graph_import.py.
_graph_export.register()
_graph_import.register()


def _register_cpu_only():
    """TF 1.15 has no GPU kernels for the input pipeline: its ops stay on the CPU, also
    beside virtual GPUs (runtime/placement.py)."""
    from tfteach.data.dataset_ops import DATASET_OP_TYPES
    from tfteach.runtime.placement import register_cpu_only
    for op_type in DATASET_OP_TYPES + ("IteratorV2", "MakeIterator", "OneShotIterator",
                                       "IteratorGetNext", "IteratorToStringHandle",
                                       "IteratorFromStringHandleV2", "MatchingFiles"):
        register_cpu_only(op_type)


_register_cpu_only()
