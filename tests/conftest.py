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
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()
