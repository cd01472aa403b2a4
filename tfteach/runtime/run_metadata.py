"""`tf.RunMetadata` and its step stats: the record of what one `sess.run` executed.

With `RunOptions(trace_level=FULL_TRACE)` every executed node gets a NodeExecStats
(name, op type, device, start and end time, output bytes) in execution order — the
record the notebook views draw "which nodes ran" from. Field names follow TensorFlow's
step_stats.proto so code written for TF reads it unchanged, and a RunMetadata prints,
serializes and answers `ListFields`/`HasField` as TF's protobuf message does, through
the message it stands for (`to_proto()`; TensorBoard's compiled config.proto, imported
only then). As in TF, each `sess.run` given a RunMetadata replaces what it held.
"""

__all__ = ["RunMetadata", "StepStats", "DeviceStepStats", "NodeExecStats", "NodeOutput",
           "AllocationDescription", "TensorDescription", "ShapeDescription", "PartitionGraph"]

# TF 1.15's GraphDef producer version (TF_GRAPH_DEF_VERSION), printed in partition graphs.
GRAPH_DEF_VERSION = 134


class AllocationDescription:
    def __init__(self, requested_bytes=0, allocated_bytes=0, allocator_name=""):
        self.requested_bytes = requested_bytes
        self.allocated_bytes = allocated_bytes
        self.allocator_name = allocator_name


class TensorDescription:
    """An output's dtype (TF's DataType number: DT_FLOAT is 1, a reference type 101) and
    shape (a TensorShapeProto's `dim[i].size`), and its allocation."""

    def __init__(self, dtype, shape, allocation_description):
        self.dtype = dtype
        self.shape = ShapeDescription(shape)
        self.allocation_description = allocation_description


class Dim:
    __slots__ = ("size", "name")

    def __init__(self, size):
        self.size, self.name = size, ""


class ShapeDescription:
    """A TensorShapeProto as step stats hold it: `dim` (each with `size`), printed in
    protobuf text form (a scalar's shape prints as nothing)."""
    unknown_rank = False

    def __init__(self, sizes):
        self.dim = [Dim(int(size)) for size in sizes]

    def __str__(self):
        return "".join("dim {\n  size: %d\n}\n" % d.size for d in self.dim)

    __repr__ = __str__


class NodeOutput:
    def __init__(self, slot, tensor_description):
        self.slot = slot
        self.tensor_description = tensor_description


class NodeExecStats:
    """One executed node: TensorFlow's NodeExecStats fields, plus `op` (its type)."""
    # TF's fields tfteach does not measure, at their protobuf defaults.
    scheduled_micros = 0
    thread_id = 0
    memory = ()
    referenced_tensor = ()

    def __init__(self, node_name, op, device, all_start_micros, op_end_rel_micros, output,
                 execution_index, inputs=()):
        self.node_name = node_name
        self.op = op
        self.device = device
        self.all_start_micros = all_start_micros
        self.op_start_rel_micros = 0
        self.op_end_rel_micros = op_end_rel_micros
        self.all_end_rel_micros = op_end_rel_micros
        self.output = output
        self.execution_index = execution_index
        # TF's label: the node's NodeDef inputs ("x", "y:1", "^ctrl"), as the executor
        # writes it (what Chrome-trace timelines show)
        self.timeline_label = "%s = %s(%s)" % (node_name, op, ", ".join(inputs))

    @property
    def output_bytes(self):
        return sum(o.tensor_description.allocation_description.allocated_bytes
                   for o in self.output)

    def __str__(self):
        """TF's protobuf text form (what `print(node_stats)` shows in TF)."""
        proto = _empty_step_stats_proto().dev_stats.add().node_stats.add()
        _fill_node_proto(proto, self)
        return str(proto)

    __repr__ = __str__


class DeviceStepStats:
    def __init__(self, device):
        self.device = device
        self.node_stats = []

    def __str__(self):
        proto = _empty_step_stats_proto().dev_stats.add(device=self.device)
        for node in self.node_stats:
            _fill_node_proto(proto.node_stats.add(), node)
        return str(proto)

    __repr__ = __str__


def _empty_step_stats_proto():
    from tfteach.io.tf_protos import RunMetadataProto
    return RunMetadataProto().step_stats


class StepStats:
    # step name -> its output values, filled only when a run observer asks for them
    # (runtime/run_observers.py); None (the class default) costs nothing.
    node_outputs = None

    def __init__(self):
        self.dev_stats = []

    def device(self, name):
        """The DeviceStepStats for `name`, created on first use."""
        for d in self.dev_stats:
            if d.device == name:
                return d
        d = DeviceStepStats(name)
        self.dev_stats.append(d)
        return d

    def all_nodes(self):
        """Every NodeExecStats of the step, in execution order."""
        nodes = [n for d in self.dev_stats for n in d.node_stats]
        return sorted(nodes, key=lambda n: n.execution_index)

    def fill_proto(self, proto):
        """Writes these stats into TF's StepStats message `proto`."""
        for dev in self.dev_stats:
            dev_proto = proto.dev_stats.add(device=dev.device)
            for node in dev.node_stats:
                _fill_node_proto(dev_proto.node_stats.add(), node)

    def __str__(self):
        proto = _empty_step_stats_proto()
        self.fill_proto(proto)
        return str(proto)

    __repr__ = __str__


