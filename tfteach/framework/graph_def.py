"""`Graph.as_graph_def()`: a tfteach graph as TensorFlow's `GraphDef` protocol buffer.

Each Operation becomes a NodeDef with TensorFlow's op type, inputs (`"op"`, `"op:1"`,
`"^op"` for control inputs), requested device and attrs (attr_values.py). tfteach's op
types are TensorFlow's names, so the GraphDef imports into TensorFlow as it is, with two
kinds of exception:

- ops tfteach fuses for speed are written as the ops TensorFlow builds instead
  (`ScaleShift`, the `* stddev + mean` of `tf.random_normal`, becomes `name/mul` (Mul) and
  `name` (AddV2); `UniformRange` becomes `name/sub`, `name/mul` and `name`), exactly the
  nodes TF 1.15's `random_ops` builds;
- a `tf.while_loop` (tfteach's one `While` op, and its `WhileGrad`) is written as TF
  1.15's Enter/Merge/Switch/NextIteration/Exit frame (loop_frames.py);
- ops with no TensorFlow NodeDef (tfteach's reduction helpers) raise a ValueError
  naming the op and its type.
"""
from tfteach.framework import loop_frames
from tfteach.framework.attr_values import EXPORTED_PRIVATE_ATTRS, to_attr_value
from tfteach.framework.tensor_proto import shape_proto
from tfteach.io.tf_protos import GraphDef

__all__ = ["graph_to_graph_def", "GRAPH_DEF_PRODUCER", "NotExportableError",
           "register_node_writer", "ExportContext"]

# The `versions.producer` written into every GraphDef: TF 1.15's TF_GRAPH_DEF_VERSION
# (the value runtime/run_metadata.py prints in partition graphs).
GRAPH_DEF_PRODUCER = 134

# tfteach-only op types and why TensorFlow has no NodeDef for them.
# (While, WhileGrad, LoopVar and LoopHistory are written as TF 1.15's frames:
# loop_frames.py, grad_frames.py.)
_NOT_EXPRESSIBLE = {}
_HELPER_NOTE = "a helper op of tfteach's own (TensorFlow builds it from several ops)"
for _type in ("AllAxes", "CountNonzero", "ReduceLogSumExp", "ReducedShape",
              "ReductionPermutation", "ValidWeightsShape"):
    _NOT_EXPRESSIBLE[_type] = _HELPER_NOTE


class NotExportableError(ValueError):
    """An op that TensorFlow's GraphDef cannot express."""


# Op types whose NodeDefs another layer writes (tf.data: tfteach/data/graph_export.py):
# `writer(op, context)` returns the NodeDefs; the context gives the plain NodeDef of an
# op and collects the FunctionDefs their `func` attrs name into `GraphDef.library`.
_NODE_WRITERS = {}


def register_node_writer(op_type, writer):
    _NODE_WRITERS[op_type] = writer


class ExportContext:
    """What a node writer may use: `node_def(op)` (the NodeDef as written by default),
    `node_defs(op)` (all nodes of an op, lowerings included), `add_function(fdef)`."""

    def __init__(self, names, add_shapes, library):
        self.names = names
        self.add_shapes = add_shapes
        self.library = library
        self._functions = {f.signature.name for f in library.function}

    def node_def(self, op, skip=()):
        """The op's NodeDef as written by default, without the attrs named in `skip`."""
        return _node_def(op, self.add_shapes, skip=skip)

    def node_defs(self, op):
        return _node_defs(op, self.names, self.add_shapes, context=self)

    def has_function(self, name):
        return name in self._functions

    def add_function(self, function_def):
        if function_def.signature.name not in self._functions:
            self._functions.add(function_def.signature.name)
            self.library.function.add().CopyFrom(function_def)


def graph_to_graph_def(graph, from_version=None, add_shapes=False, for_display=False):
    """The GraphDef of `graph`'s ops (those with id > from_version when given).

    `for_display` (TensorBoard's graph view): ops TensorFlow cannot express are written
    with tfteach's own op type instead of raising, since the view only draws them."""
    graph_def = GraphDef()
    graph_def.versions.producer = GRAPH_DEF_PRODUCER
    names = {op.name for op in graph.get_operations()}
    context = ExportContext(names, add_shapes, graph_def.library)
    frames = None
    if not for_display and loop_frames.needs_frames(graph):
        frames = loop_frames.FrameWriter(graph, names, NotExportableError)
    for op in graph.get_operations():
        if from_version is not None and op._id <= from_version:
            continue
        if frames is not None and frames.handles(op):
            nodes = frames.nodes_for(op, lambda op: _node_def(op, add_shapes))
        else:
            nodes = _node_defs(op, names, add_shapes, for_display, context)
        if frames is not None:
            frames.place(nodes, op)
        for node in nodes:
            graph_def.node.add().CopyFrom(node)
    if frames is not None:
        frames.finish(graph_def)
    return graph_def


