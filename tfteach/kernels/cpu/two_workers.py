"""Two workers for the big kernels, with BLAS one-threaded while they run.

Why not let BLAS use both cores? OpenBLAS splits each matrix product into many blocks
and its threads wait for each other after every block. On a quiet 2-core machine that
is fast, but as soon as another process wants a core, one of its threads is descheduled
for a whole time slice at every wait: measured here with a test run beside it, LeNet's
conv layers took 30-700 ms instead of 5-15 (docs/conv.md). Worse, after each call its
idle workers keep spinning (~0.1 s), taking a core from any thread of ours that runs
next. Numba's `parallel=True` with its default OpenMP layer spins its threads too.

So the big kernels split their *own* work in two: the convolutions split the batch
(`over_batch`: each half its own im2col and its own one-threaded product), large matrix
products split their output (`split_matmul`). Halves share nothing but disjoint output
rows or columns; the Numba loops are compiled with `nogil=True` so both run at once.

Inside a window (a step with convolutions) the memory-bound kernels around them split
too: NumPy's float ufuncs (`split_ufunc`), sums over the batch, max pooling and its
gradient, the gradient-descent update (`split_rows`). (Not the per-channel bias add and
its gradient: as row loops, channel_loops.py, they take about what waking the worker
costs, so they run whole.)
In such a step they are a fifth of the time, and one core would sit idle for it.
tfteach's Numba activations (elementwise.LazyUfunc, not np.ufunc objects) run whole:
measured when they went through Numba's DUFunc, two threads on them were slower than
one. Relu and ReluGrad split with nogil loops of the same formulas (nn_kernels.py).

The BLAS window. OpenBLAS's thread count is one number for the whole process (even the
`openblas_set_num_threads_local` of the OpenBLAS NumPy's wheels ship sets the global
count), so "BLAS one-threaded" is a window shared by everyone inside it: the first to
enter saves the count and sets 1, the last to leave puts the saved count back.
(Restoring per thread loses the count: the two halves read "1" from each other and the
process kept one BLAS thread for good, so every later `np.dot` — the student's own
NumPy included — ran at half speed; tests/test_two_workers.py.)
A session step whose plan contains a splitting op runs entirely inside one window
(`Plan.run`), so no multi-threaded product in between wakes OpenBLAS's spinning workers;
steps without one (the MLP) keep OpenBLAS's own threads, which are faster for mid-size
products. Where NumPy's BLAS is not OpenBLAS, the count is left alone (still correct).

Session threads (docs/engine.md, "Threads"). Whether a kernel splits is asked of its own
thread (`in_blas_window`): a thread whose step has no convolution runs its kernels whole
while another thread's step holds the window (the window's BLAS count is still the
process's). The worker's half runs in its caller's run (run_state.py: its work arrays).
"""
import contextlib
import ctypes
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from tfteach.kernels.cpu import openblas, run_state
from tfteach.kernels.cpu.cpu_quota import usable_cpus

__all__ = ["over_batch", "split_output", "split_matmul", "split_rows", "split_ufunc",
           "worth_splitting", "blas_window", "one_thread", "in_blas_window", "blas_threads",
           "fit_blas_to_cpus", "cap_blas_threads",
           "worker_count", "SPLITTING_OPS"]

# The op types whose CPU kernels split themselves (a plan with one runs in a window).
SPLITTING_OPS = frozenset({"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"})
# Below this many multiply-adds a second thread costs more than it saves.
MIN_PARALLEL_WORK = 2_000_000
# Handing half of a job to the worker and waiting for it costs ~80 us on this VM; an
# elementwise pass over 256K floats takes ~250 us, so smaller arrays stay on one thread.
MIN_SPLIT_ELEMENTS = 1 << 18

_POOL = None           # created on first use: nothing starts at import time
_POOL_LOCK = threading.Lock()   # two session threads may both be first
_WORKERS = None        # worker_count(), once known
_BLAS = None           # (get_num_threads, set_num_threads) of NumPy's OpenBLAS, if found
_SEARCHED = False

_WINDOW_LOCK = threading.Lock()
_window_users = 0      # callers now inside the one-thread window
_saved_threads = None  # BLAS's thread count before the window opened


def _find_blas():
    """NumPy's bundled OpenBLAS's thread-count getter and setter, or None."""
    global _BLAS, _SEARCHED
    if not _SEARCHED:
        # Under the lock, and _SEARCHED set last: two session threads opening their first
        # windows at once both see the functions (one that saw None would open a window
        # without saving the thread count, and another close it with None: a ctypes
        # ArgumentError, "argument 1: TypeError: wrong type").
        with _WINDOW_LOCK:
            if not _SEARCHED:
                getter = openblas.function("openblas_get_num_threads")
                setter = openblas.function("openblas_set_num_threads")
                if getter is not None and setter is not None:
                    getter.argtypes, getter.restype = [], ctypes.c_int
                    setter.argtypes, setter.restype = [ctypes.c_int], None
                    _BLAS = (getter, setter)
                _SEARCHED = True
    return _BLAS


