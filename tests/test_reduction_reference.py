"""Reductions, argmax/argmin and cumsum/cumprod against TensorFlow itself.

Each program is built and run on `tf.compat.v1` (graph mode) and on tfteach
(`tests/tf_reference.py`); values, dtypes, static shapes and the first line of error
messages must agree. Skips when TensorFlow is not installed.
"""
import numpy as np
import pytest

from tf_reference import errors_of_both, first_line, run_both, tensorflow_v1

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

RNG = np.random.default_rng(1)
X = RNG.normal(size=(2, 3, 4)).astype(np.float32)
XI = RNG.integers(-5, 6, size=(2, 3, 4)).astype(np.int32)
XB = RNG.random((2, 3, 4)) > 0.5

AXES = [None, 0, -1, [0, 2], [], [-3, 1, 2]]


@pytest.fixture(scope="module", autouse=True)
def tensorflow():
    return tensorflow_v1()


def assert_same(tf_values, our_values):
    assert len(tf_values) == len(our_values)
    for expected, actual in zip(tf_values, our_values):
        expected, actual = np.asarray(expected), np.asarray(actual)
        assert actual.dtype == expected.dtype
        assert actual.shape == expected.shape
        if expected.dtype.kind == "f":
            np.testing.assert_allclose(actual, expected, rtol=2e-6, atol=1e-6)
        else:
            np.testing.assert_array_equal(actual, expected)


def static_shapes(tensors):
    return [None if t.shape.ndims is None else t.shape.as_list() for t in tensors]


def run_and_compare(build):
    """Runs `build` on both; compares values and also the static shapes and dtypes."""
    built = {}

    def recording_build(tf):
        fetches, feed = build(tf)
        built[tf.__name__] = (static_shapes(fetches), [t.dtype.name for t in fetches])
        return fetches, feed

    tf_values, our_values = run_both(recording_build)
    assert_same(tf_values, our_values)
    (ours,) = [v for k, v in built.items() if k.startswith("tfteach")]
    (theirs,) = [v for k, v in built.items() if not k.startswith("tfteach")]
    assert ours == theirs


# -- values, dtypes, static shapes ---------------------------------------------------------
@pytest.mark.parametrize("name", ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
                                  "reduce_prod", "reduce_logsumexp"])
def test_float_reductions(name):
    def build(tf):
        fn = getattr(tf, name)
        x = tf.constant(X)
        return [fn(x, axis, keepdims=keep) for axis in AXES for keep in (False, True)], None
    run_and_compare(build)


@pytest.mark.parametrize("name", ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
                                  "reduce_prod", "count_nonzero"])
def test_integer_reductions(name):
    def build(tf):
        fn = getattr(tf, name)
        x = tf.constant(XI)
        return [fn(x, axis) for axis in AXES] + [fn(tf.constant(XI.astype(np.int64)), 1)], None
    run_and_compare(build)


@pytest.mark.parametrize("name", ["reduce_any", "reduce_all", "count_nonzero"])
def test_boolean_reductions(name):
    def build(tf):
        fn = getattr(tf, name)
        return [fn(tf.constant(XB), axis, keep_dims=True) for axis in AXES], None
    run_and_compare(build)


def test_float64_and_tf1_aliases():
    def build(tf):
        x = tf.constant(X.astype(np.float64))
        return [tf.reduce_sum(x, reduction_indices=[1], keep_dims=True),
                tf.reduce_mean(x, reduction_indices=0),
                tf.count_nonzero(x, 2, dtype=tf.int32)], None
    run_and_compare(build)


def test_empty_inputs():
    def build(tf):
        f = tf.constant(np.zeros((0, 3), np.float32))
        i = tf.constant(np.zeros((0, 3), np.int32))
        return [tf.reduce_sum(f), tf.reduce_sum(f, 0), tf.reduce_prod(f, 0), tf.reduce_max(f),
                tf.reduce_min(f, 0), tf.reduce_max(i, 0), tf.reduce_min(i), tf.reduce_mean(i),
                tf.reduce_mean(f, 0), tf.reduce_logsumexp(f, 0),
                tf.count_nonzero(f, 1)], None
    run_and_compare(build)


def test_unknown_shapes_and_fed_axes():
    def build(tf):
        any_rank = tf.placeholder(tf.float32)
        rows = tf.placeholder(tf.float32, [None, 4])
        axis = tf.placeholder(tf.int32)
        fetches = [tf.reduce_sum(any_rank), tf.reduce_mean(any_rank, 1),
                   tf.reduce_max(rows, 1), tf.reduce_min(rows, 0, keepdims=True),
                   tf.reduce_sum(rows, axis), tf.reduce_sum(rows, axis, keepdims=True),
                   tf.argmax(rows, 1), tf.argmax(rows, axis), tf.cumsum(rows, axis)]
        feed = {any_rank: X[0], rows: X[0], axis: 1}
        return fetches, feed
    run_and_compare(build)


