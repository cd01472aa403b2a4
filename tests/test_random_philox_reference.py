"""Seeded random ops give TensorFlow's own numbers, bit for bit (kernels/cpu/philox.py):
`random_uniform` (floats and ints), `random_normal`, `truncated_normal`, in every dtype,
run after run, for op seeds, graph seeds and both, and what is built on them (dropout,
the default initializers of `tf.layers`). Each program runs on TensorFlow and on tfteach;
three runs of one session each, so each run's place in the stream is checked too."""
import contextlib

import numpy as np
import pytest

from tests.tf_reference import eager_tensorflow_json, tf1_behaviour, tfteach_json

import tfteach


def _runs(tf, build, runs=3, graph_seed=None):
    graph = tf.Graph()
    with graph.as_default():
        if graph_seed is not None:
            tf.set_random_seed(graph_seed)
        fetches = build(tf)
        init = tf.global_variables_initializer()
        with tf.Session(graph=graph) as sess:
            sess.run(init)
            return [sess.run(fetches) for _ in range(runs)]


def _flat(results):
    if isinstance(results, (list, tuple)):
        return [a for r in results for a in _flat(r)]
    return [np.asarray(results)]


@contextlib.contextmanager
def _tf115_op_seeds():
    """TensorFlow 2's graphs derive an op seed (graph seed set, op seed None) from a
    count of such ops; TF 1.15 took the graph's last op id, the number of ops built
    before it. The reference runs with 1.15's rule for the block."""
    from tensorflow.python.framework import ops, random_seed
    tf2_get_seed = random_seed.get_seed

    def get_seed(op_seed):
        graph = ops.get_default_graph()
        if graph.seed is not None and op_seed is None:
            op_seed = len(graph.get_operations())
        return tf2_get_seed(op_seed)
    random_seed.get_seed = get_seed
    try:
        yield
    finally:
        random_seed.get_seed = tf2_get_seed


def _same(build, runs=3, graph_seed=None):
    """Runs `build(tf)`'s fetches `runs` times on both; the same bits each time."""
    with tf1_behaviour() as tf1, _tf115_op_seeds():
        expected = _runs(tf1, build, runs, graph_seed)
    got = _runs(tfteach, build, runs, graph_seed)
    want_all, have_all = _flat(expected), _flat(got)
    assert len(want_all) == len(have_all)
    for want, have in zip(want_all, have_all):
        assert have.dtype == want.dtype and have.shape == want.shape
        np.testing.assert_array_equal(have, want)
    return got


FLOATS = ["float16", "float32", "float64"]
SHAPES = [[7], [2, 3], [1001], [0], [3, 1, 5]]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SHAPES)
def test_uniform(dtype, shape):
    _same(lambda tf: tf.random_uniform(shape, dtype=dtype, seed=1))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SHAPES)
def test_normal(dtype, shape):
    _same(lambda tf: tf.random_normal(shape, dtype=dtype, seed=2))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SHAPES)
def test_truncated_normal(dtype, shape):
    _same(lambda tf: tf.truncated_normal(shape, dtype=dtype, seed=3))


@pytest.mark.parametrize("dtype", FLOATS)
def test_many_values_take_the_c_librarys_log_sine_and_cosine(dtype):
    """100,003 values: Box-Muller's edge cases (u near 0, angles near multiples of
    pi / 2) and truncation's rejections, each where TF's kernel has them."""
    got = _same(lambda tf: [tf.random_normal([100003], dtype=dtype, seed=11),
                            tf.truncated_normal([100003], dtype=dtype, seed=12)], runs=1)
    truncated = got[0][1].astype(np.float64)
    # (kept where the float is inside 2, then rounded: a half may round up to 2)
    assert np.all(np.abs(truncated) <= 2) if dtype == "float16" else \
        np.all(np.abs(truncated) < 2)
    assert 0.85 < np.std(truncated) < 0.9       # a normal truncated at 2 sigma: 0.88


