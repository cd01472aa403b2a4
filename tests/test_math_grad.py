"""Every math gradient against central finite differences, in float64.

Inputs are chosen away from kinks (abs at 0, ties of max/min, floor steps) and inside
the domains (log of positives, asin in (-1, 1)).
"""
import numpy as np
import pytest

import tfteach as tf
from gradient_check import check_gradients, check_gradients_match_tensorflow

R = np.random.RandomState(42)


def rand(*shape, low=-2.0, high=2.0):
    return R.uniform(low, high, shape)


def away_from_zero(*shape):
    x = R.uniform(0.3, 2.0, shape)
    return x * np.where(R.rand(*shape) < 0.5, -1, 1)


# -- binary ops, with broadcasting -------------------------------------------------------------
BINARY = {
    "add": lambda tf, x, y: tf.add(x, y),
    "add_v2": lambda tf, x, y: x + y,
    "subtract": lambda tf, x, y: x - y,
    "multiply": lambda tf, x, y: x * y,
    "truediv": lambda tf, x, y: x / y,
    "realdiv": lambda tf, x, y: tf.realdiv(x, y),
    "pow": lambda tf, x, y: tf.pow(tf.abs(x) + 0.5, y),
    "maximum": lambda tf, x, y: tf.maximum(x, y),
    "minimum": lambda tf, x, y: tf.minimum(x, y),
    "squared_difference": lambda tf, x, y: tf.squared_difference(x, y),
    "floormod": lambda tf, x, y: tf.floormod(x, y),
}

SHAPE_PAIRS = [
    ((2, 3), (2, 3)),
    ((2, 3), (3,)),
    ((3,), (2, 3)),
    ((2, 1), (1, 3)),
    ((2, 3), ()),
    ((), (4,)),
    ((2, 1, 3), (4, 1)),
]


@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
def test_binary_gradients(op, shapes):
    x = away_from_zero(*shapes[0])
    y = away_from_zero(*shapes[1])
    if op in ("maximum", "minimum"):
        y = y + 0.05               # no ties
    if op == "floormod":
        x = R.uniform(0.1, 0.9, shapes[0]) + 3.0   # no step of floor(x / y) nearby
        y = np.full(shapes[1], 1.0) + R.uniform(0.0, 0.01, shapes[1])
    check_gradients(BINARY[op], [x, y])


@pytest.mark.parametrize("op", ["add", "multiply", "truediv", "maximum", "squared_difference"])
def test_binary_gradients_with_unknown_batch(op):
    # x: [None, 3] (a batch of unknown size) against a bias [3] and a [?, 1] column.
    x = away_from_zero(4, 3)
    b = away_from_zero(3)
    check_gradients(BINARY[op], [x, b], shapes=[[None, 3], None])
    c = away_from_zero(4, 1) + 0.05
    check_gradients(BINARY[op], [x, c], shapes=[[None, 3], [None, 1]])


def test_unknown_dims_that_may_broadcast_use_runtime_ops():
    # [?] + [?]: either may be 1 (broadcast) when the graph runs.
    build = BINARY["multiply"]
    check_gradients(build, [rand(4), rand(1)], shapes=[[None], [None]])
    check_gradients(build, [rand(1), rand(4)], shapes=[[None], [None]])
    check_gradients(build, [rand(4), rand(4)], shapes=[[None], [None]])
    check_gradients(build, [rand(2, 3), rand(3)], shapes=[None, [None]])
    check_gradients(build, [rand(2, 3), rand(1, 1)], shapes=[None, "?"])


def test_runtime_broadcast_builds_broadcast_gradient_args():
    x = tf.placeholder(tf.float64, [None])
    y = tf.placeholder(tf.float64, [None])
    tf.gradients(x * y, [x, y])
    types = [op.type for op in tf.get_default_graph().get_operations()]
    assert "BroadcastGradientArgs" in types


def test_static_broadcast_builds_no_shape_ops():
    x = tf.placeholder(tf.float32, [None, 784])
    w = tf.Variable(tf.zeros([784, 10]))
    b = tf.Variable(tf.zeros([10]))
    loss = tf.reduce_sum(tf.matmul(x, w) + b)
    gw, gb = tf.gradients(loss, [w, b])
    grad_types = {op.type for op in tf.get_default_graph().get_operations()
                  if op.name.startswith("gradients/")}
    assert "BroadcastGradientArgs" not in grad_types
    assert gb.op.type == "Sum"           # over axis 0; no reshape needed
    assert gw.op.type == "MatMul"


