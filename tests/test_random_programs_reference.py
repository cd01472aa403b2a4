"""Differential tests on random programs: the same TF1 program on TensorFlow
(`tf.compat.v1`, graph mode) and on tfteach, compared value for value.

tests/random_programs.py draws each program from a seed:
- 300 chains of 1-3 ops with random arguments (reductions with every axis form, slicing
  with negative steps, padding modes, gathers, broadcasting arithmetic, integer
  division, casts, ...) on an input of a random dtype and shape (sides 0-4, empty arrays
  included), fed with a known static shape, unknown dimensions or an unknown rank, or
  built as a constant; fetching the result or its gradient;
- 150 layers (convolutions of random geometry, pooling, activations, losses,
  normalizations) on random images, with the gradients of all their inputs;
- 100 tf.cond / tf.while_loop programs nested either way, with gradients;
- 60 dense networks trained 1-3 steps (8 optimizers, 4 losses): the losses, and every
  variable, slots included, by name and value;
- 40 programs of shape arithmetic (tf.shape/size/rank into reshapes, fills, slices,
  tf.cond and while_loop bodies) and broadcasting against a second feed, with their
  gradients, fed four shapes twice over in one session, run with the graph optimizer on
  and off (the same bits, the same errors) and on TensorFlow;
- 20 linear models trained on batches of four sizes (losses that read the batch size at
  run time, 5 optimizers), optimizer on and off (the same bits) and on TensorFlow;
- 100 small CNNs trained the same way (bias added three ways, relu or not, tiling,
  overlapping or average pools), every tenth LeNet-sized (with tanh; see
  make_cnn_training_program): what the plan fuses and computes in the Fourier domain,
  against TensorFlow's unfused kernels.
Both must agree on the values, dtype, shape and static shape, or both raise the same
class of error. Hand-written tests cover what the notes print; these find what nobody
thought of (a tf.split into one piece returning a tuple, MirrorPadGrad accepting
paddings TF refuses, reduction gradients failing on empty tensors). A failure names its
seed: `make_program(seed)` (or make_nn_program / make_control_flow_program) rebuilds it.
"""
import numpy as np
import pytest

import tfteach
from random_programs import (NN_STATIC_SHAPES_DIFFER, make_batch_training_program,
                             make_cnn_training_program, make_control_flow_program,
                             make_nn_program, make_program, make_shape_program,
                             make_training_program)
from tf_reference import own_message, tensorflow_v1

pytest.importorskip("tensorflow")

SEEDS = range(300)


def _outcome(tf, build):
    graph = tf.Graph()
    with graph.as_default():
        try:
            fetch, feeds, label = build(tf)
        except Exception as e:  # noqa: BLE001 - the error is what we compare
            return "error", type(e).__name__, str(e)
        static = fetch.shape.as_list() if fetch.shape.ndims is not None else None
        with tf.Session(graph=graph) as sess:
            try:
                value = sess.run(fetch, feeds)
            except Exception as e:  # noqa: BLE001
                return "error", type(e).__name__, label
        return "value", _dense(value), static, label


def _dense(value):
    """A fetched gradient as an array: TF hands back a gather's gradient as
    IndexedSlicesValue, tfteach as the dense tensor (docs/training.md)."""
    if hasattr(value, "dense_shape") and hasattr(value, "indices"):
        dense = np.zeros(value.dense_shape, value.values.dtype)
        np.add.at(dense, value.indices, value.values)
        return dense
    return np.asarray(value)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_program_matches_tensorflow(seed):
    build = make_program(seed)
    expected = _outcome(tensorflow_v1(), build)
    got = _outcome(tfteach, build)
    assert got[0] == expected[0], (got, expected)
    if expected[0] == "error":
        assert got[1] == expected[1], (got, expected)
        return
    _, want, want_static, label = expected
    _, value, static, _ = got
    assert value.dtype == want.dtype, label
    assert value.shape == want.shape, label
    assert static == want_static, label
    if want.dtype.kind == "f":
        # float32 anywhere on the way (the input, a cast) rounds like float32
        exact = label.startswith("float64") and "cast" not in label
        tol = 1e-12 if exact and want.dtype == np.float64 else 2e-5
        np.testing.assert_allclose(value, want, rtol=tol, atol=tol, err_msg=label)
    else:
        np.testing.assert_array_equal(value, want, err_msg=label)


