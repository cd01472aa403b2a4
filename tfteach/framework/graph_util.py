"""`tf.graph_util`: GraphDef surgery for deployment (TF 1.15's graph_util_impl).

- `extract_sub_graph(graph_def, dest_nodes)`: only the nodes `dest_nodes` need;
- `convert_variables_to_constants(sess, graph_def, output_node_names)` ("freezing"):
  that sub-graph with every variable replaced by a Const holding its value in `sess`,
  so one GraphDef file carries the model and its weights;
- `remove_training_nodes(graph_def, protected_nodes)`: drops CheckNumerics and splices
  out Identity nodes that nothing depends on by name.
All take and return GraphDef protos and never change their argument.
"""
import copy
import logging

import numpy as np

from tfteach.framework import dtypes
from tfteach.framework.importer import as_graph_def_proto
from tfteach.framework.tensor_proto import make_tensor_proto
from tfteach.io.tf_protos import GraphDef, NodeDef

__all__ = ["extract_sub_graph", "convert_variables_to_constants", "remove_training_nodes"]

_VARIABLE_OPS = ("Variable", "VariableV2")


def _node_name(name):
    """"^op" / "op:1" -> "op"."""
    name = name[1:] if name.startswith("^") else name
    return name.split(":")[0]


def extract_sub_graph(graph_def, dest_nodes):
    """The GraphDef of the nodes `dest_nodes` depend on, in `graph_def`'s order."""
    if not isinstance(graph_def, GraphDef):
        descriptor = getattr(graph_def, "DESCRIPTOR", None)
        if descriptor is None or descriptor.full_name != "tensorflow.GraphDef":
            raise TypeError("graph_def must be a graph_pb2.GraphDef proto.")
        graph_def = as_graph_def_proto(graph_def)
    if isinstance(dest_nodes, str):
        raise TypeError("dest_nodes must be a list.")
    inputs_of = {n.name: [_node_name(i) for i in n.input] for n in graph_def.node}
    for d in dest_nodes:
        assert d in inputs_of, "%s is not in graph" % d
    keep, todo = set(), list(dest_nodes)
    while todo:
        name = todo.pop()
        if name in keep:
            continue
        keep.add(name)
        todo.extend(inputs_of.get(name, []))
    out = GraphDef()
    for node in graph_def.node:
        if node.name in keep:
            out.node.add().CopyFrom(node)
    out.library.CopyFrom(graph_def.library)
    out.versions.CopyFrom(graph_def.versions)
    return out


def convert_variables_to_constants(sess, input_graph_def, output_node_names,
                                   variable_names_whitelist=None,
                                   variable_names_blacklist=None):
    """Freezes: the sub-graph for `output_node_names` with variables as Consts."""
    inference = extract_sub_graph(input_graph_def, output_node_names)
    names = [n.name for n in inference.node if n.op in _VARIABLE_OPS
             and (variable_names_whitelist is None or n.name in variable_names_whitelist)
             and (variable_names_blacklist is None or n.name not in variable_names_blacklist)]
    values = dict(zip(names, sess.run([n + ":0" for n in names]))) if names else {}
    out = GraphDef()
    for node in inference.node:
        if node.name in values:
            const = NodeDef(name=node.name, op="Const")
            dtype = node.attr["dtype"]
            const.attr["dtype"].CopyFrom(dtype)
            const.attr["value"].tensor.CopyFrom(make_tensor_proto(
                np.asarray(values[node.name]), dtype=dtypes.as_dtype(dtype.type)))
            if "_class" in node.attr:
                const.attr["_class"].CopyFrom(node.attr["_class"])
            out.node.add().CopyFrom(const)
        else:
            out.node.add().CopyFrom(node)
    out.library.CopyFrom(inference.library)
    out.versions.CopyFrom(inference.versions)
    logging.getLogger("tensorflow").info("Converted %d variables to const ops.",
                                         len(values))
    return out


def remove_training_nodes(input_graph, protected_nodes=None):
    """Drops CheckNumerics nodes and splices out Identity nodes (TF 1.15's rules: an
    Identity is kept when protected, when it has a control input, or when some node
    depends on it by a control edge)."""
    input_graph = as_graph_def_proto(input_graph, "input_graph")
    protected = set(protected_nodes or ())
    removed = {n.name for n in input_graph.node
               if n.op == "CheckNumerics" and n.name not in protected}
    after_removal = []
    for node in input_graph.node:
        if node.name in removed:
            continue
        new = copy.deepcopy(node)
        del new.input[:]
        new.input.extend(i for i in node.input if _strip_control(i) not in removed)
        after_removal.append(new)
    control_targets, with_control_input = set(), set()
    for node in after_removal:
        for i in node.input:
            if i.startswith("^"):
                control_targets.add(i[1:])
                with_control_input.add(node.name)
    splice = {n.name: n.input[0] for n in after_removal
              if n.op == "Identity" and n.name not in protected
              and n.name not in with_control_input and n.name not in control_targets}
    out = GraphDef()
    for node in after_removal:
        if node.name in splice:
            continue
        new = copy.deepcopy(node)
        del new.input[:]
        for full in node.input:
            name = _strip_control(full)
            while name in splice:
                full = splice[name]
                name = _strip_control(full)
            new.input.append(full)
        out.node.add().CopyFrom(new)
    return out


def _strip_control(name):
    return name[1:] if name.startswith("^") else name