def test_same_shapes_need_no_reduction():
    x = tf.constant(np.ones((2, 3)))
    y = tf.constant(np.ones((2, 3)))
    z = x + y
    gx, gy = tf.gradients(z, [x, y])
    assert gx is gy and gx.op.type == "Fill"


def test_floordiv_truncatediv_have_none_gradients():
    x = tf.constant([3.5, 4.5], tf.float64)
    y = tf.constant([2.0, 2.0], tf.float64)
    assert tf.gradients(tf.floordiv(x, y), [x, y]) == [None, None]
    assert tf.gradients(tf.truncatediv(x, y), [x, y]) == [None, None]


# -- unary ops ---------------------------------------------------------------------------------
UNARY = {
    "negative": (lambda tf, x: -x, away_from_zero),
    "abs": (lambda tf, x: tf.abs(x), away_from_zero),
    "square": (lambda tf, x: tf.square(x), rand),
    "sqrt": (lambda tf, x: tf.sqrt(x), lambda *s: rand(*s, low=0.5, high=3)),
    "rsqrt": (lambda tf, x: tf.rsqrt(x), lambda *s: rand(*s, low=0.5, high=3)),
    "exp": (lambda tf, x: tf.exp(x), rand),
    "expm1": (lambda tf, x: tf.expm1(x), rand),
    "log": (lambda tf, x: tf.log(x), lambda *s: rand(*s, low=0.5, high=3)),
    "log1p": (lambda tf, x: tf.log1p(x), lambda *s: rand(*s, low=-0.5, high=3)),
    "sin": (lambda tf, x: tf.sin(x), rand),
    "cos": (lambda tf, x: tf.cos(x), rand),
    "tan": (lambda tf, x: tf.tan(x), lambda *s: rand(*s, low=-1.2, high=1.2)),
    "asin": (lambda tf, x: tf.asin(x), lambda *s: rand(*s, low=-0.9, high=0.9)),
    "acos": (lambda tf, x: tf.acos(x), lambda *s: rand(*s, low=-0.9, high=0.9)),
    "atan": (lambda tf, x: tf.atan(x), rand),
    "tanh": (lambda tf, x: tf.tanh(x), rand),
    "sigmoid": (lambda tf, x: tf.sigmoid(x), lambda *s: rand(*s, low=-6, high=6)),
    "reciprocal": (lambda tf, x: tf.reciprocal(x), away_from_zero),
    "sign": (lambda tf, x: tf.sign(x), away_from_zero),
    "floor": (lambda tf, x: tf.floor(x), lambda *s: np.round(rand(*s)) + 0.5),
    "ceil": (lambda tf, x: tf.ceil(x), lambda *s: np.round(rand(*s)) + 0.5),
    "round": (lambda tf, x: tf.round(x), lambda *s: np.round(rand(*s)) + 0.25),
    "identity": (lambda tf, x: tf.identity(x), rand),
    "cast_roundtrip": (lambda tf, x: tf.cast(tf.cast(x, tf.float32), tf.float64), rand),
}


@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_gradients(op):
    build, make = UNARY[op]
    if op == "cast_roundtrip":      # float32 in the middle: coarse differences
        check_gradients(build, [make(2, 3)], delta=1e-2, rtol=1e-4, atol=1e-4)
    else:
        check_gradients(build, [make(2, 3)])


def test_sign_gradient_is_zeros_and_floor_is_none():
    x = tf.constant([1.5, -2.0])
    assert tf.gradients(tf.floor(x), x) == [None]
    assert tf.gradients(tf.round(x), x) == [None]
    g, = tf.gradients(tf.sign(x), x)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(g), [0.0, 0.0])


@pytest.mark.parametrize("op", ["tanh", "sigmoid", "sqrt", "rsqrt", "reciprocal"])
def test_second_derivatives(op):
    inner, make = UNARY[op]
    x0 = make(3) if op in ("tanh", "sigmoid") else rand(3, low=0.5, high=2)

    def first_derivative(tf, x):
        return tf.gradients(inner(tf, x), x)[0]
    check_gradients(first_derivative, [x0])


