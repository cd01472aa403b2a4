"""Meta graphs: a GraphDef plus the Python-side state TensorFlow needs to rebuild the
program (collections, the Saver's SaverDef), as `tf.train.export_meta_graph` and
`tf.train.import_meta_graph` write and read them (the `.meta` file beside a checkpoint).

Collections are written the way TF 1.15 writes them: Variables as `bytes_list` of
serialized `VariableDef`s (the names of the variable's ops), Tensors and Operations as
`node_list` names, strings as `bytes_list`, ints as `int64_list`, floats as
`float_list`, Savers (the SAVERS collection) as `bytes_list` of `SaverDef`s. A collection
holding anything else (a QueueRunner, a cond context, a mix
of kinds) is skipped with a warning, as TF skips what it cannot serialize.
"""
import os
import warnings

from google.protobuf import text_format

from tfteach.framework import graph as graph_lib
from tfteach.framework import op_defs
from tfteach.framework.importer import import_graph_def
from tfteach.io.tf_protos import MetaGraphDef, SaverDef

__all__ = ["export_meta_graph", "import_meta_graph", "read_meta_graph_file",
           "collection_to_proto"]

TENSORFLOW_VERSION = "1.15.0"

# TensorFlow writes its cond/while contexts as CondContextDef/WhileContextDef; tfteach's
# contexts have no such form, and a graph imports and runs without them (importing a
# GraphDef's loop frames makes tfteach's own while contexts: frame_import.py).
_CONTROL_FLOW_COLLECTIONS = frozenset({"cond_context", "while_context"})

# The collections whose bytes are VariableDefs (TF's GraphKeys._VARIABLE_COLLECTIONS,
# and "global_step", for which TF registers the same proto functions): imported, they
# hold Variables again (tf.train.get_global_step() after import_meta_graph).
_VARIABLE_COLLECTIONS = frozenset({
    "variables", "local_variables", "metric_variables", "model_variables",
    "trainable_variables", "moving_average_variables", "concatenated_variables",
    "trainable_resource_variables", "global_step"})


# TF's proto functions for GraphKeys.SAVERS: each Saver as its SaverDef's bytes.
_SAVERS = "savers"


def _is_saver(value):
    from tfteach.io.tf_protos import SaverDef
    return isinstance(getattr(value, "saver_def", None), SaverDef)


def _is_variable(value):
    from tfteach.ops.variables import Variable
    return isinstance(value, Variable)


def collection_to_proto(collection_def, items, export_scope=None):
    """Fills `collection_def` from a collection's items; False when it cannot."""
    from tfteach.framework.operation import Operation
    from tfteach.framework.tensor import Tensor
    if not items:
        return False
    if all(type(v).__name__ == "QueueRunner" for v in items):
        # QueueRunnerDefs (train/queue_runner_def.py), as TF writes QUEUE_RUNNERS
        protos = [v.to_proto(export_scope) for v in items]
        collection_def.bytes_list.value.extend(p.SerializeToString() for p in protos
                                               if p is not None)
    elif all(_is_variable(v) for v in items):
        protos = [v.to_proto(export_scope) for v in items]
        collection_def.bytes_list.value.extend(p.SerializeToString() for p in protos
                                               if p is not None)
    elif all(_is_saver(v) for v in items):
        collection_def.bytes_list.value.extend(v.to_proto(export_scope).SerializeToString()
                                               for v in items)
    elif all(isinstance(v, (Tensor, Operation)) for v in items):
        collection_def.node_list.value.extend(v.name for v in items)
    elif all(isinstance(v, (str, bytes)) for v in items):
        collection_def.bytes_list.value.extend(v.encode("utf-8") if isinstance(v, str) else v
                                               for v in items)
    elif all(isinstance(v, int) and not isinstance(v, bool) for v in items):
        collection_def.int64_list.value.extend(items)
    elif all(isinstance(v, float) for v in items):
        collection_def.float_list.value.extend(items)
    else:
        return False
    return True


def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None,
                      collection_list=None, as_text=False, graph=None, export_scope=None,
                      clear_devices=False, clear_extraneous_savers=False,
                      strip_default_attrs=False, save_debug_info=False, **kwargs):
    """`tf.train.export_meta_graph`: the MetaGraphDef of `graph` (written to `filename`
    when given, binary or `as_text`)."""
    graph = graph or graph_lib.get_default_graph()
    meta = MetaGraphDef()
    if meta_info_def is not None:
        meta.meta_info_def.CopyFrom(meta_info_def)
    meta.meta_info_def.tensorflow_version = TENSORFLOW_VERSION
    meta.graph_def.CopyFrom(graph_def if graph_def is not None else graph.as_graph_def())
    if clear_devices:
        for node in meta.graph_def.node:
            node.device = ""
    # The OpDefs of the op types used, sorted as TF lists them (framework/op_defs.py).
    if not meta.meta_info_def.stripped_op_list.op:
        op_defs.stripped_op_list(meta.meta_info_def.stripped_op_list,
                                 [n.op for n in meta.graph_def.node])
    if saver_def is not None:
        if not isinstance(saver_def, SaverDef):
            saver_def = SaverDef.FromString(saver_def.SerializeToString())
        meta.saver_def.CopyFrom(saver_def)
    keys = collection_list if collection_list is not None else graph.get_all_collection_keys()
    for key in sorted(set(keys)):
        items = graph.get_collection(key)
        if not items or key in _CONTROL_FLOW_COLLECTIONS:
            continue
        if not collection_to_proto(meta.collection_def[key], items, export_scope):
            del meta.collection_def[key]
            warnings.warn("Error encountered when serializing %s.\nType is unsupported, or "
                          "the types of the items don't match field type in CollectionDef."
                          % key)
    if filename:
        _write_message(meta, filename, as_text)
    return meta


