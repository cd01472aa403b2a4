"""Runs the same TF1 program on TensorFlow and on tfteach, for differential tests.

TensorFlow (`tensorflow-cpu`, a test-only dependency) is the specification: a program
is a function `build(tf)` that builds a graph with the module it is given and returns
`(fetches, feed_dict)`. `run_both` runs it on both and returns both results;
`errors_of_both` returns the exception each raised. Tests skip when TensorFlow is not
importable.

TF 2 programs (eager execution, tf.function, object-based checkpoints) run on TensorFlow
in a child process (`run_eager_tensorflow`): this process's TensorFlow is switched to
graph mode for the TF1 comparisons, for good.
"""
import contextlib
import json
import os
import subprocess
import sys

import pytest

_tf1 = None
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tensorflow_v1():
    """TensorFlow's `tf.compat.v1` in graph mode (skips the test if TF is missing)."""
    global _tf1
    if _tf1 is None:
        tf = pytest.importorskip("tensorflow")
        tf.compat.v1.disable_eager_execution()
        _tf1 = tf.compat.v1
    return _tf1


@contextlib.contextmanager
def tf1_behaviour():
    """TF 1.15's defaults inside TF 2 while the block runs: reference variables and
    Switch/Merge control flow; afterwards both settings are as they were. Yields
    `tf.compat.v1`."""
    v1 = tensorflow_v1()
    import tensorflow as tf2
    resource = tf2.compat.v1.resource_variables_enabled()
    cf_v2 = tf2.compat.v1.control_flow_v2_enabled()
    v1.disable_resource_variables()
    v1.disable_control_flow_v2()
    try:
        yield v1
    finally:
        if resource:
            v1.enable_resource_variables()
        if cf_v2:
            v1.enable_control_flow_v2()


def run_program(tf, build):
    graph = tf.Graph()
    with graph.as_default():
        fetches, feed_dict = build(tf)
        with tf.Session(graph=graph) as sess:
            return sess.run(fetches, feed_dict)


def run_both(build):
    """(tensorflow_result, tfteach_result) of the program `build`."""
    import tfteach
    return run_program(tensorflow_v1(), build), run_program(tfteach, build)


def error_of(tf, build):
    try:
        run_program(tf, build)
    except Exception as e:  # noqa: BLE001 - the exception is what we compare
        return e
    return None


def build_error(tf, build, *args):
    """The exception `build(tf, *args)` raises while it builds a fresh graph (None if it
    builds): for mistakes refused before anything runs."""
    with tf.Graph().as_default():
        try:
            build(tf, *args)
        except Exception as e:  # noqa: BLE001 - the exception is what we compare
            return e
    return None


def message_core(error):
    """A build error's own words: without TF 2's `for '{{node ...}} = ...'` tail (TF 1.15
    writes `for 'NAME' (op: 'TYPE')`, as tfteach does) and what follows the input shapes."""
    return str(error).split(" for '")[0].split("\n")[0]


def errors_of_both(build):
    """(tensorflow_exception, tfteach_exception); None where no exception was raised."""
    import tfteach
    return error_of(tensorflow_v1(), build), error_of(tfteach, build)


def first_line(exc):
    return str(exc).splitlines()[0] if str(exc) else ""


def own_message(exc):
    """An error's own message: TF 2's session wraps it ("Graph execution error:",
    "Detected at node ...", a traceback); TF 1.15 raised it bare, as tfteach does."""
    for line in str(exc).splitlines():
        if line and line != "Graph execution error:" and not line.startswith(
                ("Detected at node", "  File", "    ", "Node: ")):
            return line
    return ""


def run_eager_tensorflow(code):
    """Run the Python `code` in a child process where TensorFlow 2 executes eagerly (its
    default), on the CPU, quietly; return what it printed (fails the test on an error)."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def tfteach_json(code):
    """Runs `code` in a new interpreter with this worktree's tfteach, as a user's process
    (no CUDA simulator); the JSON value it prints last."""
    env = dict(os.environ, PYTHONPATH=_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("NUMBA_ENABLE_CUDASIM", None)      # conftest's simulator: not a user's process
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=_ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def eager_tensorflow_json(code):
    """The JSON value that `code`, run as `run_eager_tensorflow` runs it, prints last."""
    return json.loads(run_eager_tensorflow(code).strip().splitlines()[-1])
