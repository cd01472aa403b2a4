"""tfteach's tf.function against TensorFlow's on the same programs: AutoGraph loops
(`for` over tensors and tf.range, `break`, `continue`, nested loops, variable updates
in loops) and gradients of a tf.function called under an outer GradientTape
(variables it captures included).

The programs are tests/autograph_programs.py's (test_autograph.py runs them too):
AutoGraph reads a function's source, so both processes import that file (TensorFlow in
a child process, as test_eager_reference.py; this process's TensorFlow is in graph mode
for the other reference tests).
"""
import importlib.util
import json

import numpy as np
import pytest

import autograph_programs
from eager_helpers import eager, tf2  # noqa: F401 - fixtures
from tf_reference import eager_tensorflow_json

pytestmark = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None,
                                reason="TensorFlow is not installed")

@pytest.fixture(scope="module")
def tensorflow():
    return eager_tensorflow_json(
        "import json, importlib.util, tensorflow as tf\n"
        "spec = importlib.util.spec_from_file_location('p', %r)\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "print(json.dumps(m.reference_results(tf)))\n" % autograph_programs.__file__)


@pytest.fixture
def ours(tf2):
    return json.loads(json.dumps(autograph_programs.reference_results(tf2)))


@pytest.mark.parametrize("name", ["evens", "break", "while_break", "while_continue",
                                  "updates", "equality"])
def test_integer_and_exact_results(tensorflow, ours, name):
    assert ours[name] == tensorflow[name]


@pytest.mark.parametrize("name", ["squares", "continue", "nested", "rows", "tape",
                                  "tape_variables"])
def test_float_results(tensorflow, ours, name):
    def flat(x):
        return np.hstack([np.ravel(e) for e in x]) if isinstance(x, list) else np.ravel(x)
    np.testing.assert_allclose(flat(ours[name]), flat(tensorflow[name]), rtol=1e-5,
                               atol=1e-6)
