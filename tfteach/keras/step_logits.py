"""The logits behind a softmax output, inside Keras' own eager steps.

In TF 1.15, `fit`, `evaluate` and `predict` trace their step into a graph even when ops
execute eagerly (Keras' `run_eagerly` is False by default), so a crossentropy loss finds
the `Softmax` op under its predictions and computes from its logits, as graph mode does.
tfteach's eager steps run op by op instead, and an eager tensor has no op to look
under. So while one of those steps runs, Keras' softmax activation remembers its logits
here, and the losses read them: the step computes what TF's traced step computes (and
what graph mode computes, bit for bit). Outside the steps (a custom loop under a
`GradientTape`), an eager output has no logits, and the losses clip and take the log,
as TF 1.15 does for an EagerTensor.
"""
import contextlib
import weakref

__all__ = ["remembering", "remember", "logits_of"]

_ACTIVE = [0]                           # how many Keras steps are running (nesting)
_LOGITS = weakref.WeakKeyDictionary()   # softmax output -> its logits; dies with it


@contextlib.contextmanager
def remembering():
    """While a Keras eager step runs: softmax outputs remember their logits."""
    _ACTIVE[0] += 1
    try:
        yield
    finally:
        _ACTIVE[0] -= 1
        if not _ACTIVE[0]:
            _LOGITS.clear()


def remember(output, logits):
    if _ACTIVE[0]:
        _LOGITS[output] = logits


def logits_of(output):
    """The logits `output` was the softmax of, in a running step; else None."""
    try:
        return _LOGITS.get(output)
    except TypeError:                   # not weak-referenceable: never remembered
        return None
