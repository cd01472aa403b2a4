"""Convolutions through the Fourier transform (kernels/cpu/conv_fourier.py).

The three ops are checked against direct float64 sums written here (loops over the
filter taps, nothing shared with the kernels), for every padding kind, odd and even
sizes, filters larger than the image, one- and many-channel layers, float32 and float64,
one worker and two, and with the transforms shared between the ops in either order.
Then the plan: a training step fuses the layer only where the transforms pay, agrees
with the traced (im2col) run of the same Session, and a plain `sess.run(conv)` keeps
im2col's exact sums.
"""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tfteach as tf
from tfteach.kernels.cpu import conv_fourier, two_workers
from tfteach.kernels.cpu.conv_geometry import ConvParams, windowed_output_size


def _geometry(h, w, kh, kw, padding, explicit=((0, 0), (0, 0))):
    return (windowed_output_size(h, kh, 1, 1, padding, explicit[0]),
            windowed_output_size(w, kw, 1, 1, padding, explicit[1]))


def _direct(x, f, dy, rows, cols):
    """(out, d input, d filter) in float64, by summing over the filter taps."""
    (oh, top, bottom), (ow, left, right) = rows, cols
    x, f, dy = (np.asarray(a, np.float64) for a in (x, f, dy))
    n, h, w, c = x.shape
    kh, kw, _, oc = f.shape
    padded = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)))
    out = np.zeros((n, oh, ow, oc))
    d_padded = np.zeros_like(padded)
    df = np.zeros_like(f)
    for a in range(kh):
        for e in range(kw):
            window = padded[:, a:a + oh, e:e + ow]
            out += np.einsum("nijc,co->nijo", window, f[a, e])
            df[a, e] = np.einsum("nijc,nijo->co", window, dy)
            d_padded[:, a:a + oh, e:e + ow] += np.einsum("nijo,co->nijc", dy, f[a, e])
    return out, d_padded[:, top:top + h, left:left + w], df


def _check(got, want, dtype):
    assert got.dtype == dtype and got.shape == want.shape
    scale = max(1.0, np.abs(want).max())
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=0, atol=tol * scale)


def _three_ops(x, f, dy, rows, cols, order, spectra):
    if spectra is not None:
        spectra.clear()
    out = conv_fourier.forward(x, f, rows, cols, spectra)
    grads = {}
    for name in order:
        if name == "input":
            grads[name] = conv_fourier.backprop_input(dy, f, x.shape, rows, cols, spectra)
        else:
            grads[name] = conv_fourier.backprop_filter(x, dy, f.shape, rows, cols, spectra)
    return out, grads["input"], grads["filter"]


CASES = [  # n, h, w, c, oc, kh, kw, padding, explicit
    (2, 7, 7, 3, 4, 3, 3, "SAME", None),
    (1, 6, 8, 2, 3, 4, 2, "SAME", None),          # even filter: more padding after
    (3, 5, 6, 1, 2, 5, 5, "SAME", None),          # filter as large as the image
    (2, 4, 3, 2, 2, 7, 6, "SAME", None),          # filter larger than the image
    (2, 9, 8, 3, 5, 3, 2, "VALID", None),
    (1, 5, 5, 2, 2, 5, 5, "VALID", None),         # one output pixel
    (2, 6, 5, 2, 3, 1, 1, "VALID", None),         # 1x1
    (2, 1, 5, 1, 2, 1, 3, "EXPLICIT", ((1, 2), (0, 3))),
    (1, 6, 7, 2, 2, 3, 4, "EXPLICIT", ((0, 3), (2, 0))),
    (1, 14, 14, 4, 3, 5, 5, "SAME", None),        # LeNet's second layer, narrower
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CASES)
def test_the_three_ops_match_direct_sums(case, dtype):
    n, h, w, c, oc, kh, kw, padding, explicit = case
    rng = np.random.RandomState(sum(case[:7]))
    rows, cols = _geometry(h, w, kh, kw, padding, explicit or ((0, 0), (0, 0)))
    x = rng.randn(n, h, w, c).astype(dtype)
    f = rng.randn(kh, kw, c, oc).astype(dtype)
    dy = rng.randn(n, rows[0], cols[0], oc).astype(dtype)
    want = _direct(x, f, dy, rows, cols)
    for order, spectra in itertools.product(
            (("input", "filter"), ("filter", "input")),
            (None, conv_fourier.Spectra(), conv_fourier.Spectra(with_input_gradient=False))):
        for got, expected in zip(_three_ops(x, f, dy, rows, cols, order, spectra), want):
            _check(got, expected, dtype)


