"""The While op's kernel: run a loop's condition and body sub-plans until it stops.

The loop's ops (condition and body, built once under `while/`) are never scheduled by
the outer plan: nothing outside the loop consumes them. The While op takes the loop
variables' initial values and the outside tensors the loop captured; its kernel runs
two sub-plans of the same session, each feeding the loop variables (`while/Identity`)
and the captured tensors:
  - the condition plan fetches `while/LoopCond`;
  - the body plan fetches the `while/NextIteration` values.
Body ops therefore run exactly once per iteration (a `tf.assign_add` in the body adds
once per iteration), and never after the condition turned false. A captured read of a
variable that the loop writes (`v/read` in a body with `tf.assign_add(v, 1)`) is fed the
variable's value anew for each run of the condition and the body, as TF's Enter
forwards the variable's buffer (loop_live_reads.py).

Once `tf.gradients` went through a loop (ops/while_grad.py), the While kernel also
records every iteration's loop variables and the body tensors the gradient reads (TF's
stack pushes), and the WhileGrad kernel replays that history backwards. A loop nested
in another loop's body gets its history from its LoopHistory input instead (the outer
loop recorded one per outer iteration; see ops/while_grad.py). The gradient of a tensor
the body captured (a weight) is the sum of every iteration's; where an iteration's is a
matrix product, the products of all iterations are multiplied as one; where it is the
gradient of a gather (dynamic_rnn's read of x[t]), only the gathered rows are added
(loop_sums.py).

Threads: the history is the run's, kept in its RunState (kernels/cpu/run_state.py), not
in the While op's context: two threads running the loop's gradient at once each replay
their own iterations. The sub-plans are built once, by one thread (Session.build_once),
and run by any number at once.
"""
import numpy as np

from tfteach.framework.dead import DEAD
from tfteach.framework.errors import InvalidArgumentError
from tfteach.kernels.cpu import run_state
from tfteach.kernels.cpu.linalg import DeferredProduct
from tfteach.runtime import executor, loop_hoisting, loop_live_reads, loop_sums
from tfteach.runtime.loop_specialise import SpecialisingPlan, picker

__all__ = ["run_while", "request_history", "run_while_grad", "run_loop_history"]


# A loop's history is recorded and replayed in the run's RunState.
run_state.kept_by("While", "WhileGrad", "LoopHistory")


def request_history(loop, tensors):
    """Makes the loop record `tensors` (body tensors) each iteration, from the next run."""
    saved = list(getattr(loop, "saved", None) or ())
    # (by identity: a tf.function's tensors may compare elementwise, TF 2's `==`)
    saved.extend(t for t in tensors if all(t is not s for s in saved))
    loop.saved = tuple(saved)


class _History:
    """One run of a loop: the values each iteration started from, and what it computed."""

    def __init__(self, saved, steps, final):
        self.index = {t: i for i, t in enumerate(saved)}
        self.steps = steps        # [(loop variable values, saved tensor values), ...]
        self.final = final        # the values the While op returned (identity-checked)


def _plans(ctx, loop, captured=None):
    """The (condition, body) sub-plans, what the body hoists (loop_hoisting.py) and the
    captured reads of variables the loop writes that are live in this run
    (loop_live_reads.py), built once per session, set of saved tensors and set of live
    reads, each plan specialised on the shapes it is fed (loop_specialise.py).
    `captured`: this run's captured values (None: every read that may be live is)."""
    saved = getattr(loop, "saved", None)
    live = ctx.state.get("live")
    if live is None:
        live = ctx.state["live"] = loop_live_reads.live_reads(
            loop, ctx.session.variable_values)
    if live and captured is not None:
        live = loop_live_reads.forwarded(live, captured)
    key = (saved, tuple(position for position, _ in live))
    plans = ctx.state.get("plans")
    if plans is None or plans[0][0] is not saved or plans[0][1] != key[1]:
        feeds = tuple(loop.loop_vars) + tuple(loop.captured)
        with ctx.session._building:          # one thread builds them (build_once)
            plans = ctx.state.get("plans")
            if plans is None or plans[0][0] is not saved or plans[0][1] != key[1]:
                fetches = tuple(loop.next_values) + (saved or ())
                fed_reads = {loop.captured[i]: ref.op for i, ref in live}
                # A live read changes between iterations: it is no loop invariant.
                invariant = [t for t in loop.captured if t not in fed_reads]
                hoisting = loop_hoisting.Hoisting(ctx.session, fetches, feeds, invariant,
                                                  on=loop_hoisting.enabled(ctx.session))
                body_feeds = hoisting.body_feeds(feeds)
                ctx.state["hoisting"] = (hoisting,)
                plans = ctx.state["plans"] = (key, (
                    SpecialisingPlan(executor.Plan(ctx.session, (loop.cond,), feeds, (),
                                                   fed_reads=fed_reads, on_device=True),
                                     feeds, ctx.session),
                    SpecialisingPlan(hoisting.attach(executor.Plan(
                        ctx.session, fetches, body_feeds, (), fed_reads=fed_reads,
                        on_device=True)),
                        body_feeds, ctx.session)), hoisting, live)
    return plans[1] + plans[2:]


