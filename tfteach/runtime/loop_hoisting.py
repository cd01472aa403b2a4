"""Loop-invariant hoisting for while_loop bodies (TF: Grappler's `loop_optimizer`,
"loop invariant node motion"; docs/optimizer.md, docs/engine.md).

A loop's body sub-plan (runtime/loop_runner.py) runs once per iteration, fed the loop
variables and the tensors the loop captured from outside. A body op whose inputs are
all captured tensors or constants computes the same value every iteration: a
`tf.matmul(A, B)` of two outside matrices inside the body is the same product 20 times.
Two things are done once per loop run instead (per `While` run, per `WhileGrad` run,
per run of a nested loop):

1. **Invariant ops.** The body's ops whose inputs are all invariant (captured tensors,
   constants, other hoisted ops) and that are pure run in a *prelude* plan, at the
   loop's first iteration; the body plan is fed their values instead of running them.
   Not hoisted: stateful ops (random ops give a new value each iteration; queues,
   TensorArrays, stacks, Print, Assert), ops with control inputs or that are one,
   anything in a body that writes a variable (a captured read could then change),
   anything computed from a captured read of a variable the loop writes elsewhere (its
   condition, a nested loop: loop_runner leaves such reads out of `invariant`,
   loop_live_reads.py),
   a body with `tf.cond` (an untaken branch must not run), a body placed off the CPU,
   ops that keep run state (a nested `While`), the captured gradients a gradient body
   only sums (loop_sums.Products multiplies those together), and shape arithmetic
   (Shape/Size/Rank of an invariant and what is computed from shapes and constants
   only): the shape specialisers fold that anyway, and a value fed to the body would
   hide it from them. The prelude runs at the first iteration, so a loop that runs no
   iteration runs none of it (as TensorFlow, which never enters the body), and an
   invariant op that fails raises its own error there, as it would in the body.
2. **Pretransposed products.** In a body (in practice a gradient body), `MatMul(dy, W,
   transpose_b=True)` with `W` invariant (the RNN's `dy @ W^T`) multiplies by a
   contiguous copy of `W^T`, made once per loop run: OpenBLAS's non-transposed kernel
   is ~1.4x faster on 32-row products (measured 32x512 @ (256x512)^T: 117 vs 78 us,
   one thread). The bits are
   the same only where OpenBLAS runs its packed kernel both ways: not for its
   small-matrix kernels (up to 100^3 multiply-adds, per transpose case) nor NumPy's
   matrix-vector path (one row or column). So the copy is read only above that size
   (`SMALL_GEMM_LIMIT`, and for each half when the product is split over two workers);
   once per process `layouts_agree()` checks the claim on this machine's BLAS and
   turns the rewrite off where it does not hold. `transpose_a` on an invariant (W^T @ x)
   is left alone: NN was no faster than TN there (measured 67 vs 92 us for 256x512^T @
   512x32).

Both are the same kernels on the same inputs: the same bits as without
(tests/test_loop_hoisting.py). `RewriterConfig(loop_optimization=OFF)` (or
`disable_meta_optimizer`) turns both off. What was hoisted is recorded as
`Rewrite("loop_optimization", ...)` in the body plan's `rewrites` (`rewrites_in`).
"""
import numpy as np

from tfteach.framework.dead import DEAD
from tfteach.kernels.cpu import run_state
from tfteach.kernels.cpu.linalg import matmul_kernel
from tfteach.kernels.cpu.transposed_copy import transposed_copy
from tfteach.kernels.cpu.two_workers import in_blas_window, split_matmul
from tfteach.runtime import executor
from tfteach.runtime.optimizer import toggles
from tfteach.runtime.optimizer.rewrite import Rewrite

__all__ = ["Hoisting", "NAME", "enabled", "rewrites_in", "layouts_agree", "SMALL_GEMM_LIMIT"]

NAME = "loop_optimization"
SHAPE_OPS = frozenset(("Shape", "ShapeN", "Size", "Rank"))
# The loop machinery's own ops: never hoisted (they keep history, or are frames).
_LOOP_OPS = frozenset(("Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond"))
# OpenBLAS (0.3.31, Haswell kernels) takes products of up to 100^3 multiply-adds to its
# small-matrix kernels, one per transpose case, which round differently; above, both
# layouts run the same packed kernel.
SMALL_GEMM_LIMIT = 100 ** 3
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def enabled(session):
    """Whether the session's ConfigProto leaves `loop_optimization` on."""
    return toggles.LOOP_OPTIMIZATION in toggles.enabled_passes(session._config)


