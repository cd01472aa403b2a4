"""Differential tests: tf.cond / tf.case / tf.while_loop / group against TensorFlow.

TensorFlow 2's `tf.compat.v1` in graph mode with control flow v1 builds the same
Switch / Merge and Enter / Exit graphs as TF 1.15; results and error classes must match,
and error first lines where TF 2 kept TF 1.15's wording. Skipped without TensorFlow.
"""
import numpy as np
import pytest

from tests.tf_reference import errors_of_both, first_line, run_both, tensorflow_v1
from tolerances import assert_close


@pytest.fixture(autouse=True, scope="module")
def tensorflow_control_flow_v1():
    tf = tensorflow_v1()
    tf.disable_control_flow_v2()
    yield
    tf.enable_control_flow_v2()         # leave other modules TensorFlow's default


def assert_same(both):
    expected, actual = both
    assert type(actual) is type(expected) or (
        np.isscalar(expected) and np.isscalar(actual))
    if isinstance(expected, (list, tuple)):
        assert len(actual) == len(expected)
        for e, a in zip(expected, actual):
            assert_same((e, a))
    elif isinstance(expected, dict):
        assert sorted(actual) == sorted(expected)
        for k in expected:
            assert_same((expected[k], actual[k]))
    elif expected is None:
        assert actual is None
    else:
        assert np.asarray(actual).dtype == np.asarray(expected).dtype
        assert_close(actual, expected, rtol=1e-6)


@pytest.mark.parametrize("pred", [True, False])
def test_cond_values_and_structures(pred):
    def build(tf):
        p = tf.placeholder(tf.bool)
        x = tf.constant([1.0, 2.0])
        simple = tf.cond(p, lambda: x * 2.0, lambda: x - 1.0)
        nested = tf.cond(p, lambda: (x, {"a": tf.constant(1), "b": x[0]}),
                         lambda: (x + 1.0, {"a": tf.constant(2), "b": x[1]}))
        single = tf.cond(p, lambda: [tf.constant(1)], lambda: [tf.constant(2)])
        python_values = tf.cond(p, lambda: 1.5, lambda: 2.5)
        inner = tf.cond(p, lambda: tf.cond(x[0] > 0, lambda: x[0], lambda: x[1]),
                        lambda: tf.constant(9.0))
        return [simple, nested, single, python_values, inner], {p: pred}
    assert_same(run_both(build))


def test_cond_graph_names_match():
    def build(tf):
        p = tf.placeholder(tf.bool, name="p")
        x = tf.constant(2.0, name="x")
        tf.cond(p, lambda: x + 1.0, lambda: x)
        tf.cond(p, lambda: tf.no_op(), lambda: tf.no_op())
        names = [(op.name, op.type) for op in tf.get_default_graph().get_operations()]
        return tf.constant(str(sorted(names))), None

    expected, actual = run_both(build)
    assert actual.decode() == expected.decode()


@pytest.mark.parametrize("n", [0, 1, 7])
def test_while_loop_results(n):
    def build(tf):
        limit = tf.placeholder(tf.int32, shape=[])
        counted = tf.while_loop(lambda i: i < limit, lambda i: i + 1, [0])
        fib = tf.while_loop(lambda i, a, b: i < limit, lambda i, a, b: (i + 1, b, a + b),
                            (0, tf.constant(0), tf.constant(1)))
        capped = tf.while_loop(lambda i, s: i < 100, lambda i, s: [i + 1, s * 2.0],
                               [0, tf.constant(1.0)], maximum_iterations=limit)
        growing = tf.while_loop(lambda v: tf.size(v) < limit * 2,
                                lambda v: tf.concat([v, v], 0), [tf.constant([3])],
                                shape_invariants=[tf.TensorShape([None])])
        nested = tf.while_loop(
            lambda i, t: i < limit,
            lambda i, t: (i + 1, t + tf.while_loop(lambda j, s: j < i,
                                                   lambda j, s: (j + 1, s + j), [0, 0])[1]),
            [0, 0])
        stepping = tf.while_loop(
            lambda x: x < 50,
            lambda x: tf.cond(tf.equal(x % 2, 0), lambda: x + 3, lambda: x * 2), [limit])
        return [counted, fib, capped, growing, nested, stepping], {limit: n}
    assert_same(run_both(build))


def test_while_loop_graph_names_match():
    def build(tf):
        n = tf.placeholder(tf.int32, name="n")
        tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), [0, 0], name="loop")
        exits = [op.name for op in tf.get_default_graph().get_operations()
                 if op.name.startswith("loop/Exit")]
        return tf.constant(exits), None
    expected, actual = run_both(build)
    assert list(actual) == list(expected)


@pytest.mark.parametrize("value", [-5, 4, 50])
def test_case_group_and_tuple(value):
    def build(tf):
        x = tf.placeholder(tf.int32)
        r = tf.case([(x < 0, lambda: tf.constant(-1)), (x < 10, lambda: tf.constant(1))],
                    default=lambda: tf.constant(100))
        last_is_default = tf.case([(x < 0, lambda: x * 2), (x >= 0, lambda: x * 3)])
        gate = tf.group(r, [last_is_default])
        with tf.control_dependencies([gate]):
            after = tf.identity(r)
        pair = tf.tuple([r, last_is_default])
        return [gate, after, pair, r, last_is_default], {x: value}
    assert_same(run_both(build))


def _error_program(kind):
    def build(tf):
        p = tf.placeholder(tf.bool)
        if kind == "int_pred":
            tf.cond(tf.constant(1), lambda: 1, lambda: 2)
        elif kind == "structure":
            tf.cond(p, lambda: 1, lambda: [1, 2])
        elif kind == "sequence_type":
            tf.cond(p, lambda: (1, 2), lambda: [1, 2])
        elif kind == "invariant":
            tf.while_loop(lambda i: i < 10, lambda i: tf.constant([1, 2]), [tf.constant(0)])
        elif kind == "growing":
            tf.while_loop(lambda x: tf.size(x) < 8, lambda x: tf.concat([x, x], 0),
                          [tf.constant([1])])
        elif kind == "body_structure":
            tf.while_loop(lambda i, j: i < 10, lambda i, j: i + 1, [0, 1])
        elif kind == "cond_not_bool":
            tf.while_loop(lambda i: i, lambda i: i + 1, [0])
        elif kind == "pybool":
            tf.cond(True, lambda: 1, lambda: 2)
        elif kind == "not_callable":
            tf.cond(p, 1, lambda: 2)
        elif kind == "none":
            tf.cond(p, lambda: None, lambda: 2)
        elif kind == "empty":
            tf.while_loop(lambda: True, lambda: (), [])
        elif kind == "dtype":
            tf.cond(p, lambda: 1, lambda: 2.0)
        return tf.constant(0), None
    return build


@pytest.mark.parametrize("kind", ["int_pred", "structure", "sequence_type", "invariant",
                                  "growing", "body_structure", "cond_not_bool"])
def test_errors_match_tensorflow(kind):
    expected, actual = errors_of_both(_error_program(kind))
    assert expected is not None and actual is not None
    assert type(actual).__name__ == type(expected).__name__
    assert first_line(actual) == first_line(expected)


@pytest.mark.parametrize("kind", ["pybool", "not_callable", "none", "empty", "dtype"])
def test_errors_match_tensorflow_class(kind):
    # TF 2 reworded these (quotes around names); tfteach keeps TF 1.15's text.
    expected, actual = errors_of_both(_error_program(kind))
    assert expected is not None and actual is not None
    assert type(actual).__name__ == type(expected).__name__
