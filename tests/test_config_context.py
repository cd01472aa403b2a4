"""`tf.config.threading` and `tf.config.optimizer` (runtime/context_config.py): the
process's default options, read back as TensorFlow reads them, given to every Session
made without a config (TF 1.15's `Session.__init__`: `config = context.context().config`),
to tf.functions and to eager execution, whose first op fixes the thread counts."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tfteach as tf
from eager_helpers import eager, tf2  # noqa: F401 (fixtures)
from test_intra_op_threads import blas_during_products  # noqa: F401 (fixture)
from test_two_workers import two_blas_threads  # noqa: F401 (fixture)
from tfteach.kernels.cpu import two_workers
from tfteach.runtime import context_config
from tfteach.runtime.config import ConfigProto

pytest.importorskip("tensorflow")


@pytest.fixture(autouse=True)
def fresh_context(monkeypatch):
    """Each test starts from TF's defaults, eager execution not yet initialized, and
    gives the process its options back afterwards."""
    for name, value in (("_threads", {"Intra": 0, "Inter": 0}), ("_options", {}),
                        ("_jit", False), ("_eager_initialized", False)):
        monkeypatch.setattr(context_config, name, value)


# The same calls on TensorFlow 2.21, in a process of its own (TF's context is the
# process's, and a thread count cannot change once its context runs).
SEQUENCE = [("opts", {"constant_folding": False, "arithmetic_optimization": True}),
            ("opts", {"min_graph_nodes": -1, "not_an_option": True}),
            ("opts", {"constant_folding": True, "disable_meta_optimizer": True}),
            ("intra", 1), ("inter", 2), ("opts", {"remapping": False}),
            ("opts", [["loop_optimization", False], ["remapping", True]])]  # dict.update pairs

# Run as it is by both libraries: on TensorFlow in the subprocess, on tfteach here.
# run_sequence(tf, sequence): [options read back, intra, inter] after each call.
SEQUENCE_RUNNER = r"""
def run_sequence(tf, sequence):
    answers = []
    for kind, value in sequence:
        if kind == "opts":
            tf.config.optimizer.set_experimental_options(value)
        elif kind == "intra":
            tf.config.threading.set_intra_op_parallelism_threads(value)
        else:
            tf.config.threading.set_inter_op_parallelism_threads(value)
        answers.append([tf.config.optimizer.get_experimental_options(),
                        tf.config.threading.get_intra_op_parallelism_threads(),
                        tf.config.threading.get_inter_op_parallelism_threads()])
    return answers
"""
exec(SEQUENCE_RUNNER)                                  # defines run_sequence here

TF_SCRIPT = SEQUENCE_RUNNER + r"""
import json, sys
import tensorflow as tf
out = {"start": tf.config.optimizer.get_experimental_options()}
out["steps"] = run_sequence(tf, json.loads(sys.argv[1]))
tf.compat.v1.disable_eager_execution()
config = tf.compat.v1.Session()._config
out["session"] = [config.intra_op_parallelism_threads, config.inter_op_parallelism_threads,
                  config.graph_options.SerializeToString().hex()]
