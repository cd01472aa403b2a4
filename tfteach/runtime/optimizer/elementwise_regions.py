"""A region of elementwise float32 ops on matrices run as one step: an RNN cell's gates.

An LSTM cell's step after its matrix product is ~12 small ops (BiasAdd, Split, three
Sigmoids, two Tanhs, Muls and Adds), its gradient ~14 (SigmoidGrad, TanhGrad, Muls,
AddNs, the Concat of the gates' gradients); a 2-layer LSTM runs them 40 times a
training step each way, each op a Python call and a NumPy call on 4,096 floats. Their
values are read by several ops and by the gradient loop, so they are not chains
(elementwise_chains.py). TensorFlow has fused cell kernels for this (`LSTMBlockCell`,
`GRUBlockCell`, which a TF 1.x graph only runs when the program builds them); this
pass fuses the ops the program did build, as Grappler's remapper fuses patterns:

- a *region* is a run of steps, each of them an op of `OPS` on float32 values of rank
  2 (a batch's rows; or a vector added to every row, or a size-1 constant), or a
  BiasAddGrad (the column sums) of such a value the region makes; a step
  outside `OPS` that reads a value of the region, or that changes state, ends it
  (steps that read none of its values and change no state run before the region's
  step, which comes where its last op was); a region of ufuncs each read once is a
  chain, left to elementwise_chains.py (which runs after this pass);
- the region runs as one step whose outputs are the values read outside it (by later
  steps, by the loop's gradient, as fetches); the others are never made as arrays;
- its kernel (region_kernels.py) computes each op as the op's own kernel does, with
  NumPy's own loops for exp and tanh: the same bits as the ops one by one
  (tests/test_elementwise_regions.py compares them on LSTM and GRU cells, their
  gradients, random regions and special values);
- like a chain, the region runs its ops one by one until it has run about as long as
  compiling its kernel would take (fused_arithmetic.compile_after), and whenever its
  operands do not fit the kernel (rows that differ, a broadcast it does not do): then
  the ops raise their own errors.

Off with `RewriterConfig(remapping=OFF)` (as chains), and on a virtual GPU, where every
value a TF GPU graph makes is counted (optimizer/__init__.py).
"""
import copy
from time import perf_counter

import numpy as np

from tfteach.runtime import errors_text, fast_loop
from tfteach.runtime.optimizer import fused_arithmetic, region_kernels
from tfteach.runtime.optimizer.rewrite import Rewrite
from tfteach.runtime.optimizer.slots import (plain, readers, reassign_frees,
                                             size_one_constant)

__all__ = ["run", "unfused", "rewrites_in", "NAME", "OPS"]

NAME = "elementwise_regions"
TYPE = "ElementwiseRegion"       # the fused step's type (no TF op of that name)
OPS = frozenset(region_kernels.EXACT) | frozenset(region_kernels.LOOP_UFUNCS) | {
    "AddN", "Split", "ConcatV2"}
MIN_OPS = 3                      # a region of fewer ops runs as its ops
# ops whose kernels are not ufuncs a chain can run in place
BEYOND_CHAINS = frozenset(("Sigmoid", "SigmoidGrad", "TanhGrad", "BiasAdd", "Split",
                           "ConcatV2", "AddN"))
ENABLED = True                   # read when a plan is built (tests and bench/ compare)
_F32 = np.dtype(np.float32)


def run(steps, plan, rewrites, fetch_slots=None, template=None, constant_feeds=()):
    """`steps` with each region one step. `fetch_slots`, `template`: the plan's, unless
    a specialised copy of the plan has its own (loop_specialise.py), where
    `constant_feeds` are the fed slots whose value is always the one in `template` (a
    gradient body fed the forward body's constant axes)."""
    if not ENABLED:
        return steps
    if fetch_slots is None:
        fetch_slots = plan.fetch_slots
    if template is None:
        template = plan.template
    count = readers(steps, fetch_slots)
    awaited = {op for step in plan.steps for op in step.ctrl_ops}
    feeds = set(plan.feed_slots) - set(constant_feeds)
    out, region, made, pieces, sums = [], [], set(), set(), set()

    def close():
        fused = None
        if len(region) >= MIN_OPS and _worth_a_kernel(region, count):
            fused = _fused_step(region, template, feeds, count)
        if fused is not None:
            out.append(fused)
            rewrites.append(_rewrite(region))
        else:
            out.extend(region)
        region.clear()
        for slots in (made, pieces, sums):
            slots.clear()

    for step in steps:
        # (A BiasAddGrad's sum is complete only after the kernel's last row: no op of
        # its region reads it.)
        if (_member(step, template, awaited, feeds) or
                _sums_rows_made_here(step, made, pieces, awaited)) and \
                not any(s in sums for s in step.in_slots):
            region.append(step)
            made.update(step.out_slots)
            if step.type == "Split":
                pieces.update(step.out_slots)
            elif step.type == "BiasAddGrad":
                sums.update(step.out_slots)
            continue
        if not _pure(step) or any(s in made for s in step.in_slots):
            close()
        out.append(step)
    close()
    return out