def test_halves_on_two_workers_share_their_transforms_and_match(monkeypatch):
    monkeypatch.setattr(two_workers, "worker_count", lambda: 2)
    monkeypatch.setattr(two_workers, "MIN_PARALLEL_WORK", 1)      # halves even when tiny
    rng = np.random.RandomState(5)
    rows, cols = _geometry(6, 6, 3, 3, "SAME")
    spectra = conv_fourier.Spectra()
    for step in range(3):                   # new values each step: nothing stale is used
        x = rng.randn(5, 6, 6, 3).astype(np.float32)            # an odd batch: 2 + 3
        f = rng.randn(3, 3, 3, 4).astype(np.float32)
        dy = rng.randn(5, 6, 6, 4).astype(np.float32)
        with two_workers.blas_window():
            got = _three_ops(x, f, dy, rows, cols, ("input", "filter"), spectra)
        for g, want in zip(got, _direct(x, f, dy, rows, cols)):
            _check(g, want, np.float32)
        assert spectra.entries == {}        # every transform left was taken


def test_a_transform_under_another_key_is_not_used():
    rng = np.random.RandomState(3)
    rows, cols = _geometry(5, 5, 3, 3, "SAME")
    x_a, x_b = rng.randn(2, 5, 5, 2), rng.randn(3, 5, 5, 2)    # another batch size
    f = rng.randn(3, 3, 2, 2)
    dy_b = rng.randn(3, 5, 5, 2)
    spectra = conv_fourier.Spectra()
    conv_fourier.forward(x_a, f, rows, cols, spectra)          # leaves X^ of x_a
    got = conv_fourier.backprop_filter(x_b, dy_b, f.shape, rows, cols, spectra)
    _check(got, _direct(x_b, f, dy_b, rows, cols)[2], np.float64)


@settings(max_examples=60, deadline=None)
@given(h=st.integers(1, 9), w=st.integers(1, 9), kh=st.integers(1, 6), kw=st.integers(1, 6),
       pads=st.tuples(*[st.integers(0, 4)] * 4))
def test_no_wrapped_term_reaches_a_result_for_any_geometry(h, w, kh, kw, pads):
    explicit = ((pads[0], pads[1]), (pads[2], pads[3]))
    if h + pads[0] + pads[1] < kh or w + pads[2] + pads[3] < kw:
        return                                      # no output: TF's error, not ours
    rows, cols = _geometry(h, w, kh, kw, "EXPLICIT", explicit)
    rng = np.random.RandomState(h * 7 + w)
    x, f = rng.randn(1, h, w, 2), rng.randn(kh, kw, 2, 1)
    dy = rng.randn(1, rows[0], cols[0], 1)
    for got, want in zip(_three_ops(x, f, dy, rows, cols, ("input", "filter"), None),
                         _direct(x, f, dy, rows, cols)):
        _check(got, want, np.float64)


def _params(strides=(1, 1, 1, 1), dilations=(1, 1, 1, 1)):
    return ConvParams.from_attrs({"strides": list(strides), "dilations": list(dilations),
                                  "padding": "SAME", "data_format": "NHWC"})


def test_the_transforms_are_chosen_only_where_they_pay():
    def pays(n, h, c, oc, k, **kw):
        p = _params(**kw)
        rows, cols = p.output_geometry(h, h, k, k)
        return conv_fourier.pays(p, n, h, h, c, k, k, oc, rows, cols)
    assert pays(50, 14, 32, 64, 5)                      # LeNet's second layer
    assert not pays(50, 28, 1, 32, 5)                   # its first: one input channel
    assert not pays(50, 14, 32, 64, 1)                  # a 1x1 filter
    assert not pays(2, 4, 2, 2, 3)                      # tiny
    assert not pays(16, 8, 128, 128, 3)                 # the filter side dominates
    assert not pays(32, 32, 32, 32, 3)                  # 34x34 transforms for 3x3 taps
    assert not pays(50, 14, 32, 64, 5, strides=(1, 2, 2, 1))
    assert not pays(50, 14, 32, 64, 5, dilations=(1, 2, 2, 1))
    assert not pays(0, 14, 32, 64, 5)


# -- in a Session ----------------------------------------------------------------------
def _fourier_layers(sess):
    """Op types of the steps the fast loops gave a conv_fourier.Spectra, per layer."""
    layers = {}
    for plan in sess._plans.values():
        for s in plan.fast_steps:
            spectra = getattr(s.kernel, "keywords", {}).get("spectra")
            if spectra is not None:
                layers.setdefault(id(spectra), []).append(s.op.type)
    return sorted(sorted(v) for v in layers.values())