def test_grad_ops_in_float32():
    x = tf.placeholder(tf.float32, [3])
    outputs = [tf.tanh(x), tf.sigmoid(x), tf.sqrt(x), tf.rsqrt(x), tf.reciprocal(x)]
    grads = [tf.gradients(y, x)[0] for y in outputs]
    value = np.array([0.5, 1.0, 2.0], np.float32)
    with tf.Session() as sess:
        got = sess.run(grads, {x: value})
    t, s = np.tanh(value), 1 / (1 + np.exp(-value))
    expected = [1 - t * t, s * (1 - s), 0.5 / np.sqrt(value), -0.5 * value ** -1.5,
                -1 / value ** 2]
    for g, e in zip(got, expected):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, e, rtol=1e-6)


# -- matrix products, lists, selection -----------------------------------------------------------
@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
def test_matmul_gradients(transpose_a, transpose_b):
    a = rand(*((4, 3) if transpose_a else (3, 4)))
    b = rand(*((2, 4) if transpose_b else (4, 2)))
    check_gradients(lambda tf, a, b: tf.matmul(a, b, transpose_a=transpose_a,
                                               transpose_b=transpose_b), [a, b])


def test_matmul_gradient_with_unknown_batch():
    check_gradients(lambda tf, x, w: tf.matmul(x, w), [rand(5, 3), rand(3, 2)],
                    shapes=[[None, 3], None])


@pytest.mark.parametrize("shapes", [((2, 3, 4), (2, 4, 5)), ((2, 3, 4), (4, 5)),
                                    ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (3, 4, 2))], ids=str)
@pytest.mark.parametrize("adj", [(False, False), (True, False), (False, True), (True, True)],
                         ids=str)
def test_batch_matmul_gradients(shapes, adj):
    sa, sb = list(shapes[0]), list(shapes[1])
    if adj[0]:
        sa[-1], sa[-2] = sa[-2], sa[-1]
    if adj[1]:
        sb[-1], sb[-2] = sb[-2], sb[-1]
    check_gradients(lambda tf, a, b: tf.matmul(a, b, adjoint_a=adj[0], adjoint_b=adj[1]),
                    [rand(*sa), rand(*sb)])


def test_batch_matmul_with_unknown_batch():
    matmul = lambda tf, a, b: tf.matmul(a, b)  # noqa: E731
    check_gradients(matmul, [rand(2, 3, 4), rand(4, 5)], shapes=[[None, 3, 4], None])
    # Batch dims of unknown size on both sides: decided when the graph runs.
    check_gradients(matmul, [rand(2, 3, 4), rand(1, 4, 5)], shapes=[[None, 3, 4], [None, 4, 5]])
    check_gradients(matmul, [rand(1, 3, 4), rand(2, 4, 5)], shapes=[[None, 3, 4], [None, 4, 5]])
    check_gradients(matmul, [rand(2, 3, 4), rand(2, 4, 5)], shapes=[[None, None, None], None])


def test_tensordot_gradients():
    check_gradients(lambda tf, a, b: tf.tensordot(a, b, [[1, 2], [0, 1]]),
                    [rand(2, 3, 4), rand(3, 4, 2)])


def test_add_n_and_accumulate_n_gradients():
    check_gradients(lambda tf, a, b, c: tf.add_n([a, b, a * c]), [rand(2, 3)] * 3)
    check_gradients(lambda tf, a, b, c: tf.accumulate_n([a, b, c]) * a, [rand(2, 3)] * 3)


def test_cast_gradient_is_none_through_integers():
    x = tf.constant([1.5, 2.5])
    y = tf.cast(tf.cast(x, tf.int32), tf.float32)
    assert tf.gradients(y, x) == [None]


def test_cast_gradient_changes_dtype_back():
    x = tf.placeholder(tf.float32, [2])
    g, = tf.gradients(tf.cast(x, tf.float64) * 3.0, x)
    assert g.dtype == tf.float32


def test_select_gradients():
    cond = np.array([[True, False, True], [False, False, True]])

    def build(tf, x, y):
        return tf.where(tf.constant(cond), x, y) * x
    check_gradients(build, [rand(2, 3), rand(2, 3)])


@pytest.mark.parametrize("shapes", [((2, 3), (2, 3), (2, 3)), ((3,), (2, 3), ()),
                                    ((2, 1), (3,), (2, 3))], ids=str)
