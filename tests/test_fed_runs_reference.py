"""The session fast path (runtime/fed_runs.py): a run whose fetch and feed keys were
checked once only converts the new values. It must accept and refuse exactly what the
first run of a signature does — TensorFlow's conversions and errors — and never hand back
a stale value."""
import numpy as np
import pytest

import tfteach
from tf_reference import tensorflow_v1

WARM = {"int32": 1, "uint8": 1, "bool": True, "int64": 1, "float32": 1.0, "float64": 1.0}
ODD_FEEDS = [
    ("int32", 2 ** 40), ("int32", -2 ** 31), ("uint8", 256), ("uint8", -1), ("uint8", 255),
    ("bool", 2), ("bool", False), ("int64", 2 ** 63), ("float32", 2 ** 60 + 1),
    ("float64", 3), ("int32", [1.7, -2.5]), ("float32", [True, False]),
    ("float32", np.float64(0.1)), ("float32", np.arange(3, dtype=np.float64) / 3),
    ("float32", (1, 2.5)), ("float32", [[1.0], [2.0, 3.0]]),
]


def _warm_then(tf, dtype, value):
    """A run with an ordinary value (the signature is now warm), then one with `value`."""
    with tf.Graph().as_default():
        p = tf.placeholder(getattr(tf, dtype))
        out = tf.identity(p)
        with tf.Session() as sess:
            sess.run(out, {p: WARM[dtype]})
            try:
                result = sess.run(out, {p: value})
            except Exception as e:  # noqa: BLE001 - the error is what we compare
                return type(e).__name__, str(e).strip()
            result = np.asarray(result)
            return "value", result.dtype.name, result.tolist()


@pytest.mark.parametrize("dtype, value", ODD_FEEDS, ids=[
    "%s-%s%d" % (d, type(v).__name__, i) for i, (d, v) in enumerate(ODD_FEEDS)])
def test_a_warm_signature_converts_or_refuses_as_tensorflow_does(dtype, value):
    pytest.importorskip("tensorflow")
    ours, theirs = _warm_then(tfteach, dtype, value), _warm_then(tensorflow_v1(), dtype, value)
    if theirs[0] == "value":
        assert ours == theirs
    else:
        # The same error class, and TF's cause (its last line: TF 2.x prefixes errors
        # from its C layer) in our text, which may add a hint for the student.
        assert ours[0] == theirs[0]
        assert theirs[1].splitlines()[-1] in ours[1]


def _error_of(run):
    with pytest.raises(Exception) as info:
        run()
    return type(info.value), str(info.value)


def test_a_wrong_shape_on_a_warm_signature_is_the_first_runs_error():
    tf = tfteach
    x = tf.placeholder(tf.float32, [2], name="x")
    y = x * 3.0
    bad = np.zeros(3, np.float32)
    with tf.Session() as cold:
        expected = _error_of(lambda: cold.run(y, {x: bad}))
    with tf.Session() as warm:
        np.testing.assert_array_equal(warm.run(y, {x: [1.0, 2.0]}), [3.0, 6.0])
        assert _error_of(lambda: warm.run(y, {x: bad})) == expected
        assert _error_of(lambda: warm.run(y, {x: np.zeros((1, 2), np.float32)}))[0] is ValueError
    assert expected[0] is ValueError
    assert "Cannot feed value of shape (3,) for Tensor 'x:0', which has shape '(2,)'" in (
        expected[1])


def test_set_shape_after_a_run_is_seen_by_the_next_run():
    tf = tfteach
    x = tf.placeholder(tf.float32, [None], name="x")
    y = x + 1.0
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.0, 3.0]}), [2.0, 3.0, 4.0])
        x.set_shape([2])
        with pytest.raises(ValueError, match=r"Cannot feed value of shape \(3,\)"):
            sess.run(y, {x: [1.0, 2.0, 3.0]})
        np.testing.assert_array_equal(sess.run(y, {x: [5.0, 6.0]}), [6.0, 7.0])


def test_prevent_feeding_after_a_run_is_seen_by_the_next_run():
    tf = tfteach
    x = tf.placeholder(tf.float32, [], name="x")
    y = x * 2.0
    with tf.Session() as sess:
        assert sess.run(y, {x: 2.0}) == 4.0
        tf.get_default_graph().prevent_feeding(x)
        with pytest.raises(ValueError, match="may not be fed"):
            sess.run(y, {x: 2.0})


def test_a_tensor_fed_on_a_warm_signature_is_refused():
    tf = tfteach
    x = tf.placeholder(tf.float32, [], name="x")
    y = x * 2.0
    with tf.Session() as sess:
        sess.run(y, {x: 1.0})
        with pytest.raises(TypeError, match="The value of a feed cannot be a tf.Tensor"):
            sess.run(y, {x: tf.constant(1.0)})


