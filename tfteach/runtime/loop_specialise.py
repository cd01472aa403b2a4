"""Loop sub-plans specialised on the shapes they are fed (docs/engine.md, docs/rnn.md).

A loop's condition, body and gradient sub-plans (loop_runner.py) run once per iteration
with the same shapes: an LSTM's gradient body, 20 times a step, with the same batch. A
graph with a `None` batch dimension keeps its shape bookkeeping as ops (the gradient of
every broadcasting op is `Reshape(Sum(g, BroadcastGradientArgs(Shape(x), Shape(y))[0]),
Shape(x))`): about a third of the LSTM gradient body's 119 ops, each a Python call.
TensorFlow's Grappler folds them once the shapes are known; so does this, per loop:

1. The first two runs execute the plan step by step, keeping every value, and compare
   shapes: a slot whose shape changed between them (dynamic_rnn's outputs accumulator,
   one row longer each iteration, its gradient, what is sliced from it) is *varying*.
2. From then on, each signature (the shapes of the fed values that do not vary, and
   whether the constants fed to a gradient body are the constants' own values) gets a
   specialised copy of the plan, made from one recorded run:
   - `Shape`, `Size`, `Rank` (and each output of `ShapeN`) of a non-varying value take
     the recorded value;
   - a pure step all of whose inputs are constants or such shape values ("derived":
     `BroadcastGradientArgs`, the `Pack`/`StridedSlice`/`ConcatOffset` of shapes, a
     `Fill` of zeros) does not run: its recorded value joins the plan's template;
   - steps that are then identities pass their input on without a call: `Identity`, a
     `Sum` over no axes, and a `Reshape` to the shape its input already has;
   - the gradient of a concat whose input grows (`ShapeN` -> `ConcatOffset` ->
     `Slice`s, dynamic_rnn's outputs so far) is one step (concat_grad_slices.py);
   - a shape taken as recorded is checked by a guard step only where the signature does
     not fix it already: fed arrays' shapes are in the signature, and so are those of
     what SHAPE_DETERMINING_INPUTS ops compute from them. Behind a `tf.where` (a row
     count that depends on values) a guard stays; if it sees another shape it abandons
     the run, which the plain plan then runs again from the start, and that signature
     stays unspecialised.

Only plans of pure ops are specialised (no stateful op, no reference input, no control
flow, nothing on a real GPU), so abandoning a run and running it again
changes nothing a program can see; the values are the plain plan's, bit for bit (the
skipped ops would have computed the recorded values again; the identities return their
input). Errors too: a run that fails while recording is run again by the plain plan,
which raises the usual error at the usual op.

A session whose ConfigProto turns shape folding off (`RewriterConfig`'s
`constant_folding` or `shape_optimization` OFF, `disable_meta_optimizer`,
`OptimizerOptions(opt_level=L0)`: optimizer/toggles.py) runs its loops' plain plans, as
its top-level plan runs unfolded: this is the same folding, per loop.
`TFTEACH_LOOP_SPECIALISE=0` in the environment turns it off everywhere (the tests and
bench/ compare both).
"""
import copy
import operator
import os
import threading

import numpy as np

from tfteach.kernels.cpu import run_state
from tfteach.runtime import concat_grad_slices, device_run, fast_loop
from tfteach.runtime.executor import MAX_FOLDED_BYTES, deref
from tfteach.runtime.optimizer import elementwise_regions, shape_folding, toggles
from tfteach.runtime.optimizer.rewrite import Rewrite
from tfteach.runtime.optimizer.slots import reassign_frees

__all__ = ["SpecialisingPlan", "enabled", "picker", "loop_body_rewrites_in", "NAME"]

SHAPE_OPS = frozenset(("Shape", "ShapeN", "Size", "Rank"))
# The pass name its rewrites carry (optimizer.rewrites_of, notebook/optimized_view.py).
NAME = "loop_specialisation"
# How many feed-shape signatures a loop keeps a specialised plan for (a loop fed many
# shapes runs the plain plan for the others).
MAX_SIGNATURES = 8


