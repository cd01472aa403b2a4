"""tf.nn's activations, softmax, cross entropies and l2_loss against NumPy references,
and their gradients against float64 finite differences.

The NumPy references are written from the mathematical definitions (log-sum-exp with
np.logaddexp, softplus as logaddexp(0, x)), not from tfteach's formulas.
"""
import numpy as np
import pytest

import tfteach as tf
from gradient_check import check_gradients
from tolerances import assert_close

RNG = np.random.RandomState(42)
X = RNG.randn(4, 5)                                  # float64 logits
ONEHOT = np.eye(5)[[0, 3, 3, 1]]
SOFT = np.abs(RNG.randn(4, 5))
SOFT = SOFT / SOFT.sum(1, keepdims=True)             # probability rows
SPARSE = np.array([0, 3, 3, 1], np.int32)
AWAY_FROM_ZERO = np.array([[-2.5, -1.2, -0.3, 0.4, 1.7], [2.2, -0.7, 0.9, -1.9, 6.5]])


def run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


# -- NumPy references -------------------------------------------------------------------------
def np_log_softmax(x, axis=-1):
    return x - np.logaddexp.reduce(x, axis=axis, keepdims=True)


def np_softmax(x, axis=-1):
    return np.exp(np_log_softmax(x, axis))


def np_xent(labels, logits, axis=-1):
    return -np.sum(labels * np_log_softmax(logits, axis), axis=axis)


def np_sigmoid_xent(z, x):
    # -z log(sigmoid(x)) - (1 - z) log(1 - sigmoid(x)) = log(1 + e^x) - x z
    return np.logaddexp(0, x) - x * z


def np_weighted_xent(z, x, q):
    return q * z * np.logaddexp(0, -x) + (1 - z) * np.logaddexp(0, x)


SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
ACTIVATIONS = {
    "relu": (tf.nn.relu, lambda x: np.maximum(x, 0)),
    "relu6": (tf.nn.relu6, lambda x: np.minimum(np.maximum(x, 0), 6)),
    "elu": (tf.nn.elu, lambda x: np.where(x > 0, x, np.expm1(x))),
    "selu": (tf.nn.selu, lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x))),
    "softplus": (tf.nn.softplus, lambda x: np.logaddexp(0, x)),
    "softsign": (tf.nn.softsign, lambda x: x / (1 + np.abs(x))),
    # (TF's alpha attribute is a 32-bit float, even for float64 features)
    "leaky_relu": (tf.nn.leaky_relu, lambda x: np.where(x > 0, x, float(np.float32(0.2)) * x)),
    "sigmoid": (tf.nn.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    "tanh": (tf.nn.tanh, np.tanh),
}


# -- activations ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_activation_values(name, dtype):
    fn, ref = ACTIVATIONS[name]
    x = np.concatenate([AWAY_FROM_ZERO.ravel(), [0.0, 7.0, -40.0, 40.0]]).astype(dtype)
    y = fn(tf.constant(x))
    assert y.dtype == tf.as_dtype(dtype) and y.shape.as_list() == [14]
    np.testing.assert_allclose(run(y), ref(x.astype(np.float64)), rtol=2e-6 if dtype == np.float32
                               else 1e-12, atol=1e-7)


@pytest.mark.parametrize("name", ["relu", "relu6", "elu", "selu", "softplus", "softsign",
                                  "leaky_relu"])
def test_activation_gradients(name):
    fn = ACTIVATIONS[name][0]
    check_gradients(lambda t, x: fn(x), [AWAY_FROM_ZERO])


def test_op_types_and_names():
    x = tf.constant([1.0, -1.0])
    assert tf.nn.relu(x).op.type == "Relu"
    assert tf.nn.relu(x, name="act").name == "act:0"
    assert tf.nn.relu6(x).name == "Relu6:0"
    assert tf.nn.leaky_relu(x, alpha=0.1).op.get_attr("alpha") == pytest.approx(0.1)
    assert tf.nn.sigmoid is tf.sigmoid and tf.nn.tanh is tf.tanh


