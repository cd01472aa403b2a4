"""moments, batch_normalization, fused_batch_norm, lrn and l2_normalize against NumPy."""
import numpy as np
import pytest

import tfteach as tf
from gradient_check import check_gradients
from tolerances import assert_close

RNG = np.random.RandomState(0)
X = RNG.randn(4, 3, 2, 5)
SCALE = RNG.rand(5) + 0.5
OFFSET = RNG.randn(5)
MEAN = RNG.randn(5)
VAR = RNG.rand(5) + 0.5


def run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def loop_lrn(x, r, bias, alpha, beta):
    out = np.empty_like(x)
    depth = x.shape[-1]
    for idx in np.ndindex(x.shape[:-1]):
        for d in range(depth):
            window = x[idx][max(0, d - r):min(depth, d + r + 1)]
            out[idx + (d,)] = x[idx + (d,)] / (bias + alpha * np.sum(window ** 2)) ** beta
    return out


# -- moments / batch_normalization ---------------------------------------------------------------
def test_moments_match_numpy():
    mean, var = tf.nn.moments(tf.constant(X), axes=[0, 1, 2])
    assert mean.shape.as_list() == [5] and mean.name.startswith("moments/")
    m, v = run([mean, var])
    assert_close(m, X.mean(axis=(0, 1, 2)), scale=np.abs(X).mean(axis=(0, 1, 2)))
    np.testing.assert_allclose(v, X.var(axis=(0, 1, 2)))        # biased: divides by N
    mk, vk = run(tf.nn.moments(tf.constant(X), [1], keep_dims=True))
    np.testing.assert_allclose(vk, X.var(axis=1, keepdims=True))
    assert mk.shape == (4, 1, 2, 5)
    with pytest.raises(ValueError, match="Cannot specify both"):
        tf.nn.moments(X, [0], keep_dims=True, keepdims=True)
    m16, v16 = tf.nn.moments(tf.constant(X.astype(np.float16)), [0])
    assert m16.dtype == tf.float16 and v16.dtype == tf.float16


def test_batch_normalization_matches_numpy():
    y = tf.nn.batch_normalization(X, MEAN, VAR, OFFSET, SCALE, 1e-3)
    want = (X - MEAN) / np.sqrt(VAR + 1e-3) * SCALE + OFFSET
    np.testing.assert_allclose(run(y), want, rtol=1e-12)
    np.testing.assert_allclose(run(tf.nn.batch_normalization(X, MEAN, VAR, None, None, 1e-3)),
                               (X - MEAN) / np.sqrt(VAR + 1e-3), rtol=1e-12)
    with tf.Graph().as_default() as g:
        tf.nn.batch_normalization(*[tf.constant(v) for v in (X, MEAN, VAR, OFFSET, SCALE)],
                                  variance_epsilon=1e-3)
        names = {op.name: op.type for op in g.get_operations() if op.type != "Const"}
    # TF's ops and names: inv = rsqrt(var + eps) * scale; x * inv + (offset - mean * inv)
    assert names == {"batchnorm/add": "AddV2", "batchnorm/Rsqrt": "Rsqrt",
                     "batchnorm/mul": "Mul", "batchnorm/mul_1": "Mul", "batchnorm/mul_2": "Mul",
                     "batchnorm/sub": "Sub", "batchnorm/add_1": "AddV2"}


def test_moments_and_batch_normalization_gradients():
    check_gradients(lambda tf, x: list(tf.nn.moments(x, [0, 2])), [X])
    check_gradients(lambda tf, x, m, v, o, s: tf.nn.batch_normalization(x, m, v, o, s, 1e-3),
                    [X, MEAN, VAR, OFFSET, SCALE])


# -- fused_batch_norm ----------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_fused_batch_norm_training(fmt):
    x = X.astype(np.float32)
    xin = x.transpose(0, 3, 1, 2) if fmt == "NCHW" else x
    y, mean, var = tf.nn.fused_batch_norm(xin, SCALE.astype(np.float32),
                                          OFFSET.astype(np.float32), epsilon=1e-3,
                                          data_format=fmt)
    assert y.op.type == "FusedBatchNormV3" and len(y.op.outputs) == 6
    assert y.shape.as_list() == list(xin.shape) and mean.shape.as_list() == [5]
    got_y, got_m, got_v = run([y, mean, var])
    flat = x.reshape(-1, 5).astype(np.float64)
    n = flat.shape[0]
    want_y = (x - flat.mean(0)) / np.sqrt(flat.var(0) + 1e-3) * SCALE + OFFSET
    if fmt == "NCHW":
        want_y = want_y.transpose(0, 3, 1, 2)
    np.testing.assert_allclose(got_y, want_y, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_m, flat.mean(0), rtol=1e-5, atol=1e-6)
    # the returned variance is Bessel corrected; y used the biased one
    np.testing.assert_allclose(got_v, flat.var(0) * n / (n - 1), rtol=1e-5)


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_fused_batch_norm_inference(fmt):
    xin = X.transpose(0, 3, 1, 2) if fmt == "NCHW" else X
    y, m, v = tf.nn.fused_batch_norm(xin, SCALE, OFFSET, MEAN, VAR, epsilon=1e-3,
                                     data_format=fmt, is_training=False)
    want = (X - MEAN) / np.sqrt(VAR + 1e-3) * SCALE + OFFSET
    if fmt == "NCHW":
        want = want.transpose(0, 3, 1, 2)
    got_y, got_m, got_v = run([y, m, v])
    np.testing.assert_allclose(got_y, want, rtol=1e-12)
    np.testing.assert_array_equal(got_m, MEAN)
    np.testing.assert_array_equal(got_v, VAR)