# Ops whose output shapes follow from their inputs' shapes and the values of the inputs
# listed (which must be known: constants or folded shapes). A guard on a value such an
# op computed from shapes the signature fixes is dropped: it could not fail.
_ELEMENTWISE = (
    "Abs Add AddN AddV2 BiasAdd BiasAddGrad Cast Cos Equal Exp Floor FloorDiv FloorMod "
    "Greater GreaterEqual Identity Less LessEqual Log LogicalAnd LogicalNot LogicalOr "
    "MatMul Maximum Minimum Mul Neg NotEqual OnesLike RealDiv Reciprocal Relu ReluGrad "
    "Rsqrt Select SelectV2 Sigmoid SigmoidGrad Sign Sin Softplus Sqrt Square "
    "SquaredDifference Sub Tanh TanhGrad ZerosLike Pack Squeeze StopGradient").split()
SHAPE_DETERMINING_INPUTS = dict({t: () for t in _ELEMENTWISE}, **{
    "Sum": (1,), "Mean": (1,), "Max": (1,), "Min": (1,), "Prod": (1,), "Reshape": (1,),
    "Slice": (1, 2), "StridedSlice": (1, 2, 3), "ConcatV2": (-1,), "Split": (0,),
    "SplitV": (1, 2), "ExpandDims": (1,), "Transpose": (1,), "Tile": (1,), "Fill": (0,),
    "GatherV2": (2,), "UnsortedSegmentSum": (2,)})


def enabled(session):
    """Whether loops' sub-plans are specialised: not with TFTEACH_LOOP_SPECIALISE=0, nor
    in a `session` whose ConfigProto leaves shape folding off (its top-level plan's
    folding: the same Grappler toggles switch both)."""
    if os.environ.get("TFTEACH_LOOP_SPECIALISE", "1") == "0":
        return False
    return shape_folding.NAME in toggles.enabled_passes(session._config)


class _ShapesChanged(BaseException):
    """A guard saw another shape than when the plan was specialised. A BaseException, so
    the executor's loop lets it through instead of making it an OpError."""


class SpecialisingPlan:
    """A loop's sub-plan that runs specialised per feed-shape signature (see above)."""

    def __init__(self, plan, feed_tensors, session):
        """`session`: the plan's, whose ConfigProto may turn specialising off (enabled)."""
        self.plan = plan
        self.by_signature = {}
        self.eligible = enabled(session) and _pure(plan)
        # A gradient body is fed the forward body's constants (a concat's axis) from the
        # loop's history: the Const's own value object, which is then as good as known.
        self.const_feeds = tuple((i, t.op._attrs["value"]) for i, t in enumerate(feed_tensors)
                                 if t.op.type == "Const")
        self.first_shapes = None     # every slot's shape in the first run
        self.varying = None          # the slots whose shapes changed in the second
        self.stable_feeds = ()
        self.pick_stable = picker(())
        self.lock = threading.Lock()

    def __getattr__(self, name):     # the plain plan's attributes (fast_steps, ...)
        return getattr(self.plan, name)

    def run(self, feed_values):
        plan = self.plan
        if not self.eligible or plan.has_control_flow:
            return plan.run(feed_values)
        if self.varying is None:
            with self.lock:                  # two threads' first runs: one learns
                if self.varying is None:
                    return self._learn(feed_values)
        signature = _signature(self.pick_stable(feed_values))
        if self.const_feeds:
            signature += tuple([feed_values[i] is value for i, value in self.const_feeds])
        special = self.by_signature.get(signature, False)
        if special is None:                  # tried: shapes that depend on values
            return plan.run(feed_values)
        if special is not False:
            try:
                return _run_specialised(special, feed_values)
            except _ShapesChanged:
                self.by_signature[signature] = None
                return plan.run(feed_values)
        if len(self.by_signature) >= MAX_SIGNATURES:
            return plan.run(feed_values)
        values = _record(plan, feed_values)
        if values is None:
            return plan.run(feed_values)     # it fails: the plain plan raises the error
        self.by_signature[signature] = _specialise(
            plan, values, self._const_slots(feed_values), self.varying)
        return [values[s] for s in plan.fetch_slots]

    def _const_slots(self, feed_values):
        return [self.plan.feed_slots[i] for i, value in self.const_feeds
                if feed_values[i] is value]

    def _learn(self, feed_values):
        """The first two runs: which slots change shape from one iteration to the next
        (a loop's accumulator, one row longer each time, and what depends on it)? Their
        shape ops keep running; the others are folded from the second run on."""
        values = _record(self.plan, feed_values)
        if values is None:
            return self.plan.run(feed_values)
        shapes = [_shape_of(v) for v in values]
        if self.first_shapes is None:
            self.first_shapes = shapes
        else:
            varying = frozenset(s for s, (a, b) in enumerate(zip(self.first_shapes, shapes))
                                if a != b)
            self.stable_feeds = tuple(i for i, s in enumerate(self.plan.feed_slots)
                                      if s not in varying)
            self.pick_stable = picker(self.stable_feeds)
            signature = _signature(self.pick_stable(feed_values))
            if self.const_feeds:
                signature += tuple([feed_values[i] is value for i, value in self.const_feeds])
            self.by_signature[signature] = _specialise(
                self.plan, values, self._const_slots(feed_values), varying)
            # Last: another thread reads stable_feeds once it sees `varying` set.
            self.varying = varying
        return [values[s] for s in self.plan.fetch_slots]


