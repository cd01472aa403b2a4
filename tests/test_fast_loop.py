"""runtime/fast_loop.py: a plan's steps as straight-line code must do exactly what
`Plan._run_fast` does — same calls, same stores, same frees — and name the step whose
kernel failed."""
from types import SimpleNamespace

import pytest

from tfteach.runtime import fast_loop


def step(kernel, ins, outs, frees=(), ctx=None):
    outs = tuple(outs)
    return SimpleNamespace(kernel=kernel, ctx=ctx, in_slots=tuple(ins), out_slots=outs,
                           single_out=outs[0] if len(outs) == 1 else None,
                           frees=tuple(frees), op=None)


def add(ctx, x, y):
    return x + y


def split(ctx, x):
    return x // 10, x % 10


def test_the_compiled_loop_stores_frees_and_calls_as_the_step_loop():
    calls = []

    def record(ctx, *args):
        calls.append((ctx, args))

    steps = [step(add, [0, 1], [2], frees=[0]),            # v2 = v0 + v1; v0 freed
             step(split, [2], [3, 4]),                     # two outputs
             step(record, [3, 4], [], ctx="ctx-of-record"),  # no output
             step(add, [3, 4], [5], frees=[3, 4])]
    values = [40, 2, None, None, None, None]
    assert fast_loop.compile_steps(steps)(values) is None
    assert values == [None, 2, 42, None, None, 6]
    assert calls == [("ctx-of-record", (4, 2))]


def test_an_empty_plan_compiles():
    values = [1]
    fast_loop.compile_steps([])(values)
    assert values == [1]


@pytest.mark.parametrize("failing", [0, 1, 4])
def test_failed_step_names_the_step_whose_kernel_raised(failing):
    def boom(ctx, x):
        raise ValueError("kernel %d" % failing)
    steps = [step(boom if i == failing else add, [0] if i == failing else [0, 0], [1])
             for i in range(5)]
    with pytest.raises(ValueError) as info:
        fast_loop.compile_steps(steps)([1, None])
    assert fast_loop.failed_step(info.value, steps) is steps[failing]


def test_a_failure_inside_a_kernels_own_loop_names_the_outer_step():
    # A loop's kernel runs its body's compiled loop: the outer plan must blame its own
    # step (the loop op), not the body's index.
    def inner_boom(ctx, x):
        raise ZeroDivisionError("deep")
    inner_steps = [step(add, [0, 0], [1]) for _ in range(3)] + [step(inner_boom, [0], [1])]
    inner = fast_loop.compile_steps(inner_steps)

    def loop_kernel(ctx, x):
        inner([x, None])
    outer_steps = [step(loop_kernel, [0], [1]), step(add, [0, 0], [1])]
    with pytest.raises(ZeroDivisionError) as info:
        fast_loop.compile_steps(outer_steps)([1, None])
    assert fast_loop.failed_step(info.value, outer_steps) is outer_steps[0]


def test_an_error_from_elsewhere_names_no_step():
    try:
        raise RuntimeError("not from a compiled loop")
    except RuntimeError as e:
        assert fast_loop.failed_step(e, [step(add, [0, 0], [1])]) is None