def _rewrite(region):
    return Rewrite(NAME, tuple(s.name for s in region),
                   "one step: Numba[%s]" % ", ".join(s.type for s in region))


def rewrites_in(steps):
    """The Rewrite of each region step among `steps` (a loop body's specialised plan
    fuses its regions without a record: loop_specialise.loop_body_rewrites_in asks here)."""
    return [_rewrite(step.kernel.region) for step in steps
            if isinstance(step.kernel, _RegionKernel)]


def unfused(steps):
    """`steps` with each region step replaced by its ops' steps (loop_specialise.py
    folds and reads through them, then fuses the regions again)."""
    out = []
    for step in steps:
        kernel = step.kernel
        out.extend(kernel.region if isinstance(kernel, _RegionKernel) else (step,))
    return out


def _worth_a_kernel(region, count):
    """Whether a region does what elementwise_chains.py cannot: an op that is not a
    ufunc writing in place, or a value read twice. A plain chain of ufuncs is left to
    that pass (it runs after this one), which writes one buffer in place."""
    if any(step.type in BEYOND_CHAINS for step in region):
        return True
    return any(count[s] > 1 for step in region[:-1] for s in step.out_slots)


def _pure(step):
    op_def = step.op._op_def
    return not (op_def.stateful or op_def.ref_inputs or step.op._control_inputs)


def _member(step, template, awaited, feeds):
    """Whether `step` can be an op of a region: its own kernel on host arrays, float32,
    every value of rank 2 but a vector operand (rank 1) or a size-1 constant."""
    kind = step.type
    if kind not in OPS or not plain(step) or step.op._control_inputs or step.op in awaited:
        return False
    if kind in region_kernels.LOOP_UFUNCS and not region_kernels.LOOPS_AVAILABLE:
        return False
    op = step.op
    if any(t.dtype.base_dtype.np != _F32 or t.shape.ndims != 2 for t in op._outputs):
        return False
    inputs = op._inputs
    if kind == "Split":              # (axis, value): columns
        return _axis(template, feeds, step.in_slots[0]) and inputs[1].shape.ndims == 2
    if kind == "ConcatV2":           # (values..., axis)
        return (_axis(template, feeds, step.in_slots[-1])
                and all(t.shape.ndims == 2 for t in inputs[:-1]))
    matrices = 0
    for t, s in zip(inputs, step.in_slots):
        rank = t.shape.ndims
        if t.dtype.base_dtype.np != _F32:
            return False
        if rank == 2:
            matrices += 1
        elif kind in region_kernels.LOOP_UFUNCS:
            return False             # a NumPy loop takes matrices (or their rows) only
        elif rank == 0 and _constant(template, feeds, s) is None or rank not in (0, 1):
            return False
    if kind == "AddN" and (matrices != len(inputs) or len(inputs) < 2):
        return False                 # (AddN of one input forwards it: nothing to fuse)
    return matrices >= 1


def _sums_rows_made_here(step, made, pieces, awaited):
    """Whether `step` is a BiasAddGrad of a float32 matrix the region makes (the gradient
    of an RNN cell's gates, 2 or 4 a time step): the kernel adds each row into the sum
    while the row is still in the cache, instead of a pass over the whole matrix after.
    Not of a Split's piece (a view: its BiasAddGrad is NumPy's sum of a strided array,
    region_kernels.py says why that matters)."""
    if step.type != "BiasAddGrad" or not plain(step) or step.op._control_inputs or \
            step.op in awaited or len(step.in_slots) != 1:
        return False
    (slot,) = step.in_slots
    if slot not in made or slot in pieces:
        return False
    (x,), (out,) = step.op._inputs, step.op._outputs
    return (x.dtype.base_dtype.np == _F32 and x.shape.ndims == 2 and
            out.dtype.base_dtype.np == _F32 and out.shape.ndims == 1)


def _axis(template, feeds, slot):
    value = template[slot] if slot < len(template) and slot not in feeds else None
    return type(value) is np.ndarray and value.ndim == 0 and int(value) in (1, -1)


def _constant(template, feeds, slot):
    """A size-1 float32 constant operand (of rank 0: an op's scalar operand)."""
    return size_one_constant(template, feeds, slot, _F32, 0)