def _record_history(forward_op, history):
    """Keeps the iterations of this run of a loop for its gradient, in this run."""
    run_state.entries()[(forward_op, "history")] = history


def _recorded_history(forward_op):
    """The iterations the loop `forward_op` recorded in this run, or None."""
    return run_state.entries().get((forward_op, "history"))


def _run_with_dead_captures(ctx, loop, values, captured):
    """A loop that captured a dead tensor (while_ops._AcceptsDeadInputs): the tensor is
    dead inside the body too, so the sub-plans run the executor's dead-aware loop. A
    dead condition or a dead initial value makes the loop's results dead."""
    n = len(values)
    dead = DEAD if n == 1 else (DEAD,) * n
    if any(v is DEAD for v in values):
        return dead
    cond, body, hoisting, live = _plans(ctx, loop)
    cond_plan, body_plan = cond.plan, body.plan
    cond_plan.has_control_flow = body_plan.has_control_flow = True
    saved = getattr(loop, "saved", None)
    steps = []
    body = hoisting.start(body_plan)
    try:
        while True:
            pred = cond_plan.run(values + loop_live_reads.refresh(captured, live))[0]
            if pred is DEAD:
                return dead
            if not pred:
                break
            outputs = body.run(values + loop_live_reads.refresh(captured, live))
            steps.append((values, outputs[n:]))
            values = outputs[:n]
    finally:
        body.close()
    if saved is not None:
        _record_history(ctx.op, _History(saved, steps, values))
    return values[0] if n == 1 else tuple(values)


def run_while(ctx, *inputs):
    loop = ctx.attrs["_loop"]
    n = len(loop.loop_vars)
    values = list(inputs[:n])
    captured = list(inputs[n:])
    if ctx.op._op_def.handles_dead_inputs and any(v is DEAD for v in inputs):
        return _run_with_dead_captures(ctx, loop, values, captured)
    cond_plan, body_plan, hoisting, live = _plans(ctx, loop, captured)
    saved = getattr(loop, "saved", None)
    body = hoisting.start(body_plan)
    try:
        if live:
            values = _run_reading_live(cond_plan, body, values, captured, live, saved,
                                       ctx.op)
        elif saved is None:
            while cond_plan.run(values + captured)[0]:
                values = body.run(values + captured)
        else:
            steps = []
            while cond_plan.run(values + captured)[0]:
                outputs = body.run(values + captured)
                steps.append((values, outputs[n:]))
                values = outputs[:n]
            _record_history(ctx.op, _History(saved, steps, values))
    finally:
        body.close()
    return values[0] if n == 1 else tuple(values)


def _run_reading_live(cond_plan, body, values, captured, live, saved, forward_op):
    """run_while's iterations for a loop that writes a variable it captured a read of:
    the condition and the body are fed what the variable holds when each runs
    (loop_live_reads.py). Returns the final values."""
    refresh = loop_live_reads.refresh
    n = len(values)
    steps = []
    while cond_plan.run(values + refresh(captured, live))[0]:
        outputs = body.run(values + refresh(captured, live))
        if saved is not None:
            steps.append((values, outputs[n:]))
        values = outputs[:n]
    if saved is not None:
        _record_history(forward_op, _History(saved, steps, values))
    return values


