"""Placement: which device runs each op, by TensorFlow 1.15's rules (placer.cc).

A Session places its graph once, the first time it runs, and then each op added later
(TensorFlow places the whole graph, not only what a fetch needs, so a bad
`tf.device` anywhere in the graph fails every run, as it does in TF). For each op:

1. Colocation: an op that takes a variable by reference (Assign, AssignAdd,
   IsVariableInitialized, the optimizers' Apply ops) and the variable's snapshot
   `v/read` go where the VariableV2 goes — the variable decides (TF's ref edges and
   `colocate_with`). An op with a `_class: ["loc:@name"]` attribute follows `name`.
2. Requested device (`op.device`, possibly partial: `/gpu:1`, `/device:GPU:*`,
   `/job:localhost/replica:0/task:0`): the first matching device, GPUs before the CPU.
   No match -> InvalidArgumentError "Cannot assign a device for operation ...", unless
   `allow_soft_placement=True`: then the type and index are dropped and the op gets the
   default device below (TF: GPU:0 when the op can run there, else the CPU).
3. No request: GPU:0 if there is a GPU and the op can run on one, else the CPU.
4. TF's "Heuristic A": a generator (no inputs, one non-ref output: Const, Placeholder)
   is placed second, on its consumers' device when they all agree.

"Can run on a GPU": a real GPU needs a registered GPU kernel written for the op's dtypes
(its `supports(op)`, kernels/cuda/table.py: TF registers GPU kernels per dtype, so a
uint8 Cast or an int64 Sum without one stays on the CPU). A virtual GPU runs the CPU
kernel, so every op with one counts as having a GPU kernel — except those TensorFlow
keeps on the CPU: ops on strings, and the input-pipeline, summary, checkpoint, printing
and py_func ops of `CPU_ONLY_OPS` (no GPU kernel in TF 1.15). A Placeholder is placed
like any op; when it is fed, the value comes from the host (the client, CPU:0) and is
copied to the devices of its consumers.

A colocation group (a variable and the ops that take it by reference or follow it with
`colocate_with`) goes on a device type every member can run on, as TF's ColocationGraph
intersects its members' kernels: the epoch counter of `string_input_producer(...,
num_epochs=n)` is an int64 variable read by `CountUpTo`, which has no GPU kernel, so that
variable and its Assign stay on the CPU with their counter.
"""
from tfteach.framework import dtypes, errors
from tfteach.framework.device_spec import DeviceSpec
from tfteach.runtime import placement_log

__all__ = ["Placer", "CPU_ONLY_OPS", "register_cpu_only", "variable_of"]

CPU_ONLY_OPS = {
    "Print", "PrintV2", "PyFunc", "PyFuncStateless", "EagerPyFunc",
    "SaveV2", "RestoreV2", "Save", "Restore", "RestoreSlice", "SaveSlices",
    "MergeV2Checkpoints", "ShardedFilename", "ShardedFilespec",
    "ScalarSummary", "HistogramSummary", "ImageSummary", "AudioSummary", "AudioSummaryV2",
    "MergeSummary", "TensorSummary", "TensorSummaryV2",
    "SummaryWriter", "CreateSummaryFileWriter", "WriteScalarSummary",
    "WriteHistogramSummary", "WriteImageSummary", "WriteAudioSummary", "WriteSummary",
    "WriteGraphSummary", "ImportEvent", "FlushSummaryWriter", "CloseSummaryWriter",
    "FIFOQueue", "FIFOQueueV2", "RandomShuffleQueue", "RandomShuffleQueueV2",
    "PaddingFIFOQueue", "PaddingFIFOQueueV2", "QueueEnqueue", "QueueEnqueueV2",
    "QueueEnqueueMany", "QueueEnqueueManyV2", "QueueDequeue", "QueueDequeueV2",
    "QueueDequeueMany", "QueueDequeueManyV2", "QueueDequeueUpTo", "QueueDequeueUpToV2",
    "QueueClose", "QueueCloseV2", "QueueSize", "QueueSizeV2",
    "TFRecordReader", "TFRecordReaderV2", "WholeFileReader", "WholeFileReaderV2",
    "ReaderRead", "ReaderReadV2", "ReadFile", "WriteFile", "MatchingFiles",
    "DecodeRaw", "DecodeCSV", "ParseExample", "ParseSingleExample", "DecodeJpeg",
    "DecodePng", "DecodeImage", "EncodeJpeg", "EncodePng",
    "Iterator", "IteratorV2", "IteratorGetNext", "MakeIterator", "OneShotIterator",
    "RandomShuffle", "InTopK", "InTopKV2", "Unique", "ListDiff", "CountUpTo",
}

