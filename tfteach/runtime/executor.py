"""The executor: prune a graph to what a fetch needs, order it, run its kernels.

A `Plan` is built once per (fetches, feeds, targets) signature and cached by the
Session. Building it:
  1. prune — walk back from the fetched tensors and target ops through data and control
     inputs, stopping at fed tensors (their producers do not run);
  2. order — ops in creation order, which is a topological order (an op's inputs always
     exist before it);
  3. slots — every value that is consumed later or fetched gets a slot in a flat list;
     after its last consumer a slot is cleared, so intermediates are freed early.
Running it is one tight loop over the steps. Kernel errors come back as TensorFlow's
OpErrors, with the failing node and the student's line that built it (`errors_text`).

Devices (docs/devices.md): every op runs where the Session's Placer put it. A value
consumed on another device than the one that produced it goes through a copy step,
`<tensor>/_copy_to_GPU:0`, recorded in the step stats as TensorFlow's GPU tracer names
copies (MEMCPYHtoD, MEMCPYDtoH, MEMCPYDtoD); feeds come from the host (CPU:0) and
fetches go back to it. On a GPU (virtual or real) every value a step produces is
accounted on that device's allocator while a slot holds it (`device_run.py`): a session
with only the CPU runs exactly the loops it ran before devices existed.
"""
import contextlib
import time

import numpy as np

from tfteach.framework import errors
from tfteach.framework.dead import DEAD
from tfteach.kernels.cpu import run_state, two_workers
from tfteach.runtime import (assign_forwarding, device_run, errors_text, fast_loop, fusion,
                             optimizer, ref_reads)
from tfteach.runtime.run_metadata import (AllocationDescription, NodeExecStats, NodeOutput,
                                          TensorDescription)

__all__ = ["Plan", "DEAD", "CPU_DEVICE", "deref"]

CPU_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"
# TensorFlow folds no constant bigger than this (10 MiB: the graph optimizer's
# max_constant_size_in_bytes, Grappler's kMaxConstantSize).
MAX_FOLDED_BYTES = 10 * 1024 * 1024
_NO_WINDOW = contextlib.nullcontext()


class Step:
    __slots__ = ("op", "kernel", "ctx", "in_slots", "out_slots", "single_out", "frees",
                 "ctrl_ops", "handles_dead", "device", "alloc", "name", "type", "source",
                 "links")

    def __init__(self, op, kernel, ctx, in_slots, out_slots, frees, device, alloc=None):
        self.op = op
        self.kernel = kernel
        self.ctx = ctx
        self.in_slots = in_slots
        self.out_slots = out_slots
        self.single_out = out_slots[0] if len(op._outputs) == 1 else None
        self.frees = frees
        self.ctrl_ops = op._control_inputs
        self.handles_dead = op._op_def.handles_dead_inputs
        self.device = device          # the assigned device's full name
        self.alloc = alloc            # its allocator, None on the CPU (not accounted)
        self.name = op.name           # as step stats name it
        self.type = op.type
        self.source = None            # copies: (tensor, source device name)
        # A chain fused on a virtual GPU: its links, which the accounting replays
        # (optimizer/elementwise_chains.py, accounted_loop.py); None for every other step.
        self.links = None

    @property
    def on_host_arrays(self):
        """Whether the step's values are host (NumPy) arrays: on the CPU, or on a virtual
        GPU, whose allocator only counts them; a real GPU's are device arrays."""
        alloc = self.alloc
        return alloc is None or alloc.virtual


def prune(fetch_tensors, feed_tensors, target_ops):
    """The ops that must run to compute the fetches and targets, given the feeds."""
    fed = set(feed_tensors)
    needed = set()
    stack = [t.op for t in fetch_tensors if t not in fed] + list(target_ops)
    while stack:
        op = stack.pop()
        if op in needed:
            continue
        needed.add(op)
        for t in op._inputs:
            if t not in fed and t.op not in needed:
                stack.append(t.op)
        # A control input whose outputs are all fed counts as done (TF replaces fed nodes).
        stack.extend(c for c in op._control_inputs
                     if c not in needed and not (c._outputs and all(t in fed for t in c._outputs)))
    return sorted(needed, key=lambda op: op._id)