def loop_body_rewrites_in(session, ops):
    """What the bodies of the loops among `ops` (While and WhileGrad ops) that have run
    in `session` became: each sub-plan's latest specialised copy's folds, identities read
    through and fused concat gradients, and the regions elementwise_regions fused in it
    (in the plain plan where there is no copy), for rewrites_of and `%%tfgraph
    --optimized`."""
    found = []
    for op in ops:
        ctx = session._contexts.get(op) if op.type in ("While", "WhileGrad") else None
        if ctx is None:
            continue
        plans = ctx.state.get("plans")          # a While's: (key, (cond, body), ...)
        subplans = list(plans[1]) if plans else []
        if ctx.state.get("plan") is not None:   # a WhileGrad's gradient body
            subplans.append(ctx.state["plan"])
        for subplan in subplans:
            special = [p for p in getattr(subplan, "by_signature", {}).values() if p]
            steps = special[-1].fast_steps if special else subplan.fast_steps
            if special:
                found.extend(special[-1].loop_rewrites)
            found.extend(concat_grad_slices.rewrites_in(steps))
            found.extend(elementwise_regions.rewrites_in(steps))
    return found


def _run_specialised(special, feed_values):
    """`special.run(feed_values)` without what a pure CPU plan run from inside a loop
    kernel does not need: the While kernel runs in its caller's run, which holds the
    RunState and NumPy's errstate already; no fetch is a reference (_pure)."""
    if run_state.THIS_THREAD.state is None:   # not inside a run (never, from a loop)
        return special.run(feed_values)
    values = special.template.copy()
    for s, v in zip(special.feed_slots, feed_values):
        values[s] = v
    if special.accounted:                     # on a virtual GPU
        device_run.run_accounted(special, values, None, False, steps=special.fast_steps)
    else:
        special._run_fast(values)
    return [values[s] for s in special.fetch_slots]


def _shape_of(value):
    if isinstance(value, (np.ndarray, np.generic)):
        return value.shape, value.dtype
    return type(value)


def _pure(plan):
    # A virtual GPU's values are host arrays: its plans are specialised too, and run
    # with their memory accounted (device_run.run_accounted); a real GPU's are not.
    if (plan.accounted and not plan.host_memory_only) or plan.splits_work or \
            plan.ref_fetches or plan.fetch_rereads:
        return False
    for step in plan.fast_steps:
        op = step.op
        if step.source is not None or op._op_def.stateful or op._op_def.ref_inputs or \
                op._op_def.handles_dead_inputs:
            return False
    return True