@pytest.mark.parametrize("dtype, low, high", [
    ("int32", 0, 10), ("int32", -5, 3), ("int32", -2 ** 31, 2 ** 31 - 1),
    ("int64", 0, 10), ("int64", -7, 1000003), ("int64", -2 ** 62, 2 ** 62)])
def test_uniform_int(dtype, low, high):
    _same(lambda tf: tf.random_uniform([9], minval=low, maxval=high, dtype=dtype, seed=4))


def test_ranges_means_and_deviations():
    _same(lambda tf: [tf.random_uniform([5, 2], -3.0, 7.5, seed=5),
                      tf.random_normal([5], mean=2.0, stddev=0.1, seed=6),
                      tf.truncated_normal([6], mean=-1.0, stddev=3.0, seed=7)])


@pytest.mark.parametrize("seed", [0, 1, -1, 123456789, 2 ** 40 + 3, -(2 ** 62)])
def test_op_seeds(seed):
    _same(lambda tf: tf.random_uniform([6], seed=seed))


@pytest.mark.parametrize("graph_seed", [0, 1, 42, 2 ** 33])
def test_graph_seeds_with_and_without_op_seeds(graph_seed):
    """Without an op seed, TF 1.15 takes the number of ops built before it: tfteach's
    one op for `* stddev + mean` (`* (max - min) + min`) counts as TF's two (three).
    (A uniform in [0, 1) is not here: TF 2 builds fewer ops for it than TF 1.15.)"""
    _same(lambda tf: [tf.random_normal([2, 3]), tf.random_uniform([4], -1.0, 2.0, seed=9),
                      tf.truncated_normal([3]), tf.random_normal([2], seed=9),
                      tf.random_uniform([5], 1.0, 3.0), tf.random_normal([3])],
          graph_seed=graph_seed)


def test_the_classic_seed_1_example_prints_tensorflows_numbers():
    """The textbooks' `tf.random_normal([2, 3], stddev=1, seed=1)`."""
    got = _same(lambda tf: tf.random_normal([2, 3], stddev=1, seed=1), runs=1)[0]
    assert str(got) == ("[[-0.8113182   1.4845988   0.06532937]\n"
                        " [-2.4427042   0.0992484   0.5912243 ]]")


def test_dropout_masks():
    def build(tf):
        x = tf.ones([4, 10])
        return [tf.nn.dropout(x, keep_prob=0.5, seed=3), tf.nn.dropout(x, rate=0.2, seed=8)]
    _same(build)


def test_variables_initialised_under_a_graph_seed():
    """`tf.get_variable`'s default initializer (glorot uniform), a truncated normal's,
    `tf.Variable(tf.random_normal(...))` and a dense layer's product, seeded only by the
    graph: TensorFlow's first values."""
    def build(tf):
        x = tf.placeholder_with_default(np.ones((2, 3), np.float32), [None, 3])
        kernel = tf.get_variable("kernel", [3, 5])
        bias = tf.get_variable("bias", [5], initializer=tf.zeros_initializer())
        y = tf.matmul(x, kernel) + bias
        w = tf.get_variable("w", [5, 2], initializer=tf.truncated_normal_initializer(
            stddev=0.1))
        v = tf.Variable(tf.random_normal([2, 2], stddev=2.0))
        return [tf.matmul(y, w), v]
    _same(build, runs=1, graph_seed=5)


EAGER_PROGRAM = """
import json
{imports}
tf.random.set_seed(1) if hasattr(tf, "random") and hasattr(tf.random, "set_seed") \\
    else tf.set_random_seed(1)
out = [tf.random.normal([3]).numpy(), tf.random.normal([3]).numpy(),
       tf.random.normal([3], seed=1).numpy(), tf.random.normal([3], seed=1).numpy(),
       tf.random.uniform([5], seed=2).numpy(), tf.random.truncated_normal([2, 2]).numpy(),
       tf.random.uniform([4], maxval=100, dtype=tf.int32).numpy()]
tf.random.set_seed(1) if hasattr(tf.random, "set_seed") else tf.set_random_seed(1)
out += [tf.random.normal([3]).numpy(), tf.random.normal([3], seed=1).numpy()]
print(json.dumps([[float(v) for v in a.ravel()] for a in out]))
"""