def test_select_v2_gradients_broadcast(shapes):
    cond = R.rand(*shapes[0]) < 0.5
    check_gradients(lambda tf, x, y: tf.where_v2(tf.constant(cond), x, y),
                    [rand(*shapes[1]), rand(*shapes[2])])


# -- reductions ------------------------------------------------------------------------------------
REDUCTIONS = {
    "sum": lambda tf, x, **k: tf.reduce_sum(x, **k),
    "mean": lambda tf, x, **k: tf.reduce_mean(x, **k),
    "max": lambda tf, x, **k: tf.reduce_max(x, **k),
    "min": lambda tf, x, **k: tf.reduce_min(x, **k),
    "prod": lambda tf, x, **k: tf.reduce_prod(x, **k),
    "logsumexp": lambda tf, x, **k: tf.reduce_logsumexp(x, **k),
}
AXES = [None, 0, 1, -1, [0, 2], [0, 1, 2]]


@pytest.mark.parametrize("op", sorted(REDUCTIONS))
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_gradients(op, axis, keepdims):
    x = R.permutation(24).reshape(2, 3, 4) / 10.0 + 0.5   # distinct values: no ties
    check_gradients(lambda tf, x: REDUCTIONS[op](tf, x, axis=axis, keepdims=keepdims), [x])


@pytest.mark.parametrize("op", sorted(REDUCTIONS))
@pytest.mark.parametrize("axis", [None, 0, 1, [0, 1]], ids=str)
def test_reduction_gradients_with_unknown_dims(op, axis):
    x = R.permutation(12).reshape(4, 3) / 10.0 + 0.5
    for shape in ([None, 3], [None, None]):
        check_gradients(lambda tf, x: REDUCTIONS[op](tf, x, axis=axis), [x], shapes=[shape])


@pytest.mark.parametrize("op", ["sum", "mean", "max", "prod", "min", "logsumexp"])
def test_reduction_gradients_with_unknown_rank(op):
    x = R.permutation(12).reshape(4, 3) / 10.0 + 0.5
    check_gradients(lambda tf, x: REDUCTIONS[op](tf, x, axis=1), [x],
                    shapes=["?"])
    check_gradients(lambda tf, x: REDUCTIONS[op](tf, x), [x], shapes=["?"])


def test_reduction_gradient_with_runtime_axis():
    x = R.permutation(12).reshape(4, 3) / 10.0 + 0.5
    check_gradients(lambda tf, x, axis: tf.reduce_sum(x, axis) * tf.reduce_mean(x, axis),
                    [x, np.array(1, np.int32)], shapes=[None, None])


def test_max_gradient_shares_ties():
    x = tf.constant([1.0, 3.0, 3.0, 2.0])
    g, = tf.gradients(tf.reduce_max(x), x)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(g), [0.0, 0.5, 0.5, 0.0])


def test_prod_gradient_with_zeros():
    x = np.array([[2.0, 0.0, 3.0], [1.5, 2.0, 0.5]])
    check_gradients(lambda tf, x: tf.reduce_prod(x, axis=1), [x])
    check_gradients(lambda tf, x: tf.reduce_prod(x), [x])


@pytest.mark.parametrize("shape, axis", [((0, 3), 0), ((0, 3), 1), ((2, 0), 1), ((0, 0), 0)])
def test_prod_gradient_of_an_empty_tensor_is_empty(shape, axis):
    """Reshaping to [reduced, other] with a -1 cannot be inferred for an empty x (TF's
    Reshape refuses it); TF's gradient gives both sizes, so it works, with any static
    shape."""
    for static in (list(shape), [None, None]):
        x = tf.placeholder(tf.float32, static)
        g, = tf.gradients(tf.reduce_sum(tf.reduce_prod(x, axis, keepdims=True)), x)
        with tf.Session() as sess:
            got = sess.run(g, {x: np.zeros(shape, np.float32)})
        assert got.shape == shape and got.dtype == np.float32


