"""CPU kernels of max and average pooling (`MaxPool`, `AvgPool` and their gradients).

Every kernel works on NHWC arrays [batch, height, width, channels]: the channels of one
pixel are contiguous, so the innermost loop runs over channels and Numba turns it into
SIMD code. NCHW inputs are transposed to NHWC and back (`nn/pooling_ops.py`).

Windows and SAME padding, as TensorFlow computes them (`GetWindowedOutputSize`):
- VALID: out = ceil((in - k + 1) / s); no padding.
- SAME:  out = ceil(in / s); the missing rows, pad = max((out - 1) * s + k - in, 0),
  are split pad // 2 before and the rest after (the odd one goes to the bottom/right).
Output pixel (i, j) looks at input rows i * s - pad_top ... i * s - pad_top + k - 1,
clipped to the image: padded cells are never read. So max pooling ignores them (as if
they were -inf) and average pooling divides by the number of real cells in the window.

Max pooling's gradient goes to the *first* maximum of each window (row-major order), as
TF's CPU kernel does; `max_pool_grad` finds it again (a second scan of the window)
instead of storing an argmax array in the forward pass.
"""
import numpy as np
from numba import njit

from tfteach.kernels.cpu.nn_kernels import relu_grad, relu_grad_scalar
from tfteach.kernels.cpu.two_workers import split_rows

__all__ = ["output_size_and_padding", "max_pool", "max_pool_grad", "max_pool_grad_grad",
           "avg_pool", "avg_pool_grad"]


def output_size_and_padding(in_size, k, s, padding):
    """(output size, padding before) of one spatial dimension (TF's rule, above)."""
    if padding == "VALID":
        return (in_size - k + s) // s, 0
    out = (in_size + s - 1) // s
    pad = max((out - 1) * s + k - in_size, 0)
    return out, pad // 2


def _geometry(shape, ksize, strides, padding):
    """(out_h, out_w, kh, kw, sh, sw, pad_top, pad_left) for an NHWC input shape."""
    out_h, pad_top = output_size_and_padding(shape[1], ksize[1], strides[1], padding)
    out_w, pad_left = output_size_and_padding(shape[2], ksize[2], strides[2], padding)
    return out_h, out_w, ksize[1], ksize[2], strides[1], strides[2], pad_top, pad_left


def lowest_value(dtype):
    """TF's `NumTraits<T>::lowest()`: where a max pool starts (of the input's own type:
    -65504 for float16, not float32's)."""
    dtype = np.dtype(dtype)
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def _compute_dtype(x):
    # Numba has no float16 arithmetic: compute those in float32 and round back.
    return np.float32 if x.dtype == np.float16 else x.dtype


# -- max pooling ---------------------------------------------------------------------------
# Measured on 2 cores, batch 100 (LeNet-5's pools), float32, serial loops:
#   [100, 28, 28, 32] 2x2/2: forward 0.46 ms, gradient 1.6 ms (TF 1.x: 0.6 / 0.3 ms);
#   [100, 14, 14, 64]:       forward 0.21 ms, gradient 0.6 ms.
# `parallel=True` over the batch made them about 1.8x faster, but OpenBLAS's threads
# spin between matmuls and other work shares the 2 cores, so the loops are serial and
# release the GIL instead: in a step with convolutions (BLAS one-threaded there) max
# pooling and its gradient run on two halves of the batch (two_workers.split_rows).
@njit(cache=True, inline="always")
def _window(index, stride, pad_before, size, in_size):
    """[lo, hi): the input rows (or columns) output `index`'s window reads, clipped to
    the image (padded cells are never read)."""
    start = index * stride - pad_before
    return max(start, 0), min(start + size, in_size)


@njit(cache=True, nogil=True)
def _max_pool(x, out, kh, kw, sh, sw, pad_top, pad_left, lowest):
    """out = the window's maximum, as TF's CPU kernel computes it: start from the type's
    lowest value and keep `v` where `v > max`, so a NaN never wins (a window of NaNs, or
    of -inf, gives `lowest`). The gradient kernels below start from the window's first
    cell instead, as TF's MaxPoolGrad does: the two differ only on such windows, as in
    TF (docs/nn_ops.md, "Bad input")."""
    n_batch, in_h, in_w, n_chan = x.shape
    for n in range(n_batch):
        for i in range(out.shape[1]):
            h0, h1 = _window(i, sh, pad_top, kh, in_h)
            for j in range(out.shape[2]):
                w0, w1 = _window(j, sw, pad_left, kw, in_w)
                for c in range(n_chan):
                    out[n, i, j, c] = lowest
                for h in range(h0, h1):
                    for w in range(w0, w1):
                        for c in range(n_chan):             # contiguous: SIMD
                            v = x[n, h, w, c]
                            if v > out[n, i, j, c]:
                                out[n, i, j, c] = v


