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
"""
import time

import numpy as np

from tfteach.framework import errors
from tfteach.framework.dead import DEAD
from tfteach.runtime import errors_text
from tfteach.runtime.run_metadata import (AllocationDescription, NodeExecStats, NodeOutput,
                                          TensorDescription)

__all__ = ["Plan", "DEAD", "CPU_DEVICE", "deref"]

CPU_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


class Step:
    __slots__ = ("op", "kernel", "ctx", "in_slots", "out_slots", "single_out", "frees",
                 "ctrl_ops", "handles_dead", "device")

    def __init__(self, op, kernel, ctx, in_slots, out_slots, frees, device):
        self.op = op
        self.kernel = kernel
        self.ctx = ctx
        self.in_slots = in_slots
        self.out_slots = out_slots
        self.single_out = out_slots[0] if len(op._outputs) == 1 else None
        self.frees = frees
        self.ctrl_ops = op._control_inputs
        self.handles_dead = op._op_def.handles_dead_inputs
        self.device = device


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

    def __init__(self, session, fetch_tensors, feed_tensors, target_ops):
        ops = prune(fetch_tensors, feed_tensors, target_ops)
        self.ops = ops
        slot_of = {}

        def slot(tensor):
            if tensor not in slot_of:
                slot_of[tensor] = len(slot_of)
            return slot_of[tensor]

        self.feed_slots = [slot(t) for t in feed_tensors]
        steps_inputs = [[slot(t) for t in op._inputs] for op in ops]
        self.fetch_slots = [slot(t) for t in fetch_tensors]
        keep = set(self.feed_slots) | set(self.fetch_slots)
        last_use = {}
        for i, ins in enumerate(steps_inputs):
            for s in ins:
                last_use[s] = i
        frees_at = [[] for _ in ops]
        for s, i in last_use.items():
            if s not in keep:
                frees_at[i].append(s)
        fed = set(feed_tensors)
        self.steps = []
        for i, op in enumerate(ops):
            outs = tuple(slot(t) if t in slot_of and t not in fed else -1 for t in op._outputs)
            ctx = session._kernel_context(op)
            self.steps.append(Step(op, _value_reading(ctx.kernel, op), ctx,
                                   tuple(steps_inputs[i]), outs, tuple(frees_at[i]),
                                   ctx.device))
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
            if step.op.type == "Const":
                self.template[step.single_out] = step.op._attrs["value"]
            else:
                self.fast_steps.append(step)
        self.ref_fetches = [(i, t.op) for i, t in enumerate(fetch_tensors)
                            if t.dtype.is_ref_dtype]
        self.has_control_flow = any(op._op_def.handles_dead_inputs or op.type == "Switch"
                                    for op in ops)
        if not self.has_control_flow:
            self._fold_constants()

    def _fold_constants(self):
        """Computes once, when the plan is built, every pure op whose inputs are all
        constants (TensorFlow's Grappler folds them too): e.g. the Pack and Slice ops that
        build shapes in `softmax_cross_entropy_with_logits`. Their values join the
        template; the fast loop skips them. A traced run still executes every op, so the
        notebook views show the real graph. An op that fails here is left to fail at run
        time, with the usual error."""
        known = {s for s, v in enumerate(self.template) if v is not None}
        kept = []
        with np.errstate(all="ignore"):
            for step in self.fast_steps:
                op = step.op
                if (op._op_def.stateful or op._control_inputs or not step.in_slots or
                        step.single_out is None or op._op_def.ref_inputs or
                        not all(s in known for s in step.in_slots)):
                    kept.append(step)
                    continue
                try:
                    value = step.kernel(step.ctx, *[self.template[s] for s in step.in_slots])
                except Exception:  # noqa: BLE001 - it will fail again, properly, at run time
                    kept.append(step)
                    continue
                if isinstance(value, np.ndarray):
                    value.flags.writeable = False     # shared by every run, like a Const
                self.template[step.single_out] = value
                known.add(step.single_out)
        self.fast_steps = kept

    # -- running -------------------------------------------------------------------------
    def run(self, feed_values, step_stats=None):
        values = self.template.copy()
        for s, v in zip(self.feed_slots, feed_values):
            values[s] = v
        # TensorFlow's float math is silent (1/0 is inf, log(0) is -inf, no warning).
        with np.errstate(all="ignore"):
            if step_stats is not None or self.has_control_flow:
                self._run_general(values, step_stats)
            else:
                self._run_fast(values)
        results = [values[s] for s in self.fetch_slots]
        for i, op in self.ref_fetches:          # a fetched variable: its current value
            try:
                results[i] = deref(results[i])
            except Exception as e:  # noqa: BLE001
                raise errors_text.op_error_from(e, op) from _cause(e)
        return results

    def _run_fast(self, values):
        step = None
        try:
            for step in self.fast_steps:
                result = step.kernel(step.ctx, *[values[i] for i in step.in_slots])
                if step.single_out is not None:
                    values[step.single_out] = result
                elif step.out_slots:
                    for s, v in zip(step.out_slots, result):
                        values[s] = v
                for s in step.frees:
                    values[s] = None
        except Exception as e:  # noqa: BLE001 - every kernel failure becomes an OpError
            raise errors_text.op_error_from(e, step.op) from _cause(e)

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


def _record(step_stats, step, outputs, start, end, index):
    outs = []
    for slot, value in enumerate(outputs):
        nbytes = _nbytes(value)
        desc = TensorDescription(
            str(getattr(value, "dtype", "")), tuple(np.shape(value)) if value is not DEAD else (),
            AllocationDescription(nbytes, nbytes, step.device.rsplit("/", 1)[-1]))
        outs.append(NodeOutput(slot, desc))
    stats = NodeExecStats(step.op.name, step.op.type, step.device, int(start * 1e6),
                          max(0, int((end - start) * 1e6)), outs, index)
    step_stats.device(step.device).node_stats.append(stats)