def _outcomes(tf, build):
    graph = tf.Graph()
    with graph.as_default():
        fetches, feeds, label = build(tf)
        static = [t.shape.as_list() if t.shape.ndims is not None else None for t in fetches]
        with tf.Session(graph=graph) as sess:
            return [_dense(v) for v in sess.run(fetches, feeds)], static, label


def _assert_same_fetches(build, float32_tol, float64_tol, static_shapes=True):
    """Every fetch of `build` has TF's dtype, shape and values (and static shape)."""
    want, want_static, label = _outcomes(tensorflow_v1(), build)
    got, static, _ = _outcomes(tfteach, build)
    assert len(got) == len(want), label
    if static_shapes:
        assert static == want_static, label
    for value, expected in zip(got, want):
        assert value.dtype == expected.dtype and value.shape == expected.shape, label
        tol = float32_tol if expected.dtype == np.float32 else float64_tol
        np.testing.assert_allclose(value, expected, rtol=tol, atol=tol, err_msg=label)


@pytest.mark.parametrize("seed", range(150))
def test_random_layer_matches_tensorflow(seed):
    """One layer (convolutions with random geometry, pooling, activations, losses,
    normalizations) on a random image: its output and the gradients of all its inputs."""
    build, kind = make_nn_program(seed)
    _assert_same_fetches(build, float32_tol=2e-4, float64_tol=1e-9,
                         static_shapes=kind not in NN_STATIC_SHAPES_DIFFER)


@pytest.mark.parametrize("seed", range(100))
def test_random_control_flow_matches_tensorflow(seed):
    """tf.cond / tf.while_loop, nested either way, with 0-3 iterations: the result and
    the gradients through every branch and iteration."""
    _assert_same_fetches(make_control_flow_program(seed), float32_tol=2e-5,
                         float64_tol=1e-10)


@pytest.mark.parametrize("seed", range(60))
def test_random_training_matches_tensorflow(seed):
    _assert_same_training(*make_training_program(seed), tol=(1e-4, 1e-5))


@pytest.mark.parametrize("seed", range(100))
def test_random_cnn_training_matches_tensorflow(seed):
    """Small CNNs trained 1-3 steps: the plan's fusions (a conv's bias add and relu, a
    relu's gradient under a max pool, shared patches) and, every tenth seed, a
    LeNet-sized layer in the Fourier domain, against TensorFlow's unfused kernels."""
    _assert_same_training(*make_cnn_training_program(seed), tol=(2e-4, 2e-5))


def _assert_same_training(run, label, tol):
    """The losses of every step and every variable (by name) after training, on both."""
    want_losses, want_values, want_names = run(tensorflow_v1())
    losses, values, names = run(tfteach)
    assert names == want_names, label
    np.testing.assert_allclose(losses, want_losses, rtol=1e-4, atol=1e-5, err_msg=label)
    for name, value, expected in zip(names, values, want_values):
        np.testing.assert_allclose(value, expected, rtol=tol[0], atol=tol[1],
                                   err_msg="%s: %s" % (label, name))