_SOFT_HINT = ("Hint: this machine has no such device. Use a device listed above, or let "
              "TensorFlow choose one with tf.ConfigProto(allow_soft_placement=True). "
              "Without a GPU, tfteach.config.set_virtual_gpus(n) gives n virtual ones.")


def register_cpu_only(op_type):
    """Marks `op_type` as having no GPU kernel (it stays on the CPU)."""
    CPU_ONLY_OPS.add(op_type)


def _has_string(op):
    return any(t.dtype.base_dtype == dtypes.string for t in op._inputs) or any(
        t.dtype.base_dtype == dtypes.string for t in op._outputs)


def _has_complex(op):
    return any(t.dtype.is_complex for t in list(op._inputs) + list(op._outputs))


def _any_dtype(op):
    return True


def _is_generator(op):
    return (not op._inputs and len(op._outputs) == 1 and
            not op._outputs[0].dtype.is_ref_dtype)


def variable_of(tensor):
    """The VariableV2 behind a ref tensor (through Assign-like ops returning the ref)."""
    op = tensor.op
    while op.type not in ("VariableV2", "Variable") and op._inputs and \
            op._inputs[0].dtype.is_ref_dtype:
        op = op._inputs[0].op
    return op if op.type in ("VariableV2", "Variable") else None


def colocation_root(op):
    """The op whose device `op` must share, or `op` itself."""
    loc = op._attrs.get("_class") if op._attrs else None
    if loc:
        for entry in loc:
            entry = entry.decode() if isinstance(entry, bytes) else entry
            if entry.startswith("loc:@"):
                target = op.graph._get_operation_or_none(entry[5:])
                if target is not None and target is not op:
                    return colocation_root(target)
    for i in op._op_def.ref_inputs:
        if i < len(op._inputs) and op._inputs[i].dtype.is_ref_dtype:
            var = variable_of(op._inputs[i])
            if var is not None:
                return var
    if (op.type == "Identity" and not op._device and len(op._inputs) == 1 and
            op._inputs[0].dtype.is_ref_dtype and
            op.name == op._inputs[0].op.name + "/read"):
        var = variable_of(op._inputs[0])     # the Variable's snapshot, as TF colocates it
        if var is not None:
            return var
    return op


def _matches(spec, device):
    return ((spec.job is None or spec.job == "localhost") and
            (spec.replica is None or spec.replica == 0) and
            (spec.task is None or spec.task == 0) and
            (spec.device_type is None or spec.device_type == device.device_type) and
            (spec.device_index is None or spec.device_index == device.index))


