"""bench/compiled_lstm.py's two LSTM steps (the loops compiled; Python running the loops
with a compiled cell) compute the hand-written NumPy step's numbers (bench/nn_steps.py,
itself checked against the graph's step in test_bench_numpy_lstm.py): the bounds they
report for other designs are only honest if they do the same work."""
import ctypes
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "bench"))
import compiled_lstm  # noqa: E402  (bench/ is not a package)
import nn_steps  # noqa: E402

SGEMM = compiled_lstm.numpy_sgemm()
needs_sgemm = pytest.mark.skipif(SGEMM is None, reason="NumPy's BLAS has no 64-bit sgemm")
needs_loops = pytest.mark.skipif(compiled_lstm.exp_tanh_loops() is None,
                                 reason="NumPy's exp/tanh loops are not chunk-safe here")


@pytest.fixture(scope="module")
def functions():
    return compiled_lstm.compile_step_functions(SGEMM)


@needs_sgemm
@needs_loops
@pytest.mark.parametrize("variant", sorted(compiled_lstm.VARIANTS))
def test_each_variant_is_the_numpy_steps_training_step(functions, variant):
    ours = compiled_lstm.VARIANTS[variant](functions)
    theirs = nn_steps.numpy_lstm()
    start = [v.copy() for v in theirs.variables]
    for _ in range(2):
        ours()
        theirs()
    for a, b, before in zip(ours.variables, theirs.variables, start):
        assert np.abs(b - before).max() > 1e-4          # the steps moved every variable
        # The same products by the same BLAS and the same exp/tanh loops, the other
        # arithmetic exactly rounded in the same order: the same bits.
        assert np.array_equal(a.view(np.uint32), b.view(np.uint32))


@needs_sgemm
def test_numpy_sgemm_is_numpys_own_product():
    rng = np.random.RandomState(3)
    a = rng.randn(7, 5).astype(np.float32)
    b = rng.randn(5, 9).astype(np.float32)
    out = np.empty((7, 9), np.float32)
    SGEMM(compiled_lstm.ROW_MAJOR, compiled_lstm.AS_IS, compiled_lstm.AS_IS, 7, 9, 5,
          ctypes.c_float(1.0), a.ctypes.data, 5, b.ctypes.data, 9, ctypes.c_float(0.0),
          out.ctypes.data, 9)
    assert np.array_equal(out, a @ b)
