"""The queues a Session keeps (TF's FIFOQueue, RandomShuffleQueue, PaddingFIFOQueue,
PriorityQueue): elements, capacity, and threads that wait on them.

A queue is a resource of one Session (runtime/session_resources.py), created the first
time its queue op runs there, as TensorFlow's ResourceMgr creates it. Its ops
(ops/data_flow_ops.py) call the methods below from whatever thread runs them: a runner
thread enqueues while the training loop dequeues, and each blocks on one
`threading.Condition` until the other has made room or data:

- enqueue on a full queue waits for room; on a closed queue it fails with
  CancelledError "FIFOQueue '_0_fifo_queue' is closed.";
- dequeue waits until enough elements are there (RandomShuffleQueue: `n` more than
  `min_after_dequeue`, unless closed); on a closed queue with too few, OutOfRangeError
  "... is closed and has insufficient elements (requested 1, current size 0)";
- `close(cancel_pending_enqueues=True)` fails the waiting enqueues with CancelledError
  "Enqueue operation was cancelled"; closing the Session (`cancel`) fails every waiting
  op with "Enqueue/Dequeue operation was cancelled", so no thread waits on a dead session;
- a run's `RunOptions(timeout_in_ms)` (blocking.deadline) turns a wait past it into
  DeadlineExceededError "Timed out waiting for notification".

Every element is a tuple of NumPy values, one per component. `dequeue_many` waits
until it can take all `n` at once, then takes them together (TF takes them one by one
as they arrive, so with several consumers, or on a timeout, TF can split or lose
elements that tfteach keeps whole; docs/queues.md).
"""
import collections
import heapq
import itertools
import threading

import numpy as np

from tfteach.framework.errors import (CancelledError, InvalidArgumentError,
                                      OutOfRangeError)
from tfteach.kernels.cpu import blocking

__all__ = ["FIFOQueue", "RandomShuffleQueue", "PaddingFIFOQueue", "PriorityQueue"]


def _shape_text(shape):
    return "[%s]" % ",".join("?" if d is None or d < 0 else str(d) for d in shape)


class FIFOQueue:
    """First in, first out. `shapes`: one tuple per component (None dims allowed only in
    a PaddingFIFOQueue), or None when the queue was built without shapes."""

    kind = "FIFOQueue"

    def __init__(self, name, capacity, dtypes, shapes):
        self.name = name                  # TF's resource name: "_0_fifo_queue"
        self.capacity = capacity if capacity >= 0 else None     # -1: unbounded
        self.dtypes = list(dtypes)
        self.shapes = None if shapes is None else [tuple(s) for s in shapes]
        self._cond = threading.Condition()
        self._closed = False
        self._cancel_enqueues = False
        self._session_closed = False
        self._init_storage()

    # -- storage (the subclasses order elements differently) -----------------------------
    def _init_storage(self):
        self._items = collections.deque()

    def _put(self, element):
        self._items.append(element)

    def _take(self):
        return self._items.popleft()

    def _count(self):
        return len(self._items)

    def _available(self, closed):
        """How many elements a dequeue may take now."""
        return self._count()

    # -- what the ops see ----------------------------------------------------------------
    def size(self):
        with self._cond:
            return self._count()

    def is_closed(self):
        with self._cond:
            return self._closed

    def close(self, cancel_pending_enqueues=False):
        with self._cond:
            self._closed = True
            if cancel_pending_enqueues:
                self._cancel_enqueues = True
            self._cond.notify_all()

    def cancel(self):
        """The Session closed: every op waiting here fails with CancelledError."""
        with self._cond:
            self._session_closed = True
            self._closed = True
            self._cond.notify_all()

    def check_element(self, components, index_in_batch=None):
        """Each component against the queue's shape (TF's text for a mismatch)."""
        if self.shapes is None:
            return
        for i, (value, shape) in enumerate(zip(components, self.shapes)):
            got = np.shape(value)
            if len(got) != len(shape) or any(d is not None and d >= 0 and d != g
                                             for d, g in zip(shape, got)):
                raise InvalidArgumentError(
                    None, None, "Shape mismatch in tuple component %d. Expected %s, got %s"
                    % (i, _shape_text(shape), _shape_text(got)))

    def enqueue_many(self, elements):
        """Adds the elements one by one, waiting for room for each (what was added
        stays when a later wait fails, as in TF)."""
        deadline = blocking.deadline()
        with self._cond:
            if self._closed:
                raise self._closed_error()
            for element in elements:
                while self.capacity is not None and self._count() >= self.capacity:
                    if self._session_closed or self._cancel_enqueues:
                        raise CancelledError(None, None, "Enqueue operation was cancelled")
                    blocking.wait(self._cond, deadline)
                if self._session_closed or self._cancel_enqueues:
                    raise CancelledError(None, None, "Enqueue operation was cancelled")
                self._put(element)
                self._cond.notify_all()

    def dequeue_many(self, n, up_to=False):
        """`n` elements (a list of tuples), waiting until they are there; `up_to`: after
        close, whatever is left (at least one)."""
        deadline = blocking.deadline()
        with self._cond:
            while True:
                if self._session_closed:
                    raise CancelledError(None, None, "Dequeue operation was cancelled")
                available = self._available(self._closed)
                if available >= n:
                    break
                if self._closed:
                    if up_to and available > 0:
                        n = available
                        break
                    raise OutOfRangeError(
                        None, None, "%s '%s' is closed and has insufficient elements "
                        "(requested %d, current size %d)" % (self.kind, self.name, n,
                                                              self._count()))
                blocking.wait(self._cond, deadline)
            taken = [self._take() for _ in range(n)]
            self._cond.notify_all()
            return taken

    def _closed_error(self):
        return CancelledError(None, None, "%s '%s' is closed." % (self.kind, self.name))

    # -- batching dequeued elements ------------------------------------------------------
    def stack(self, elements):
        """The components of `elements` stacked along a new first dimension."""
        out = []
        for i, dtype in enumerate(self.dtypes):
            if elements:
                out.append(np.stack([np.asarray(e[i], dtype=dtype.np) for e in elements]))
            else:
                shape = tuple(0 if d is None or d < 0 else d for d in self.shapes[i])
                out.append(np.zeros((0,) + shape, dtype=dtype.np))
        return out