@njit(cache=True, nogil=True)
def _window_argmax(xf, n, h0, h1, w0, w1, in_w, best, arg):
    """arg[c] = flat position h * in_w + w of the first maximum of channel c in the window
    (a strict `>` keeps the first one, as TF's CPU kernel)."""
    p0 = h0 * in_w + w0
    for c in range(xf.shape[2]):
        best[c] = xf[n, p0, c]
        arg[c] = p0
    for h in range(h0, h1):
        for w in range(w0, w1):
            p = h * in_w + w
            for c in range(xf.shape[2]):
                v = xf[n, p, c]
                if v > best[c]:
                    best[c] = v
                    arg[c] = p


@njit(cache=True, nogil=True)
def _max_pool_grad(x, grad, dx, kh, kw, sh, sw, pad_top, pad_left):
    """dx[first argmax of window (i, j)] += grad[i, j], channel by channel."""
    n_batch, in_h, in_w, n_chan = x.shape
    xf = x.reshape(n_batch, in_h * in_w, n_chan)      # pixels numbered h * in_w + w
    dxf = dx.reshape(n_batch, in_h * in_w, n_chan)
    best = np.empty(n_chan, x.dtype)
    arg = np.empty(n_chan, np.int64)
    for n in range(n_batch):
        dxf[n, :, :] = 0
        for i in range(grad.shape[1]):
            h0, h1 = _window(i, sh, pad_top, kh, in_h)
            for j in range(grad.shape[2]):
                w0, w1 = _window(j, sw, pad_left, kw, in_w)
                _window_argmax(xf, n, h0, h1, w0, w1, in_w, best, arg)
                for c in range(n_chan):
                    dxf[n, arg[c], c] += grad[n, i, j, c]


@njit(cache=True, nogil=True)
def _max_pool_grad_tiled(x, grad, dx, kh, kw, sh, sw, pad_top, pad_left, relu_of_input):
    """`_max_pool_grad` for windows that do not overlap (kh <= sh, kw <= sw), such as
    LeNet's 2x2 / 2: each input cell is written once, gradient or 0, no scatter.

    The argmax scan keeps, per channel, the window position k of the first maximum with
    selects instead of branches, so the channel loop is SIMD code: 1.6x faster than the
    scan + scatter for [50, 28, 28, 32] (1.14 vs 1.87 ms), same bits. (Not
    `_window_argmax` with selects: measured 0.17 ms slower here, and no faster there.)
    `relu_of_input`: also apply ReluGrad(dx, x) as each cell is written (`x` being a
    relu's output; see max_pool_grad)."""
    n_batch, in_h, in_w, n_chan = x.shape
    best = np.empty(n_chan, x.dtype)
    arg = np.empty(n_chan, np.int32)
    for n in range(n_batch):
        dx[n] = 0                       # cells no window covers (VALID's last rows) stay 0
        for i in range(grad.shape[1]):
            h0, h1 = _window(i, sh, pad_top, kh, in_h)
            for j in range(grad.shape[2]):
                w0, w1 = _window(j, sw, pad_left, kw, in_w)
                k = 0
                for h in range(h0, h1):
                    for w in range(w0, w1):
                        if k == 0:
                            for c in range(n_chan):
                                best[c] = x[n, h, w, c]
                                arg[c] = 0
                        else:
                            for c in range(n_chan):
                                v = x[n, h, w, c]
                                better = v > best[c]        # strict: the first maximum
                                best[c] = v if better else best[c]
                                arg[c] = k if better else arg[c]
                        k += 1
                k = 0
                for h in range(h0, h1):
                    for w in range(w0, w1):
                        for c in range(n_chan):
                            v = grad[n, i, j, c] if arg[c] == k else 0
                            if relu_of_input:
                                v = relu_grad_scalar(v, x[n, h, w, c])
                            dx[n, h, w, c] = v
                        k += 1


@njit(cache=True)
def _max_pool_grad_grad(x, grad_dx, out, kh, kw, sh, sw, pad_top, pad_left):
    """The derivative of MaxPoolGrad with respect to its `grad` input: each output pixel
    picks grad_dx at its window's first argmax."""
    n_batch, in_h, in_w, n_chan = x.shape
    xf = x.reshape(n_batch, in_h * in_w, n_chan)
    gf = grad_dx.reshape(n_batch, in_h * in_w, n_chan)
    best = np.empty(n_chan, x.dtype)
    arg = np.empty(n_chan, np.int64)
    for n in range(n_batch):
        for i in range(out.shape[1]):
            h0, h1 = _window(i, sh, pad_top, kh, in_h)
            for j in range(out.shape[2]):
                w0, w1 = _window(j, sw, pad_left, kw, in_w)
                _window_argmax(xf, n, h0, h1, w0, w1, in_w, best, arg)
                for c in range(n_chan):
                    out[n, i, j, c] = gf[n, arg[c], c]


