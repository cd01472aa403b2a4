"""TensorFlow's `FunctionDef`: a graph of ops as a function of `GraphDef.library`.

tf.data's functions (a `map`'s `f`, a one-shot iterator's `dataset_factory`) are not
nodes of the GraphDef but FunctionDefs in its library, named by `func` attrs. A
FunctionDef is a small graph with a signature: `input_arg`s (the element's components,
then the captured outer tensors), `output_arg`s, and `ret` naming what each output is.
Its nodes name their inputs differently from a GraphDef's:

- an argument by its name (`args_0`);
- a node's output as `"node:output_arg_name:index"` (`"mul:z:0"`, `"Parse:dense_values:1"`),
  the output arg and the index within it, from the node's OpDef (op_defs.py).

`function_def` writes one from tfteach ops; `graph_nodes` turns one back into
GraphDef-style nodes (`"node:flat_index"`) for the importer.
"""
from tfteach.framework import op_defs
from tfteach.io.tf_protos import FunctionDef

__all__ = ["function_def", "graph_nodes", "output_args"]


def output_args(node):
    """[(output arg name, number of tensors)] of a NodeDef, from its OpDef; None if the
    table has no OpDef for its type."""
    definition = op_defs.op_def(node.op)
    if definition is None:
        return None
    result = []
    for arg in definition.output_arg:
        if arg.number_attr:
            count = node.attr[arg.number_attr].i
        elif arg.type_list_attr:
            count = len(node.attr[arg.type_list_attr].list.type)
        else:
            count = 1
        result.append((arg.name, count))
    return result


def _split(name):
    op_name, sep, index = name.rpartition(":")
    if sep and index.isdigit():
        return op_name, int(index)
    return name, 0


def _function_input(name, nodes, arg_names, error):
    """A GraphDef input string ("op", "op:2", "^op") in a FunctionDef's naming."""
    if name.startswith("^"):
        return name
    if name in arg_names:
        return arg_names[name]
    op_name, index = _split(name)
    node = nodes.get(op_name)
    args = output_args(node) if node is not None else None
    if args is None:
        raise error("Cannot write the output %r of op type %s into a FunctionDef: tfteach "
                    "has no OpDef for it." % (name, node.op if node else "?"))
    for arg_name, count in args:
        if index < count:
            return "%s:%s:%d" % (op_name, arg_name, index)
        index -= count
    raise error("Op %r has no output %r." % (op_name, name))


def function_def(name, ops, arguments, outputs, context, error, stateful=False):
    """The FunctionDef `name` of `ops` (tfteach Operations, in dependency order).

    `arguments`: [(arg name, tensor)], the tensors the arguments stand for (their ops
    are not written); `outputs`: [(output name, tensor)]; `context`: graph_def's
    ExportContext (writes each op's nodes, collects nested functions)."""
    fdef = FunctionDef()
    fdef.signature.name = name
    arg_names = {}
    argument_ops = set()
    for arg_name, tensor in arguments:
        fdef.signature.input_arg.add(name=arg_name,
                                     type=tensor.dtype.base_dtype.as_datatype_enum)
        arg_names[tensor._as_node_def_input()] = arg_name
        argument_ops.add(tensor.op)
    nodes = []
    for op in ops:
        if op in argument_ops:
            continue
        stateful = stateful or op._op_def.stateful
        nodes.extend(context.node_defs(op))
    by_name = {n.name: n for n in nodes}
    for node in nodes:
        inputs = [_function_input(i, by_name, arg_names, error) for i in node.input
                  if not (i.startswith("^") and i[1:] not in by_name)]
        del node.input[:]
        node.input.extend(inputs)
        node.device = ""
    fdef.node_def.extend(nodes)
    for out_name, tensor in outputs:
        fdef.signature.output_arg.add(name=out_name,
                                      type=tensor.dtype.base_dtype.as_datatype_enum)
        fdef.ret[out_name] = _function_input(tensor._as_node_def_input(), by_name,
                                             arg_names, error)
    fdef.signature.is_stateful = stateful
    return fdef


def _graph_input(name, nodes, args):
    """A FunctionDef input ("arg", "op:out:i", "^op") in GraphDef naming."""
    if name.startswith("^") or name in args:
        return name
    parts = name.split(":")
    if len(parts) != 3:
        return name
    op_name, arg_name, index = parts[0], parts[1], int(parts[2])
    node = nodes.get(op_name)
    if node is None:
        raise ValueError("FunctionDef input %r names no node of the function." % name)
    args = output_args(node)
    if args is None:
        raise ValueError("Op type not registered '%s' in tfteach's OpDef table, needed by "
                         "node '%s' of a function of the GraphDef." % (node.op, op_name))
    offset = 0
    for candidate, count in args:
        if candidate == arg_name:
            return "%s:%d" % (op_name, offset + index)
        offset += count
    raise ValueError("Op %s (%s) has no output %r." % (op_name, node.op, arg_name))


def graph_nodes(fdef):
    """(nodes, ret): the FunctionDef's nodes with GraphDef-style inputs ("op:flat_index";
    arguments keep their names) and {output name: input string} for what it returns."""
    args = {a.name for a in fdef.signature.input_arg}
    by_name = {n.name: n for n in fdef.node_def}
    nodes = []
    for original in fdef.node_def:
        node = type(original)()
        node.CopyFrom(original)
        del node.input[:]
        node.input.extend(_graph_input(i, by_name, args) for i in original.input)
        nodes.append(node)
    ret = {key: _graph_input(value, by_name, args) for key, value in fdef.ret.items()}
    return nodes, ret