class RandomShuffleQueue(FIFOQueue):
    """Dequeues a uniformly random element, and (until closed) keeps at least
    `min_after_dequeue` elements after every dequeue, so the draws stay mixed."""

    kind = "RandomShuffleQueue"

    def __init__(self, name, capacity, min_after_dequeue, dtypes, shapes, seed, seed2):
        self.min_after_dequeue = min_after_dequeue
        # Seeded as TF's kernel is: (0, 0) is unseeded, anything else a fixed stream.
        # The order is reproducible in tfteach, but it is not TF's Philox order.
        self._random = np.random.default_rng(None if seed == 0 and seed2 == 0
                                             else [seed, seed2])
        super().__init__(name, capacity, dtypes, shapes)

    def _init_storage(self):
        self._items = []

    def _take(self):
        i = int(self._random.integers(len(self._items)))
        self._items[i], self._items[-1] = self._items[-1], self._items[i]
        return self._items.pop()

    def _available(self, closed):
        return self._count() if closed else max(0, self._count() - self.min_after_dequeue)


class PaddingFIFOQueue(FIFOQueue):
    """A FIFOQueue whose components may have unknown dimensions: `dequeue_many` pads
    each to the largest in the batch, with zeros (empty strings for strings)."""

    kind = "PaddingFIFOQueue"

    def stack(self, elements):
        out = []
        for i, dtype in enumerate(self.dtypes):
            values = [np.asarray(e[i], dtype=dtype.np) for e in elements]
            rank = len(self.shapes[i])
            biggest = [max([v.shape[d] for v in values] or [0]) for d in range(rank)]
            fill = b"" if dtype.name == "string" else 0
            batch = np.full([len(values)] + biggest, fill, dtype=dtype.np)
            for j, v in enumerate(values):
                batch[(j,) + tuple(slice(0, s) for s in v.shape)] = v
            out.append(batch)
        return out


class PriorityQueue(FIFOQueue):
    """Dequeues the element with the smallest int64 priority (its first component);
    equal priorities leave in no promised order (here: the order they came in)."""

    kind = "PriorityQueue"

    def _init_storage(self):
        self._items = []
        self._arrival = itertools.count()

    def _put(self, element):
        heapq.heappush(self._items, (int(element[0]), next(self._arrival), element))

    def _take(self):
        return heapq.heappop(self._items)[2]