class Placer:
    """The device of every op of one Session's graph (cached: placement runs once)."""

    def __init__(self, graph, device_set, config):
        self.graph = graph
        self.devices = device_set
        self.soft = config is not None and bool(config.allow_soft_placement)
        self.log = config is not None and bool(config.log_device_placement)
        self.assigned = {}            # Operation -> Device
        self._members = {}            # colocation root -> the other ops of its group
        self._placed = 0              # ops of graph._nodes_in_order placed so far

    def device_of(self, op):
        device = self.assigned.get(op)
        if device is None:
            self.place_new_ops()
            device = self.assigned[op]
        return device

    def place_new_ops(self):
        """Places every op added to the graph since the last call (raises on failure;
        nothing is recorded then, so the next run fails the same way, as in TF)."""
        ops = self.graph._nodes_in_order
        if self._placed == len(ops):
            return
        new = ops[self._placed:]
        if not self.devices.has_gpu:
            # One device: only explicit requests can fail. Nothing else to decide.
            order = ([op for op in new if not _is_generator(op)] +
                     [op for op in new if _is_generator(op)])   # TF's order
            for op in order:
                if op._device:
                    self._choose(op)
            assigned = dict.fromkeys(new, self.devices.cpu)
        else:
            assigned, order = self._place_batch(new)
        self.assigned.update(assigned)
        self._placed = len(ops)
        if self.log:
            placement_log.log_placements([(op, assigned[op]) for op in order])

    def _place_batch(self, new):
        consumers = {}
        self._members = {}
        for op in new:
            root = colocation_root(op)
            if root is not op:
                self._members.setdefault(root, []).append(op)
            for t in op._inputs:
                consumers.setdefault(t.op, []).append(op)
            for c in op._control_inputs:
                consumers.setdefault(c, []).append(op)
        assigned = {}
        first = [op for op in new if not _is_generator(op)]
        second = [op for op in new if _is_generator(op)]
        for op in first:
            self._assign(op, assigned)
        for op in second:
            device = None
            users = consumers.get(op, ())
            if users and colocation_root(op) is op:
                targets = {self.assigned.get(u) or assigned.get(u) for u in users}
                if len(targets) == 1:
                    (target,) = targets
                    if target is not None and target in self._possible(op):
                        device = target
            if device is None:
                self._assign(op, assigned)
            else:
                assigned[op] = device
        return assigned, first + second

    def _assign(self, op, assigned):
        if op in assigned:
            return assigned[op]
        root = colocation_root(op)
        if root is not op:
            placed = self.assigned.get(root)
            device = placed or self._assign(root, assigned)
            if placed is not None and device.device_type == "GPU" and \
                    not self._runs_on_gpu(op):
                # The group was placed by an earlier run, before this member existed:
                # its variable keeps its device (TF keeps a stateful node's placement).
                raise self._colocation_error(op, root, device)
        else:
            device = self._choose(op)
        assigned[op] = device
        return device

    # -- the rules for one op --------------------------------------------------------------
    def _supported(self, op):
        """Device types `op` (with the rest of its colocation group, when it is the
        group's root) can run on, in TF's priority order (GPU first)."""
        if self._runs_on_gpu(op) and all(self._runs_on_gpu(member)
                                         for member in self._members.get(op, ())):
            return ["GPU", "CPU"]
        return ["CPU"]

    def _runs_on_gpu(self, op):
        if not self.devices.has_gpu or op.type in CPU_ONLY_OPS or _has_string(op):
            return False
        kernels = op._op_def.kernels
        if self.devices.gpus[0].kind != "cuda":
            return "CPU" in kernels or not kernels     # a virtual GPU runs the CPU kernel
        # tfteach's @cuda.jit kernels are real-valued: complex ops stay on the CPU.
        gpu = kernels.get("GPU")
        return (gpu is not None and not _has_complex(op) and
                getattr(gpu, "supports", _any_dtype)(op))

    def _possible(self, op):
        supported = self._supported(op)
        candidates = [d for d in self.devices.devices if d.device_type in supported]
        if op._device:
            spec = DeviceSpec.from_string(op._device)
            explicit = [d for d in candidates if _matches(spec, d)]
            if explicit or not self.soft:
                return explicit
        return candidates

    def _choose(self, op):
        supported = self._supported(op)
        rank = {t: i for i, t in enumerate(supported)}
        candidates = sorted((d for d in self.devices.devices if d.device_type in rank),
                            key=lambda d: (rank[d.device_type], d.index))
        if not op._device:
            return candidates[0]
        spec = DeviceSpec.from_string(op._device)
        matching = [d for d in self.devices.devices if _matches(spec, d)]
        usable = [d for d in candidates if d in matching]
        if usable:
            return usable[0]
        if self.soft:
            soft = DeviceSpec(spec.job, spec.replica, spec.task)
            usable = [d for d in candidates if _matches(soft, d)]
            if usable:
                return usable[0]
        raise self._error(op, spec, matching)

    def _colocation_error(self, op, root, device):
        detail = ("Could not satisfy explicit device specification '%s' because the node %s "
                  "was colocated with a group of nodes that required incompatible device "
                  "'%s'" % (op._device, op.name, device.name))
        lines = ["Cannot assign a device for operation %s: %s" % (op.name, detail),
                 "Colocation Debug Info:",
                 "Colocation members and user-requested devices:",
                 "  %s (%s) %s" % (root.name, root.type, root._device),
                 "  %s (%s) %s" % (op.name, op.type, op._device),
                 "\t [[%s]]" % op.name]
        error = errors.InvalidArgumentError(op.node_def, op, "\n".join(lines))
        error._located = True
        return error

    def _error(self, op, spec, matching):
        requested = op._device
        if matching and spec.device_type:
            detail = ("Could not satisfy explicit device specification '%s' because no "
                      "supported kernel for %s devices is available."
                      % (requested, spec.device_type))
        else:
            location = op.traceback_location
            node = ("node %s (defined at %s) " % (op.name, location) if location is not None
                    else "node %s" % op.name)
            detail = ("%s was explicitly assigned to %s but available devices are [ %s ]. "
                      "Make sure the device specification refers to a valid device."
                      % (node, requested, ", ".join(self.devices.names())))
        lines = ["Cannot assign a device for operation %s: %s" % (op.name, detail),
                 "\t [[%s]]" % op.name]
        location = op.traceback_location
        if location is not None and location.line:
            lines.append("\t  %s" % location.line)
        lines.append(_SOFT_HINT)
        error = errors.InvalidArgumentError(op.node_def, op, "\n".join(lines))
        error.hint = _SOFT_HINT
        error._located = True
        return error