def _write_message(message, filename, as_text):
    dirname = os.path.dirname(filename)
    if dirname:
        os.makedirs(dirname, exist_ok=True)
    data = (text_format.MessageToString(message).encode("utf-8") if as_text
            else message.SerializeToString())
    tmp = filename + ".tmp%d" % os.getpid()
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, filename)            # whole file or none: never a half-written .meta


def read_meta_graph_file(filename):
    """The MetaGraphDef in `filename`, binary or text format (TF's read_meta_graph_file)."""
    if not os.path.exists(filename):
        raise IOError("File %s does not exist." % filename)
    with open(filename, "rb") as f:
        data = f.read()
    meta = MetaGraphDef()
    try:
        meta.ParseFromString(data)
        return meta
    except Exception:                     # not binary: try the text format
        pass
    try:
        text_format.Merge(data.decode("utf-8"), meta)
    except Exception as e:
        raise IOError("Cannot parse file %s: %s." % (filename, e)) from None
    return meta


def _as_meta_graph_def(meta_graph_or_file):
    if isinstance(meta_graph_or_file, MetaGraphDef):
        return meta_graph_or_file
    descriptor = getattr(meta_graph_or_file, "DESCRIPTOR", None)
    if descriptor is not None and descriptor.full_name == "tensorflow.MetaGraphDef":
        return MetaGraphDef.FromString(meta_graph_or_file.SerializeToString())
    return read_meta_graph_file(meta_graph_or_file)


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **kwargs):
    """`tf.train.import_meta_graph`: rebuilds the graph and its collections in the
    default graph and returns a Saver for it (None without variables to save)."""
    meta = _as_meta_graph_def(meta_graph_or_file)
    graph_def = type(meta.graph_def)()
    graph_def.CopyFrom(meta.graph_def)
    if clear_devices:
        for node in graph_def.node:
            node.device = ""
    graph = graph_lib.get_default_graph()
    import_graph_def(graph_def, name=import_scope or "",
                     input_map=kwargs.get("input_map"))
    scope = (import_scope.rstrip("/") + "/") if import_scope else ""
    _restore_collections(graph, meta, scope)
    return _saver_for(meta, import_scope)


def _restore_collections(graph, meta, scope):
    from tfteach.ops.variables import Variable
    from tfteach.io.tf_protos import VariableDef
    variables = {}
    for key in sorted(meta.collection_def):
        if key in _CONTROL_FLOW_COLLECTIONS:
            continue                      # tfteach rebuilt its contexts from the frames
        col = meta.collection_def[key]
        kind = col.WhichOneof("kind")
        if kind == "node_list":
            for name in col.node_list.value:
                graph.add_to_collection(key, graph.as_graph_element(scope + name))
        elif kind == "bytes_list":
            for raw in col.bytes_list.value:
                if key == "queue_runners":              # QueueRunnerDefs
                    from tfteach.train.queue_runner import QueueRunner
                    with graph.as_default():
                        graph.add_to_collection(key, QueueRunner.from_proto(
                            raw, import_scope=scope.rstrip("/") or None))
                    continue
                if key == _SAVERS:
                    graph.add_to_collection(key, _saver_from_proto(raw, scope))
                    continue
                if key not in _VARIABLE_COLLECTIONS:
                    graph.add_to_collection(key, raw)
                    continue
                proto = VariableDef.FromString(raw)
                if proto.variable_name not in variables:
                    variables[proto.variable_name] = Variable(
                        variable_def=proto, import_scope=scope.rstrip("/") or None)
                graph.add_to_collection(key, variables[proto.variable_name])
        elif kind == "int64_list":
            for v in col.int64_list.value:
                graph.add_to_collection(key, int(v))
        elif kind == "float_list":
            for v in col.float_list.value:
                graph.add_to_collection(key, float(v))
        elif kind == "any_list":
            warnings.warn("Collection %s holds Any protos, which tfteach skips." % key)


def _saver_from_proto(raw, scope):
    """TF's `Saver.from_proto`: a Saver over the imported graph's save/restore ops."""
    from tfteach import train
    from tfteach.io.tf_protos import SaverDef
    return train.Saver(saver_def=SaverDef.FromString(raw), name=scope.rstrip("/") or None)


def _saver_for(meta, import_scope):
    """TF 1.15: Saver(saver_def=...) when the meta graph has one; else a default Saver
    when there are variables; else None."""
    from tfteach import train
    from tfteach.ops.variables import global_variables
    saver_class = getattr(train, "Saver", None)
    if saver_class is None:               # the Saver lives in train/saver.py (checkpoints)
        return None
    if meta.HasField("saver_def"):
        return saver_class(saver_def=meta.saver_def, name=import_scope)
    if global_variables(scope=import_scope):
        return saver_class()
    return None