print("RESULT" + json.dumps(out))
"""


def _tensorflows_answers():
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    done = subprocess.run([sys.executable, "-c", TF_SCRIPT, json.dumps(SEQUENCE)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    line = [x for x in done.stdout.splitlines() if x.startswith("RESULT")][0]
    return json.loads(line[len("RESULT"):])


def test_options_read_back_and_a_sessions_config_are_tensorflows():
    want = _tensorflows_answers()
    assert tf.config.optimizer.get_experimental_options() == want["start"]
    got = run_sequence(tf, SEQUENCE)  # noqa: F821 (defined by the exec above)
    assert len(got) == len(want["steps"]) == len(SEQUENCE)
    for (kind, value), mine, theirs in zip(SEQUENCE, got, want["steps"]):
        assert mine == theirs, (kind, value)
        assert list(mine[0]) == list(theirs[0])            # in TensorFlow's order too
    config = tf.Session(graph=tf.Graph())._config
    assert [config.intra_op_parallelism_threads, config.inter_op_parallelism_threads,
            config.graph_options.SerializeToString().hex()] == want["session"]


def test_nothing_set_leaves_a_session_the_defaults():
    assert context_config.session_config() is None
    assert tf.Session(graph=tf.Graph())._config is None   # (no protobuf for a tiny run)
    assert tf.config.optimizer.get_jit() is False
    assert tf.config.threading.get_intra_op_parallelism_threads() == 0


def test_a_given_config_wins_over_the_process_options():
    tf.config.optimizer.set_experimental_options({"constant_folding": False})
    mine = ConfigProto(intra_op_parallelism_threads=2)
    assert tf.Session(graph=tf.Graph(), config=mine)._config is mine


def _mixed_graph():
    # shape folding, arithmetic, dependency and elementwise-chain passes all apply here
    from test_optimizer import mixed_graph
    return mixed_graph()


@pytest.mark.parametrize("options, passes_off", [
    ({"constant_folding": False}, {"shape_folding"}),
    ({"arithmetic_optimization": False}, {"arithmetic"}),
    ({"remapping": False, "dependency_optimization": False},
     {"elementwise_chains", "dependency"}),
    ({"disable_meta_optimizer": True},
     {"shape_folding", "arithmetic", "dependency", "elementwise_chains"}),
])
def test_experimental_options_turn_passes_off_in_sessions_made_later(options, passes_off):
    from test_optimizer import rewrites
    graph, x, fetches = _mixed_graph()
    everything = {r.pass_name for r in rewrites(graph, fetches, [x])}
    tf.config.optimizer.set_experimental_options(options)
    left = {r.pass_name for r in rewrites(graph, fetches, [x])}
    assert left == everything - passes_off
    tf.config.optimizer.set_experimental_options({k: not v for k, v in options.items()})
    back = {r.pass_name for r in rewrites(graph, fetches, [x])}
    assert back == everything


def _tensorflow():
    import tensorflow
    return tensorflow


def _error_words(module, options):
    """The error set_experimental_options raises for `options` that are not (key, value)
    pairs (refused before anything changes, in TF too)."""
    try:
        module.config.optimizer.set_experimental_options(options)
    except Exception as e:  # noqa: BLE001 - the error is what we compare
        return type(e).__name__, str(e)
    return None


def test_a_value_protobuf_refuses_changes_nothing():
    tf.config.optimizer.set_experimental_options({"remapping": False})
    with pytest.raises(TypeError):
        tf.config.optimizer.set_experimental_options({"min_graph_nodes": "many"})
    for not_pairs in (["remapping"], 3):        # what dict.update refuses, as in TF
        assert _error_words(tf, not_pairs) == _error_words(_tensorflow(), not_pairs)
    with pytest.raises(TypeError):
        tf.config.threading.set_intra_op_parallelism_threads("one")
    assert tf.config.optimizer.get_experimental_options() == {
        "remapping": False, "disable_model_pruning": False, "disable_meta_optimizer": False}
    assert tf.config.threading.get_intra_op_parallelism_threads() == 0


def test_jit_is_a_bool_as_in_tf_1_15():
    tf.config.optimizer.set_jit(True)
    assert tf.config.optimizer.get_jit() is True
    from tfteach.runtime.config import OptimizerOptions
    config = tf.Session(graph=tf.Graph())._config
    assert config.graph_options.optimizer_options.global_jit_level == OptimizerOptions.ON_1
    tf.config.optimizer.set_jit(False)
    assert tf.config.optimizer.get_jit() is False


def test_one_intra_op_thread_makes_later_sessions_step_on_one_thread(
        two_blas_threads, blas_during_products):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 64])   # fed: nothing folded
        y = tf.matmul(x, x)
    feed = {x: np.ones((64, 64), np.float32)}
    with tf.Session(graph=graph) as sess:
        sess.run(y, feed)
    default = [threads for threads, _ in blas_during_products]
    tf.config.threading.set_intra_op_parallelism_threads(1)
    del blas_during_products[:]
    with tf.Session(graph=graph) as sess:
        value = sess.run(y, feed)
    assert default == [2] and [threads for threads, _ in blas_during_products] == [1]
    assert two_workers.blas_threads() == 2        # given back after the step
    np.testing.assert_array_equal(value, np.full((64, 64), 64, np.float32))


def test_thread_counts_are_fixed_by_the_first_eager_op(monkeypatch, tf2):
    from tfteach.framework import eager_mode
    from tfteach.eager import context
    monkeypatch.setattr(eager_mode.STATE, "execute", context._first_op)
    tf2.config.threading.set_intra_op_parallelism_threads(2)      # before: allowed
    assert (tf2.constant([1.0]) + 1.0).numpy().tolist() == [2.0]
    with pytest.raises(RuntimeError,
                       match="^Intra op parallelism cannot be modified after initialization.$"):
        tf2.config.threading.set_intra_op_parallelism_threads(3)
    with pytest.raises(RuntimeError,
                       match="^Inter op parallelism cannot be modified after initialization.$"):
        tf2.config.threading.set_inter_op_parallelism_threads(3)
    tf2.config.threading.set_intra_op_parallelism_threads(2)      # the same: no error
    tf2.config.optimizer.set_experimental_options({"remapping": False})   # still allowed
    assert tf2.config.threading.get_intra_op_parallelism_threads() == 2


def test_one_intra_op_thread_caps_blas_at_the_first_eager_op(monkeypatch, two_blas_threads,
                                                             tf2):
    from tfteach.framework import eager_mode
    from tfteach.eager import context
    monkeypatch.setattr(eager_mode.STATE, "execute", context._first_op)
    tf2.config.threading.set_intra_op_parallelism_threads(1)
    assert two_workers.blas_threads() == 2        # nothing happens before the first op
    x = tf2.constant(np.ones((8, 8), np.float32))
    assert tf2.matmul(x, x).numpy()[0, 0] == 8.0
    assert two_workers.blas_threads() == 1


def test_a_tf_function_runs_with_the_options_of_each_call(tf2):
    @tf2.function
    def f(x):
        return tf2.tanh(x) * 2.0 + 1.0
    x = tf2.constant([0.5, -1.0])
    first = f(x).numpy()
    concrete = f.get_concrete_function(x)
    assert concrete._session._config is None
    tf2.config.optimizer.set_experimental_options({"remapping": False})
    second = f(x).numpy()
    config = concrete._session._config
    assert config.graph_options.rewrite_options.remapping == 2          # OFF
    np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(first, np.tanh(np.float32([0.5, -1.0])) * 2 + 1)


def test_enable_eager_execution_takes_the_config_thread_counts():
    from tfteach.eager import context
    from tfteach.framework import eager_mode
    with pytest.raises(TypeError, match="config must be a tf.ConfigProto, but got <class 'int'>"):
        context.enable_eager_execution(config=3)
    saved = eager_mode.STATE.enabled
    eager_mode.STATE.enabled = True       # already on: only the counts are taken
    try:
        context.enable_eager_execution(config=ConfigProto(intra_op_parallelism_threads=1))
    finally:
        eager_mode.STATE.enabled = saved
    assert tf.config.threading.get_intra_op_parallelism_threads() == 1


def test_enable_eager_execution_refused_after_graph_ops_changes_no_count():
    from tfteach.eager import context
    from tfteach.framework import eager_mode
    saved = eager_mode.STATE.enabled
    eager_mode.STATE.enabled = False
    try:
        with tf.Graph().as_default():
            tf.constant(1.0)
            with pytest.raises(ValueError, match="must be called at program startup"):
                context.enable_eager_execution(
                    config=ConfigProto(intra_op_parallelism_threads=1))
    finally:
        eager_mode.STATE.enabled = saved
    assert tf.config.threading.get_intra_op_parallelism_threads() == 0


def test_threads_setting_options_at_once_lose_none():
    from thread_helpers import run_in_threads
    keys = ["layout_optimizer", "constant_folding", "remapping", "arithmetic_optimization"]

    def set_one(i):
        for _ in range(200):
            tf.config.optimizer.set_experimental_options({keys[i]: bool(i % 2)})
    run_in_threads(set_one, len(keys))
    got = tf.config.optimizer.get_experimental_options()
    assert {k: got[k] for k in keys} == {k: bool(i % 2) for i, k in enumerate(keys)}


def test_a_tf_function_called_from_threads_while_options_change(tf2):
    """Three threads calling a tf.function while a fourth turns a pass on and off: every
    call gives the function's values (each runs the Session it took; one made for new
    options leaves the old one to the calls still running it)."""
    from thread_helpers import run_in_threads

    @tf2.function
    def f(x):
        return tf2.tanh(x) * 2.0 + 1.0
    x = tf2.constant([0.5, -1.0])
    want = f(x).numpy()
    results = []

    def call_or_toggle(k):
        for i in range(30):
            if k == 0:
                tf2.config.optimizer.set_experimental_options({"remapping": bool(i % 2)})
            else:
                results.append(f(x).numpy())
    run_in_threads(call_or_toggle, 4)
    assert len(results) == 90
    for got in results:
        np.testing.assert_array_equal(got, want)
