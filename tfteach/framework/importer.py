"""`tf.import_graph_def`: the nodes of a GraphDef added to the default graph as ops.

Nodes are added in dependency order (a GraphDef may list a node before its inputs), each
through the registry like any op built in Python, so an imported graph runs, is
differentiated and is drawn like a built one. Names get the import scope as prefix
(`import/` by default, none with `name=""`); `input_map` replaces an imported tensor by
an existing one; `return_elements` picks what to give back ("op" -> Operation,
"op:0" -> Tensor). Attrs TensorFlow writes that tfteach's ops do not use (such as
`_has_manual_control_dependencies`) are dropped; `_class` colocation groups keep working.
"""
from tfteach.framework import graph as graph_lib
from tfteach.framework import registry
from tfteach.framework.attr_values import EXPORTED_PRIVATE_ATTRS, from_attr_value
from tfteach.io.tf_protos import GraphDef

__all__ = ["import_graph_def", "as_graph_def_proto"]

# TensorFlow's reference-typed twins of ops tfteach has once: tfteach's ops pass a
# variable's reference through unchanged, so `cond` on a variable (TF writes RefSwitch
# for it) imports as the plain op.
_REF_TWINS = {"RefSwitch": "Switch", "RefIdentity": "Identity", "RefMerge": "Merge",
              "RefSelect": "Select", "RefNextIteration": "NextIteration",
              "RefEnter": "Enter", "RefExit": "Exit"}


def as_graph_def_proto(graph_def, what="graph_def"):
    """`graph_def` as tfteach's GraphDef class; TensorFlow's own GraphDef is accepted too."""
    if isinstance(graph_def, GraphDef):
        return graph_def
    descriptor = getattr(graph_def, "DESCRIPTOR", None)
    if descriptor is not None and descriptor.full_name == "tensorflow.GraphDef":
        return GraphDef.FromString(graph_def.SerializeToString())
    raise TypeError("%s must be a GraphDef proto." % what)


def _split_input(name):
    """("op", index, is_control) for an input string "op", "op:1" or "^op"."""
    if name.startswith("^"):
        return name[1:], -1, True
    op_name, sep, index = name.rpartition(":")
    if sep and index.isdigit():
        return op_name, int(index), False
    return name, 0, False


def _tensor_key(name):
    if name.startswith("^"):
        return name
    op_name, index, _ = _split_input(name)
    return "%s:%d" % (op_name, index)


def _topological_order(nodes):
    by_name = {n.name: n for n in nodes}
    state, order = {}, []
    for root in nodes:
        if root.name in state:
            continue
        stack = [(root, False)]
        while stack:
            node, done = stack.pop()
            if done:
                state[node.name] = 2
                order.append(node)
                continue
            if state.get(node.name) == 2:
                continue
            if state.get(node.name) == 1:
                continue
            state[node.name] = 1
            stack.append((node, True))
            for inp in node.input:
                dep = by_name.get(_split_input(inp)[0])
                if dep is None:
                    continue
                if state.get(dep.name) == 1:
                    raise ValueError("GraphDef has a cycle through node '%s' (TensorFlow's "
                                     "while-loop frames cannot be imported into tfteach)."
                                     % dep.name)
                if dep.name not in state:
                    stack.append((dep, False))
    return order


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None,
                     op_dict=None, producer_op_list=None):
    """Imports `graph_def` into the default graph (TF 1.15's signature and errors)."""
    graph_def = as_graph_def_proto(graph_def)
    if input_map is not None and not isinstance(input_map, dict):
        raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
    if return_elements is not None and isinstance(return_elements, str):
        raise TypeError("return_elements must be a list of strings.")
    input_map = {_tensor_key(k): v for k, v in (input_map or {}).items()}
    present = {n.name for n in graph_def.node}
    missing = [k for k in input_map if _split_input(k)[0].lstrip("^") not in present]
    if missing:
        raise ValueError("Attempted to map inputs that were not found in graph_def: [%s]"
                         % ", ".join(sorted(missing)))
    graph = graph_lib.get_default_graph()
    scope_name = "import" if name is None else name
    with graph.name_scope(scope_name) as scope:
        prefix = scope                    # "import/" or "" for name=""
        ops = _import_nodes(graph, graph_def, input_map, prefix)
    if return_elements is None:
        return None
    return [_return_element(graph, ops, prefix, e) for e in return_elements]


def _import_nodes(graph, graph_def, input_map, prefix):
    from tfteach.framework.convert import convert_to_tensor
    ops = {}
    for node in _topological_order(list(graph_def.node)):
        op_type = _REF_TWINS.get(node.op, node.op)
        try:
            registry.get_op_def(op_type)
        except KeyError:
            raise ValueError("Op type not registered '%s' in tfteach, needed by node '%s' "
                             "of the GraphDef." % (node.op, node.name)) from None
        inputs, controls = [], []
        for inp in node.input:
            op_name, index, is_control = _split_input(inp)
            key = "^" + op_name if is_control else "%s:%d" % (op_name, index)
            if key in input_map:
                mapped = input_map[key]
                if is_control:
                    controls.append(graph.as_graph_element(mapped, allow_tensor=False))
                else:
                    inputs.append(convert_to_tensor(mapped))
                continue
            if op_name not in ops:
                raise ValueError("Node '%s': Unknown input node '%s'" % (node.name, inp))
            if is_control:
                controls.append(ops[op_name])
            else:
                inputs.append(ops[op_name].outputs[index])
        attrs = {}
        for key, value in node.attr.items():
            if key.startswith("_") and key not in EXPORTED_PRIVATE_ATTRS:
                continue
            attrs[key] = from_attr_value(value, node.name, key)
        if "_class" in attrs:             # colocation groups name nodes of this import
            attrs["_class"] = [c.replace("loc:@", "loc:@" + prefix, 1)
                               if c.startswith("loc:@") else c for c in attrs["_class"]]
        full_name = prefix + node.name
        try:
            op = graph._create_op(op_type, inputs, attrs, name=full_name + "/",
                                  control_inputs=controls)
        except (TypeError, ValueError, KeyError, IndexError) as e:
            raise ValueError("Cannot import node '%s' (op %s) into tfteach: %s"
                             % (node.name, node.op, e)) from None
        if node.device:
            op._device = node.device
        _mark_name_used(graph, full_name)
        ops[node.name] = op
    return ops


def _mark_name_used(graph, name):
    """So later ops and scopes get `name_1` rather than clashing (as TF's import does)."""
    parts = name.split("/")
    for i in range(1, len(parts) + 1):
        key = "/".join(parts[:i]).lower()
        graph._names_in_use.setdefault(key, 1)


def _return_element(graph, ops, prefix, element):
    op_name, index, _ = _split_input(element)
    op = ops.get(op_name)
    if op is None:
        raise ValueError("Requested return_element %r not found in graph_def." % element)
    if ":" in element:
        if index >= len(op.outputs):
            raise ValueError("Requested return_element %r not found in graph_def." % element)
        return op.outputs[index]
    return op
