"""What a kernel keeps from one call to the next, private to one `Session.run`.

TensorFlow documents `Session.run` as thread-safe: several threads may run steps of one
Session at once (the notes' QueueRunner threads do, beside the training loop). Every
value of a run lives in that run's own slots; what needs care is what kernels keep
*between* calls, for speed:

  - the convolutions' work arrays (the im2col patch matrix, 31 MB for LeNet's second
    layer; conv_kernels.scratch), reused run after run instead of allocated each time;
  - what one op of a fused step hands to another op of the same step: the patch matrix
    (conv_kernels.SharedPatches), the Fourier transforms (conv_fourier.Spectra);
  - a while loop's history, recorded by the While op for the WhileGrad op of the same
    run (runtime/loop_runner.py).

Kept in the op's KernelContext or in the plan, these are shared by every thread that
runs the plan: two steps at once then read each other's patches and give wrong numbers.
So they live in a `RunState`, one per run in progress. A Session keeps a small pool of
them (`RunStatePool`): a run takes one when it starts, makes it its thread's current
one, and gives it back when it ends. One thread running step after step gets the same
RunState, and so the same arrays, every time (the speed of the reuse is kept); two
threads at once hold two RunStates and share nothing. Nothing is locked while a run
computes, so two threads' steps overlap.

A sub-plan run inside a kernel (a while loop's body) belongs to its caller's run and
uses its RunState; the second half of a kernel split over the worker thread
(two_workers.py) does too. Outside any run (a test calling a kernel directly, constant
folding while a plan is built) there is no RunState: work arrays are fresh and paired
objects hold their own values, as a plain object would. A plan none of whose op types
keeps anything here (`kept_by`) runs without one, a little faster.
"""
import threading

import numpy as np

__all__ = ["RunState", "RunStatePool", "THIS_THREAD", "IN_PROGRESS", "KEEPING_OP_TYPES",
           "kept_by", "current", "enter", "leave", "entries", "scratch", "own"]


class _ThisThread(threading.local):
    state = None            # the RunState of the run this thread is in


THIS_THREAD = _ThisThread()


class RunState:
    """The kernels' state of one run in progress: `entries`, a dict whose keys say whose
    it is (an op's context and a name, or a paired object of a fused plan)."""

    __slots__ = ("entries",)

    def __init__(self):
        self.entries = {}


class RunStatePool:
    """A Session's RunStates not in use. Taking and giving back are a list's pop and
    append (atomic under the GIL): no lock on the way in or out of a run."""

    # How many idle RunStates a Session keeps (with their work arrays): more threads at
    # once still work, each extra one with fresh arrays when it cannot get one of these.
    MAX_KEPT = 4

    def __init__(self):
        self.idle = []

    def take(self):
        try:
            return self.idle.pop()
        except IndexError:                  # all in use (or none made yet)
            return RunState()

    def give_back(self, state):
        if len(self.idle) < self.MAX_KEPT:
            self.idle.append(state)

    def clear(self):
        """Forgets the kept RunStates (the session closes: their arrays are freed)."""
        del self.idle[:]

    def idle_entries(self):
        """The entries of the RunStates not in use (what runs left for the next ones:
        the tests look at what is kept)."""
        return [state.entries for state in list(self.idle)]


# The op types whose kernels keep state in a RunState, named by the modules that
# keep it (conv_kernels, runtime/loop_runner): a plan with none of them runs without
# taking a RunState (executor.Plan.run), a little faster.
KEEPING_OP_TYPES = set()


def kept_by(*op_types):
    """Declares that the kernels of `op_types` keep state in their run's RunState."""
    KEEPING_OP_TYPES.update(op_types)


# One entry per top-level run in progress in the process (list append and pop are
# atomic under the GIL): how many runs compute at once, whatever their Sessions.
# (executor.Plan.run appends and pops itself: it is on every run's path.)
IN_PROGRESS = []


def current():
    """The RunState of the run this thread is in, or None."""
    return THIS_THREAD.state


def enter(state):
    """Makes `state` this thread's current RunState; returns the one it replaces."""
    previous = THIS_THREAD.state
    THIS_THREAD.state = state
    return previous


def leave(previous):
    THIS_THREAD.state = previous


def entries():
    """The current run's dict of kernel state, or a fresh dict outside any run."""
    state = THIS_THREAD.state
    return {} if state is None else state.entries


def scratch(owner, key, shape, dtype):
    """A work array of `shape` and `dtype` for `owner`'s kernel (its context), the same
    one in every run this RunState serves. Its content is garbage; never returned to the
    caller of the kernel (so reusing it is safe)."""
    state = THIS_THREAD.state
    if state is None:                       # outside a run: nothing to reuse it in
        return np.empty(shape, dtype)
    table = state.entries
    buf = table.get((owner, key))
    if buf is None or buf.shape != shape or buf.dtype != dtype:
        buf = table[(owner, key)] = np.empty(shape, dtype)
    return buf


def own(paired):
    """This run's own copy of `paired` (an object a fused plan gives to several ops of a
    step, with a `fresh()` method making an empty one), or `paired` itself outside any
    run. Called by each op as it starts, on the run's thread."""
    if paired is None:
        return None
    state = THIS_THREAD.state
    if state is None:
        return paired
    mine = state.entries.get(paired)
    if mine is None:
        mine = state.entries[paired] = paired.fresh()
    return mine