def _train_two_layers(rng, data_format, options, steps=2):
    """A two-layer CNN whose second layer pays in the Fourier domain; the weights after
    `steps` steps, the conv output of the last step, and the fused layers."""
    nchw = data_format == "NCHW"
    x_val = rng.rand(50, 28, 28, 1).astype(np.float32)
    y_val = np.eye(4, dtype=np.float32)[rng.randint(0, 4, size=50)]
    params = [rng.randn(5, 5, 1, 32).astype(np.float32) * 0.2,
              rng.randn(5, 5, 32, 32).astype(np.float32) * 0.05,
              rng.randn(14 * 14 * 32, 4).astype(np.float32) * 0.01]
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 28, 28, 1])
        y = tf.placeholder(tf.float32, [None, 4])
        w1, w2, w3 = [tf.Variable(p) for p in params]
        h = tf.nn.relu(tf.nn.conv2d(x, w1, [1, 1, 1, 1], "SAME"))
        h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        if nchw:
            h = tf.transpose(h, [0, 3, 1, 2])
        conv = tf.nn.conv2d(h, w2, [1, 1, 1, 1], "SAME", data_format=data_format)
        if nchw:
            conv = tf.transpose(conv, [0, 2, 3, 1])
        h = tf.nn.relu(conv)
        logits = tf.matmul(tf.reshape(h, [-1, 14 * 14 * 32]), w3)
        loss = tf.reduce_mean(
            tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(steps):
                _, conv_val = sess.run([train, conv], {x: x_val, y: y_val},
                                       options=options,
                                       run_metadata=tf.RunMetadata() if options else None)
            return sess.run([w1, w2, w3]), conv_val, _fourier_layers(sess)


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_training_in_the_fourier_domain_agrees_with_a_traced_run(data_format):
    trace = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    fused = _train_two_layers(np.random.RandomState(0), data_format, None)
    traced = _train_two_layers(np.random.RandomState(0), data_format, trace)
    p = _params()
    assert conv_fourier.pays(p, 50, 14, 14, 32, 5, 5, 32, *p.output_geometry(14, 14, 5, 5))
    # both layers are paired; the second one with its input gradient too
    assert fused[2] == [["Conv2D", "Conv2DBackpropFilter"],
                        ["Conv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput"]]
    for got, want in zip(fused[0], traced[0]):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(fused[1], traced[1], rtol=1e-4, atol=1e-5)
    assert not np.allclose(fused[0][1], traced[0][1] * 0)      # it did train


def test_a_plain_run_keeps_the_exact_sums_of_im2col():
    """Integer-valued data at a size where the transforms would pay: a run without the
    layer's gradients is not fused, so every output is the exact integer."""
    rng = np.random.RandomState(1)
    x_val = rng.randint(-3, 4, size=(50, 14, 14, 32)).astype(np.float32)
    f_val = rng.randint(-3, 4, size=(5, 5, 32, 32)).astype(np.float32)
    p = _params()
    assert conv_fourier.pays(p, 50, 14, 14, 32, 5, 5, 32, *p.output_geometry(14, 14, 5, 5))
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 14, 14, 32])
        out = tf.nn.conv2d(x, tf.constant(f_val), [1, 1, 1, 1], "SAME")
        with tf.Session() as sess:
            got = sess.run(out, {x: x_val})
            assert _fourier_layers(sess) == []
    want = _direct(x_val, f_val, np.zeros((50, 14, 14, 32)), *_geometry(14, 14, 5, 5, "SAME"))
    np.testing.assert_array_equal(got, want[0])


def test_an_inf_or_nan_lands_where_im2col_puts_it():
    """One NaN pixel and one inf output gradient: the transforms would spread them over
    whole images; the fused ops compute those results again with im2col, so every
    value, finite or not, is the traced (im2col) run's."""
    rng = np.random.RandomState(4)
    x_val = rng.randn(50, 14, 14, 32).astype(np.float32)
    x_val[0, 3, 3, 0] = np.nan
    r_val = rng.randn(50, 14, 14, 32).astype(np.float32)
    r_val[1, 7, 7, 5] = np.inf
    f_val = rng.randn(5, 5, 32, 32).astype(np.float32) * 0.1
    results = []
    for options in (None, tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [None, 14, 14, 32])
            r = tf.placeholder(tf.float32, [None, 14, 14, 32])
            f = tf.Variable(f_val)
            out = tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME")
            grads = tf.gradients(tf.reduce_sum(out * r), [x, f])
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                results.append(sess.run([out] + grads, {x: x_val, r: r_val}, options=options,
                                        run_metadata=tf.RunMetadata() if options else None))
                layers = _fourier_layers(sess)
        if options is None:
            assert layers == [["Conv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput"]]
    for fused, traced in zip(*results):
        np.testing.assert_array_equal(np.isfinite(fused), np.isfinite(traced))
        finite = np.isfinite(traced)
        assert finite.any() and not finite.all()
        np.testing.assert_allclose(fused[finite], traced[finite], rtol=1e-4, atol=1e-4)
    # the NaN reaches only the outputs whose windows hold it, as in TensorFlow
    assert np.isnan(results[0][0][0, 1:6, 1:6]).all() and np.isfinite(results[0][0][1:]).all()