def test_relu_keeps_nan_and_ints():
    assert np.isnan(run(tf.nn.relu([np.nan, 1.0]))[0])
    np.testing.assert_array_equal(run(tf.nn.relu(tf.constant([-3, 4]))), [0, 4])
    # LeakyRelu has no integer kernel: TF's wrapper casts ints to float32.
    y = tf.nn.leaky_relu(tf.constant([-10, 10]))
    assert y.dtype == tf.float32
    np.testing.assert_allclose(run(y), [-2.0, 10.0])


def test_float_only_activations_reject_ints():
    with pytest.raises(TypeError, match="Value passed to parameter 'features' has DataType "
                                        "int32 not in list of allowed values: float16"):
        tf.nn.elu(tf.constant([1, 2]))


def test_crelu():
    np.testing.assert_allclose(run(tf.nn.crelu([[1.0, -2.0]])), [[1.0, 0.0, 0.0, 2.0]])


def test_second_derivative_of_relu_is_zero():
    x = tf.constant(AWAY_FROM_ZERO)
    g = tf.gradients(tf.nn.relu(x) * x, x)[0]
    gg = tf.gradients(g, x)[0]
    np.testing.assert_allclose(run(gg), 2.0 * (AWAY_FROM_ZERO > 0))


# -- softmax ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_softmax_and_log_softmax_values(dtype):
    x = X.astype(dtype)
    s, ls = run([tf.nn.softmax(x), tf.nn.log_softmax(x)])
    assert s.dtype == dtype and ls.dtype == dtype
    tol = {np.float16: 2e-3, np.float32: 1e-6, np.float64: 1e-13}[dtype]
    np.testing.assert_allclose(s, np_softmax(x.astype(np.float64)), rtol=tol, atol=tol)
    np.testing.assert_allclose(ls, np_log_softmax(x.astype(np.float64)), rtol=tol, atol=tol)


def test_softmax_is_stable_for_huge_logits():
    x = np.array([[1000.0, 0.0, -1000.0], [-1e30, -1e30, -1e30]], np.float32)
    s, ls = run([tf.nn.softmax(x), tf.nn.log_softmax(x)])
    np.testing.assert_allclose(s, [[1, 0, 0], [1 / 3, 1 / 3, 1 / 3]], atol=1e-7)
    np.testing.assert_allclose(ls[0], [0.0, -1000.0, -2000.0])
    assert np.all(np.isfinite(ls))


@pytest.mark.parametrize("axis", [0, 1, -2])
def test_softmax_along_other_axes(axis):
    x = RNG.randn(2, 3, 4)
    got = run([tf.nn.softmax(x, axis=axis), tf.nn.log_softmax(x, dim=axis)])
    assert_close(got[0], np_softmax(x, axis), rtol=1e-12)
    assert_close(got[1], np_log_softmax(x, axis), rtol=1e-12)
    assert tf.nn.softmax(x, axis=axis).shape.as_list() == [2, 3, 4]


def test_softmax_errors():
    with pytest.raises(ValueError, match="Shape must be at least rank 1 but is rank 0"):
        tf.nn.softmax(tf.constant(1.0))
    with pytest.raises(TypeError, match="DataType int32 not in list"):
        tf.nn.softmax(tf.constant([1, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Dimension \(3\) must be in the "
                                                             r"range \[-2, 2\)"):
        tf.nn.softmax(tf.constant(X), axis=3)
    with pytest.raises(ValueError, match="Cannot specify both 'dim' and 'axis'"):
        tf.nn.softmax(X, axis=0, dim=0)


def test_softmax_gradients():
    check_gradients(lambda t, x: t.nn.softmax(x), [X])
    check_gradients(lambda t, x: t.nn.softmax(x, axis=0), [X])
    check_gradients(lambda t, x: t.nn.log_softmax(x), [X])
    check_gradients(lambda t, x: t.nn.log_softmax(x, axis=0), [RNG.randn(3, 2, 2)])


# -- softmax cross entropy -----------------------------------------------------------------------
@pytest.mark.parametrize("labels", [ONEHOT, SOFT])
def test_softmax_xent_values(labels):
    v1 = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=X)
    v2 = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=X)
    assert v1.shape.as_list() == [4] and v1.dtype == tf.float64
    got = run([v1, v2])
    assert_close(got[0], np_xent(labels, X), rtol=1e-12)
    assert_close(got[1], np_xent(labels, X), rtol=1e-12)


