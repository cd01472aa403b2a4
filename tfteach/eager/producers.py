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
import weakref

__all__ = ["watching", "note", "made_by", "ACTIVE", "WATCHED"]

ACTIVE = [0]                            # steps watching now (nesting); the executor reads it
WATCHED = frozenset(("Softmax",))
_MADE_BY = weakref.WeakKeyDictionary()  # output -> (op type, its first input)


@contextlib.contextmanager
def watching():
    """While a step runs: the executor notes what made each watched op's output."""
    ACTIVE[0] += 1
    try:
        yield
    finally:
        ACTIVE[0] -= 1
        if not ACTIVE[0]:
            _MADE_BY.clear()


def note(op_type, output, inputs):
    """Called by the executor for each op while ACTIVE (cheap for the others)."""
    if op_type in WATCHED:
        _MADE_BY[output] = (op_type, inputs[0])


def made_by(tensor):
    """(op type, first input) of the watched op that made `tensor` in a watching step,
    else None."""
    try:
        return _MADE_BY.get(tensor)
    except TypeError:                   # not weak-referenceable: never noted
        return None
