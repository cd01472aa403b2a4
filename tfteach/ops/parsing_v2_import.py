"""TensorFlow 2's `ParseExampleV2` read as TF 1.15's `ParseExample`, for GraphDefs
TensorFlow 2.x writes (its `tf.compat.v1.parse_single_example` / `parse_example` build
ParseExampleV2 even in graph mode; TF 1.15 wrote ParseExample).

The two differ only in form: V2 takes the sparse and dense keys as two string *vector*
inputs (and has ragged features, which TF 1.15 did not have), V1 one scalar input per
key, and V2 also parses one Example (a scalar `serialized`), which V1 leaves to
ParseSingleExample (keys as attrs). The keys are constants in every graph TF builds, so
the importer (framework/importer.py) rebuilds the node as ParseExample with one constant
per key, or as ParseSingleExample for a scalar; their outputs
(sparse indices, values, shapes, dense values) keep their indices. A graph whose keys are
not constant, or that parses ragged features, is refused by name.
"""
import numpy as np

from tfteach.framework import dtypes, importer
from tfteach.framework.convert import convert_to_tensor
from tfteach.ops.op_builder import constant_value

__all__ = ["register"]


def _keys(tensor, what, node):
    value = constant_value(tensor)
    if value is None:
        raise ValueError("ParseExampleV2 node '%s' has %s that are not constant, which "
                         "tfteach's ParseExample cannot take." % (node.name, what))
    return [k.decode("utf-8") if isinstance(k, bytes) else str(k)
            for k in np.asarray(value, dtype=object).reshape(-1)]


def _as_parse_example(imp, node, inputs, attrs, functions):
    serialized, names, sparse_keys, dense_keys, ragged_keys = inputs[:5]
    dense_defaults = inputs[5:]
    if attrs.get("ragged_value_types") or _keys(ragged_keys, "ragged keys", node):
        raise ValueError("ParseExampleV2 node '%s' parses ragged features, which tfteach "
                         "does not have." % node.name)
    sparse = _keys(sparse_keys, "sparse keys", node)
    dense = _keys(dense_keys, "dense keys", node)
    types = {"sparse_types": list(attrs.get("sparse_types", [])),
             "Tdense": list(attrs.get("Tdense", [])),
             "dense_shapes": list(attrs.get("dense_shapes", []))}
    if serialized.shape.ndims == 0:       # one Example: TF 1.15's ParseSingleExample
        return "ParseSingleExample", [serialized] + list(dense_defaults), dict(
            types, num_sparse=len(sparse), sparse_keys=sparse, dense_keys=dense)
    with imp.graph.as_default():
        scalars = [convert_to_tensor(k, dtype=dtypes.string, name=node.name + "/sparse_key")
                   for k in sparse] + \
                  [convert_to_tensor(k, dtype=dtypes.string, name=node.name + "/dense_key")
                   for k in dense]
    return "ParseExample", [serialized, names] + scalars + list(dense_defaults), dict(
        types, Nsparse=len(sparse), Ndense=len(dense))


def register():
    importer.register_node_importer("ParseExampleV2", _as_parse_example)
