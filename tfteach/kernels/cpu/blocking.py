"""Waiting inside a kernel: the deadline of the run that waits.

A kernel that blocks (a queue's dequeue on an empty queue, an enqueue on a full one)
waits on a `threading.Condition`. `RunOptions(timeout_in_ms=...)` bounds the whole
`Session.run`: the Session sets this thread's deadline around the run
(`run_deadline`), and `wait` turns waiting past it into TF's DeadlineExceededError
"Timed out waiting for notification". Without a timeout a wait lasts until another
thread notifies (or the Session closes and cancels the queue).

A run that waits computes nothing, so while it waits it does not count among the runs
in progress (run_state.IN_PROGRESS): a runner thread blocked on a full queue does not
keep the training loop's BLAS products one-threaded (docs/engine.md, "Threads").
"""
import contextlib
import threading
import time

from tfteach.framework.errors import DeadlineExceededError
from tfteach.kernels.cpu.run_state import IN_PROGRESS

__all__ = ["deadline", "run_deadline", "wait"]

_THIS_THREAD = threading.local()


def deadline():
    """This thread's run deadline (time.monotonic() seconds), or None."""
    return getattr(_THIS_THREAD, "deadline", None)


@contextlib.contextmanager
def run_deadline(timeout_in_ms):
    """Bounds the waits of the run inside the block to `timeout_in_ms` (0: no bound)."""
    previous = deadline()
    _THIS_THREAD.deadline = (time.monotonic() + timeout_in_ms / 1000.0
                             if timeout_in_ms and timeout_in_ms > 0 else None)
    try:
        yield
    finally:
        _THIS_THREAD.deadline = previous


def wait(condition, until):
    """One wait on `condition` (held by the caller), bounded by `until` if not None."""
    left = None
    if until is not None:
        left = until - time.monotonic()
        if left <= 0:
            raise DeadlineExceededError(None, None, "Timed out waiting for notification")
    counted = bool(IN_PROGRESS)
    if counted:
        IN_PROGRESS.pop()            # (list append/pop: atomic under the GIL)
    try:
        condition.wait(left)
    finally:
        if counted:
            IN_PROGRESS.append(None)
