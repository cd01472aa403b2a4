"""The executor's device half: copies between devices, the accounted loop, partitions.

A Plan whose steps run on a GPU (virtual or real) is run by `run_accounted`: the general
loop (dead tensors, tracing) plus the accounting of every value a GPU step produces on
that GPU's allocator while a slot holds it — freed with the slot, or when the run ends,
even when it fails (OOM included: the session stays usable). Copy steps move values
between devices; `partition_graphs` is what `RunOptions(output_partition_graphs=True)`
returns. Plans that run only on the CPU never come here (executor._run_fast).
"""
import time

import numpy as np

from tfteach.framework.dead import DEAD
from tfteach.framework.node_def import NodeDef
from tfteach.runtime import accounted_loop, chain_accounting, errors_text, executor

__all__ = ["copy_step", "allocator_for", "run_accounted", "partition_graphs",
           "stays_on_device"]


_COPY_TYPES = {("CPU", "GPU"): "MEMCPYHtoD", ("GPU", "CPU"): "MEMCPYDtoH",
               ("GPU", "GPU"): "MEMCPYDtoD", ("CPU", "CPU"): "MEMCPYHtoH"}


def _copy_kernel(ctx, value):
    """A copy between devices: the destination gets its own buffer (a variable's value
    is read at the moment it is sent)."""
    if value is DEAD or value is None:
        return value
    value = executor.deref(value)
    if isinstance(value, (np.ndarray, np.generic)):
        return value.copy()
    return value


def _cuda_copy_kernel(src, dst):
    """The copy kernel when a real GPU is involved: a real transfer (kernels/cuda/copies)."""
    from tfteach.kernels.cuda import copies
    move = copies.mover(src.physical_index, dst.physical_index, src.kind == "cuda",
                        dst.kind == "cuda")

    def cuda_copy(ctx, value):
        if value is DEAD or value is None:
            return value
        return move(executor.deref(value))
    return cuda_copy


def stays_on_device(device, client):
    """Where a loop sub-plan's fed or fetched tensor made on `device` is: there, if that
    device keeps its values in host memory (the CPU, a virtual GPU), else the `client`
    (a real GPU's values are copied as for any feed or fetch: the loop runner works on
    host arrays). In TensorFlow a loop's tensors stay on their device between
    iterations; copying them to the client and back would show MEMCPY steps that TF
    never runs (and did: 90 per iteration of a 2-layer LSTM, its weights included)."""
    return client if device.kind == "cuda" else device


def allocator_for(tensors, device):
    """The allocator that accounts `tensors` made on `device`, or None when none of them
    takes device memory: the CPU is not accounted; refs are variables (the session's
    store accounts their values); int32 tensors of GPU ops live in host memory, as
    TensorFlow's GPU kernels declare them (HostMemory), so they are not accounted."""
    if device.allocator is None:
        return None
    for t in tensors:
        dtype = t.dtype
        if not dtype.is_ref_dtype and dtype.base_dtype.name != "int32":
            return device.allocator
    return None


def copy_step(tensor, op, src, dst, in_slot, out_slot):
    """The step that copies `tensor` from device `src` to `dst` (for `op`'s sake)."""
    step = executor.Step.__new__(executor.Step)
    step.op = op
    step.kernel = (_cuda_copy_kernel(src, dst) if "cuda" in (src.kind, dst.kind)
                   else _copy_kernel)
    step.ctx = None
    step.in_slots = (in_slot,)
    step.out_slots = (out_slot,)
    step.single_out = out_slot
    step.frees = ()
    step.ctrl_ops = ()
    step.handles_dead = True          # a dead value is passed on as dead
    step.device = dst.name
    step.alloc = allocator_for((tensor,), dst)
    label = tensor.op.name if tensor.value_index == 0 else tensor.name
    step.name = "%s/_copy_to_%s:%d" % (label, dst.device_type, dst.index)
    step.type = _COPY_TYPES[(src.device_type, dst.device_type)]
    step.source = (tensor, src.name)
    step.links = None
    return step