class Hoisting:
    """What one loop body hoists: `frontier`, the invariant tensors the body is fed
    (computed by `prelude`, a plan fed the invariant feeds), and the body's MatMuls
    that read a pretransposed invariant. Built once per body sub-plan."""

    def __init__(self, session, fetches, feeds, invariant, summed=(), on=True):
        self.frontier, self.prelude, self.hoisted = (), None, ()
        self.prelude_feeds = ()
        self.pretransposed = ()
        self.invariant = set()
        self.rewrites = []        # what attach() recorded in the body plan, too
        if not on:
            return
        ops = executor.prune(tuple(fetches), tuple(feeds), ())
        if not _hoistable_body(session, ops):
            return
        self.invariant = seeds = {t for t in invariant if not t.dtype.is_ref_dtype}
        hoisted = _invariant_ops(ops, seeds, set(summed))
        hoisted_set = set(hoisted)
        read_in_body = {t for op in ops if op not in hoisted_set for t in op._inputs}
        wanted = read_in_body | set(fetches)
        self.frontier = tuple(t for op in hoisted for t in op._outputs if t in wanted)
        self.invariant.update(t for op in hoisted for t in op._outputs)
        if self.frontier:
            self.hoisted = tuple(hoisted)
            self.prelude_feeds = tuple(i for i, t in enumerate(feeds) if t in seeds)
            self.prelude = executor.Plan(session, self.frontier,
                                         tuple(feeds[i] for i in self.prelude_feeds), (),
                                         on_device=True)

    def body_feeds(self, feeds):
        """The body plan's feeds: the loop's, then the hoisted values."""
        return tuple(feeds) + self.frontier

    def attach(self, plan):
        """Points the body plan's `dy @ W^T` steps with an invariant W at a pretransposed
        copy, and records what was hoisted in `plan.rewrites`. Returns `plan`."""
        if self.hoisted:
            self.rewrites.append(Rewrite(NAME, tuple(op.name for op in self.hoisted),
                                         "computed once per loop run"))
        if self.invariant and not plan.accounted and layouts_agree():
            self.pretransposed = _pretranspose(plan, self.invariant, self)
            if self.pretransposed:
                self.rewrites.append(Rewrite(
                    NAME, self.pretransposed,
                    "reads W^T made contiguous once per loop run (above %d multiply-adds)"
                    % SMALL_GEMM_LIMIT))
        plan.rewrites = list(plan.rewrites) + self.rewrites
        return plan

    def start(self, body_plan):
        """A run of the loop: `.run(feed_values)` per iteration, `.close()` at the end."""
        if self.prelude is None and not self.pretransposed:
            return _Plain(body_plan)
        return _LoopRun(self, body_plan)


class _Plain:
    __slots__ = ("run",)

    def __init__(self, plan):
        self.run = plan.run

    def close(self):
        pass


class _LoopRun:
    """One run of a loop whose body hoists: the prelude's values, computed at the first
    iteration, and the pretransposed copies (in the run's RunState, where the body's
    MatMul kernels find them)."""

    def __init__(self, hoisting, body_plan):
        self.hoisting, self.body_plan, self.values = hoisting, body_plan, None
        if hoisting.pretransposed:
            run_state.entries()[hoisting] = {}

    def run(self, feed_values):
        hoisting = self.hoisting
        if hoisting.prelude is None:
            return self.body_plan.run(feed_values)
        if self.values is None:
            prelude = hoisting.prelude
            ins = [feed_values[i] for i in hoisting.prelude_feeds]
            if any(v is DEAD for v in ins):
                prelude.has_control_flow = True   # dead captures: the dead-aware loop
            self.values = list(prelude.run(ins))
        return self.body_plan.run(list(feed_values) + self.values)

    def close(self):
        if self.hoisting.pretransposed:
            run_state.entries().pop(self.hoisting, None)


def _hoistable_body(session, ops):
    """False for a body nothing may be hoisted from: one that writes a variable (a
    captured read of it could change between iterations), has `tf.cond` (an untaken
    branch must not run) or runs off the CPU."""
    for op in ops:
        op_def = op._op_def
        if op_def.ref_inputs or op_def.handles_dead_inputs or op.type == "Switch":
            return False
        if op_def.stateful and any(t.dtype.name == "resource" for t in op._inputs):
            return False
    placer = session._placer
    placer.place_new_ops()
    cpu = placer.devices.cpu
    return all(placer.device_of(op) is cpu for op in ops)


def _invariant_ops(ops, seeds, summed):
    """The ops (in order) computing invariant values worth hoisting (see the module)."""
    controlling = {c for op in ops for c in op._control_inputs}
    kind = {t: "invariant" for t in seeds}       # tensor -> "invariant" | "static"
    hoisted = []
    for op in ops:                               # prune's order is topological
        if op.type == "Const":
            kind.update((t, "static") for t in op._outputs)
            continue
        kinds = [kind.get(t) for t in op._inputs]
        if not op._inputs or None in kinds or not _pure(op) or op in controlling or \
                any(t in summed for t in op._outputs):
            continue
        if op.type in SHAPE_OPS or "invariant" not in kinds:
            kind.update((t, "static") for t in op._outputs)    # folded by the specialisers
            continue
        kind.update((t, "invariant") for t in op._outputs)
        hoisted.append(op)
    return hoisted