@pytest.mark.parametrize("namespace", ["v2", "v1 eager"])
def test_eager_streams_and_op_seeds(namespace):
    """Eagerly: seedless ops under a global seed, seeded ops continuing their stream,
    and `set_seed` starting again, as TensorFlow's eager context does them."""
    reference = {"v2": "import tensorflow as tf",
                 "v1 eager": "import tensorflow.compat.v1 as tf\ntf.enable_eager_execution()"}
    ours = {"v2": "import tfteach.v2 as tf",
            "v1 eager": "import tfteach as tf\ntf.enable_eager_execution()"}
    expected = eager_tensorflow_json(EAGER_PROGRAM.format(imports=reference[namespace]))
    assert tfteach_json(EAGER_PROGRAM.format(imports=ours[namespace])) == expected


FUNCTION_PROGRAM = """
import json
{imports}
tf.random.set_seed(1)

@tf.function
def f(x):
    return x * 2.0, tf.random.normal([2]), tf.random.uniform([2], seed=3)

out = [t.numpy() for _ in range(2) for t in f(tf.constant([1.0, 2.0]))]
print(json.dumps([[float(v) for v in a] for a in out]))
"""

# TF 2's graphs (a tf.function's too) count seedless random ops for their op seeds; TF
# 1.15 took the graph's last op id: the reference runs with 1.15's rule.
TF115_GRAPH_SEEDS = """
import tensorflow as tf
from tensorflow.python.framework import ops, random_seed
_tf2_get_seed = random_seed.get_seed
def _get_seed(op_seed):
    graph = ops.get_default_graph()
    if (op_seed is None and not tf.executing_eagerly() and graph.seed is not None):
        op_seed = len(graph.get_operations())
    return _tf2_get_seed(op_seed)
random_seed.get_seed = _get_seed
"""


def test_a_tf_function_takes_the_global_seed():
    """A traced graph takes the global seed, as TF's FuncGraph: a program that sets it
    draws the same numbers in every run, TensorFlow's, call after call."""
    expected = eager_tensorflow_json(FUNCTION_PROGRAM.format(imports=TF115_GRAPH_SEEDS))
    ours = FUNCTION_PROGRAM.format(imports="import tfteach.v2 as tf")
    runs = [tfteach_json(ours) for _ in range(2)]
    assert runs[0] == runs[1] == expected
    assert expected[1] != expected[4]             # the second call draws on


CATEGORICAL_CALLS = {
    "dtype third": lambda tf, logits: tf.random.categorical(logits, 4, tf.int32),
    "default dtype": lambda tf, logits: tf.random.categorical(logits, 4),
    "named": lambda tf, logits: tf.random.categorical(logits, 4, seed=3, name="c"),
    "multinomial": lambda tf, logits: tf.multinomial(logits, 4, 3, "m", tf.int32),
}


@pytest.mark.parametrize("label", sorted(CATEGORICAL_CALLS))
def test_categorical_takes_its_own_arguments(label):
    """tf.random.categorical(logits, num_samples, dtype, seed, name) is not multinomial
    (logits, num_samples, seed, name, output_dtype): tfteach took the third argument for
    a seed ("int() argument must be ... not 'DType'") and named the op multinomial/."""
    def build(tf):
        tensor = CATEGORICAL_CALLS[label](tf, tf.zeros([2, 3]))
        return tensor.op.name, tensor.dtype.name, tensor.shape.as_list()

    with tf1_behaviour() as tf1:
        with tf1.Graph().as_default():
            theirs = build(tf1)
    with tfteach.Graph().as_default():
        assert build(tfteach) == theirs
