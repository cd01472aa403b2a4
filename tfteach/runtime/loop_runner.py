"""The While op's kernel: run a loop's condition and body sub-plans until it stops.

The loop's ops (condition and body, built once under `while/`) are never scheduled by
the outer plan: nothing outside the loop consumes them. The While op takes the loop
variables' initial values and the outside tensors the loop captured; its kernel runs
two sub-plans of the same session, each feeding the loop variables (`while/Identity`)
and the captured tensors:
  - the condition plan fetches `while/LoopCond`;
  - the body plan fetches the `while/NextIteration` values.
Body ops therefore run exactly once per iteration (a `tf.assign_add` in the body adds
once per iteration), and never after the condition turned false.
"""
from tfteach.runtime import executor

__all__ = ["run_while"]


def _plans(ctx, loop):
    """The (condition, body) sub-plans, built once per session for this While op."""
    plans = ctx.state.get("plans")
    if plans is None:
        feeds = tuple(loop.loop_vars) + tuple(loop.captured)
        plans = ctx.state["plans"] = (
            executor.Plan(ctx.session, (loop.cond,), feeds, ()),
            executor.Plan(ctx.session, tuple(loop.next_values), feeds, ()))
    return plans


def run_while(ctx, *inputs):
    loop = ctx.attrs["_loop"]
    cond_plan, body_plan = _plans(ctx, loop)
    n = len(loop.loop_vars)
    values = list(inputs[:n])
    captured = list(inputs[n:])
    while cond_plan.run(values + captured)[0]:
        values = body_plan.run(values + captured)
    return values[0] if n == 1 else tuple(values)