def test_fused_batch_norm_epsilon_floor_and_errors():
    y, _, _ = tf.nn.fused_batch_norm(X, SCALE, OFFSET, epsilon=0.0)
    assert y.op.get_attr("epsilon") == pytest.approx(1.001e-5)
    with pytest.raises(ValueError, match="must be a 1D tensor when is_training is False"):
        tf.nn.fused_batch_norm(X, SCALE, OFFSET, is_training=False)
    with pytest.raises(ValueError, match="Shape must be rank 4 but is rank 2"):
        tf.nn.fused_batch_norm(X[0, 0], SCALE, OFFSET)
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 5 and 3"):
        tf.nn.fused_batch_norm(X, SCALE[:3], OFFSET[:3])
    scale = tf.placeholder(tf.float64, [None])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="scale must have the same number of elements as the channels "
                             "of x, got 3 and 5"):
        run(tf.nn.fused_batch_norm(X, scale, OFFSET)[0], {scale: SCALE[:3]})


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_fused_batch_norm_gradients(fmt):
    x = X.transpose(0, 3, 1, 2).copy() if fmt == "NCHW" else X
    check_gradients(lambda tf, x, s, o: tf.nn.fused_batch_norm(x, s, o, data_format=fmt)[0],
                    [x, SCALE, OFFSET], rtol=1e-5, atol=1e-6)
    check_gradients(lambda tf, x, s, o, m, v: tf.nn.fused_batch_norm(
        x, s, o, m, v, data_format=fmt, is_training=False)[0],
        [x, SCALE, OFFSET, MEAN, VAR], wrt=[0, 1, 2])


def test_fused_gradient_is_one_op_and_matches_the_unfused_one():
    x = tf.constant(X)
    y = tf.nn.fused_batch_norm(x, SCALE, OFFSET)[0]
    fused = tf.gradients(tf.reduce_sum(tf.sin(y)), x)[0]
    assert fused.op.type == "FusedBatchNormGradV3"
    mean, var = tf.nn.moments(x, [0, 1, 2])
    plain = tf.nn.batch_normalization(x, mean, var, OFFSET, SCALE, 1e-3)
    unfused = tf.gradients(tf.reduce_sum(tf.sin(plain)), x)[0]
    a, b = run([fused, unfused])
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


# -- lrn / l2_normalize ----------------------------------------------------------------------------
def test_lrn_matches_loops_and_gradient():
    x = RNG.randn(2, 3, 2, 7)
    np.testing.assert_allclose(run(tf.nn.lrn(x)), loop_lrn(x, 5, 1.0, 1.0, 0.5), rtol=1e-12)
    y = tf.nn.local_response_normalization(x, depth_radius=2, bias=2.0, alpha=0.25, beta=0.75)
    assert y.op.type == "LRN"
    np.testing.assert_allclose(run(y), loop_lrn(x, 2, 2.0, 0.25, 0.75), rtol=1e-12)
    check_gradients(lambda tf, x: tf.nn.lrn(x, 2, 1.5, 0.3, 0.75), [x])
    with pytest.raises(ValueError, match="Shape must be rank 4 but is rank 2"):
        tf.nn.lrn(x[0, 0])


def test_l2_normalize():
    x = RNG.randn(3, 4)
    np.testing.assert_allclose(run(tf.nn.l2_normalize(x, 1)),
                               x / np.linalg.norm(x, axis=1, keepdims=True))
    np.testing.assert_allclose(run(tf.nn.l2_normalize(x, dim=0)),
                               x / np.linalg.norm(x, axis=0, keepdims=True))
    np.testing.assert_allclose(run(tf.nn.l2_normalize(x)), x / np.linalg.norm(x))
    np.testing.assert_array_equal(run(tf.nn.l2_normalize(np.zeros(3))), np.zeros(3))
    assert tf.nn.l2_normalize(x, 0, name="unit").name == "unit:0"
    check_gradients(lambda tf, x: tf.nn.l2_normalize(x, 1), [x])