def _signature(values):
    """Shapes and dtypes (a NumPy scalar and a 0-d array alike); other values' types.
    Once a sub-plan run (61 a step in bench/nn_steps.py's LSTM, ~40 values each): a list
    and the exact-class test first, 4 us instead of 7 with a generator and isinstance."""
    return tuple([(v.shape, v.dtype) if v.__class__ is _NDARRAY or isinstance(v, _ARRAYS)
                  else type(v) for v in values])


_NDARRAY, _ARRAYS = np.ndarray, (np.ndarray, np.generic)


def picker(positions):
    """feed_values -> the values at `positions` (operator.itemgetter, which returns a bare
    value for one position and needs at least one)."""
    if len(positions) > 1:
        return operator.itemgetter(*positions)
    return lambda values: [values[i] for i in positions]


def _record(plan, feed_values):
    """Every slot's value after one plain run (nothing freed), or None if it failed."""
    values = plan.template.copy()
    for s, v in zip(plan.feed_slots, feed_values):
        values[s] = v
    try:
        with np.errstate(all="ignore"):
            if plan.accounted:                # on a virtual GPU: charged as it runs
                device_run.run_accounted(plan, values, None, False, keep_values=True,
                                         steps=plan.fast_steps)
            else:
                fast_loop.run_steps(plan.fast_steps, values, free=False)
    except Exception:  # noqa: BLE001 - the plain plan runs again and raises it properly
        return None
    return values


def _shape_guard(expected):
    def guard_shapes(ctx, *inputs):
        for x, shape in zip(inputs, expected):
            if np.shape(deref(x)) != shape:
                raise _ShapesChanged()
    return guard_shapes


def _guard_step(step, in_slots, values, signed):
    """A step checking the shapes of `in_slots`, or None: a fed array's shape is in the
    signature already (`signed`), checked once a run instead of once per op."""
    in_slots = [s for s in in_slots if s not in signed]
    if not in_slots:
        return None
    guard = copy.copy(step)
    guard.in_slots = tuple(in_slots)
    guard.kernel = _shape_guard(tuple(np.shape(deref(values[s])) for s in in_slots))
    guard.out_slots, guard.single_out = (), None
    return guard


def _small(value):
    return isinstance(value, (np.ndarray, np.generic)) and value.nbytes <= MAX_FOLDED_BYTES


