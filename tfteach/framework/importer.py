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

__all__ = ["import_graph_def", "as_graph_def_proto", "register_node_importer",
           "import_function_body"]

# Op types whose nodes another layer rebuilds (tf.data: tfteach/data/graph_import.py):
# `rebuild(importer, node, inputs, attrs, functions)` returns (inputs, attrs) for the op
# to create; `functions` are the node's `func` attrs ({attr: function name}), which
# `importer.library` (the GraphDef's FunctionDefs by name) defines.
_NODE_IMPORTERS = {}


def register_node_importer(op_type, rebuild):
    _NODE_IMPORTERS[op_type] = rebuild

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
        library = {f.signature.name: f for f in graph_def.library.function}
        ops = _import_nodes(graph, list(graph_def.node), input_map, prefix, library)
    if return_elements is None:
        return None
    return [_return_element(graph, ops, prefix, e) for e in return_elements]


def _import_nodes(graph, nodes, input_map, prefix, library):
    from tfteach.framework import frame_import
    _check_registered(nodes)
    frame_of, frames = frame_import.find_frames(nodes)
    importer = _Importer(graph, nodes, frame_of, input_map, prefix, library)
    importer.import_level(None, [n for n in nodes if frame_of.get(n.name) is None],
                          [f for f in frames if f.parent is None])
    return importer.ops


def import_function_body(graph, fdef, arguments, prefix, library):
    """Adds the nodes of FunctionDef `fdef` to `graph` (names prefixed by `prefix`),
    its arguments standing for the tensors `arguments` ({arg name: Tensor}); returns the
    tensors it returns, in its signature's output order."""
    from tfteach.framework import function_def
    nodes, ret = function_def.graph_nodes(fdef)
    input_map = {"%s:0" % name: tensor for name, tensor in arguments.items()}
    with graph.as_default():
        ops = _import_nodes(graph, nodes, input_map, prefix, library)
    results = []
    for out in fdef.signature.output_arg:
        op_name, index, _ = _split_input(ret[out.name])
        results.append(arguments[op_name] if op_name in arguments
                       else ops[op_name].outputs[index])
    return results


def _check_registered(nodes):
    """One error naming every op type of the GraphDef tfteach does not have."""
    from tfteach.framework.frame_import import ENTERS
    missing = {}
    for node in nodes:
        op_type = _REF_TWINS.get(node.op, node.op)
        if op_type in ENTERS or op_type in _NODE_IMPORTERS:
            continue
        try:
            registry.get_op_def(op_type)
        except KeyError:
            missing.setdefault(node.op, node.name)
    if missing:
        first = next(iter(missing))
        others = sorted(set(missing) - {first})
        raise ValueError("Op type not registered '%s' in tfteach, needed by node '%s' of "
                         "the GraphDef.%s" % (first, missing[first], (
                             " Nor are: %s." % ", ".join(others)) if others else ""))