class Plan:
    """The cached schedule of one fetch/feed/target signature in one Session."""

    def __init__(self, session, fetch_tensors, feed_tensors, target_ops, summed=(),
                 fed_reads=None, on_device=False):
        """`summed`: fetched tensors the caller only adds up (fusion.defer_summed_products);
        their fetched values may be DeferredProducts (kernels/cpu/linalg.py). `fed_reads`:
        {fed tensor: VariableV2 op} for feeds that are reads of a variable, live while
        the plan runs (a loop's captured `v/read`, runtime/loop_live_reads.py).
        `on_device`: a loop's sub-plan (loop_runner.py), whose feeds and fetches are the
        loop's own tensors: each stays on the device that makes it where that device
        keeps values in host memory (the CPU, a virtual GPU), as a TF loop's tensors stay
        in the frame's device memory, instead of being copied in from the client and
        back out every iteration (`device_run.stays_on_device`)."""
        ops = prune(fetch_tensors, feed_tensors, target_ops)
        self.ops = ops
        self._run_states = session._run_states   # per run in progress (run_state.py)
        # ConfigProto(intra_op_parallelism_threads=1): each step on its one thread
        # (BLAS one-threaded, no second worker), as TF runs each op on one thread.
        config = getattr(session, "_config", None)
        self.one_thread = config is not None and config.intra_op_parallelism_threads == 1
        placer = session._placer
        placer.place_new_ops()              # once per graph; raises placement errors
        client = placer.devices.cpu         # where feeds come from and fetches go
        device_of = placer.device_of
        if on_device:
            def source_of(t):
                return device_run.stays_on_device(device_of(t.op), client)
        else:
            def source_of(t):
                return client
        slot_of = {}

        def slot(key):
            if key not in slot_of:
                slot_of[key] = len(slot_of)
            return slot_of[key]

        fed = set(feed_tensors)
        self.feed_slots = [slot(t) for t in feed_tensors]
        devices = [device_of(op) for op in ops]
        # No real GPU among them: every value is a host array (virtual GPUs only account
        # it), so loop sub-plans may be specialised (loop_specialise.py).
        self.host_memory_only = all(d.kind != "cuda" for d in devices)
        # Inputs; a value needed on another device than its producer's gets a copy
        # (one per tensor and destination), made just before its first consumer.
        steps_inputs, copies_before = [], [[] for _ in ops]
        for i, op in enumerate(ops):
            ins = []
            for t in op._inputs:
                src = source_of(t) if t in fed else device_of(t.op)
                if src is devices[i]:
                    ins.append(slot(t))
                    continue
                key = (t, devices[i].name)
                if key not in slot_of:
                    copies_before[i].append((t, op, src, devices[i], slot(t), slot(key)))
                ins.append(slot_of[key])
            steps_inputs.append(tuple(ins))
        self.fetch_slots, fetch_copies = [], []
        for t in fetch_tensors:
            src = source_of(t) if t in fed else device_of(t.op)
            dst = source_of(t)                  # the client, or src for a loop's sub-plan
            if src is dst:
                self.fetch_slots.append(slot(t))
                continue
            key = (t, dst.name)
            if key not in slot_of:
                fetch_copies.append((t, t.op, src, dst, slot(t), slot(key)))
            self.fetch_slots.append(slot_of[key])
        self.steps = []
        for i, op in enumerate(ops):
            for args in copies_before[i]:
                self.steps.append(device_run.copy_step(*args))
            outs = tuple(slot(t) if t in slot_of and t not in fed else -1 for t in op._outputs)
            ctx = session._kernel_context(op)
            self.steps.append(Step(op, _value_reading(ctx.kernel, op), ctx, steps_inputs[i],
                                   outs, (), devices[i].name,
                                   device_run.allocator_for(op._outputs, devices[i])))
        self.steps.extend(device_run.copy_step(*args) for args in fetch_copies)
        self._copy_names = {(s.source[0], s.device): s.name for s in self.steps if s.source}
        # Every slot is freed after its last reader, unless it is fed or fetched.
        keep = set(self.feed_slots) | set(self.fetch_slots)
        last_use = {}
        for i, step in enumerate(self.steps):
            for s in step.in_slots:
                last_use[s] = i
        frees_at = [[] for _ in self.steps]
        for s, i in last_use.items():
            if s not in keep:
                frees_at[i].append(s)
        for step, frees in zip(self.steps, frees_at):
            step.frees = tuple(frees)
        assign_forwarding.forward_assigned_values(self.steps)
        self.num_slots = len(slot_of) + 1     # the last slot swallows unused outputs
        for step in self.steps:
            step.out_slots = tuple(self.num_slots - 1 if s == -1 else s for s in step.out_slots)
            if step.single_out is not None:
                step.single_out = step.out_slots[0]
        # Constants cost nothing per run: their values sit in a template of the slots and
        # the fast loop skips them (the traced loop still runs them, so views show them).
        self.template = [None] * self.num_slots
        self.fast_steps = []
        for step in self.steps:
            if step.source is None and step.op.type == "Const":
                on_card = not step.on_host_arrays
                # On a real GPU the template holds the device copy, made once (its kernel).
                self.template[step.single_out] = (step.kernel(step.ctx) if on_card
                                                  else step.op._attrs["value"])
            else:
                self.fast_steps.append(step)
        self.ref_fetches = [(i, t.op) for i, t in enumerate(fetch_tensors)
                            if t.dtype.is_ref_dtype]
        self.has_control_flow = any(op._op_def.handles_dead_inputs or op.type == "Switch"
                                    for op in ops)
        self.specialiser = None             # set by runtime/optimizer where shapes are fed
        if not self.has_control_flow:
            self._fold_constants()
        # A step that a write of its variable precedes reads the variable again when it
        # runs: TF1 reads alias the variable's buffer (runtime/ref_reads.py).
        replaced, self.fetch_rereads = ref_reads.read_when_run(
            self.steps, self.feed_slots, self.fetch_slots, session.variable_values,
            {slot_of[t]: v for t, v in fed_reads.items()} if fed_reads else None)
        if replaced:
            self.steps = [replaced.get(step, step) for step in self.steps]
            self.fast_steps = [replaced.get(step, step) for step in self.fast_steps]
        self._dead_aware_steps = None     # dead_aware_steps(), made when first asked
        # On a GPU, constants (and folded values) live in device memory for as long as
        # the session: they are accounted once, when the plan is built.
        self.accounted = any(step.alloc is not None for step in self.steps)
        if self.accounted:
            running = set(self.fast_steps)
            for step in self.steps:
                if step.alloc is not None and step not in running:
                    value = self.template[step.single_out]
                    try:
                        session._hold_on_device(step.alloc, value, step.name)
                    except Exception as e:  # noqa: BLE001 - OOM for a huge constant
                        raise errors_text.op_error_from(e, step.op) from _cause(e)
        # Why the optimizer left this plan as built (None: it did not), for the views
        # (optimizer.rewrites_of, %%tfgraph --optimized): a student in the course kernel,
        # whose graphs go to its virtual /gpu:0, would otherwise see nothing and not why.
        self.unoptimized_because = (
            "its ops are placed on a real GPU: the graph optimizer rewrites plans whose "
            "values are host arrays (the CPU, virtual GPUs; "
            "tf.ConfigProto(device_count={'GPU': 0}) runs this graph on the CPU)"
            if not self.host_memory_only else
            "it has tf.cond or while_loop ops at its top level: they run as built (the "
            "loops' bodies are optimized on their own)" if self.has_control_flow else None)
        if self.host_memory_only and not self.has_control_flow:
            if not self.accounted:
                # Work a training step would do twice, done once (fusion.py). On a
                # virtual GPU, where every value TF's GPU graph makes is counted, only
                # the fusions whose stand-ins are charged as the tensors they replace.
                self.fast_steps = fusion.fuse(self.fast_steps, self.fetch_slots, self.steps)
            else:       # a virtual GPU: the fusions that charge the same tensors
                self.fast_steps = fusion.fuse_on_virtual_gpu(self.fast_steps,
                                                             self.fetch_slots, self.steps)
            if summed:
                self.fast_steps = fusion.defer_summed_products(
                    self.fast_steps, self.fetch_slots, [slot_of[t] for t in summed])
            # Grappler's passes on what is left (runtime/optimizer, docs/optimizer.md).
            self.fast_steps = optimizer.optimize(self, session._config, feed_tensors)
        # A step with a convolution splits its big kernels over two workers (see run).
        self.splits_work = any(step.type in two_workers.SPLITTING_OPS for step in self.steps)
        # Whether a kernel of the plan keeps state in its run's RunState (run_state.py):
        # a plan without one runs without taking a RunState (0.3 us less a run).
        self.keeps_run_state = any(step.type in run_state.KEEPING_OP_TYPES
                                   for step in self.steps)
        self._partitions = None
        self.rewrites = getattr(self, "rewrites", [])   # what runtime/optimizer did
        self._fast_runs = 0             # untraced CPU runs before the loop is compiled
        self._fast_loop = self._loop_steps = None
        self._device_order = [d.name for d in placer.devices.devices]

    def _fold_constants(self):
        """Computes once, when the plan is built, every pure op whose inputs are all
        constants (TensorFlow's Grappler folds them too): e.g. the Pack and Slice ops that
        build shapes in `softmax_cross_entropy_with_logits`. Their values join the
        template; the fast loop skips them. A traced run still executes every op, so the
        notebook views show the real graph. An op that fails here is left to fail at run
        time, with the usual error. As in TensorFlow, a value over MAX_FOLDED_BYTES is
        not folded: `tf.ones([16, 1024, 1024])` (a Fill) is computed on its device each
        time it runs and freed after its last use, instead of living as long as the
        session (docs/devices.md)."""
        known = {s for s, v in enumerate(self.template) if v is not None}
        kept = []
        with np.errstate(all="ignore"):
            for step in self.fast_steps:
                op = step.op
                if (step.source is not None or op._op_def.stateful or op._control_inputs or
                        not step.in_slots or
                        step.single_out is None or op._op_def.ref_inputs or
                        not all(s in known for s in step.in_slots)):
                    kept.append(step)
                    continue
                try:
                    value = step.kernel(step.ctx, *[self.template[s] for s in step.in_slots])
                except Exception:  # noqa: BLE001 - it will fail again, properly, at run time
                    kept.append(step)
                    continue
                if getattr(value, "nbytes", 0) > MAX_FOLDED_BYTES:
                    kept.append(step)       # too big to keep: computed when it runs
                    continue
                if isinstance(value, np.ndarray):
                    value.flags.writeable = False     # shared by every run, like a Const
                self.template[step.single_out] = value
                known.add(step.single_out)
        self.fast_steps = kept

    def dead_aware_steps(self):
        """What the accounted loop of a GPU plan with tf.cond runs (device_run.py): every
        step but the constants that wait for nothing (a branch's constant waits for its
        pivot, and must turn dead when the branch is not taken). Asked for at run time:
        a loop's sub-plan turns dead-aware when a capture is dead (loop_runner.py sets
        has_control_flow after the plan is built)."""
        if self._dead_aware_steps is None:
            self._dead_aware_steps = [s for s in self.steps if s.source is not None or
                                      s.op.type != "Const" or s.op._control_inputs]
        return self._dead_aware_steps

    # -- running -------------------------------------------------------------------------
    def run(self, feed_values, step_stats=None, report_oom=False):
        """The fetched values. Thread-safe: what kernels keep between calls lives in a
        RunState of this run alone (kernels/cpu/run_state.py), never locked while the
        run computes; a sub-plan run by a kernel (a loop's body) shares its caller's."""
        this_thread = run_state.THIS_THREAD
        if this_thread.state is not None:
            window = two_workers.blas_window() if self.splits_work else _NO_WINDOW
            return self._run(feed_values, step_stats, report_oom, window)
        # (Inlined, not a context manager: this is on the path of every run.)
        in_progress = run_state.IN_PROGRESS
        in_progress.append(None)
        try:
            # A step with a convolution runs with BLAS one-threaded throughout: its big
            # kernels split themselves over two workers, and a multi-threaded product in
            # between would leave OpenBLAS's workers spinning against them
            # (kernels/cpu/two_workers.py). Another run in progress (a second session
            # thread) takes the cores OpenBLAS's threads would: one-threaded too.
            if self.one_thread:
                window = two_workers.one_thread(split=self.splits_work)
            elif self.splits_work:
                window = two_workers.blas_window()
            elif len(in_progress) > 1:
                window = two_workers.blas_window(split=False)
            else:
                window = _NO_WINDOW
            if not self.keeps_run_state:
                return self._run(feed_values, step_stats, report_oom, window)
            pool = self._run_states
            this_thread.state = state = pool.take()
            try:
                return self._run(feed_values, step_stats, report_oom, window)
            finally:
                this_thread.state = None
                pool.give_back(state)
        finally:
            in_progress.pop()

    def _run(self, feed_values, step_stats, report_oom, window):
        values = self.template.copy()
        for s, v in zip(self.feed_slots, feed_values):
            values[s] = v
        # TensorFlow's float math is silent (1/0 is inf, log(0) is -inf, no warning).
        with np.errstate(all="ignore"), window:
            if self.accounted:
                device_run.run_accounted(self, values, step_stats, report_oom)
            elif step_stats is not None or self.has_control_flow:
                self._run_general(values, step_stats)
            elif self.specialiser is not None:   # runtime/optimizer/specialise.py
                self.specialiser.run(values)
            else:
                self._run_fast(values)
        results = [values[s] for s in self.fetch_slots]
        for i, ref in self.fetch_rereads:       # a fetched read: the value at the end
            results[i] = ref_reads.current(results[i], ref)
        for i, op in self.ref_fetches:          # a fetched variable: its current value
            try:
                results[i] = deref(results[i])
            except Exception as e:  # noqa: BLE001
                raise errors_text.op_error_from(e, op) from _cause(e)
        return results

    def _run_fast(self, values):
        loop = self._fast_loop
        if loop is not None and self._loop_steps is self.fast_steps:
            try:
                return loop(values)
            except Exception as e:  # noqa: BLE001 - every kernel failure becomes an OpError
                step = fast_loop.failed_step(e, self.fast_steps)
                if step is None:
                    raise
                raise errors_text.op_error_from(e, step.op) from _cause(e)
        self._fast_runs += 1
        if self._fast_runs >= fast_loop.COMPILE_AFTER_RUNS:
            # Straight-line code for a plan that runs again and again (fast_loop.py).
            self._loop_steps = steps = self.fast_steps
            self._fast_loop = fast_loop.compile_steps(steps)
        fast_loop.run_steps(self.fast_steps, values)

    def partition_graphs(self):
        """`RunMetadata.partition_graphs` of this plan (device_run.partition_graphs)."""
        return device_run.partition_graphs(self)

    def _run_general(self, values, step_stats):
        """The loop with dead-tensor propagation (tf.cond) and optional tracing."""
        dead_ops = set()
        index = 0
        step = None
        try:
            for step in self.steps:
                args = [values[i] for i in step.in_slots]
                if not step.handles_dead and (
                        any(a is DEAD for a in args) or
                        any(c in dead_ops for c in step.ctrl_ops)):
                    dead_ops.add(step.op)
                    for s in step.out_slots:
                        values[s] = DEAD
                    for s in step.frees:        # a skipped op is still a last use
                        values[s] = None
                    continue
                start = time.perf_counter() if step_stats is not None else 0.0
                result = step.kernel(step.ctx, *args)
                if step.single_out is not None:
                    values[step.single_out] = result
                    outputs = (result,)
                elif step.out_slots:
                    outputs = tuple(result)
                    for s, v in zip(step.out_slots, outputs):
                        values[s] = v
                else:
                    outputs = ()
                if step_stats is not None:
                    end = time.perf_counter()
                    _record(step_stats, step, outputs, start, end, index)
                    index += 1
                for s in step.frees:
                    values[s] = None
        except Exception as e:  # noqa: BLE001
            raise errors_text.op_error_from(e, step.op) from _cause(e)


