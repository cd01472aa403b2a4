"""Differential tests: pooling, normalization, dropout, embeddings and top-k on tfteach
and on TensorFlow (`tf.compat.v1`, graph mode): values, dtypes, static shapes, errors
and gradient values. Skipped without TensorFlow.

TF 2.x's compat.v1 is not TF 1.15 everywhere; where they differ (dropout's graph, the
fused batch norm's Python checks) the comparison is left out and the unit tests pin
TF 1.15's behaviour.
"""
import numpy as np
import pytest

import tfteach
from gradient_check import check_gradients_match_tensorflow
from tf_reference import errors_of_both, first_line, run_both, tensorflow_v1

pytest.importorskip("tensorflow")

RNG = np.random.RandomState(11)
IMG = RNG.randn(2, 7, 6, 3).astype(np.float32)
SCALE = (RNG.rand(3) + 0.5).astype(np.float32)
OFFSET = RNG.randn(3).astype(np.float32)
MEAN = RNG.randn(3).astype(np.float32)
VAR = (RNG.rand(3) + 0.5).astype(np.float32)
SCORES = RNG.randn(4, 6).astype(np.float32)


def _pools(tf):
    out = []
    for padding in ("SAME", "VALID"):
        for k, s in (([1, 2, 2, 1], [1, 2, 2, 1]), ([1, 3, 3, 1], [1, 2, 2, 1]),
                     ([1, 3, 2, 1], [1, 1, 3, 1]), ([1, 1, 1, 1], [1, 3, 2, 1])):
            out += [tf.nn.max_pool(IMG, k, s, padding), tf.nn.avg_pool(IMG, k, s, padding)]
    return out


def _img(tf):
    return tf.placeholder_with_default(IMG, IMG.shape)


PROGRAMS = {
    "pools": _pools,
    "pool_short_forms": lambda tf: [tf.nn.max_pool(IMG, 2, 2, "SAME"),
                                    tf.nn.avg_pool(IMG, [3], [2, 1], "VALID"),
                                    tf.nn.max_pool2d(IMG, [2, 3], 1, "SAME"),
                                    tf.nn.avg_pool2d(IMG, 2, [1, 2], "SAME")],
    "pool_dtypes": lambda tf: [tf.nn.max_pool(IMG.astype(np.float64), 2, 2, "SAME"),
                               tf.nn.avg_pool(IMG.astype(np.float64), 3, 2, "SAME"),
                               tf.nn.max_pool((IMG * 10).astype(np.int32), 2, 2, "VALID")],
    "moments": lambda tf: list(tf.nn.moments(IMG, [0, 1, 2])) + list(
        tf.nn.moments(IMG, [1], keep_dims=True)),
    "batch_normalization": lambda tf: tf.nn.batch_normalization(IMG, MEAN, VAR, OFFSET, SCALE,
                                                                1e-3),
    # (placeholder_with_default: TF's constant folding breaks on an all-constant fused op)
    "fused_training": lambda tf: list(tf.nn.fused_batch_norm(_img(tf), SCALE, OFFSET)),
    # (only y: TF 2.x's optimizer rewrites an inference-mode op into Mul/Add)
    "fused_inference": lambda tf: tf.nn.fused_batch_norm(_img(tf), SCALE, OFFSET, MEAN, VAR,
                                                         epsilon=1e-4, is_training=False)[0],
    "lrn": lambda tf: [tf.nn.lrn(IMG), tf.nn.local_response_normalization(
        IMG, depth_radius=1, bias=2.0, alpha=0.5, beta=0.75)],
    "l2_normalize": lambda tf: [tf.nn.l2_normalize(SCORES, 1), tf.nn.l2_normalize(SCORES),
                                tf.nn.l2_normalize(SCORES, dim=0)],
    "top_k": lambda tf: list(tf.nn.top_k(SCORES, 3)) + list(
        tf.nn.top_k(np.array([1, 3, 3, 2, 3], np.int32), 4)),
    "in_top_k": lambda tf: [tf.nn.in_top_k(SCORES, [0, 1, 2, 3], 2),
                            tf.nn.in_top_k(np.float32([[1, 1, 1]]), [2], 1)],
    "embedding_lookup": lambda tf: tf.nn.embedding_lookup(SCORES, [[3, 0], [1, 1]]),
    "dropout_identity": lambda tf: tf.nn.dropout(SCORES, keep_prob=1.0),
}


def test_fused_batch_norm_static_shapes_take_the_channels_from_the_vectors():
    """x of unknown shape: y and x's gradient get the channel size of scale / offset."""
    shapes = {}
    for tf in (tensorflow_v1(), tfteach):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [None, None, None, None])
            for training in (True, False):
                stats = {} if training else {"mean": MEAN, "variance": VAR}
                y = tf.nn.fused_batch_norm(x, SCALE, OFFSET, is_training=training, **stats)[0]
                dx, = tf.gradients(tf.reduce_sum(y * y), x)
                shapes.setdefault(tf.__name__, []).extend(
                    [y.shape.as_list(), dx.shape.as_list()])
    ours, theirs = shapes["tfteach"], [v for k, v in shapes.items() if k != "tfteach"][0]
    assert ours == theirs
    assert ours[0] == [None, None, None, len(SCALE)]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_values_dtypes_and_shapes(name):
    static = {}

    def program(tf):
        fetches = PROGRAMS[name](tf)
        items = fetches if isinstance(fetches, list) else [fetches]
        static[tf.__name__] = [(t.dtype.name, t.shape.as_list()) for t in items]
        return fetches, None

    expected, got = run_both(program)
    if not isinstance(expected, list):
        expected, got = [expected], [got]
    assert len(static) == 2
    a, b = static.values()
    assert a == b
    for e, g in zip(expected, got):
        assert e.dtype == g.dtype and e.shape == g.shape
        np.testing.assert_allclose(g, e, rtol=2e-5, atol=2e-6)