class _Importer:
    """Creates a GraphDef's ops level by level: the root's nodes, and each frame (a
    while loop) as one unit, rebuilt by frame_import.build_loop."""

    def __init__(self, graph, nodes, frame_of, input_map, prefix, library=None):
        self.graph = graph
        self.library = library or {}
        self.by_name = {n.name: n for n in nodes}
        self.frame_of = frame_of
        self.input_map = input_map
        self.prefix = prefix
        self.ops = {}                     # node name -> Operation
        self.mapped = {}                  # loop structure: "node:i" / "^node" -> element

    def unit_of(self, name, level):
        """The unit at `level` that produces node `name`: the node, the child frame
        holding it, or None when it lives further out (already imported)."""
        frame = self.frame_of.get(name)
        if frame is level:
            return self.by_name[name]
        child = frame
        while child is not None and child.parent is not level:
            child = child.parent
        return child

    def _unit_inputs(self, unit):
        from tfteach.framework.frame_import import Frame
        if not isinstance(unit, Frame):
            return [_split_input(i)[0] for i in unit.input]
        names = []
        stack = [unit]
        while stack:
            frame = stack.pop()
            stack.extend(frame.children)
            for node in frame.nodes:
                names.extend(_split_input(i)[0] for i in self.by_name[node].input)
        return names

    def import_level(self, level, nodes, frames):
        from tfteach.framework import frame_import
        units = list(nodes) + list(frames)
        members = {id(u) for u in units}
        order, state = [], {}
        for root in units:
            if id(root) in state:
                continue
            stack = [(root, False)]
            while stack:
                unit, done = stack.pop()
                if done:
                    state[id(unit)] = 2
                    order.append(unit)
                    continue
                if state.get(id(unit)):
                    continue
                state[id(unit)] = 1
                stack.append((unit, True))
                for name in self._unit_inputs(unit):
                    if name not in self.by_name:
                        continue
                    dep = self.unit_of(name, level)
                    if dep is None or dep is unit or id(dep) not in members:
                        continue
                    if state.get(id(dep)) == 1:
                        raise ValueError(
                            "GraphDef has a cycle through node '%s' that does not go "
                            "through a while loop's Merge." % getattr(dep, "name", dep))
                    if id(dep) not in state:
                        stack.append((dep, False))
        for unit in order:
            if isinstance(unit, frame_import.Frame):
                frame_import.build_loop(self, unit)
            elif unit.name not in self.ops:   # (a loop's Exits come with the loop)
                self.create(unit)

    def resolve(self, inp, node_name):
        """The Tensor (or, for "^x", the Operation) an input string names."""
        from tfteach.framework.convert import convert_to_tensor
        op_name, index, is_control = _split_input(inp)
        key = "^" + op_name if is_control else "%s:%d" % (op_name, index)
        if key in self.mapped:
            return self.mapped[key]
        if key in self.input_map:
            mapped = self.input_map[key]
            if is_control:
                return self.graph.as_graph_element(mapped, allow_tensor=False)
            return convert_to_tensor(mapped)
        if op_name not in self.ops:
            raise ValueError("Node '%s': Unknown input node '%s'" % (node_name, inp))
        return self.ops[op_name] if is_control else self.ops[op_name].outputs[index]

    def create(self, node):
        graph, prefix = self.graph, self.prefix
        op_type = _REF_TWINS.get(node.op, node.op)
        inputs, controls = [], []
        for inp in node.input:
            element = self.resolve(inp, node.name)
            if inp.startswith("^"):
                controls.append(getattr(element, "op", element))
            else:
                inputs.append(element)
        attrs, functions = {}, {}
        for key, value in _with_default_attrs(node).items():
            if key.startswith("_") and key not in EXPORTED_PRIVATE_ATTRS:
                continue
            if value.WhichOneof("value") == "func":
                functions[key] = value.func.name
                continue
            attrs[key] = from_attr_value(_resource_as_string(value), node.name, key)
        rebuild = _NODE_IMPORTERS.get(op_type)
        if rebuild is not None:
            try:
                op_type, inputs, attrs = rebuild(self, node, inputs, attrs, functions)
            except (TypeError, KeyError, IndexError) as e:
                raise ValueError("Cannot import node '%s' (op %s) into tfteach: %s"
                                 % (node.name, node.op, e)) from None
        elif functions:
            raise ValueError("Cannot import node '%s' (op %s) into tfteach: its attr '%s' "
                             "is a function, which tfteach reads only for tf.data ops."
                             % (node.name, node.op, next(iter(functions))))
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
        self.ops[node.name] = op
        return op


def _with_default_attrs(node):
    """The node's attrs, plus the defaults its OpDef gives for the ones it leaves out: a
    GraphDef written with `strip_default_attrs=True` (or by an older TensorFlow, before
    an attr existed) omits them, and TensorFlow's importer fills them in the same way."""
    from tfteach.framework.op_defs import op_def
    attrs = dict(node.attr.items())
    definition = op_def(node.op)
    if definition is not None:
        for attr in definition.attr:
            if attr.name not in attrs and attr.HasField("default_value"):
                attrs[attr.name] = attr.default_value
    return attrs


_DT_RESOURCE = 20


def _resource_as_string(attr):
    """A `type: DT_RESOURCE` attr (a Switch of a stack handle in TF's loop gradients) as
    `string`: tfteach keeps stack and TensorArray handles as host objects of that dtype."""
    if attr.WhichOneof("value") == "type" and attr.type == _DT_RESOURCE:
        return type(attr)(type=7)         # DT_STRING
    return attr


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