def deref(value):
    """The value behind a ref (a variable's VariableRef); other values unchanged."""
    read = getattr(value, "deref", None)
    return value if read is None else read()


def _value_reading(kernel, op):
    """`kernel`, reading the current value of the refs among its value inputs.

    As TensorFlow's executor does: an op that takes a value but is fed a ref tensor (a
    variable) reads the variable when it runs; an uninitialized one fails there.
    """
    positions = tuple(i for i, t in enumerate(op._inputs)
                      if t.dtype.is_ref_dtype and i not in op._op_def.ref_inputs)
    if not positions:
        return kernel
    if len(op._inputs) == 1:            # `Variable/read` (an Identity): one ref, no list

        def read_ref_then_run(ctx, ref):
            return kernel(ctx, deref(ref))
        return read_ref_then_run

    def read_refs_then_run(ctx, *args):
        args = list(args)
        for i in positions:
            args[i] = deref(args[i])
        return kernel(ctx, *args)
    return read_refs_then_run


def _cause(e):
    return None if isinstance(e, errors.OpError) else e


def _nbytes(value):
    if value is DEAD or value is None:
        return 0
    return int(getattr(value, "nbytes", 0))


# perf_counter() times the steps (finer than time.time()); this turns them into epoch time.
_EPOCH_MINUS_PERF_COUNTER = time.time() - time.perf_counter()