# -- the gradient: the body's gradient sub-plan, last iteration first --------------------------
def _grad_plan(ctx, grad_loop):
    """The gradient body's sub-plan and what it hoists (loop_hoisting.py)."""
    plan = ctx.state.get("plan")
    if plan is None:
        loop = grad_loop.loop
        feeds = (tuple(loop.loop_vars) + tuple(loop.captured) + tuple(grad_loop.extra) +
                 tuple(grad_loop.saved) + tuple(grad_loop.grad_ins))
        fetches = tuple(g for g in grad_loop.var_grads + grad_loop.cap_grads if g is not None)
        # The captured tensors' gradients are only summed over the iterations (below).
        summed = tuple(g for g in grad_loop.cap_grads if g is not None)

        def build():
            hoisting = loop_hoisting.Hoisting(
                ctx.session, fetches, feeds, tuple(loop.captured) + tuple(grad_loop.extra),
                summed, on=loop_hoisting.enabled(ctx.session))
            body_feeds = hoisting.body_feeds(feeds)
            ctx.state["hoisting"] = (hoisting,)
            return SpecialisingPlan(hoisting.attach(executor.Plan(
                ctx.session, fetches, body_feeds, (), summed, on_device=True)), body_feeds,
                ctx.session)
        plan = ctx.session.build_once(ctx.state, "plan", build)
    return plan, ctx.state["hoisting"][0]


def run_loop_history(ctx, _):
    """LoopHistory: the history of the latest run of a loop nested in another's body.

    Its input (the loop's first result) only orders it after that run. A fresh _History
    object is made by every run, so each outer iteration's value stays intact once the
    outer loop recorded it."""
    return _recorded_history(ctx.attrs["_forward"])


def _history(ctx, grad_loop, finals, given):
    forward = grad_loop.forward_op
    if grad_loop.history is not None:
        # Nested: the outer loop fed the history of the matching outer iteration.
        if not isinstance(given, _History) or len(given.final) != len(finals):
            raise InvalidArgumentError(
                None, ctx.op, "The gradient of the loop '%s' needs the iterations of the "
                "same run of that loop, which were not recorded." % forward.name)
        return given
    history = _recorded_history(forward)
    if history is None or len(history.final) != len(finals) or \
            any(a is not b for a, b in zip(history.final, finals)):
        raise InvalidArgumentError(
            None, ctx.op, "The gradient of the loop '%s' needs the iterations of the same "
            "run of that loop, which were not recorded (were its results fed?)."
            % forward.name)
    return history


def _value_or_zeros(value, like):
    if value is None or value is DEAD:
        return np.zeros_like(np.asarray(like))
    return value


def run_while_grad(ctx, *inputs):
    grad_loop = ctx.attrs["_grad_loop"]
    loop = grad_loop.loop
    n, k = len(loop.loop_vars), len(grad_loop.var_ids)
    m = len(loop.captured)
    finals = inputs[:n]
    grads = list(inputs[n:n + k])
    captured = list(inputs[n + k:n + k + m])
    extra = list(inputs[n + k + m:])
    given = extra.pop() if grad_loop.history is not None else None
    history = _history(ctx, grad_loop, finals, given)
    plan, hoisting = _grad_plan(ctx, grad_loop)
    saved_at = [history.index[t] for t in grad_loop.saved]
    live = ctx.state.get("live_saved")
    if live is None:
        live = ctx.state["live_saved"] = loop_live_reads.live_saved(
            grad_loop.saved, loop, ctx.session.variable_values)
    # The captured tensors' gradients, summed over the iterations (loop_sums.py).
    sums = [loop_sums.Sum(captured[j]) for j in grad_loop.cap_ids]
    products = [loop_sums.Products() for _ in sums]
    # What each iteration's feed list is made of, worked out once (~40 values a time step
    # for an LSTM: its Python counts 20 times a step).
    unchanging = captured + extra
    pick_saved = picker(saved_at)
    var_grads = [(g is not None, i) for g, i in zip(grad_loop.var_grads, grad_loop.var_ids)]
    summing = list(zip(sums, products))
    body = hoisting.start(plan)
    try:
        for values, saved_values in reversed(history.steps):
            feed = values + unchanging
            if live:                  # reads of a variable the loop wrote: its value now
                feed.extend(loop_live_reads.refresh(pick_saved(saved_values), live))
            else:
                feed.extend(pick_saved(saved_values))
            feed.extend(grads)
            outputs = iter(body.run(feed))
            grads = [_value_or_zeros(next(outputs) if fetched else None, values[i])
                     for fetched, i in var_grads]
            for total, product in summing:
                grad = next(outputs)
                if grad.__class__ is DeferredProduct:
                    grad = product.add(grad)
                    if grad is not None:
                        total.add(grad, owned=True)
                elif grad is not None:
                    total.add(grad)
    finally:
        body.close()
    for total, product in zip(sums, products):
        total.add(product.product(), owned=True)
    results = grads + [total.result() for total in sums]
    return results[0] if len(results) == 1 else tuple(results)