def run_accounted(plan, values, step_stats, report_oom, keep_values=False, steps=None):
    """The general loop, with every value a GPU step produces accounted on that
    GPU's allocator while a slot holds it (freed with the slot, or at the end).
    Written for speed: it is the inner loop of every run on a GPU. `keep_values`: the
    slots keep their values after their last reader (their memory is released all the
    same), for a loop sub-plan's recorded run (loop_specialise.py). `steps`: these
    instead of the plan's (traced: as built; else the optimizer's, for the fed shapes
    where it specialised them)."""
    held = [None] * plan.num_slots          # slot -> Buffer
    swallow = plan.num_slots - 1
    dead_ops = set()
    index = 0
    step = None
    ndarray = np.ndarray
    # Untraced, constants and folded values come from the template, as in _run_fast.
    if steps is None:
        if step_stats is not None:
            steps = plan.steps
        elif plan.has_control_flow:
            # A constant in a tf.cond branch waits for the branch's pivot, and must turn
            # dead when the branch is not taken: run it (the fast steps leave constants
            # to the template, where both branches' would be live and the Merge would
            # take the wrong one). Constants outside the branches stay in the template.
            steps = plan.dead_aware_steps()
        elif plan.specialiser is not None:      # runtime/optimizer/specialise.py
            steps = plan.specialiser.entry_for(values).steps
        else:
            steps = plan.fast_steps
    check_dead = plan.has_control_flow
    if step_stats is None and not check_dead and not keep_values:
        loop = _accounted_loop_for(plan, steps)
        if loop is not None:                  # straight-line code (accounted_loop.py)
            return _run_compiled(loop, values, held, report_oom)
    if step_stats is None:
        steps = _walked_steps(plan, steps)
    try:
        for step in steps:
            args = [values[i] for i in step.in_slots]
            if check_dead and not step.handles_dead and (
                    any(a is DEAD for a in args) or
                    any(c in dead_ops for c in step.ctrl_ops)):
                dead_ops.add(step.op)
                for s in step.out_slots:
                    values[s] = DEAD
                for s in step.frees:
                    values[s] = None
                    _drop(held, s)
                continue
            start = time.perf_counter() if step_stats is not None else 0.0
            result = step.kernel(step.ctx, *args)
            alloc = step.alloc
            s = step.single_out
            if s is not None and alloc is None:
                values[s] = result
                outputs = (result,) if step_stats is not None else None
            elif not step.out_slots:
                outputs = ()
            elif alloc is None:
                outputs = tuple(result)
                for s, v in zip(step.out_slots, outputs):
                    values[s] = v
            else:
                outputs = (result,) if s is not None else tuple(result)
                live = alloc.live
                for s, v in zip(step.out_slots, outputs):
                    values[s] = v
                    if type(v) is ndarray and v.base is None:    # the common case
                        with alloc.lock:        # other session threads account too
                            buf = live.get(id(v))
                            if buf is None:     # (the lock is held: the unlocked method)
                                buf = alloc.allocate_locked(v.nbytes, step.name, v.shape,
                                                            v.dtype, v)
                            else:
                                buf.refs += 1
                    else:
                        buf = alloc.charge(v, step.name)
                        if buf is None:
                            continue
                    if held[s] is not None:
                        _drop(held, s)
                    held[s] = buf
                    if s == swallow:                 # nobody reads it: freed at once
                        _drop(held, s)
            if step_stats is not None:
                end = time.perf_counter()
                executor._record(step_stats, step, outputs, start, end, index)
                index += 1
            for s in step.frees:
                if not keep_values:
                    values[s] = None
                buf = held[s]
                if buf is not None:
                    held[s] = None
                    buf.allocator.unref(buf)
    except Exception as e:  # noqa: BLE001
        raise _op_error(e, step, report_oom) from executor._cause(e)
    finally:
        _release_all(held)


def _op_error(error, step, report_oom):
    """The OpError `error` raised in `step` becomes, with the OOM's allocation report
    when the run asked for it."""
    alloc = getattr(error, "oom_allocator", None)
    if alloc is not None and report_oom:
        error.hint = alloc.allocation_report()
    return errors_text.op_error_from(error, step.op)


def _release_all(held):
    """Releases what the slots still hold when a run ends (or fails)."""
    for buf in held:
        if buf is not None:
            buf.allocator.unref(buf)


def _accounted_loop_for(plan, steps):
    """The compiled accounted loop of `steps` (the plan's own or a specialised copy's)
    once they have run COMPILE_AFTER_RUNS times untraced, else None (not yet, or steps
    it cannot compile). Kept on the plan per steps list; two threads compiling the same
    at once both get a correct loop."""
    cache = plan.__dict__.setdefault("_accounted_loops", {})
    entry = cache.get(id(steps))
    if entry is None or entry[0] is not steps:
        cache[id(steps)] = [steps, 1, None]
        return None
    if entry[2] is None:
        entry[1] += 1
        if entry[1] <= accounted_loop.COMPILE_AFTER_RUNS:
            return None
        entry[2] = accounted_loop.compile_accounted(steps, plan.num_slots - 1) or False
    return entry[2] or None


def _walked_steps(plan, steps):
    """`steps` with each chain fused on the GPU as its links one by one (the walk has no
    replay of their charges: chain_accounting.py). Kept on the plan per steps list."""
    cache = plan.__dict__.setdefault("_walked_steps", {})
    entry = cache.get(id(steps))
    if entry is None or entry[0] is not steps:
        walked = [link for step in steps for link in
                  (chain_accounting.unfused_steps(step) if step.links is not None
                   else (step,))]
        entry = cache[id(steps)] = (steps, walked if len(walked) != len(steps) else steps)
    return entry[1]


def _run_compiled(loop, values, held, report_oom):
    accounted, where = loop
    try:
        accounted(values, held)
    except Exception as e:  # noqa: BLE001
        step = accounted_loop.failed_step(e, where)
        if step is None:
            raise
        raise _op_error(e, step, report_oom) from executor._cause(e)
    finally:
        _release_all(held)


def partition_graphs(plan):
    """`RunMetadata.partition_graphs`: the executed nodes, one GraphDef per device,
    each NodeDef with its assigned device and inputs rewired to the copies."""
    if plan._partitions is None:
        from tfteach.runtime.run_metadata import PartitionGraph
        nodes = {}
        for step in plan.steps:
            if step.source is not None:
                tensor, src = step.source
                node = NodeDef(step.name, step.type, [tensor._as_node_def_input()],
                               step.device, {"send_device": src, "recv_device": step.device,
                                             "tensor_name": tensor.name,
                                             "T": tensor.dtype.base_dtype})
            else:
                node = step.op.node_def
                node.device = step.device
                node.input = [plan._copy_names.get((t, step.device),
                                                   t._as_node_def_input())
                              for t in step.op._inputs] + node.input[len(step.op._inputs):]
            nodes.setdefault(step.device, []).append(node)
        order = {name: i for i, name in enumerate(plan._device_order)}
        plan._partitions = [PartitionGraph(nodes[d]) for d in
                            sorted(nodes, key=lambda d: order.get(d, len(order)))]
    return plan._partitions


def _drop(held, slot):
    buf = held[slot]
    if buf is not None:
        held[slot] = None
        buf.allocator.unref(buf)