def _pure(op):
    op_def = op._op_def
    return not (op_def.stateful or op_def.ref_inputs or op_def.handles_dead_inputs or
                op._control_inputs or op.type in _LOOP_OPS or
                op.type in run_state.KEEPING_OP_TYPES or
                any(t.dtype.is_ref_dtype for t in op._outputs))


# -- pretransposed products ----------------------------------------------------------------------
def _pretranspose(plan, invariant, owner):
    """Gives the plan's `MatMul(x, W, transpose_b=True)` steps with W invariant a kernel
    reading W^T's contiguous copy. Every step object of the plan is changed (the
    optimizer's lists hold copies of the originals); returns the ops' names."""
    targets = {}
    for step in plan.steps:
        op = step.op
        if op.type == "MatMul" and op._attrs.get("transpose_b") and \
                not op._attrs.get("transpose_a") and op._inputs[1] in invariant:
            targets[op] = _pretransposed_matmul(owner, op)
    if not targets:
        return ()
    lists = [plan.steps, plan.fast_steps]
    specialiser = plan.specialiser
    if specialiser is not None:                  # runtime/optimizer/specialise.py
        lists += [specialiser.steps, specialiser.generic.steps]
    swapped = set()
    for steps in lists:
        for step in steps:
            if step.op in targets and step.kernel is matmul_kernel:
                step.kernel = targets[step.op]
                swapped.add(step.op.name)
    return tuple(sorted(swapped))


def _pretransposed_matmul(owner, op):
    def matmul_pretransposed_kernel(ctx, a, b):
        """`MatMul(a, b, transpose_b=True)` as `a @ bt`, bt = b.T made contiguous once per
        loop run; where the bits could differ (or anything is unusual), MatMul itself."""
        if (type(a) is np.ndarray and type(b) is np.ndarray and a.ndim == 2 and
                b.ndim == 2 and a.dtype == b.dtype and a.dtype in _FLOATS and
                a.shape[1] == b.shape[1] and a.flags.c_contiguous and
                b.flags.c_contiguous and _packed_both_ways(a.shape[0], b.shape[0],
                                                           a.shape[1])):
            copies = run_state.entries().get(owner)
            if copies is not None:
                held = copies.get(op)
                if held is None or held[0] is not b:
                    held = copies[op] = (b, transposed_copy(b))
                return split_matmul(a, held[1])
        return matmul_kernel(ctx, a, b)
    return matmul_pretransposed_kernel


def _packed_both_ways(m, n, k):
    """Whether an m x k by k x n product (and each half, where split_matmul splits it
    over two workers) is above OpenBLAS's small-matrix kernels and NumPy's
    matrix-vector path, so both layouts give the same bits."""
    if m < 2 or n < 2 or m * n * k <= SMALL_GEMM_LIMIT:
        return False
    if not in_blas_window():
        return True
    longer, shorter = max(m, n), min(m, n)
    return longer // 2 >= 2 and (longer // 2) * shorter * k > SMALL_GEMM_LIMIT


_AGREE = []


def layouts_agree():
    """Whether this machine's BLAS gives `a @ W.T` and `a @ ascontiguousarray(W.T)` the
    same bits for products just above `SMALL_GEMM_LIMIT` (checked once a process; False
    turns the pretransposed products off)."""
    if not _AGREE:
        rng = np.random.RandomState(0)
        agree = True
        for dtype in _FLOATS:
            for m, n, k in ((2, 1001, 500), (32, 157, 200), (3, 1000, 334), (32, 256, 512)):
                a = rng.standard_normal((m, k)).astype(dtype)
                w = rng.standard_normal((n, k)).astype(dtype)
                pretransposed = np.matmul(a, np.ascontiguousarray(w.T))
                agree = agree and np.matmul(a, w.T).tobytes() == pretransposed.tobytes()
        _AGREE.append(agree)
    return _AGREE[0]


def rewrites_in(session, ops):
    """The `loop_optimization` rewrites of the loops among `ops` (While and WhileGrad
    ops) that have run in `session`: what their bodies hoisted."""
    found = []
    for op in ops:
        if op.type not in ("While", "WhileGrad"):
            continue
        ctx = session._contexts.get(op)
        for hoisting in (ctx.state.get("hoisting") or ()) if ctx is not None else ():
            found.extend(r for r in hoisting.rewrites if r.pass_name == NAME)
    return found