_DISPLAY_ONLY = ("While", "WhileGrad", "LoopVar", "LoopHistory")


def _node_defs(op, names, add_shapes, for_display=False, context=None):
    if for_display and (op.type in _NOT_EXPRESSIBLE or op.type in _DISPLAY_ONLY or
                        op.type in _NODE_WRITERS):
        return [_node_def(op, add_shapes, display=True)]
    if op.type in _NOT_EXPRESSIBLE:
        raise NotExportableError(
            "Cannot write op '%s' (type %s) as a TensorFlow NodeDef: %s."
            % (op.name, op.type, _NOT_EXPRESSIBLE[op.type]))
    writer = _NODE_WRITERS.get(op.type)
    if writer is not None:
        if context is None:
            context = ExportContext(names, add_shapes, GraphDef().library)
        return writer(op, context)
    lowering = _LOWERINGS.get(op.type)
    if lowering is not None:
        return lowering(op, names)
    return [_node_def(op, add_shapes)]


def _input_names(op):
    return [t._as_node_def_input() for t in op.inputs] + ["^" + c.name
                                                           for c in op.control_inputs]


def _node_def(op, add_shapes=False, display=False, skip=()):
    from tfteach.io.tf_protos import NodeDef
    node = NodeDef(name=op.name, op=op.type, device=op.device)
    node.input.extend(_input_names(op))
    for key, value in sorted(op._attrs.items()):
        if (key.startswith("_") and key not in EXPORTED_PRIVATE_ATTRS) or key in skip:
            continue
        try:
            node.attr[key].CopyFrom(to_attr_value(value, op.name, key))
        except TypeError:
            if not display:
                raise
            del node.attr[key]            # a loop's body names etc.: nothing to draw
    if add_shapes:
        shapes = node.attr["_output_shapes"].list
        for t in op.outputs:
            shapes.shape.add().CopyFrom(shape_proto(t.shape))
    return node


def _fresh_name(base, names):
    """`base`, or `base_1`, ... when a node of the graph already has that name."""
    name, i = base, 0
    while name in names:
        i += 1
        name = "%s_%d" % (base, i)
    names.add(name)
    return name


def _simple_node(name, op_type, inputs, dtype, device, controls=()):
    from tfteach.io.tf_protos import NodeDef
    node = NodeDef(name=name, op=op_type, device=device)
    node.input.extend(list(inputs) + ["^" + c for c in controls])
    node.attr["T"].CopyFrom(to_attr_value(dtype))
    return node


def _lower_scale_shift(op, names):
    """`values * scale + shift` as TF's random_normal/truncated_normal write it."""
    values, scale, shift = [t._as_node_def_input() for t in op.inputs]
    controls = [c.name for c in op.control_inputs]
    dtype = op.outputs[0].dtype.base_dtype
    mul = _fresh_name(op.name + "/mul", names)
    return [_simple_node(mul, "Mul", [values, scale], dtype, op.device, controls),
            _simple_node(op.name, "AddV2", [mul, shift], dtype, op.device)]


def _lower_uniform_range(op, names):
    """`values * (maxval - minval) + minval` as TF's random_uniform writes it."""
    values, minval, maxval = [t._as_node_def_input() for t in op.inputs]
    controls = [c.name for c in op.control_inputs]
    dtype = op.outputs[0].dtype.base_dtype
    sub = _fresh_name(op.name + "/sub", names)
    mul = _fresh_name(op.name + "/mul", names)
    return [_simple_node(sub, "Sub", [maxval, minval], dtype, op.device, controls),
            _simple_node(mul, "Mul", [values, sub], dtype, op.device),
            _simple_node(op.name, "AddV2", [mul, minval], dtype, op.device)]


_LOWERINGS = {"ScaleShift": _lower_scale_shift, "UniformRange": _lower_uniform_range}