def blas_threads():
    """OpenBLAS's current thread count, or None when NumPy's BLAS is not OpenBLAS."""
    blas = _find_blas()
    return blas[0]() if blas is not None else None


_FITTED = False         # fit_blas_to_cpus has run


def fit_blas_to_cpus():
    """Once a process (the first Session calls it): OpenBLAS's thread count capped at the
    CPUs this process may use at once. OpenBLAS counts the CPUs it may run on (its
    affinity), but a container's CFS quota lets it run far fewer: a Binder pod sees the
    node's 16 or more cores under a quota of 1-2 CPUs, and 16 threads that wait for each
    other after every block of every product then wait for time slices instead
    (steps with convolutions run one-threaded anyway; the MLP's and the RNNs' products
    did not). The count is the process's, so the student's own NumPy gets it too, as it
    should. A smaller count (`OPENBLAS_NUM_THREADS=1`) is left alone; outside a
    container nothing changes. A quota of 1.5 CPUs counts as 2, as worker_count does."""
    global _FITTED
    if _FITTED:
        return
    blas = _find_blas()
    cap = max(1, int(usable_cpus() + 0.5))
    with _WINDOW_LOCK:
        if _FITTED:
            return
        _FITTED = True
        _cap_locked(blas, cap)


def cap_blas_threads(cap):
    """OpenBLAS's thread count capped at `cap` for the process (never raised), also
    when a step holds BLAS at one thread now: the count its window puts back is capped.
    `tf.config.threading.set_intra_op_parallelism_threads(1)` before eager execution's
    first op (runtime/context_config.py)."""
    blas = _find_blas()
    with _WINDOW_LOCK:
        _cap_locked(blas, cap)


def _cap_locked(blas, cap):
    global _saved_threads
    if blas is None:
        return
    if _window_users:        # a step holds BLAS at 1: cap what it will put back
        if _saved_threads is not None and _saved_threads > cap:
            _saved_threads = cap
    elif blas[0]() > cap:
        blas[1](cap)


def worker_count():
    """2 when this process may use 1.5 CPUs or more (its affinity and its cgroup's CPU
    quota: a Binder pod on a 16-core node may be limited to 1), else 1. Read once."""
    global _WORKERS
    if _WORKERS is None:
        _WORKERS = 2 if usable_cpus() >= 1.5 else 1
    return _WORKERS


# How deep this thread is in windows. Whether a kernel splits its work is asked of its
# own thread: a session thread whose step has no convolution keeps its kernels whole
# (and its float sums in the same order as when it runs alone) while another thread's
# step holds the window open.
class _Depth(threading.local):
    depth = 0
    alone = 0           # > 0: this thread computes both halves of a split itself


_THIS_THREAD = _Depth()
# Read by the hottest kernels (cwise.py) as `THIS_THREAD.depth`: 0 means no window, so
# nothing to split, without a call to in_blas_window.
THIS_THREAD = _THIS_THREAD


def in_blas_window():
    """True when this thread runs inside a window (its step's, or as the worker)."""
    return _THIS_THREAD.depth > 0


@contextlib.contextmanager
def blas_window(split=True):
    """BLAS one-threaded for the whole process while anyone is inside (re-entrant).
    `split`: this thread's kernels split their work over the worker meanwhile (a step
    with convolutions); False for a step that only keeps BLAS off the cores other
    session threads compute on (executor.Plan.run)."""
    global _window_users, _saved_threads
    blas = _find_blas()
    with _WINDOW_LOCK:
        if _window_users == 0 and blas is not None:
            _saved_threads = blas[0]()
            blas[1](1)
        _window_users += 1
    depth = _THIS_THREAD.depth
    _THIS_THREAD.depth = depth + split
    try:
        yield
    finally:
        _THIS_THREAD.depth = depth
        with _WINDOW_LOCK:
            _window_users -= 1
            if _window_users == 0 and blas is not None:
                blas[1](_saved_threads)


@contextlib.contextmanager
def one_thread(split):
    """A session step on one thread (`ConfigProto(intra_op_parallelism_threads=1)`):
    BLAS one-threaded (a window), and where this thread's kernels split their work
    (`split`: a step with convolutions) it computes both halves itself, one after the
    other: the same halves, so the same values as the two-worker step."""
    _THIS_THREAD.alone += 1
    try:
        with blas_window(split=split):
            yield
    finally:
        _THIS_THREAD.alone -= 1


_ON_WORKER = threading.local()


def _in_window(fn, lo, hi, state):
    """The worker's half, in the caller's run (`state`: its work arrays are the run's)."""
    _ON_WORKER.active = True
    previous = run_state.enter(state)
    try:
        with blas_window():
            return fn(lo, hi)
    finally:
        run_state.leave(previous)
        _ON_WORKER.active = False


