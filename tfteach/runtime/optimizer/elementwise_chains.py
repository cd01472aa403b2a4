"""A chain of elementwise float ops run as one step, writing one buffer in place.

`tanh(x * w + b)` built as three ops makes three arrays, and the fast loop pays its
per-step cost three times. When each value of a chain is read by the next op of the
chain only (not fetched, not read elsewhere), the chain's last op runs one step: the
first op computes a new array as it would, and each next op writes its result into
that same array (`ufunc(buf, other, out=buf)`): the same NumPy loop on the same
numbers, so the same bits, with one allocation and one step for the whole chain.
A link whose result would not fit the buffer (its other operand broadcasts the value
to a bigger shape, a 0-d value) runs its own kernel instead; an error names the op
that failed, as unfused. Only float ops whose kernel is a NumPy ufunc take part (the
Numba activations are not ufuncs that write in place).

Inside a chain, a run of two or more links of exactly rounded arithmetic (+, -, *, /,
negation, abs, square, sqrt, maximum, minimum; float32/float64) and of tanh, exp, log
(fused_arithmetic.LOOP_OPS, NumPy's own loops called from the kernel) runs as one
generated Numba kernel (fused_arithmetic.py) once the chain has run about as long as
compiling its kernels would take (`fused_arithmetic.compile_after`): the same bits as
the ufuncs.
Until then, and for a step whose operands a kernel does not take, the links run one by
one.
"""
from time import perf_counter

import numpy as np

from tfteach.runtime import chain_accounting, errors_text
from tfteach.runtime.optimizer import fused_arithmetic
from tfteach.runtime.optimizer.rewrite import Rewrite
from tfteach.runtime.optimizer.slots import plain, producers, readers, size_one_constant

__all__ = ["run", "NAME"]

NAME = "elementwise_chains"
# On a GPU a fused chain's links' charges are replayed (runtime/chain_accounting.py),
# which costs ~3 µs a run where each link fused away saves ~1.2 (its call, charge and
# release): measured on the virtual GPU (2026-11-27, 100 to 262,144 floats), a chain
# of 2 to 4 links ran 1.03-1.17x slower fused, of 6 links 0.91-0.99x, of 8 0.85-0.90x.
MIN_LINKS_ON_GPU = 6


def run(steps, plan, rewrites, on_gpu=False):
    """`steps` with each chain as one step. `on_gpu`: the plan runs on a virtual GPU,
    whose allocator counts every value TF's GPU graph makes: a chain is fused only where
    its links follow one another (split where another step runs between them) and
    only if it has MIN_LINKS_ON_GPU of them, and the fused step keeps its links, whose
    charges the accounted loop replays (runtime/chain_accounting.py)."""
    count = readers(steps, plan.fetch_slots)
    awaited = {op for step in plan.steps for op in step.ctrl_ops}
    chain_of = {}                 # tail slot -> list of link steps
    for step in steps:
        if not _is_link(step, awaited):
            continue
        chain = None
        for s in step.in_slots:
            if s in chain_of and count[s] == 1:
                chain = chain_of.pop(s)
                break
        chain = (chain or []) + [step]
        chain_of[step.single_out] = chain
    chains = list(chain_of.values())
    if on_gpu:
        position = {step: i for i, step in enumerate(steps)}
        chains = [part for chain in chains
                  for part in chain_accounting.consecutive_parts(chain, position)]
    fused, dropped = {}, set()
    for chain in chains:
        # on a GPU's allocator (not a CPU op of a GPU plan) the links' charges are replayed
        accounted = on_gpu and chain[0].alloc is not None
        if len(chain) < (MIN_LINKS_ON_GPU if accounted else 2):
            continue
        tail = chain[-1]
        fused[tail] = _fused_step(chain, plan, accounted)
        dropped.update(chain[:-1])
        rewrites.append(Rewrite(NAME, tuple(s.name for s in chain),
                                "one step: %s" % describe(chain, fused[tail].kernel.fused_runs)))
    if not fused:
        return steps
    return [fused.get(step, step) for step in steps if step not in dropped]