def test_softmax_xent_other_ranks_axes_and_dtypes():
    x3 = RNG.randn(2, 3, 4).astype(np.float32)
    l3 = np_softmax(RNG.randn(2, 3, 4))
    got = run([tf.nn.softmax_cross_entropy_with_logits_v2(labels=l3, logits=x3),
               tf.nn.softmax_cross_entropy_with_logits_v2(labels=l3, logits=x3, axis=1),
               tf.nn.softmax_cross_entropy_with_logits(labels=l3, logits=x3, dim=0)])
    assert_close(got[0], np_xent(l3, x3), rtol=1e-6)
    assert_close(got[1], np_xent(l3, x3, axis=1), rtol=1e-6)
    assert_close(got[2], np_xent(l3, x3, axis=0), rtol=1e-6)
    assert [g.shape for g in got] == [(2, 3), (2, 4), (3, 4)]
    half = tf.nn.softmax_cross_entropy_with_logits_v2(labels=ONEHOT, logits=X.astype(np.float16))
    assert half.dtype == tf.float16
    assert_close(run(half), np_xent(ONEHOT, X), rtol=2e-3)


def test_softmax_xent_is_stable():
    logits = np.array([[1000.0, 0.0], [-1000.0, 1000.0]], np.float32)
    labels = np.array([[0.0, 1.0], [1.0, 0.0]], np.float32)
    np.testing.assert_allclose(run(tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=labels, logits=logits)), [1000.0, 2000.0])


def test_softmax_xent_keyword_rule_and_shape_errors():
    with pytest.raises(ValueError) as info:
        tf.nn.softmax_cross_entropy_with_logits(ONEHOT, X)
    assert str(info.value) == ("Only call `softmax_cross_entropy_with_logits` with named "
                               "arguments (labels=..., logits=..., ...)")
    with pytest.raises(ValueError, match="Both labels and logits must be provided"):
        tf.nn.softmax_cross_entropy_with_logits(logits=X)
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 5 and 4"):
        tf.nn.softmax_cross_entropy_with_logits_v2(labels=ONEHOT[:, :4], logits=X)


def test_softmax_xent_names_and_single_fused_op():
    loss = tf.nn.softmax_cross_entropy_with_logits(labels=ONEHOT, logits=X)
    assert loss.name == "softmax_cross_entropy_with_logits_sg/Reshape_2:0"
    op = tf.get_default_graph().get_operation_by_name("softmax_cross_entropy_with_logits_sg")
    assert op.type == "SoftmaxCrossEntropyWithLogits" and len(op.outputs) == 2
    assert tf.nn.softmax_cross_entropy_with_logits_v2(ONEHOT, X).name == (
        "softmax_cross_entropy_with_logits/Reshape_2:0")


def test_softmax_xent_backprop_output_is_the_gradient():
    loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=SOFT, logits=X)
    backprop = loss.op.inputs[0].op.outputs[1]
    grad = tf.gradients(loss, [backprop.op.inputs[0]])[0]
    got = run([backprop, grad])
    np.testing.assert_allclose(got[0], np_softmax(X) - SOFT, atol=1e-15)
    np.testing.assert_allclose(got[1], got[0])


def test_softmax_xent_gradients():
    # v2: gradients reach logits and labels; v1 stops the labels' gradient.
    check_gradients(lambda t, l, x: t.nn.softmax_cross_entropy_with_logits_v2(labels=l,
                                                                              logits=x),
                    [SOFT, X], wrt=[1])
    # d loss / d labels = -log_softmax(logits): exact, whatever the labels sum to.
    check_gradients(lambda t, l, x: t.nn.softmax_cross_entropy_with_logits_v2(labels=l,
                                                                              logits=x),
                    [SOFT, X], wrt=[0])
    # (the op's gradient assumes each label distribution sums to 1, as TF's does)
    soft_columns = SOFT / SOFT.sum(0, keepdims=True)
    check_gradients(lambda t, l, x: t.nn.softmax_cross_entropy_with_logits_v2(
        labels=l, logits=x, axis=0), [soft_columns, X], wrt=[1])
    labels = tf.constant(SOFT)
    logits = tf.constant(X)
    v1 = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    g_logits, g_labels = tf.gradients(v1, [logits, labels])
    assert g_labels is None
    np.testing.assert_allclose(run(g_logits), np_softmax(X) - SOFT, atol=1e-15)
    v2 = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    np.testing.assert_allclose(run(tf.gradients(v2, labels)[0]), -np_log_softmax(X))