def test_every_run_computes_from_its_own_values():
    tf = tfteach
    rng = np.random.RandomState(1)
    a = tf.placeholder(tf.float32, [None, 3], name="a")
    b = tf.placeholder(tf.float32, [3], name="b")
    w = tf.Variable(np.ones(3, np.float32))
    y = tf.reduce_sum(tf.tanh(a * b) * w, axis=1)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for rows in (1, 4, 2, 4):
            av = rng.randn(rows, 3)                      # float64: converted to float32
            bv = list(rng.randn(3))
            wv = rng.randn(3).astype(np.float32)
            sess.run(w.assign(wv))
            a32, b32 = av.astype(np.float32), np.asarray(bv, np.float32)
            expected = np.sum(np.tanh(a32 * b32) * wv, axis=1)
            got = sess.run(y, {a: av, b: bv})
            swapped = sess.run(y, {b: bv, a: av})        # the keys in the other order
            assert got.dtype == np.float32 and got.shape == (rows,)
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
            np.testing.assert_array_equal(swapped, got)


def test_a_fetched_feed_is_a_value_the_student_may_modify():
    tf = tfteach
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.identity(x)
    fed = np.array([1.0, 2.0], np.float32)
    with tf.Session() as sess:
        sess.run(y, {x: fed})
        out = sess.run(y, {x: fed})
        out[0] = 9.0
        np.testing.assert_array_equal(sess.run(y, {x: np.array([1.0, 2.0], np.float32)}),
                                      [1.0, 2.0])


def test_a_kernel_error_after_the_loop_is_compiled_names_its_op():
    # Runs 1-2 take the step-by-step loop, later ones the compiled one (fast_loop.py):
    # an error is the same InvalidArgumentError, naming the op that failed.
    tf = tfteach
    a = tf.placeholder(tf.float32, [None], name="a")
    b = tf.placeholder(tf.float32, [None], name="b")
    c = tf.tanh(a, name="first") * 2.0
    d = tf.add(c, b, name="the_add")
    e = tf.identity(d * 3.0, name="last")
    with tf.Session() as sess:
        errors = []
        for run in range(5):
            x = np.full(3, 0.5, np.float32)
            np.testing.assert_allclose(sess.run(e, {a: x, b: x}),
                                       (np.tanh(x) * 2.0 + x) * 3.0, rtol=1e-6)
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(e, {a: x, b: np.ones(2, np.float32)})
            errors.append(info.value)
        assert all(err.op is not None and err.op.name == "the_add" for err in errors)
        assert len({str(err) for err in errors}) == 1
        assert "Incompatible shapes: [3] vs. [2]" in str(errors[-1])


@pytest.mark.parametrize("kind", [list, tuple])
def test_a_flat_list_of_fetches_is_shaped_as_tensorflow_shapes_it(kind):
    # [train_op, loss] (None for an op), a tensor fetched twice, a tuple stays a tuple:
    # the same on every run as on TF 1.15, warm or not. (The variable is read in a run of
    # its own: fetched beside its update, TF's value depends on its scheduling.)
    pytest.importorskip("tensorflow")

    def program(tf):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [None, 1])
            w = tf.Variable(np.full((1, 1), 0.5, np.float32))
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
            out = []
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for i in range(4):
                    got = sess.run(kind([train, loss, loss]), {x: [[1.0], [2.0 + i]]})
                    out.append((type(got).__name__, got[0], float(got[1]), float(got[2]),
                                sess.run(w).tolist()))
                out.append(type(sess.run(kind([w, loss]), {x: [[1.0]]})).__name__)
            return out
    ours, theirs = program(tfteach), program(tensorflow_v1())
    assert [o[:2] for o in ours[:-1]] == [t[:2] for t in theirs[:-1]]
    assert ours[-1] == theirs[-1] == kind.__name__
    for o, t in zip(ours[:-1], theirs[:-1]):
        np.testing.assert_allclose(o[2:4], t[2:4], rtol=1e-5)
        np.testing.assert_allclose(o[4], t[4], rtol=1e-5)


def test_a_list_fetched_without_feeds_runs_each_time():
    tf = tfteach
    v = tf.Variable(0.0)
    inc = tf.assign_add(v, 1.0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = [sess.run([inc, v.op]) for _ in range(4)]
    assert got == [[1.0, None], [2.0, None], [3.0, None], [4.0, None]]


def test_a_duplicated_fetch_is_one_result_object():
    tf = tfteach
    x = tf.placeholder(tf.float32, [2])
    y = x * 2.0
    with tf.Session() as sess:
        for _ in range(4):
            a, b = sess.run([y, y], {x: [1.0, 2.0]})
            assert a is b
            np.testing.assert_array_equal(a, [2.0, 4.0])
