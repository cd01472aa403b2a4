"""Shared test set-up: every test starts with a fresh default graph."""
import os

import pytest

# Numba's CUDA simulator must be chosen before numba is first imported (CUDA tests).
os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import tfteach as tf  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()