def test_softmax_xent_second_derivative():
    # d/dx of (d loss/dx) . w goes through the backprop output (TF's grad_grad path).
    w = RNG.randn(4, 5)

    def build(t, x):
        loss = t.nn.softmax_cross_entropy_with_logits_v2(labels=SOFT, logits=x)
        return t.gradients(loss, x)[0] * w
    check_gradients(build, [X])


# -- sparse softmax cross entropy ------------------------------------------------------------
@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
def test_sparse_xent_values(label_dtype):
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=SPARSE.astype(label_dtype),
                                                          logits=X)
    assert loss.shape.as_list() == [4] and loss.dtype == tf.float64
    assert loss.name == ("SparseSoftmaxCrossEntropyWithLogits/"
                         "SparseSoftmaxCrossEntropyWithLogits:0")
    assert_close(run(loss), np_xent(ONEHOT, X), rtol=1e-12)


def test_sparse_xent_other_ranks():
    x3 = RNG.randn(2, 3, 4).astype(np.float32)
    labels = np.array([[0, 3, 2], [1, 1, 0]])
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=x3)
    assert loss.shape.as_list() == [2, 3]
    assert_close(run(loss), np_xent(np.eye(4)[labels], x3), rtol=1e-6)
    ph = tf.placeholder(tf.int32, [None, None])
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=ph, logits=x3)
    assert_close(run(loss, {ph: labels}), np_xent(np.eye(4)[labels], x3),
                 rtol=1e-6)


def test_sparse_xent_label_out_of_range():
    labels = tf.placeholder(tf.int32, [3])
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=np.zeros((3, 10)))
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        run(loss, {labels: [1, 10, 2]})
    assert str(info.value).startswith("Received a label value of 10 which is outside the valid "
                                      "range of [0, 10).  Label values: 1 10 2")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Received a label value of -1"):
        run(loss, {labels: [-1, 0, 0]})


def test_sparse_xent_argument_errors():
    with pytest.raises(ValueError, match="Only call `sparse_softmax_cross_entropy_with_logits` "
                                         "with named arguments"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(SPARSE, X)
    with pytest.raises(ValueError, match=r"Rank mismatch: Rank of labels \(received 2\) should "
                                         r"equal rank of logits minus 1 \(received 2\)\."):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=ONEHOT, logits=X)
    with pytest.raises(ValueError, match="Logits cannot be scalars"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=SPARSE, logits=1.0)
    with pytest.raises(ValueError, match=r"Shape mismatch: The shape of labels \(received "
                                         r"\(3,\)\) should equal the shape of logits except"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=SPARSE[:3], logits=X)
    with pytest.raises(TypeError, match="Value passed to parameter 'labels' has DataType "
                                        "float64 not in list of allowed values: int32, int64"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=SPARSE.astype(float), logits=X)


def test_sparse_xent_batch_mismatch_at_run_time():
    labels = tf.placeholder(tf.int32, [None])
    logits = tf.placeholder(tf.float32, [None, 3])
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    with pytest.raises(tf.errors.InvalidArgumentError, match="logits and labels must have the "
                                                             "same first dimension"):
        run(loss, {labels: [0, 1], logits: np.zeros((3, 3))})


def test_sparse_xent_gradients():
    check_gradients(lambda t, x, y: t.nn.sparse_softmax_cross_entropy_with_logits(
        labels=y, logits=x), [X, SPARSE])
    check_gradients(lambda t, x, y: t.nn.sparse_softmax_cross_entropy_with_logits(
        labels=y, logits=x), [RNG.randn(2, 3, 4), np.array([[0, 3, 2], [1, 1, 0]])])