def _pool():
    """The workers. One run uses one at a time (its second half); session threads that
    split at once each get one where the process has the cores (one per usable CPU
    beyond the first), else they queue for it."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            workers = max(1, min(8, int(usable_cpus()) - 1))
            _POOL = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tfteach-worker")
        return _POOL


def _forget_pool_after_fork():
    """A forked child has no worker thread: the parent's pool would queue jobs forever."""
    global _POOL, _window_users, _WINDOW_LOCK, _POOL_LOCK
    _POOL = None
    _window_users = 0
    _THIS_THREAD.depth = 0       # the forking thread, the child's only one
    _WINDOW_LOCK = threading.Lock()
    _POOL_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool_after_fork)


def _two_halves(fn, size):
    """[fn(0, mid), fn(mid, size)], the second on the worker thread, both in a window.
    Session threads splitting at once may queue for a worker (a half never waits for
    anything but a worker, and a worker's half never splits again: no deadlock)."""
    mid = size // 2
    if _THIS_THREAD.alone or getattr(_ON_WORKER, "active", False):
        # One thread by request (one_thread), or a half that splits again (it could
        # wait for a worker, which may be itself): both halves here.
        return [fn(0, mid), fn(mid, size)]
    pool = _POOL if _POOL is not None else _pool()
    with blas_window():      # opened here, so the worker's half cannot close it early
        second = pool.submit(_in_window, fn, mid, size, run_state.current())
        first = fn(0, mid)
        return [first, second.result()]


def over_batch(fn, batch, work):
    """Runs fn(lo, hi) over batch rows [0, batch), in two halves when it pays.

    `work` (multiply-adds) decides; small ops run in one call, with BLAS as configured.
    Returns the results of the calls as a list.
    """
    if batch < 2 or work < MIN_PARALLEL_WORK or worker_count() < 2:
        return [fn(0, batch)]
    return _two_halves(fn, batch)


def _splits_product(m, n, k):
    """True when an m x k by k x n product runs in two halves: inside a BLAS window (else
    BLAS has its own threads), large enough, and with a second worker."""
    # The size test first: it is the cheap one, and most products are small.
    return m * n * k >= MIN_PARALLEL_WORK and in_blas_window() and worker_count() >= 2


def split_output(m, n, k, product):
    """Runs product(rows, cols) over the m x n output of an m x k by k x n product: once
    (BLAS as configured), or inside a BLAS window and when large, in two halves cut along
    the longer output side (each worker then reads only its half of a big matrix)."""
    if not _splits_product(m, n, k):
        product(slice(None), slice(None))
    elif m >= n:
        _two_halves(lambda lo, hi: product(slice(lo, hi), slice(None)), m)
    else:
        _two_halves(lambda lo, hi: product(slice(None), slice(lo, hi)), n)


def split_matmul(left, right):
    """left @ right (2-D), split over two workers when inside a BLAS window and large.

    Outside a window BLAS has its own threads; inside one it has a single thread, so a
    large product runs in two halves of its output (`split_output`).
    """
    m, k = left.shape
    n = right.shape[1]
    if not _splits_product(m, n, k):
        return np.matmul(left, right)
    out = np.empty((m, n), np.result_type(left, right))

    def product(rows, cols):
        np.matmul(left[rows], right[:, cols], out=out[rows, cols])
    split_output(m, n, k, product)
    return out


def worth_splitting(elements):
    """True inside a BLAS window for a job over at least MIN_SPLIT_ELEMENTS elements."""
    return elements >= MIN_SPLIT_ELEMENTS and in_blas_window() and worker_count() >= 2


def split_rows(fn, rows, elements):
    """[fn(lo, hi), ...] over rows [0, rows): two halves inside a BLAS window when the
    job touches at least MIN_SPLIT_ELEMENTS elements, else one call."""
    if rows < 2 or not worth_splitting(elements):
        return [fn(0, rows)]
    return _two_halves(fn, rows)


def split_ufunc(ufunc, inputs):
    """ufunc(*inputs), computed in two halves of the leading axis inside a BLAS window.

    Same values as one call (an elementwise result does not depend on how it is cut).
    Shapes that do not broadcast raise ValueError, as the ufunc itself does.
    """
    # tfteach's LazyUfuncs (Numba activations) are not np.ufunc: they run whole.
    if not in_blas_window() or not isinstance(ufunc, np.ufunc) or ufunc.nout != 1:
        return ufunc(*inputs)
    shape = np.broadcast_shapes(*[np.shape(a) for a in inputs])
    if not shape or shape[0] < 2 or int(np.prod(shape)) < MIN_SPLIT_ELEMENTS:
        return ufunc(*inputs)
    # Scalars stay as they are: a Python float is "weak" in NumPy's dtype rules (float32
    # array + 2.5 is float32), which an array broadcast from it would not be.
    arrays = [a if np.ndim(a) == 0 else np.broadcast_to(a, shape) for a in inputs]

    def cut(lo, hi):
        return [a if np.ndim(a) == 0 else a[lo:hi] for a in arrays]
    out = np.empty(shape, ufunc(*cut(0, 0)).dtype)      # the ufunc picks the dtype

    def half(lo, hi):
        ufunc(*cut(lo, hi), out=out[lo:hi])
    _two_halves(half, shape[0])
    return out