def max_pool(x, ksize, strides, padding):
    out_h, out_w, *geo = _geometry(x.shape, ksize, strides, padding)
    cdt = _compute_dtype(x)
    out = np.empty((x.shape[0], out_h, out_w, x.shape[3]), cdt)
    if out.size:
        xc = np.ascontiguousarray(x, dtype=cdt)
        lowest = np.dtype(cdt).type(lowest_value(x.dtype))
        split_rows(lambda lo, hi: _max_pool(xc[lo:hi], out[lo:hi], *geo, lowest), len(xc),
                   xc.size)
    return out.astype(x.dtype, copy=False)


def max_pool_grad(x, y, grad, ksize, strides, padding, relu_of_input=False):
    """MaxPoolGrad; with `relu_of_input`, ReluGrad(MaxPoolGrad(x, y, grad), x) in one
    pass where the windows do not overlap (a fused training plan asks for it when `x` is
    a relu's output, runtime/fusion.py): same values and bits as the two ops."""
    # y (MaxPoolGrad's orig_output input) is not needed: the window scan finds the argmax.
    _, _, *geo = _geometry(x.shape, ksize, strides, padding)
    cdt = _compute_dtype(x)
    dx = np.zeros(x.shape, cdt) if y.size == 0 else np.empty(x.shape, cdt)
    kh, kw, sh, sw = geo[:4]
    tiled = kh <= sh and kw <= sw
    if y.size:
        xc = np.ascontiguousarray(x, dtype=cdt)
        gc = np.ascontiguousarray(grad, dtype=cdt)
        if tiled:
            split_rows(lambda lo, hi: _max_pool_grad_tiled(
                xc[lo:hi], gc[lo:hi], dx[lo:hi], *geo, relu_of_input), len(xc), xc.size)
        else:
            split_rows(lambda lo, hi: _max_pool_grad(xc[lo:hi], gc[lo:hi], dx[lo:hi], *geo),
                       len(xc), xc.size)
    dx = dx.astype(x.dtype, copy=False)
    if relu_of_input and not (tiled and y.size):
        dx = relu_grad(dx, x)
    return dx


def max_pool_grad_grad(x, y, grad_dx, ksize, strides, padding):
    # y unused, as in max_pool_grad
    _, _, *geo = _geometry(x.shape, ksize, strides, padding)
    cdt = _compute_dtype(x)
    out = np.zeros(y.shape, cdt)
    if y.size:
        _max_pool_grad_grad(np.ascontiguousarray(x, dtype=cdt),
                            np.ascontiguousarray(grad_dx, dtype=cdt), out, *geo)
    return out.astype(x.dtype, copy=False)


# -- average pooling -----------------------------------------------------------------------
@njit(cache=True)
def _avg_pool(x, out, kh, kw, sh, sw, pad_top, pad_left):
    n_batch, in_h, in_w, n_chan = x.shape
    acc = np.empty(n_chan, np.float64)      # sums in float64, rounded once
    for n in range(n_batch):
        for i in range(out.shape[1]):
            h0, h1 = _window(i, sh, pad_top, kh, in_h)
            for j in range(out.shape[2]):
                w0, w1 = _window(j, sw, pad_left, kw, in_w)
                acc[:] = 0.0
                for h in range(h0, h1):
                    for w in range(w0, w1):
                        for c in range(n_chan):
                            acc[c] += x[n, h, w, c]
                count = (h1 - h0) * (w1 - w0)    # real (unpadded) cells only
                for c in range(n_chan):
                    out[n, i, j, c] = acc[c] / count


@njit(cache=True)
def _avg_pool_grad(grad, dx, kh, kw, sh, sw, pad_top, pad_left):
    """Each output pixel's gradient is shared equally by the real cells of its window."""
    n_batch, in_h, in_w, n_chan = dx.shape
    share = np.empty(n_chan, dx.dtype)
    for n in range(n_batch):
        for i in range(grad.shape[1]):
            h0, h1 = _window(i, sh, pad_top, kh, in_h)
            for j in range(grad.shape[2]):
                w0, w1 = _window(j, sw, pad_left, kw, in_w)
                count = (h1 - h0) * (w1 - w0)
                for c in range(n_chan):
                    share[c] = grad[n, i, j, c] / count
                for h in range(h0, h1):
                    for w in range(w0, w1):
                        for c in range(n_chan):
                            dx[n, h, w, c] += share[c]


def avg_pool(x, ksize, strides, padding):
    out_h, out_w, *geo = _geometry(x.shape, ksize, strides, padding)
    cdt = _compute_dtype(x)
    out = np.empty((x.shape[0], out_h, out_w, x.shape[3]), cdt)
    if out.size:
        _avg_pool(np.ascontiguousarray(x, dtype=cdt), out, *geo)
    return out.astype(x.dtype, copy=False)


def avg_pool_grad(input_shape, grad, ksize, strides, padding):
    _, _, *geo = _geometry(input_shape, ksize, strides, padding)
    cdt = _compute_dtype(grad)
    dx = np.zeros(tuple(input_shape), cdt)
    if grad.size:
        _avg_pool_grad(np.ascontiguousarray(grad, dtype=cdt), dx, *geo)
    return dx.astype(grad.dtype, copy=False)
