"""A fixture that runs one test eagerly and gives the process back its mode afterwards.

Eager execution is a process-wide switch (as in TensorFlow): a test that turns it on
must turn it off again, or every later test would build no graphs.
"""
import pytest

import tfteach
from tfteach.eager import context
from tfteach.framework import eager_mode


@pytest.fixture
def eager():
    """`tfteach`, executing eagerly while the test runs."""
    saved = eager_mode.STATE.enabled
    context.eager_mode_on()
    try:
        yield tfteach
    finally:
        eager_mode.STATE.enabled = saved
        context.TAPES.clear()


@pytest.fixture
def tf2(eager):
    """The TF 2 namespace (`tfteach.v2`), eager and with TF 2's rules while the test runs."""
    import tfteach.v2 as v2
    saved = eager_mode.STATE.v2, eager_mode.STATE.tensor_equality
    eager_mode.STATE.v2 = eager_mode.STATE.tensor_equality = True
    try:
        yield v2
    finally:
        eager_mode.STATE.v2, eager_mode.STATE.tensor_equality = saved
