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
"""
import numpy as np

from tfteach.runtime import errors_text
from tfteach.runtime.optimizer.rewrite import Rewrite
from tfteach.runtime.optimizer.slots import plain, producers, readers

__all__ = ["run", "NAME"]

NAME = "elementwise_chains"


def run(steps, plan, rewrites):
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
    fused, dropped = {}, set()
    for chain in chain_of.values():
        if len(chain) < 2:
            continue
        tail = chain[-1]
        fused[tail] = _fused_step(chain)
        dropped.update(chain[:-1])
        rewrites.append(Rewrite(NAME, tuple(s.name for s in chain),
                                "one step: %s" % " -> ".join(s.type for s in chain)))
    if not fused:
        return steps
    return [fused.get(step, step) for step in steps if step not in dropped]


def _is_link(step, awaited):
    ufunc = getattr(step.kernel, "ufunc", None)
    return (plain(step) and isinstance(ufunc, np.ufunc) and ufunc.nout == 1
            and ufunc.nin == len(step.in_slots) and step.single_out is not None
            and not step.op._control_inputs and step.op not in awaited
            and step.op._outputs[0].dtype.base_dtype.np.kind == "f")


def _fused_step(chain):
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
    one.kernel = _chain_kernel(head, tuple(program))
    return one


def _chain_kernel(head, program):
    n_head = len(head.in_slots)

    def run_chain(ctx, *args):
        buf = _run(head, args[:n_head])
        # While `buf` is an array of its own with >= 1 dimension, each link writes into
        # it; its shape and dtype do not change then (checked per operand by _fits).
        owned = type(buf) is np.ndarray and buf.ndim > 0
        i = n_head
        for ufunc, link, chain_at, has_other in program:
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