def _specialise(plan, values, const_slots, varying):
    template = list(plan.template)
    known = {s for s, v in enumerate(template) if v is not None}   # constants, folded
    known.update(const_slots)
    swallow = plan.num_slots - 1
    # Slots whose shapes the signature determines: fed arrays of stable shape, and what
    # SHAPE_DETERMINING_INPUTS ops compute from them (their guards are dropped).
    signed = {s for s in plan.feed_slots
              if s not in varying and isinstance(values[s], (np.ndarray, np.generic))}
    alias = {}
    kept = []
    folded, read_through = [], []         # node names, for rewrites_of and the notebook
    # (the regions fused in the plain plan are cut up by the identities folded below:
    # they are fused again after, elementwise_regions.py)
    for step in elementwise_regions.unfused(plan.fast_steps):
        op = step.op
        ins = [alias.get(s, s) for s in step.in_slots]
        outs = [s for s in step.out_slots if s != swallow]
        # (Not a value a GPU accounts: on a virtual GPU it is computed when it runs,
        # as it is charged then; shapes and int32 values live in host memory.)
        if ins and all(s in known for s in ins) and not op._control_inputs and \
                step.alloc is None and all(_small(values[s]) for s in outs):
            for s in outs:                   # derived from shapes and constants
                template[s] = _frozen(values[s])
                known.add(s)
            folded.append(step.name)
            continue
        if step.type in SHAPE_OPS and outs and all(_small(values[s]) for s in outs) and \
                not any(s in varying for s in step.in_slots):
            kept.append(_guard_step(step, ins, values, signed))
            for s in outs:
                template[s] = _frozen(values[s])
                known.add(s)
            folded.append(step.name)
            continue
        if step.type == "ShapeN" and len(outs) == len(ins) == len(step.out_slots):
            # Some inputs change shape: the op runs, but the shapes of the others are
            # fixed by the signature, and what is computed from them alone folds.
            for s, out in zip(ins, outs):
                if s in signed:
                    template[out] = _frozen(values[out])
                    known.add(out)
        identity_of = _identity_input(step, ins, values, known)
        if step.type == "Reshape" and identity_of is not None and \
                step.in_slots[0] in varying:
            identity_of = None               # its input's shape changes: a real Reshape
        if identity_of is not None and step.single_out is not None:
            if step.type == "Reshape":       # identity while its input keeps its shape
                kept.append(_guard_step(step, [identity_of], values, signed))
            alias[step.single_out] = identity_of
            read_through.append(step.name)
            continue
        if _shape_determined(step, ins, signed, known, template):
            signed.update(outs)
        if ins != list(step.in_slots):
            step = copy.copy(step)
            step.in_slots = tuple(ins)
        kept.append(step)
    kept = [step for step in kept if step is not None]
    fetch_slots = [alias.get(s, s) for s in plan.fetch_slots]
    # A concat's gradient whose input grows each iteration: one step, no shape ops.
    kept = concat_grad_slices.fuse_concat_grad_slices(kept, template, fetch_slots,
                                                      _ShapesChanged)
    if getattr(plan, "fuses_regions", False):
        # The identities that split an RNN cell's gradient into pieces are gone now
        # (a Sum over no axes, a Reshape to its input's shape): fuse its regions.
        constants = list(template)
        for s in const_slots:         # the signature says they are these very values
            constants[s] = values[s]
        kept = elementwise_regions.run(kept, plan, [], fetch_slots, constants, const_slots)
    special = copy.copy(plan)
    special.specialiser = None        # its steps are specialised already (from the generic)
    special.template = template
    special.fetch_slots = fetch_slots
    special.fast_steps = reassign_frees(
        kept, set(plan.feed_slots) | set(special.fetch_slots) | known)
    # What it folded and read through, as `optimizer.rewrites_of` lists it.
    special.loop_rewrites = [Rewrite(NAME, tuple(names), words) for names, words in (
        (folded, "folded for the fed shapes"), (read_through, "read through")) if names]
    return special


def _shape_determined(step, ins, signed, known, template):
    determining = SHAPE_DETERMINING_INPUTS.get(step.type)
    if determining is None or step.source is not None or not ins:
        return False
    # A Slice's size or a Reshape's shape without -1 is the output's shape, whatever the
    # input's (one that does not fit fails, it does not make another shape).
    explicit = {"Slice": 2, "Reshape": 1}.get(step.type)
    if explicit is not None and len(ins) > explicit and ins[explicit] in known and \
            np.all(np.asarray(template[ins[explicit]]) >= 0):
        return True
    if any(ins[i] not in known for i in determining if -len(ins) <= i < len(ins)):
        return False
    return all(s in signed or s in known for s in ins)


def _frozen(value):
    if isinstance(value, np.ndarray):
        value.flags.writeable = False        # shared by every run, like a Const
    return value


def _identity_input(step, ins, values, known):
    """The slot whose value `step` passes on unchanged, or None."""
    kind = step.type
    if kind == "Identity" and len(ins) == 1 and not step.op._inputs[0].dtype.is_ref_dtype:
        return ins[0]
    if kind == "Sum" and len(ins) == 2 and ins[1] in known and \
            np.size(values[ins[1]]) == 0 and isinstance(values[ins[0]], np.ndarray) and \
            isinstance(values[step.single_out], np.ndarray) and \
            values[ins[0]].dtype == values[step.single_out].dtype:
        return ins[0]
    if kind == "Reshape" and len(ins) == 2 and ins[1] in known:
        x, out = values[ins[0]], values[step.single_out]
        if isinstance(x, np.ndarray) and isinstance(out, np.ndarray) and \
                x.shape == out.shape and x.dtype == out.dtype:
            return ins[0]
    return None
