"""The audit: every op type with a registered gradient is checked against central finite
differences in float64 (and against TensorFlow's values), from the table in
gradient_cases.py. A gradient registered without a case there fails
`test_every_registered_gradient_has_a_finite_difference_case`, naming the op type."""
import functools
import os
import subprocess
import sys

import numpy as np
import pytest

import tfteach as tf
from gradient_cases import CASES, CHECKED_ELSEWHERE, REFUSING
from gradient_check import check_gradients, check_gradients_match_tensorflow, \
    recording_gradients
from tfteach.framework import registry


def _import_every_module():
    # An op type registered by a module `import tfteach` does not load counts too.
    import importlib
    import pkgutil
    for module in pkgutil.walk_packages(tf.__path__, "tfteach."):
        importlib.import_module(module.name)


_import_every_module()

_ENGINE_OP_TYPES = r"""
import importlib, pkgutil
import tfteach
for module in pkgutil.walk_packages(tfteach.__path__, "tfteach."):
    importlib.import_module(module.name)   # also op types `import tfteach` does not load
from tfteach.framework import registry
print("\n".join(registry.registered_op_types()))
"""


@functools.lru_cache(maxsize=None)
def _engine_op_types():
    """The engine's op types, from a fresh interpreter: test modules register op types
    of their own (test_gradients.py's GradientsTest*) in this one."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", _ENGINE_OP_TYPES], capture_output=True,
                         text=True, check=True, env=env).stdout
    return set(out.split())


def _registered_gradients():
    return {t for t in _engine_op_types() if registry.get_op_def(t).gradient is not None}


def test_every_registered_gradient_has_a_finite_difference_case():
    missing = sorted(_registered_gradients() - set(CASES) - set(REFUSING) -
                     set(CHECKED_ELSEWHERE))
    assert not missing, ("op types with a registered gradient but no finite-difference case "
                         "in tests/gradient_cases.py: %s" % ", ".join(missing))


def test_gradients_checked_elsewhere_name_a_test_that_exists():
    here = os.path.dirname(os.path.abspath(__file__))
    for op_type, where in CHECKED_ELSEWHERE.items():
        assert op_type in _registered_gradients()
        path, test = where.split("::")
        with open(os.path.join(here, path), encoding="utf-8") as f:
            assert "def %s(" % test in f.read(), where


# Op types that are neither marked not_differentiable nor given a gradient, and why that
# is right. A new op type must be one of the three (a gradient, not_differentiable, or
# here with its reason): the test below names it otherwise.
NO_GRADIENT = {
    "Const": "a source: the walk ends there", "Placeholder": "a source",
    "VariableV2": "a source (gradients reach it through its read snapshot)",
    "NoOp": "no outputs", "Assert": "no outputs",
    "Assign": "changes session state (TF: no gradient)", "AssignAdd": "as Assign",
    "AssignSub": "as Assign", "IsVariableInitialized": "a bool output",
    "ApplyGradientDescent": "an optimizer update (TF: no gradient)",
    "ApplyMomentum": "as ApplyGradientDescent", "ApplyAdagrad": "as ApplyGradientDescent",
    "ApplyRMSProp": "as ApplyGradientDescent", "ApplyCenteredRMSProp": "as above",
    "ApplyAdam": "as ApplyGradientDescent", "ApplyAdadelta": "as ApplyGradientDescent",
    "LoopVar": "fed by its loop; the While gradient differentiates the body itself",
    "LoopHistory": "a recorded loop history, not a number",
    "LRNGrad": "TF 1.15 has no gradient for it either",
    "TruncateMod": "TF registers none (FloorMod has one): tf.gradients raises LookupError",
    "ResizeArea": "TF registers none: tf.gradients raises LookupError",
    "AdjustHue": "TF registers none: tf.gradients raises LookupError",
    "AdjustSaturation": "TF registers none: tf.gradients raises LookupError",
    "AdjustContrastv2": "TF registers none: tf.gradients raises LookupError",
    # the resize and crop gradients: TF 1.15 registers no second derivative
    "ResizeBilinearGrad": "TF 1.15 registers none: a second derivative raises LookupError",
    "ResizeBicubicGrad": "as ResizeBilinearGrad", "ResizeNearestNeighborGrad": "as above",
    "CropAndResizeGradImage": "as ResizeBilinearGrad", "CropAndResizeGradBoxes": "as above",
}


def test_every_differentiable_op_type_has_a_gradient_or_a_reason():
    lacking = {t for t in _engine_op_types()
               if registry.get_op_def(t).differentiable and
               registry.get_op_def(t).gradient is None}
    unexplained = sorted(lacking - set(NO_GRADIENT))
    assert not unexplained, ("op types with neither a gradient nor not_differentiable(): %s"
                             % ", ".join(unexplained))
    assert not set(NO_GRADIENT) - lacking, "stale: %s" % sorted(set(NO_GRADIENT) - lacking)


def test_every_case_names_an_op_type_with_a_gradient():
    stale = sorted((set(CASES) | set(REFUSING)) - _registered_gradients())
    assert not stale, "cases for op types without a registered gradient: %s" % stale


@pytest.mark.parametrize("op_type", sorted(CASES))
def test_gradient_matches_finite_differences(op_type):
    case = CASES[op_type]
    with recording_gradients() as called:
        check_gradients(case.build, case.inputs, shapes=case.shapes, wrt=case.wrt,
                        delta=case.delta, rtol=case.rtol, atol=case.atol)
    assert op_type in called, "the case for %s never ran its gradient (ran: %s)" % (
        op_type, sorted(called))


@pytest.mark.parametrize("op_type", sorted(t for t in CASES if CASES[t].tf_ref))
def test_gradient_matches_tensorflow(op_type):
    case = CASES[op_type]
    inputs, rtol, atol = case.inputs, max(case.rtol, 1e-6), max(case.atol, 1e-9)
    if case.tf_float32:
        inputs = [v.astype(np.float32) if v.dtype == np.float64 else v for v in inputs]
        rtol, atol = 2e-4, 2e-5
    check_gradients_match_tensorflow(case.build, inputs, shapes=case.shapes, wrt=case.wrt,
                                     rtol=rtol, atol=atol)


@pytest.mark.parametrize("op_type", sorted(REFUSING))
def test_refusing_gradients_raise(op_type):
    build, message = REFUSING[op_type]
    x = tf.placeholder(tf.float64, [2, 3])
    with pytest.raises(LookupError, match=message):
        build(tf, x)


def test_the_recorder_sees_only_the_gradients_that_ran():
    x = tf.placeholder(tf.float64, [3])
    z = tf.placeholder(tf.float64, [3])
    y = tf.tanh(x) + tf.sin(z)                # Sin is not between x and y
    with recording_gradients() as called:
        tf.gradients(y, x)
    assert called == {"Tanh", "AddV2"}
    assert registry.get_op_def("Tanh").gradient.__name__ != "wrapper"   # restored