def _shape_of(value):
    """An output's shape in step stats: a variable's ref (VariableRef) as the value it
    refers to, as TF shows it."""
    if value is DEAD:
        return ()
    deref = getattr(value, "deref", None)
    if deref is not None:
        try:
            value = deref()
        except errors.FailedPreconditionError:
            return ()                   # (not initialized yet: its Assign is running)
    return tuple(np.shape(value))


def _label_inputs(step):
    """The step's NodeDef inputs, as TF's timeline_label lists them: a copy reads the
    tensor it copies; an op its inputs ("x", "split:1") and control inputs ("^init")."""
    if step.source is not None:
        return [step.source[0]._as_node_def_input()]
    op = step.op
    return [t._as_node_def_input() for t in op._inputs] + \
        ["^" + c.name for c in op._control_inputs]


def _record(step_stats, step, outputs, start, end, index):
    outs = []
    if step.alloc is not None:
        allocator = step.alloc.name
    elif "device:GPU" in step.device:
        allocator = "cuda_host_bfc"                  # int32 and refs: host memory
    else:
        allocator = step.device.rsplit("/", 1)[-1]
    tensors = (step.source[0],) if step.source is not None else step.op._outputs
    for slot, value in enumerate(outputs):
        nbytes = _nbytes(value)
        desc = TensorDescription(
            tensors[slot].dtype.base_dtype.as_datatype_enum,     # TF: a ref as its value
            _shape_of(value), AllocationDescription(nbytes, nbytes, allocator))
        outs.append(NodeOutput(slot, desc))
    # TF's all_start_micros is wall-clock time (microseconds since the epoch)
    stats = NodeExecStats(step.name, step.type, step.device,
                          int((start + _EPOCH_MINUS_PERF_COUNTER) * 1e6),
                          max(0, int((end - start) * 1e6)), outs, index, _label_inputs(step))
    step_stats.device(step.device).node_stats.append(stats)
    if step_stats.node_outputs is not None:      # a run observer wants the values
        from tfteach.runtime.run_observers import snapshot
        step_stats.node_outputs[step.name] = tuple(snapshot(v) for v in outputs)