@pytest.mark.parametrize("reduce", ["reduce_sum", "reduce_mean", "reduce_max", "reduce_prod"])
def test_reduction_gradient_of_an_empty_tensor_with_an_unknown_dimension(reduce):
    """x's static shape [None, 0, 0] (tile by 0 of an unknown shape): the gradient's
    reshape target cannot be the constant [-1, 0, 1] (no size to infer for an empty
    tensor), so it is the runtime shape [2, 0, 1]."""
    p = tf.placeholder(tf.float64, [None, None, None])
    x = tf.tile(p, [1, 0, 0])
    assert x.shape.as_list() == [None, 0, 0]
    y = getattr(tf, reduce)(x, -1, keepdims=True)
    g, = tf.gradients(tf.reduce_sum(y * y), p)
    with tf.Session() as sess:
        got = sess.run(g, {p: np.ones((2, 2, 1))})
    np.testing.assert_array_equal(got, np.zeros((2, 2, 1)))


@pytest.mark.parametrize("axes", [[0], [1, 2], [-1], [2, 0], [0, 1, 2]], ids=str)
def test_prod_gradient_with_runtime_axes_and_unknown_rank(axes):
    # The permutation is then computed when the graph runs (ReductionPermutation).
    x = np.array([[[2.0, 0.0, 3.0], [1.5, 2.0, 0.5]], [[0.7, 1.1, -0.4], [0.0, 0.0, 1.2]]])
    axes = np.array(axes, np.int32)
    for shapes in ([None, None], ["?", None]):
        check_gradients(lambda tf, x, a: tf.reduce_prod(x, a), [x, axes], shapes=shapes)
        check_gradients(lambda tf, x, a: tf.reduce_prod(x, a, keepdims=True), [x, axes],
                        shapes=shapes)
    check_gradients_match_tensorflow(lambda tf, x, a: tf.reduce_prod(x, a), [x, axes],
                                     shapes=["?", None])


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1])
def test_cumprod_gradient_with_zeros(exclusive, reverse, axis):
    # TF divides by x here (nan in TF 1.15, 0 in TF 2: both wrong). A cumprod is a
    # polynomial, so central differences are exact up to rounding, zeros included.
    x = np.array([[2.0, 0.0, 3.0, 0.0, 1.5], [0.0, 1.2, -0.7, 2.0, 0.5],
                  [1.1, -1.3, 0.9, 0.8, 0.0], [0.6, 0.7, 0.8, 0.9, 1.1]])
    grads = check_gradients(lambda tf, x: tf.cumprod(x, axis, exclusive=exclusive,
                                                     reverse=reverse), [x], none_ok=False)
    assert np.all(np.isfinite(grads[0]))


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum_cumprod_gradients(exclusive, reverse):
    x = rand(3, 4, low=0.5, high=2.0)
    for fn in ("cumsum", "cumprod"):
        check_gradients(lambda tf, x: getattr(tf, fn)(x, axis=1, exclusive=exclusive,
                                                      reverse=reverse), [x])


def test_integer_ops_are_not_differentiable():
    x = tf.constant([1.0, 2.0, 3.0])
    assert tf.gradients(tf.argmax(x), x) == [None]
    assert tf.gradients(tf.cast(tf.equal(x, 2.0), tf.float32), x) == [None]
    assert tf.gradients(tf.cast(tf.count_nonzero(x), tf.float32), x) == [None]


# -- the random ops' mean and stddev ---------------------------------------------------------------
def test_random_normal_gradients_with_respect_to_mean_and_stddev():
    mean = tf.constant(1.0, tf.float64)
    stddev = tf.constant(2.0, tf.float64)
    sample = tf.random_normal([5], mean=mean, stddev=stddev, dtype=tf.float64, seed=1)
    gm, gs = tf.gradients(sample, [mean, stddev])
    with tf.Session() as sess:
        s, m, d = sess.run([sample, gm, gs])
    assert m == 5.0
    np.testing.assert_allclose(d, np.sum((s - 1.0) / 2.0))


def test_random_uniform_gradients_with_respect_to_bounds():
    lo = tf.constant(-1.0, tf.float64)
    hi = tf.constant(3.0, tf.float64)
    sample = tf.random_uniform([6], lo, hi, dtype=tf.float64, seed=2)
    glo, ghi = tf.gradients(sample, [lo, hi])
    with tf.Session() as sess:
        s, a, b = sess.run([sample, glo, ghi])
    unit = (s + 1.0) / 4.0
    np.testing.assert_allclose(a, np.sum(1 - unit))
    np.testing.assert_allclose(b, np.sum(unit))