def test_sparse_xent_has_no_second_derivative():
    x = tf.constant(X)
    g = tf.gradients(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=SPARSE, logits=x),
                     x)[0]
    with pytest.raises(LookupError, match="Gradient explicitly disabled. Reason: Currently "
                                          "there is no way to take the second derivative"):
        tf.gradients(g, x)


# -- sigmoid / weighted cross entropy, l2_loss ---------------------------------------------------
Z = (RNG.rand(2, 5) > 0.5).astype(np.float64)


def test_sigmoid_xent_values_and_stability():
    loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=Z, logits=AWAY_FROM_ZERO)
    assert loss.name == "logistic_loss:0" and loss.shape.as_list() == [2, 5]
    assert_close(run(loss), np_sigmoid_xent(Z, AWAY_FROM_ZERO), rtol=1e-12)
    big = np.array([-1000.0, 1000.0, 0.0], np.float32)
    np.testing.assert_allclose(run(tf.nn.sigmoid_cross_entropy_with_logits(
        labels=[0.0, 0.0, 1.0], logits=big)), [0.0, 1000.0, np.log(2)], rtol=1e-6)


def test_sigmoid_xent_gradients():
    check_gradients(lambda t, z, x: t.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
                    [RNG.rand(2, 5), AWAY_FROM_ZERO])
    # At logits exactly 0 the gradient is sigmoid(0) - z = 0.5 - z (the Select branch).
    x = tf.zeros([3], tf.float64)
    z = tf.constant([0.0, 0.25, 1.0], tf.float64)
    g = tf.gradients(tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x), x)[0]
    np.testing.assert_allclose(run(g), [0.5, 0.25, -0.5])


def test_sigmoid_xent_errors():
    with pytest.raises(ValueError, match=r"logits and labels must have the same shape "
                                         r"\(\(2, 5\) vs \(5,\)\)"):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=Z[0], logits=AWAY_FROM_ZERO)
    with pytest.raises(ValueError, match="Only call `sigmoid_cross_entropy_with_logits` with "
                                         "named arguments"):
        tf.nn.sigmoid_cross_entropy_with_logits(Z, AWAY_FROM_ZERO)


def test_weighted_xent():
    loss = tf.nn.weighted_cross_entropy_with_logits(targets=Z, logits=AWAY_FROM_ZERO,
                                                    pos_weight=3.0)
    assert_close(run(loss), np_weighted_xent(Z, AWAY_FROM_ZERO, 3.0), rtol=1e-12)
    loss = tf.nn.weighted_cross_entropy_with_logits(Z, AWAY_FROM_ZERO, 0.5)
    assert_close(run(loss), np_weighted_xent(Z, AWAY_FROM_ZERO, 0.5), rtol=1e-12)
    check_gradients(lambda t, z, x: t.nn.weighted_cross_entropy_with_logits(
        labels=z, logits=x, pos_weight=2.5), [RNG.rand(2, 5), AWAY_FROM_ZERO])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_l2_loss(dtype):
    w = np.array([[1, -2], [-3, 4]], dtype)
    loss = tf.nn.l2_loss(w)
    assert loss.dtype == tf.as_dtype(dtype) and loss.shape.ndims == 0 and loss.name == "L2Loss:0"
    assert run(loss) == 15.0
    check_gradients(lambda t, x: t.nn.l2_loss(x), [X])
    with pytest.raises(TypeError, match="parameter 't' has DataType int32"):
        tf.nn.l2_loss([1, 2])


def test_relu_of_signed_zero_infinities_and_nan_as_tensorflow():
    # TensorFlow 2.21 (oneDNN and Eigen kernels alike) gives -0.0 for relu(-0.0): Eigen's
    # `x < 0 ? 0 : x`; NumPy's maximum(-0.0, 0) would give +0.0.
    x = np.array([-0.0, np.nan, -1.0, 2.0, np.inf, -np.inf, 0.0], np.float32)
    for dtype in (np.float16, np.float32, np.float64):
        got = run(tf.nn.relu(x.astype(dtype)))
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, np.array([0, np.nan, 0, 2, np.inf, 0, 0], dtype))
        np.testing.assert_array_equal(np.signbit(got), [True, False, False, False, False,
                                                        False, False])