def _fused_step(region, template, feeds, count):
    """The region's one step, or None where it has no matrix operand or no output."""
    inside = readers(region, ())
    value_of, args, arg_slots, consts, const_slot_values = {}, [], [], [], {}
    ops = []
    v = 0
    for step in region:
        refs = []
        operands = step.in_slots[1:] if step.type == "Split" else \
            step.in_slots[:-1] if step.type == "ConcatV2" else step.in_slots
        for t, s in zip(_operand_tensors(step), operands):
            if s in value_of:
                refs.append(("t", value_of[s]))
                continue
            c = _constant(template, feeds, s) if t.shape.ndims == 0 else None
            if c is not None:
                const_slot_values[s] = template[s]
                refs.append(("c", len(consts)))
                consts.append(c)
                continue
            if s not in arg_slots:
                arg_slots.append(s)
                args.append("m" if t.shape.ndims == 2 else "v")
            refs.append(("a", arg_slots.index(s)))
        n = len(step.out_slots)
        ops.append((step.type, tuple(refs), n))
        for s in step.out_slots:
            value_of[s] = v
            v += 1
    outputs = [s for s in _in_order(region) if count[s] > inside[s]]
    if "m" not in args or not outputs:
        return None
    program = region_kernels.Program(args, ops, [value_of[s] for s in outputs])
    for step in region:           # the axes, for the ops run one by one
        if step.type in ("Split", "ConcatV2"):
            axis = step.in_slots[0 if step.type == "Split" else -1]
            const_slot_values[axis] = template[axis]
    last = region[-1]
    one = copy.copy(last)
    one.in_slots = tuple(arg_slots)
    one.out_slots = tuple(outputs)
    one.single_out = outputs[0] if len(outputs) == 1 else None
    one.type = TYPE
    one.kernel = _RegionKernel(region, program, arg_slots, const_slot_values, outputs,
                               np.array(consts, _F32))
    return one


def _operand_tensors(step):
    inputs = step.op._inputs
    if step.type == "Split":
        return inputs[1:]
    if step.type == "ConcatV2":
        return inputs[:-1]
    return inputs


def _in_order(region):
    return [s for step in region for s in step.out_slots]


class _RegionKernel:
    """The fused step's kernel: the compiled region once it is hot and its operands fit,
    else the region's steps one by one (whose errors name their ops)."""

    __name__ = "elementwise_region"

    def __init__(self, region, program, arg_slots, const_values, outputs, consts):
        self.region, self.program = tuple(region), program
        self.consts = consts
        self.ndims = tuple(2 if kind == "m" else 1 for kind in program.args)
        self.single = len(outputs) == 1
        self.compiled = None            # (kernel, loops) once hot
        self.heat = fused_arithmetic.Heat()
        # The ops one by one: the region's steps as straight-line code (fast_loop.py)
        # on a list of its own values, numbered operands first, then constants, then
        # what the ops make; as cheap as the steps were in the plan's loop.
        local = {}
        for s in list(arg_slots) + list(const_values):
            local[s] = len(local)
        for step in region:
            for s in step.out_slots:
                local.setdefault(s, len(local))
        self.steps = []
        for step in region:
            step = copy.copy(step)
            step.in_slots = tuple(local[s] for s in step.in_slots)
            step.out_slots = tuple(local[s] for s in step.out_slots)
            if step.single_out is not None:
                step.single_out = local[step.single_out]
            self.steps.append(step)
        # each value let go after its last reader, as in the plan (the memory a freed
        # value leaves is what the next op's new array gets, still in the caches)
        self.steps = reassign_frees(self.steps, {local[s] for s in outputs})
        self.loop = fast_loop.compile_steps(self.steps)
        self.values = [None] * len(local)
        for s, value in const_values.items():
            self.values[local[s]] = value
        self.n_args = len(arg_slots)
        self.outputs = tuple(local[s] for s in outputs)

    def __call__(self, ctx, *args):
        compiled = self.compiled
        if compiled is not None:
            for a, ndim in zip(args, self.ndims):
                if type(a) is not np.ndarray or a.dtype != _F32 or a.ndim != ndim:
                    break
            else:
                try:
                    result = compiled[0](compiled[1], self.consts, *args)
                except Exception:  # noqa: BLE001 - Numba compiles per operand layout at
                    self.compiled = None    # the first call; if it cannot: the ops
                    return self.one_by_one(args)    # one by one from now on
                if result[0]:
                    return result[1] if self.single else result[1:]
            return self.one_by_one(args)
        heat = self.heat
        if heat.hot:                    # hot, and no kernel for it
            return self.one_by_one(args)
        if heat.buy_now(lambda: region_kernels.compile_seconds(self.program)):
            self.compiled = region_kernels.kernel_for(self.program)
            return self(ctx, *args)
        start = perf_counter()
        result = self.one_by_one(args)
        heat.spent += perf_counter() - start
        return result

    def one_by_one(self, args):
        values = self.values.copy()
        values[:self.n_args] = args
        try:
            self.loop(values)
        except Exception as e:  # noqa: BLE001 - located at the op that failed
            step = fast_loop.failed_step(e, self.steps)
            if step is None:
                raise
            raise errors_text.op_error_from(e, step.op) from e
        if self.single:
            return values[self.outputs[0]]
        return tuple([values[s] for s in self.outputs])
