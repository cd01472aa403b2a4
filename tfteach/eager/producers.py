"""Which op made an eager tensor: the one question graph-mode library code asks of
`t.op` that eager code must answer too.

Keras' crossentropy losses look under their predictions: when they are a `Softmax` op's
output, they compute from its logits (exact, and never the log of 0). In TF 1.15,
`fit` and `evaluate` trace their step into a graph even when ops execute eagerly (Keras'
`run_eagerly` is False by default), so the losses find the Softmax there, whichever
code made it (a layer's activation, `tf.nn.softmax` in a subclassed model's `call`).
tfteach's eager steps run op by op, and an eager tensor keeps no op (a tape keeps the
ops it records, and evaluation has no tape). So while a step `watching()` runs, the
eager executor notes the input of every Softmax op it runs, keyed by the output, and
`made_by` answers for it. Outside, nothing is noted (a custom loop's loss clips, as TF
1.15's does for an EagerTensor); the notes die with their tensors and the step.
"""
import contextlib
import threading
import weakref

__all__ = ["watching", "note", "made_by", "STATE", "WATCHED"]

WATCHED = frozenset(("Softmax",))


class _ThreadState(threading.local):
    """Per thread, as a step's ops run in the thread that called fit: another thread's
    custom loop, running meanwhile, notes nothing."""
    active = 0                                   # steps watching in this thread (nesting)

    def __init__(self):
        # id(output) -> (weak reference to output, op type, first input). Keyed by id,
        # not by the tensor: with TF 2's tensor equality eager tensors are unhashable.
        self.made_by = {}


STATE = _ThreadState()                           # the executor reads STATE.active


@contextlib.contextmanager
def watching():
    """While a step runs: the executor notes what made each watched op's output."""
    state = STATE
    state.active += 1
    try:
        yield
    finally:
        state.active -= 1
        if not state.active:
            state.made_by.clear()


def note(op_type, output, inputs):
    """Called by the executor for each op while this thread watches."""
    if op_type in WATCHED:
        notes, key = STATE.made_by, id(output)
        # the note dies with its tensor (CPython calls back at once, before the id can
        # be reused)
        alive = weakref.ref(output, lambda _, notes=notes, key=key: notes.pop(key, None))
        notes[key] = (alive, op_type, inputs[0])


def made_by(tensor):
    """(op type, first input) of the watched op that made `tensor` in this thread's
    watching step, else None."""
    if not STATE.active:
        return None
    entry = STATE.made_by.get(id(tensor))
    if entry is None or entry[0]() is not tensor:
        return None
    return entry[1], entry[2]