def _is_link(step, awaited):
    ufunc = getattr(step.kernel, "ufunc", None)
    return (plain(step) and isinstance(ufunc, np.ufunc) and ufunc.nout == 1
            and ufunc.nin == len(step.in_slots) and step.single_out is not None
            and not step.op._control_inputs and step.op not in awaited
            and step.op._outputs[0].dtype.base_dtype.np.kind == "f")


def _fused_step(chain, plan, accounted=False):
    """The chain's one step; `accounted`: on a GPU's allocator, keeping its links for
    the replay of their charges."""
    import copy
    head = chain[0]
    in_slots = list(head.in_slots)
    program = []                  # (ufunc, link step, chain value's position, has other)
    for previous, link in zip(chain, chain[1:]):
        chain_at = link.in_slots.index(previous.single_out)
        others = [s for i, s in enumerate(link.in_slots) if i != chain_at]
        in_slots.extend(others)
        program.append((link.kernel.ufunc, link, chain_at, bool(others)))
    tail = chain[-1]
    one = copy.copy(tail)
    one.in_slots = tuple(in_slots)
    runs = _fused_runs(chain, program, plan) if fused_arithmetic.ENABLED else {}
    one.kernel = _chain_kernel(head, tuple(program), runs, report_in_place=accounted)
    one.kernel.fused_runs = runs
    if accounted:
        one.links = chain_accounting.ChainLinks(
            tuple(chain), len(head.in_slots),
            tuple((chain_at, has_other) for _, _, chain_at, has_other in program))
    return one


def _fused_runs(chain, program, plan):
    """{index of a run's first link (0: the head): (index after its last, FusedRun,
    operand count)} for each run of >= 2 consecutive fusable links (fused_arithmetic.py).
    An operand that is a size-1 constant of the plan (in its template, not fed) goes
    into the run's constants, if it cannot make the value grow (its rank is at most the
    chain value's static rank); the others are read at run time."""
    fusable = [fused_arithmetic.is_fusable(step) for step in chain]
    feeds = set(plan.feed_slots)
    runs, k = {}, 0
    while k < len(chain):
        stop = k
        while stop < len(chain) and fusable[stop]:
            stop += 1
        if stop - k >= 2:
            dtype = chain[k].op._outputs[0].dtype.base_dtype.np
            ops, picks, constants, n = [], [], [], 0
            for i in range(k, stop):
                link = chain[i]
                # the head reads operands only; a later link the chain's value, at value_at
                value_at = None if i == 0 else program[i - 1][2]
                inputs = link.op._inputs
                refs = []
                for j, slot in ((j, s) for j, s in enumerate(link.in_slots) if j != value_at):
                    # what it broadcasts against: the chain's value, or the head's other input
                    against = value_at if value_at is not None else 1 - j
                    rank = inputs[against].shape.ndims if against < len(inputs) else None
                    c = size_one_constant(plan.template, feeds, slot, dtype, rank)
                    if c is not None:
                        refs.append(("c", len(constants)))
                        constants.append(c)
                    else:
                        refs.append(len(picks))
                        picks.append(n)
                    n += 1
                if value_at is not None:
                    refs.insert(value_at, -1)
                ops.append((link.type, tuple(refs)))
            run = fused_arithmetic.FusedRun(tuple(ops), tuple(picks), constants, dtype)
            runs[k] = (stop, run, n)
        k = max(stop, k + 1)
    return runs


def describe(chain, runs):
    """The chain as a Rewrite's words: `Pow -> Numba[Tanh -> Mul -> AddV2] -> Pow`."""
    parts, k = [], 0
    while k < len(chain):
        if k in runs:
            stop = runs[k][0]
            parts.append("Numba[%s]" % " -> ".join(s.type for s in chain[k:stop]))
            k = stop
        else:
            parts.append(chain[k].type)
            k += 1
    return " -> ".join(parts)


