"""`tf.RunMetadata` and its step stats: the record of what one `sess.run` executed.

With `RunOptions(trace_level=FULL_TRACE)` every executed node gets a NodeExecStats
(name, op type, device, start and end time, output bytes) in execution order — the
record the notebook views draw "which nodes ran" from. Field names follow TensorFlow's
step_stats.proto so code written for TF reads it unchanged.
"""

__all__ = ["RunMetadata", "StepStats", "DeviceStepStats", "NodeExecStats", "NodeOutput",
           "AllocationDescription", "TensorDescription", "PartitionGraph"]

# TF 1.15's GraphDef producer version (TF_GRAPH_DEF_VERSION), printed in partition graphs.
GRAPH_DEF_VERSION = 134


class AllocationDescription:
    def __init__(self, requested_bytes=0, allocated_bytes=0, allocator_name=""):
        self.requested_bytes = requested_bytes
        self.allocated_bytes = allocated_bytes
        self.allocator_name = allocator_name


class TensorDescription:
    def __init__(self, dtype, shape, allocation_description):
        self.dtype = dtype
        self.shape = shape
        self.allocation_description = allocation_description


class NodeOutput:
    def __init__(self, slot, tensor_description):
        self.slot = slot
        self.tensor_description = tensor_description


class NodeExecStats:
    """One executed node: TensorFlow's NodeExecStats fields, plus `op` (its type)."""

    def __init__(self, node_name, op, device, all_start_micros, op_end_rel_micros, output,
                 execution_index):
        self.node_name = node_name
        self.op = op
        self.device = device
        self.all_start_micros = all_start_micros
        self.op_start_rel_micros = 0
        self.op_end_rel_micros = op_end_rel_micros
        self.all_end_rel_micros = op_end_rel_micros
        self.output = output
        self.execution_index = execution_index
        self.timeline_label = "%s = %s()" % (node_name, op)

    @property
    def output_bytes(self):
        return sum(o.tensor_description.allocation_description.allocated_bytes
                   for o in self.output)

    def __repr__(self):
        return "NodeExecStats(%r, op=%r, device=%r, %d us, %d bytes)" % (
            self.node_name, self.op, self.device, self.op_end_rel_micros, self.output_bytes)


class DeviceStepStats:
    def __init__(self, device):
        self.device = device
        self.node_stats = []


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


class RunMetadata:
    """Filled by `sess.run(..., options=RunOptions(trace_level=FULL_TRACE), run_metadata=m)`."""

    def __init__(self):
        self.step_stats = StepStats()
        self.partition_graphs = []
        self.cost_graph = None

    def Clear(self):  # noqa: N802 - protobuf's method name
        self.__init__()

    def executed_nodes(self):
        """Names of the nodes the run executed, in order (tfteach convenience)."""
        return [n.node_name for n in self.step_stats.all_nodes()]
