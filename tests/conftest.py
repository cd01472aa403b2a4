"""Shared test set-up: every test starts in graph mode with a fresh default graph."""
import os

import pytest

# Numba's CUDA simulator must be chosen before numba is first imported (CUDA tests).
os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import tfteach as tf  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_graph():
    # Graph mode, whatever an import did: importing tfteach.v2 (test_gradient_coverage
    # imports every module) switches eager execution on for the process, as TF 2 is.
    from tfteach.framework import eager_mode
    eager_mode.STATE.enabled = False
    eager_mode.STATE.v2 = False          # TF 1's rules too (tfteach.v2 sets TF 2's)
    eager_mode.STATE.tensor_equality = False     # `==` identity, as TF 1's graphs
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


@pytest.fixture
def products(monkeypatch):
    """Counts the matrix products MatMul kernels compute (their split_matmul calls)."""
    from tfteach.kernels.cpu import linalg
    calls = []
    real = linalg.split_matmul

    def counting(left, right):
        calls.append((left.shape, right.shape))
        return real(left, right)
    monkeypatch.setattr(linalg, "split_matmul", counting)
    return calls


@pytest.fixture
def one_blas_thread():
    """OpenBLAS's thread count is one number for the process; a run in progress beside
    another makes it 1 (docs/engine.md, "Threads"). Pinned to 1, a step computes in a
    thread what it computes alone, to the bit."""
    from tfteach.kernels.cpu import two_workers
    blas = two_workers._find_blas()
    if blas is None:                        # not OpenBLAS: nothing changes the count
        yield
        return
    saved = blas[0]()
    blas[1](1)
    try:
        yield
    finally:
        blas[1](saved)