def _fill_node_proto(stats, node):
    stats.node_name = node.node_name
    stats.all_start_micros = int(node.all_start_micros)
    stats.op_start_rel_micros = int(node.op_start_rel_micros)
    stats.op_end_rel_micros = int(node.op_end_rel_micros)
    stats.all_end_rel_micros = int(node.all_end_rel_micros)
    stats.timeline_label = node.timeline_label
    for out in node.output or ():
        desc = out.tensor_description
        proto_desc = stats.output.add(slot=out.slot).tensor_description
        proto_desc.dtype = desc.dtype
        proto_desc.shape.SetInParent()
        for dim in desc.shape.dim:
            proto_desc.shape.dim.add(size=dim.size)
        alloc = desc.allocation_description
        proto_alloc = proto_desc.allocation_description
        proto_alloc.requested_bytes = int(alloc.requested_bytes)
        proto_alloc.allocated_bytes = int(alloc.allocated_bytes)
        proto_alloc.allocator_name = alloc.allocator_name


class PartitionGraph:
    """One device's part of a run (`RunMetadata.partition_graphs[i]`): a GraphDef-like
    list of NodeDefs, each with its `device` set, printed in protobuf text form."""

    def __init__(self, nodes):
        self.node = list(nodes)

    @property
    def device(self):
        """The device of this partition (tfteach convenience; TF leaves it implicit)."""
        return self.node[0].device if self.node else ""

    def __str__(self):
        lines = []
        for node in self.node:
            lines.append("node {")
            lines += ["  " + line for line in str(node).splitlines()]
            lines.append("}")
        lines += ["library {", "}", "versions {", "  producer: %d" % GRAPH_DEF_VERSION, "}"]
        return "\n".join(lines) + "\n"

    __repr__ = __str__


def _fill_node_def_proto(proto, node):
    """A partition graph's NodeDef (name, op, inputs, device, the attrs TF writes)."""
    from tfteach.framework.attr_values import EXPORTED_PRIVATE_ATTRS, to_attr_value
    proto.name, proto.op, proto.device = node.name, node.op, node.device or ""
    proto.input.extend(node.input)
    for key, value in sorted(node.attr.items()):
        if key.startswith("_") and key not in EXPORTED_PRIVATE_ATTRS:
            continue
        try:
            proto.attr[key].CopyFrom(to_attr_value(value, node.name, key))
        except TypeError:
            del proto.attr[key]       # a tfteach-only value (a loop's body): not TF's


class RunMetadata:
    """Filled by `sess.run(..., options=RunOptions(trace_level=FULL_TRACE), run_metadata=m)`."""

    def __init__(self):
        self.step_stats = StepStats()
        self.partition_graphs = []
        self._cost_graph = None

    @property
    def cost_graph(self):
        """TF's CostGraphDef: empty, as TF 1.15 leaves it unless
        `GraphOptions(build_cost_model=...)` asks for one (tfteach never builds it)."""
        if self._cost_graph is None:
            from tfteach.io.tf_protos import RunMetadataProto
            self._cost_graph = RunMetadataProto().cost_graph
        return self._cost_graph

    def Clear(self):  # noqa: N802 - protobuf's method name
        self.__init__()

    def clear_for_run(self):
        """What `sess.run` does before it fills this RunMetadata: TF replaces the whole
        message after every run given one (an untraced run leaves it empty). The StepStats
        object stays, so a run observer's `node_outputs` request survives."""
        self.step_stats.dev_stats = []
        self.partition_graphs = []
        self._cost_graph = None

    def executed_nodes(self):
        """Names of the nodes the run executed, in order (tfteach convenience)."""
        return [n.node_name for n in self.step_stats.all_nodes()]

    # -- TF's protobuf message, for what programs do with it --------------------------
    def to_proto(self):
        """TensorFlow's RunMetadata message with these step stats and partition graphs
        (each NodeDef with its name, op, inputs and device)."""
        from tfteach.io.tf_protos import RunMetadataProto
        proto = RunMetadataProto()
        self.step_stats.fill_proto(proto.step_stats)
        for graph in self.partition_graphs:
            part = proto.partition_graphs.add()
            part.library.SetInParent()          # printed as PartitionGraph prints it
            part.versions.producer = GRAPH_DEF_VERSION
            for node in graph.node:
                _fill_node_def_proto(part.node.add(), node)
        return proto

    def __str__(self):
        return str(self.to_proto())

    __repr__ = __str__

    def SerializeToString(self, **kwargs):  # noqa: N802 - protobuf's method names
        return self.to_proto().SerializeToString(**kwargs)

    def ByteSize(self):  # noqa: N802
        return self.to_proto().ByteSize()

    def ListFields(self):  # noqa: N802
        return self.to_proto().ListFields()

    def HasField(self, field_name):  # noqa: N802
        return self.to_proto().HasField(field_name)