def test_argmax_argmin():
    def build(tf):
        x = tf.constant(np.round(X * 2))          # rounding makes ties
        xi = tf.constant(XI)
        return [tf.argmax(x), tf.argmax(x, 1), tf.argmin(x, -1), tf.argmax(xi, 2),
                tf.argmin(xi, dimension=0, output_type=tf.int32),
                tf.argmax(tf.constant([3, 1, 3])), tf.argmax(x, tf.constant(1, tf.int64))], None
    run_and_compare(build)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_cumsum_cumprod(name):
    def build(tf):
        fn = getattr(tf, name)
        x, xi = tf.constant(X), tf.constant(XI)
        return [fn(v, axis, exclusive=e, reverse=r) for v in (x, xi) for axis in (0, 1, -1)
                for e in (False, True) for r in (False, True)], None
    run_and_compare(build)


def test_graph_names():
    names = {}

    def build(tf):
        x = tf.constant(X, name="x")
        fetches = [tf.reduce_sum(x), tf.reduce_mean(x, 1, name="m"), tf.argmax(x, 1),
                   tf.cumsum(x, 1), tf.reduce_max(x, [0, 1]), tf.reduce_logsumexp(x, 1)]
        names[tf.__name__] = [t.name for t in fetches]
        return fetches, None

    run_both(build)
    ours, theirs = (names[k] for k in sorted(names, key=lambda k: not k.startswith("tfteach")))
    assert ours == theirs


# -- errors --------------------------------------------------------------------------------
def core_message(exc):
    """The message TF puts first: its runtime errors start with 'Graph execution error:'."""
    text = str(exc)
    if text.startswith("Graph execution error"):
        lines = text.splitlines()
        node_line = next(i for i, line in enumerate(lines) if line.startswith("Node: "))
        return lines[node_line + 1]
    return first_line(exc)


def build_time_part(message):
    """TF 2 prints the NodeDef where TF 1 printed `'NAME' (op: 'TYPE')`: compare the rest."""
    before, _, after = message.partition(" for '")
    return before, after[after.index(" with input shapes:"):] if after else ""


BUILD_ERRORS = {
    "axis out of range": lambda tf: tf.reduce_sum(tf.constant(np.ones((2, 2))), 2),
    "axis list out of range": lambda tf: tf.reduce_max(tf.constant(np.ones((2, 2))), [0, 5]),
    "scalar axis 0": lambda tf: tf.reduce_sum(tf.constant(3.0), 0),
    "matrix axis": lambda tf: tf.reduce_sum(tf.constant(np.ones((2, 2))), [[0]]),
    "argmax out of range": lambda tf: tf.argmax(tf.constant(np.ones((2, 2))), 2),
    "float axis": lambda tf: tf.reduce_sum(tf.constant([1.0]), 0.5),
    "bool sum": lambda tf: tf.reduce_sum(tf.constant([True])),
    "float any": lambda tf: tf.reduce_any(tf.constant([1.0])),
    "both axis names": lambda tf: tf.reduce_sum(tf.constant([1.0]), 0, reduction_indices=0),
    "both keepdims names": lambda tf: tf.reduce_mean(tf.constant([1.0]), keepdims=True,
                                                     keep_dims=True),
    "int logsumexp": lambda tf: tf.reduce_logsumexp(tf.constant([1, 2])),
    "float cumsum axis": lambda tf: tf.cumsum(tf.constant([1.0]), 0.5),
    "bool cumsum": lambda tf: tf.cumsum(tf.constant([True])),
}


@pytest.mark.parametrize("case", sorted(BUILD_ERRORS))
def test_build_time_errors(case):
    make = BUILD_ERRORS[case]
    theirs, ours = errors_of_both(lambda tf: ([make(tf)], None))
    assert theirs is not None and ours is not None
    assert type(ours).__name__ == type(theirs).__name__
    assert build_time_part(first_line(ours)) == build_time_part(first_line(theirs))


RUN_ERRORS = {
    "fed axis out of range": lambda tf, p: tf.reduce_sum(tf.constant(np.ones((2, 2))), p),
    "argmax fed axis": lambda tf, p: tf.argmax(tf.constant(np.ones((2, 2))), p),
    "cumsum fed axis": lambda tf, p: tf.cumsum(tf.constant(np.ones((2, 2))), p),
}


@pytest.mark.parametrize("case", sorted(RUN_ERRORS))
def test_run_time_errors(case):
    make = RUN_ERRORS[case]

    def build(tf):
        axis = tf.placeholder(tf.int32)
        return [make(tf, axis)], {axis: 2}

    theirs, ours = errors_of_both(build)
    assert type(ours).__name__ == type(theirs).__name__ == "InvalidArgumentError"
    assert core_message(ours) == core_message(theirs)


def test_argmax_of_empty_axis_and_cumsum_of_vector_axis():
    def empty(tf):
        x = tf.placeholder(tf.float32, [None, 3])
        return [tf.argmax(x, 0)], {x: np.zeros((0, 3), np.float32)}

    def vector_axis(tf):
        return [tf.cumsum(tf.constant(np.ones((2, 2))), [0])], None

    for build in (empty, vector_axis):
        theirs, ours = errors_of_both(build)
        assert type(ours).__name__ == type(theirs).__name__ == "InvalidArgumentError"
        assert core_message(ours) == core_message(theirs)