def _chain_kernel(head, program, runs, report_in_place=False):
    unfused = _chain_runner(head, program, {}, report_in_place)
    if not runs:
        return unfused
    fused = _chain_runner(head, program, runs, report_in_place)
    heat = fused_arithmetic.Heat()
    fused_runs = [run for _, run, _ in runs.values()]

    def run_fused_chain(ctx, *args):
        if heat.hot or heat.buy_now(lambda: fused_arithmetic.compile_seconds(fused_runs)):
            return fused(ctx, *args)
        start = perf_counter()
        result = unfused(ctx, *args)
        heat.spent += perf_counter() - start
        return result
    run_fused_chain.heat = heat
    return run_fused_chain


def _chain_runner(head, program, runs, report_in_place=False):
    """The chain's kernel: the head, then each link's ufunc in place where it can, and
    each run of `runs` as one kernel call (or, where its operands do not fit a kernel,
    its links one by one). `report_in_place`: it returns (value, whether every link
    wrote into the head's array), for the accounting of a virtual GPU, which replays
    the links' charges at that array's size (runtime/chain_accounting.py)."""
    n_head = len(head.in_slots)
    # groups of links after the head: (FusedRun or None, its operand count, its links)
    groups, k = [], 1
    head_run = runs.get(0)
    if head_run is not None:
        k = head_run[0]
    while k < len(program) + 1:
        if k in runs:
            stop, fused_run, n = runs[k]
            groups.append((fused_run, n, program[k - 1:stop - 1]))
            k = stop
            continue
        stop = min([s for s in runs if s > k] + [len(program) + 1])
        groups.append((None, 0, program[k - 1:stop - 1]))
        k = stop
    head_links = program[:head_run[0] - 1] if head_run is not None else ()

    def run_chain(ctx, *args):
        i = n_head
        buf = None
        if head_run is not None:
            i = head_run[2]
            buf = head_run[1].run(None, args[:i])
        if buf is not None:
            owned = True
            groups_now = groups
        else:
            buf = _run(head, args[:n_head])
            owned = type(buf) is np.ndarray and buf.ndim > 0
            i = n_head
            groups_now = ((None, 0, head_links),) + tuple(groups) if head_links else groups
        first = buf
        for fused_run, n, links in groups_now:
            if fused_run is not None and owned:
                result = fused_run.run(buf, args[i:i + n])
                if result is not None:
                    buf = result
                    i += n
                    continue
            # While `buf` is an array of its own with >= 1 dimension, each link writes
            # into it; its shape and dtype do not change then (checked per operand by
            # _fits).
            for ufunc, link, chain_at, has_other in links:
                if has_other:
                    other = args[i]
                    i += 1
                    if owned and _fits(buf, other):
                        if chain_at == 0:
                            ufunc(buf, other, out=buf)
                        else:
                            ufunc(other, buf, out=buf)
                        continue
                    buf = _run(link, (buf, other) if chain_at == 0 else (other, buf))
                elif owned:
                    ufunc(buf, out=buf)
                    continue
                else:
                    buf = _run(link, (buf,))
                owned = type(buf) is np.ndarray and buf.ndim > 0
        if report_in_place:
            return buf, buf is first
        return buf
    return run_chain


def _run(step, args):
    try:
        return step.kernel(step.ctx, *args)
    except Exception as e:  # noqa: BLE001 - located at the op that failed, as unfused
        raise errors_text.op_error_from(e, step.op) from e


def _fits(buf, other):
    """Whether `ufunc(buf, other)` has buf's shape and dtype, so it can go into buf."""
    dtype = getattr(other, "dtype", None)
    if dtype is not buf.dtype and dtype != buf.dtype:
        return False
    shape = other.shape
    if not shape or shape == buf.shape:          # the usual cases: a scalar, same shape
        return True
    if len(shape) > buf.ndim:
        return False
    return all(d == 1 or d == b for d, b in zip(reversed(shape), reversed(buf.shape)))
