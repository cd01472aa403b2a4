"""The session's fast path for the commonest runs: one Tensor, or a flat list of Tensors
and Operations, fetched with a feed_dict of plain Tensor keys (`sess.run(loss, {x: xs,
y: ys})`, `sess.run([train_op, loss], {x: xs, y: ys})`).

What such a run checks about its fetch and its feed keys — that they are in the graph,
fetchable, feedable, which Plan runs them — depends on the keys only, never on the fed
values. The Session's general path does those checks the first time (with TensorFlow's
errors); a `FedRun` remembers their outcome for that (fetch, keys) signature, so a later
run only converts each fed value and checks its shape (docs/engine.md, "The session fast
path"). A value this path does not handle in exactly the general path's way (a string
feed, a Tensor, anything unusual) makes it step aside: the general path runs instead and
raises what it raises.
"""
import numpy as np

from tfteach.framework.operation import Operation
from tfteach.framework.tensor import Tensor
from tfteach.runtime import fetches as fetches_lib

__all__ = ["FedRun", "signature_of"]

# The Python and NumPy value types converted here as process_feeds converts them.
_PLAIN = (float, int, bool, list, tuple, np.ndarray)


def signature_of(fetches, feed_dict):
    """The cache key of a run, or None when the run is not of the fast kind: one Tensor,
    or a flat list or tuple of Tensors and Operations (`[train_op, loss]`), fetched with a
    dict of Tensor keys (or none)."""
    if feed_dict is None:
        keys = ()
    elif type(feed_dict) is dict:
        keys = tuple(feed_dict)
    else:
        return None
    kind = type(fetches)
    if kind is Tensor:
        return (fetches, keys)
    if kind is list or kind is tuple:
        for fetch in fetches:
            if type(fetch) is not Tensor and type(fetch) is not Operation:
                return None
        return (kind, tuple(fetches), keys)
    return None


class _FedTensor:
    """One feed key: its NumPy dtype, and what its last fed value's shape was checked
    against: (the tensor's TensorShape object, its static shape as a tuple, the fed
    shape that fitted it). A new TensorShape (`set_shape`) is read again."""

    __slots__ = ("tensor", "np_dtype", "dtype", "checked")

    def __init__(self, tensor):
        self.tensor = tensor
        self.dtype = tensor.dtype.base_dtype
        self.np_dtype = self.dtype.np
        # One tuple, replaced whole: a thread never sees a fed shape paired with
        # another TensorShape than the one it was checked against.
        self.checked = (None, None, None)

    def convert(self, value):
        """The fed array, or None to let the general path handle (and judge) the value."""
        if type(value) is np.ndarray and value.dtype is self.np_dtype:
            array = value       # what np.asarray(value, dtype) returns: the array itself
        else:
            kind = type(value)
            if kind not in _PLAIN and not isinstance(value, np.generic):
                return None
            if kind is int or kind is bool:
                fetches_lib._check_python_int(value, self.dtype)    # TF's TypeError, if any
            try:
                array = np.asarray(value, dtype=self.np_dtype)
            except (ValueError, TypeError):
                return None
        shape, got = self.tensor._shape, array.shape
        checked_shape, dims, fitted = self.checked
        if checked_shape is shape:
            if got == fitted:       # the shape fed last time (a batch of the same size)
                return array
        else:
            dims = shape.as_tuple()
        if dims is not None:
            if len(got) != len(dims):
                return None
            for want, have in zip(dims, got):
                if want is not None and want != have:
                    return None
        self.checked = (shape, dims, got)
        return array


class FedRun:
    """A (fetch, feed keys) signature whose checks passed once, and its Plan."""

    __slots__ = ("plan", "feeds", "graph", "marks", "tensors", "positions", "fed")

    def __init__(self, plan, feed_tensors, graph, fetches, tensors):
        """`tensors`: the distinct fetched tensors, in the plan's order."""
        self.plan = plan
        self.feeds = [_FedTensor(t) for t in feed_tensors]
        self.graph = graph
        self.marks = self._marks()
        self.tensors = tuple(tensors)
        # Which fetched tensors are fed: TF hands back their fed array itself (session.py).
        fed = set(feed_tensors)
        self.fed = tuple(t in fed for t in self.tensors)
        # For a list/tuple: each fetch's index in `tensors`, -1 for an Operation (None).
        # (by identity: a tf.function's tensors may compare elementwise, TF 2's `==`)
        index = {id(t): i for i, t in reversed(list(enumerate(self.tensors)))}
        self.positions = None if type(fetches) is Tensor else tuple(
            index[id(f)] if type(f) is Tensor else -1 for f in fetches)

    def _marks(self):
        # The graph's sets of unfeedable / unfetchable nodes only grow: while their sizes
        # are unchanged, the feedable / fetchable checks passed once still hold.
        return len(self.graph._unfeedable), len(self.graph._unfetchable)

    @staticmethod
    def applies_to(feed_dict, feed_tensors):
        """Whether the feed_dict's keys are the fed tensors themselves, one each (no
        nested, sparse or named keys) and none of them a string."""
        if not feed_dict:
            return not feed_tensors
        return (len(feed_tensors) == len(feed_dict) and
                all(k is t for k, t in zip(feed_dict, feed_tensors)) and
                all(t.dtype.base_dtype.name != "string" for t in feed_tensors))

    def feed_values(self, values):
        """The converted values in the plan's feed order, or None (general path)."""
        graph = self.graph      # (self._marks(), inlined: this runs every step)
        if (len(graph._unfeedable), len(graph._unfetchable)) != self.marks:
            return None
        out = []
        for feed, value in zip(self.feeds, values):
            array = feed.convert(value)
            if array is None:
                return None
            out.append(array)
        return out