def test_dropout_rate_statistics_match():
    def program(tf):
        y = tf.nn.dropout(tf.ones([100, 1000]), rate=0.25, seed=3)
        return [tf.reduce_mean(tf.cast(tf.equal(y, 0.0), tf.float32)), tf.reduce_max(y)], None
    (tf_zero, tf_max), (zero, top) = run_both(program)
    assert abs(tf_zero - 0.25) < 0.01 and abs(zero - 0.25) < 0.01
    assert tf_max == pytest.approx(top)                  # both scale by 1 / 0.75


ERRORS = {
    "valid_too_small": lambda tf: tf.nn.max_pool(np.zeros((1, 2, 2, 1), np.float32),
                                                 [1, 3, 3, 1], [1, 1, 1, 1], "VALID"),
    "pool_rank": lambda tf: tf.nn.avg_pool(np.zeros((2, 2, 1), np.float32), 1, 1, "VALID"),
    "pool_ksize_length": lambda tf: tf.nn.max_pool(IMG, [1, 2, 2], 1, "VALID"),
    "avg_pool_int": lambda tf: tf.nn.avg_pool(np.zeros((1, 2, 2, 1), np.int32), 1, 1, "SAME"),
    "top_k_too_big": lambda tf: tf.nn.top_k(SCORES, 7),
    "top_k_bool": lambda tf: tf.nn.top_k(np.array([True, False]), 1),
    "dropout_int": lambda tf: tf.nn.dropout(np.array([1, 2]), rate=0.5),
    "lrn_rank": lambda tf: tf.nn.lrn(SCORES),
    "fused_channels": lambda tf: tf.nn.fused_batch_norm(IMG, SCALE[:2], OFFSET[:2])[0],
}

# TF 2.x words these differently from TF 1.15; only the class is compared.
CLASS_ONLY = {"pool_ksize_length", "dropout_int", "top_k_too_big",
              "avg_pool_int"}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match(name):
    def program(tf):
        return ERRORS[name](tf), None
    expected, got = errors_of_both(program)
    assert expected is not None and got is not None, (expected, got)
    tf_classes = {c.__name__ for c in type(expected).__mro__}
    assert type(got).__name__ in tf_classes or (
        isinstance(got, ValueError) and isinstance(expected, ValueError))
    if name not in CLASS_ONLY:
        assert first_line(got).split(" for '")[0] == first_line(expected).split(" for '")[0]


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_pool_gradients_match(padding):
    x = RNG.randn(2, 5, 6, 2)
    for fn in ("max_pool", "avg_pool"):
        check_gradients_match_tensorflow(
            lambda tf, x: getattr(tf.nn, fn)(x, [1, 3, 2, 1], [1, 2, 2, 1], padding), [x])


def test_normalization_gradients_match():
    x = IMG[:, :3, :3]
    check_gradients_match_tensorflow(
        lambda tf, x, s, o: tf.nn.fused_batch_norm(x, s, o)[0], [x, SCALE, OFFSET],
        rtol=2e-4, atol=2e-5)
    check_gradients_match_tensorflow(
        lambda tf, x, s, o: tf.nn.fused_batch_norm(x, s, o, MEAN, VAR, is_training=False)[0],
        [x, SCALE, OFFSET], rtol=2e-5, atol=2e-6)
    check_gradients_match_tensorflow(lambda tf, x: tf.nn.lrn(x, 2, 1.5, 0.3, 0.75), [x],
                                     rtol=2e-4, atol=2e-5)
    check_gradients_match_tensorflow(lambda tf, x: tf.nn.top_k(x, 3).values,
                                     [SCORES.astype(np.float64)])
    check_gradients_match_tensorflow(lambda tf, x: tf.nn.l2_normalize(x, 1),
                                     [SCORES.astype(np.float64)])


@pytest.mark.parametrize("shape", [[None, 10], [4, None, 3], [2, 5], None])
@pytest.mark.parametrize("how", ["keep_prob", "rate", "noise_shape"])
def test_dropout_with_a_fed_rate_keeps_the_static_shape_of_x(shape, how):
    """TF 1.15's dropout sets x's static shape on its result, also when keep_prob is a
    placeholder (the notes' pattern); the fed run gives that shape."""
    def static_shape(tf):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, shape)
            p = tf.placeholder(tf.float32)
            if how == "keep_prob":
                y = tf.nn.dropout(x, keep_prob=p)
            elif how == "rate":
                y = tf.nn.dropout(x, rate=p)
            else:
                y = tf.nn.dropout(x, keep_prob=p, noise_shape=tf.shape(x))
            return y.shape.as_list() if y.shape.ndims is not None else None
    ours, theirs = static_shape(tfteach), static_shape(tensorflow_v1())
    assert ours == theirs == shape
