"""The top-level names `import tfteach` does not import until a program first uses them.

A tiny graph needs Graph, the ops and Session; tf.train, tf.data, tf.image, tf.summary,
tf.estimator and TensorFlow's protobuf messages bring protobuf, tensorboard's protos,
image codecs and hundreds of modules with them. `tfteach/__init__.py`'s module
`__getattr__` looks each lazy name up here the first time it is read, so `tf.train`
costs its import once, on first use, and `dir(tf)` still lists every name
(docs/engine.md, "Lazy imports").

LAZY: public name -> (module, attribute); attribute None means the module itself.
"""
import importlib

LAZY = {
    # namespaces (sub-packages and modules)
    "app": ("tfteach.app", None), "config": ("tfteach.config", None),
    "contrib": ("tfteach.contrib", None), "data": ("tfteach.data", None),
    "debugging": ("tfteach.debugging", None),
    "estimator": ("tfteach.estimator", None), "examples": ("tfteach.examples", None),
    "feature_column": ("tfteach.feature_column", None), "gfile": ("tfteach.gfile", None),
    "graph_util": ("tfteach.framework.graph_util", None), "image": ("tfteach.image", None),
    "io": ("tfteach.io", None), "layers": ("tfteach.layers", None),
    "logging": ("tfteach.logging", None), "losses": ("tfteach.losses", None),
    "metrics": ("tfteach.metrics", None), "nn": ("tfteach.nn", None),
    "python_io": ("tfteach.python_io", None), "sparse": ("tfteach.sparse", None),
    "summary": ("tfteach.summary", None), "test": ("tfteach.test", None),
    "train": ("tfteach.train", None),
    # single names
    "flags": ("tfteach.app", "flags"),   # TF 1.15's tf.flags is tf.app.flags
    # the Session's options: TensorFlow's protobuf messages (runtime/config.py)
    "ConfigProto": ("tfteach.runtime.config", "ConfigProto"),
    "GPUOptions": ("tfteach.runtime.config", "GPUOptions"),
    "GraphOptions": ("tfteach.runtime.config", "GraphOptions"),
    "OptimizerOptions": ("tfteach.runtime.config", "OptimizerOptions"),
    "RunOptions": ("tfteach.runtime.config", "RunOptions"),
    "confusion_matrix": ("tfteach.metrics.mean_iou", "confusion_matrix"),
    "div_no_nan": ("tfteach.losses.safe_div", "div_no_nan"),
    "import_graph_def": ("tfteach.framework.importer", "import_graph_def"),
    "make_ndarray": ("tfteach.framework.tensor_proto", "make_ndarray"),
    "make_tensor_proto": ("tfteach.framework.tensor_proto", "make_tensor_proto"),
    "SparseTensorSpec": ("tfteach.eager.tensor_spec", "SparseTensorSpec"),
    "FixedLenFeature": ("tfteach.ops.parsing_config", "FixedLenFeature"),
    "FixedLenSequenceFeature": ("tfteach.ops.parsing_config", "FixedLenSequenceFeature"),
    "VarLenFeature": ("tfteach.ops.parsing_config", "VarLenFeature"),
    "parse_example": ("tfteach.ops.parsing_ops", "parse_example"),
    "parse_single_example": ("tfteach.ops.parsing_ops", "parse_single_example"),
    "parse_single_sequence_example": ("tfteach.ops.parsing_ops",
                                      "parse_single_sequence_example"),
    "print": ("tfteach.ops.print_ops", "print_v2"),
    # a Python function as an op (ops/script_ops.py), a function sharing its variables
    "py_func": ("tfteach.ops.script_ops", "py_func"),
    "py_function": ("tfteach.ops.script_ops", "py_function"),
    "numpy_function": ("tfteach.ops.script_ops", "numpy_function"),
    "make_template": ("tfteach.ops.template", "make_template"),
    "decode_csv": ("tfteach.ops.decode_ops", "decode_csv"),
    "decode_raw": ("tfteach.ops.decode_ops", "decode_raw"),
    "random_crop": ("tfteach.image.crops", "random_crop"),
    "parse_tensor": ("tfteach.ops.tensor_serialization", "parse_tensor"),
    "serialize_tensor": ("tfteach.ops.tensor_serialization", "serialize_tensor"),
    # tf.keras (the high-level API, graph mode by default)
    "keras": ("tfteach.keras", None),
    # queues and readers (ops/data_flow_ops.py, ops/reader_ops.py; tf.queue)
    "queue": ("tfteach.queue", None),
    "FIFOQueue": ("tfteach.ops.data_flow_ops", "FIFOQueue"),
    "PaddingFIFOQueue": ("tfteach.ops.data_flow_ops", "PaddingFIFOQueue"),
    "PriorityQueue": ("tfteach.ops.data_flow_ops", "PriorityQueue"),
    "QueueBase": ("tfteach.ops.data_flow_ops", "QueueBase"),
    "RandomShuffleQueue": ("tfteach.ops.data_flow_ops", "RandomShuffleQueue"),
    "FixedLengthRecordReader": ("tfteach.ops.reader_ops", "FixedLengthRecordReader"),
    "ReaderBase": ("tfteach.ops.reader_ops", "ReaderBase"),
    "TextLineReader": ("tfteach.ops.reader_ops", "TextLineReader"),
    "TFRecordReader": ("tfteach.ops.reader_ops", "TFRecordReader"),
    "WholeFileReader": ("tfteach.ops.reader_ops", "WholeFileReader"),
    "matching_files": ("tfteach.ops.reader_ops", "matching_files"),
    "read_file": ("tfteach.ops.reader_ops", "read_file"),
    "count_up_to": ("tfteach.ops.count_up_to_op", "count_up_to"),
}
# TensorFlow's protocol buffers (tf.GraphDef ...), as the tensorboard package ships them.
LAZY.update((name, ("tfteach.io.tf_protos", name)) for name in (
    "AttrValue", "Event", "GraphDef", "HistogramProto", "MetaGraphDef", "NodeDef",
    "SessionLog", "Summary", "SummaryMetadata", "TensorInfo"))


def load(name):
    """The value of lazy name `name` (KeyError if it is not one)."""
    module_name, attribute = LAZY[name]
    module = importlib.import_module(module_name)
    return module if attribute is None else getattr(module, attribute)


def load_all():
    """Imports every lazy namespace: each op module registers its ops on import, so a
    lookup of an op type not yet registered (a GraphDef naming ParseExample) loads them
    all once before it gives up (framework/registry.py)."""
    for name in LAZY:
        load(name)