@pytest.mark.parametrize("seed", range(40))
def test_random_shape_programs_fed_changing_shapes_match_tensorflow_optimized_or_not(
        seed, monkeypatch):
    """Shape arithmetic (tf.shape / size / rank into reshapes, fills, slices, scales,
    tf.cond and while_loop bodies), broadcasting against a second feed and gradients, fed
    four shapes twice over in one session: with the graph optimizer on (it folds shapes
    per fed signature) and off, the same bits, and the same errors (class and words)
    when a fed shape does not broadcast; and both as TensorFlow, values and errors."""
    from tfteach.runtime.optimizer import fused_arithmetic
    monkeypatch.setattr(fused_arithmetic, "COMPILE_AFTER_SECONDS", 0.0)  # regions at once
    build, feeds, label = make_shape_program(seed)
    want = _runs_of(tensorflow_v1(), build, feeds, rounds=1) * 2
    on = _runs_of(tfteach, build, feeds)
    off = _runs_of(tfteach, build, feeds, config=_OPTIMIZER_OFF())
    for i, (expected, mine, unoptimized) in enumerate(zip(want, on, off)):
        where = "%s, run %d" % (label, i)
        assert mine[0] == unoptimized[0] == expected[0], (where, mine, unoptimized, expected)
        if expected[0] == "error":
            assert mine == unoptimized, where
            assert _either_order(mine) == _either_order(expected), where
            continue
        for value, plain, reference in zip(mine[1], unoptimized[1], expected[1]):
            assert value.dtype == plain.dtype and value.shape == plain.shape, where
            assert value.tobytes() == plain.tobytes(), where
            assert value.dtype == reference.dtype and value.shape == reference.shape, where
            np.testing.assert_allclose(value, reference, rtol=1e-4, atol=1e-5,
                                       err_msg=where)


def _either_order(outcome):
    """An error outcome with the two shapes of "Incompatible shapes: [3] vs. [4]" as a
    set: where both the forward op and its gradient's BroadcastGradientArgs fail,
    TensorFlow's parallel executor reports either one (27 and 3 times in 30 runs of
    seed 9), and they name the shapes in opposite orders."""
    kind, cls, words = outcome
    if words.startswith("Incompatible shapes: ") and " vs. " in words:
        return kind, cls, frozenset(words[len("Incompatible shapes: "):].split(" vs. "))
    return outcome


def _OPTIMIZER_OFF():  # noqa: N802 - a constant, built when TensorFlow's protos load
    from tfteach.runtime.config import (ConfigProto, GraphOptions, OptimizerOptions,
                                        RewriterConfig)
    return ConfigProto(graph_options=GraphOptions(
        rewrite_options=RewriterConfig(disable_meta_optimizer=True),
        optimizer_options=OptimizerOptions(opt_level=OptimizerOptions.L0)))


def _runs_of(tf, build, feeds, rounds=2, config=None):
    """("value", arrays) or ("error", class, own message) of each run: every feed of
    `feeds`, `rounds` times, in one session."""
    graph = tf.Graph()
    with graph.as_default():
        fetches, x, other = build(tf)
    outcomes = []
    with tf.Session(graph=graph, config=config) as sess:
        feed_dicts = feeds(x, other)
        for _ in range(rounds):
            for feed_dict in feed_dicts:
                try:
                    outcomes.append(("value", [np.asarray(v) for v in
                                               sess.run(fetches, feed_dict)]))
                except Exception as e:  # noqa: BLE001 - the error is what we compare
                    outcomes.append(("error", type(e).__name__, own_message(e)))
    return outcomes


@pytest.mark.parametrize("seed", range(20))
def test_random_training_on_changing_batch_sizes_is_the_same_optimized_or_not(seed):
    """Each step's loss and the variables after 8 steps on batches of changing sizes: the
    same bits with the graph optimizer on and off, and TensorFlow's values."""
    build, batches, label = make_batch_training_program(seed)
    want = _batch_training(tensorflow_v1(), build, batches)
    on = _batch_training(tfteach, build, batches)
    off = _batch_training(tfteach, build, batches, config=_OPTIMIZER_OFF())
    for mine, plain, reference in zip(on, off, want):
        assert mine.dtype == plain.dtype == reference.dtype, label
        assert mine.tobytes() == plain.tobytes(), label
        np.testing.assert_allclose(mine, reference, rtol=1e-4, atol=1e-5, err_msg=label)


def _batch_training(tf, build, batches, config=None):
    """[the losses of the 8 steps, then each variable's value]."""
    graph = tf.Graph()
    with graph.as_default():
        x, y, loss, train, variables = build(tf)
        init = tf.global_variables_initializer()
    with tf.Session(graph=graph, config=config) as sess:
        sess.run(init)
        losses = [sess.run([loss, train], {x: xs, y: ys})[0]
                  for _ in range(2) for xs, ys in batches]
        return [np.asarray(losses)] + sess.run(variables)
