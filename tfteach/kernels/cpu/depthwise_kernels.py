"""CPU kernels of `DepthwiseConv2dNative` and its two gradients: direct Numba loops.

A depthwise convolution filters each input channel c on its own with `multiplier`
filters f[:, :, c, q]; output channel c * multiplier + q is

    out[b, i, j, c*M + q] = sum over (a, e) of x[b, i*sh + a*dh - top, j*sw + e*dw - left, c]
                                                * f[a, e, c, q]

No sum over channels means no big matrix product to hand to BLAS (im2col would build a
matrix per channel with only KH*KW columns), so these are plain loops over NHWC arrays
with the channel loops innermost (contiguous memory). The two gradients are the same
loops with the roles swapped: the input gradient scatters each output gradient back
through the filter taps, the filter gradient correlates input and output gradient.
"""
import numpy as np
from numba import njit

from tfteach.framework.errors import InvalidArgumentError
from tfteach.kernels.cpu.conv_kernels import (check_filter_not_empty, compute_dtype,
                                              conv_params, from_nhwc, geometry, to_nhwc)

__all__ = ["depthwise_conv2d", "depthwise_backprop_input", "depthwise_backprop_filter"]


@njit(cache=True)
def _forward(x, f, sh, sw, dh, dw, top, left, out):
    n, h, w, c = x.shape
    kh, kw, _, m = f.shape
    _, oh, ow, _ = out.shape
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                for a in range(kh):
                    y = i * sh + a * dh - top
                    if y < 0 or y >= h:
                        continue                   # padding rows contribute 0
                    for e in range(kw):
                        xx = j * sw + e * dw - left
                        if xx < 0 or xx >= w:
                            continue
                        for ch in range(c):
                            v = x[b, y, xx, ch]
                            for q in range(m):
                                out[b, i, j, ch * m + q] += v * f[a, e, ch, q]
    return out


@njit(cache=True)
def _backprop_input(dy, f, sh, sw, dh, dw, top, left, dx):
    n, h, w, c = dx.shape
    kh, kw, _, m = f.shape
    _, oh, ow, _ = dy.shape
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                for a in range(kh):
                    y = i * sh + a * dh - top
                    if y < 0 or y >= h:
                        continue
                    for e in range(kw):
                        xx = j * sw + e * dw - left
                        if xx < 0 or xx >= w:
                            continue
                        for ch in range(c):
                            acc = dx[b, y, xx, ch]
                            for q in range(m):
                                acc += dy[b, i, j, ch * m + q] * f[a, e, ch, q]
                            dx[b, y, xx, ch] = acc
    return dx


@njit(cache=True)
def _backprop_filter(x, dy, sh, sw, dh, dw, top, left, df):
    n, h, w, c = x.shape
    kh, kw, _, m = df.shape
    _, oh, ow, _ = dy.shape
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                for a in range(kh):
                    y = i * sh + a * dh - top
                    if y < 0 or y >= h:
                        continue
                    for e in range(kw):
                        xx = j * sw + e * dw - left
                        if xx < 0 or xx >= w:
                            continue
                        for ch in range(c):
                            v = x[b, y, xx, ch]
                            for q in range(m):
                                df[a, e, ch, q] += v * dy[b, i, j, ch * m + q]
    return df


def _error(ctx, message):
    return InvalidArgumentError(None, ctx.op, message)


def _args(p, geo):
    (_, top, _), (_, left, _) = geo
    return p.strides[0], p.strides[1], p.dilations[0], p.dilations[1], top, left


def _check(ctx, label, input_shape, filter_shape, dy_shape, p):
    """TF's depthwise checks (depthwise_conv_op.cc / _grad_op.cc), NHWC dims + geometry."""
    prefix = "" if label is None else label + ": "
    if len(input_shape) != 4:
        raise _error(ctx, "%sinput must be 4-dimensional: %s"
                     % (prefix, "[%s]" % ",".join(map(str, input_shape))))
    if len(filter_shape) != 4:
        raise _error(ctx, "%sfilter must be 4-dimensional: %s"
                     % (prefix, "[%s]" % ",".join(map(str, filter_shape))))
    n_ax, h_ax, w_ax, c_ax = (0, 2, 3, 1) if p.data_format == "NCHW" else (0, 1, 2, 3)
    in_depth = input_shape[c_ax]
    if in_depth != filter_shape[2]:
        raise _error(ctx, "input and filter must have the same depth: %d vs %d"
                     % (in_depth, filter_shape[2]))
    geo = geometry(ctx, p, input_shape[h_ax], input_shape[w_ax], filter_shape[0],
                   filter_shape[1])
    if dy_shape is not None:
        expected = (input_shape[n_ax], geo[0][0], geo[1][0], in_depth * filter_shape[3])
        got = tuple(dy_shape[a] for a in (n_ax, h_ax, w_ax, c_ax)) if len(dy_shape) == 4 \
            else None
        if got != expected:
            raise _error(ctx, "%s: out_backprop has shape [%s], expected %s [%s]"
                         % (label, ",".join(map(str, dy_shape)), p.data_format,
                            ",".join(map(str, expected))))
    return geo


def depthwise_conv2d(ctx, x, f):
    p = conv_params(ctx)
    geo = _check(ctx, None, x.shape, f.shape, None, p)
    check_filter_not_empty(ctx, f)
    dtype = compute_dtype(x.dtype)
    xs = to_nhwc(x, p.data_format).astype(dtype, copy=False)
    out = np.zeros((xs.shape[0], geo[0][0], geo[1][0], f.shape[2] * f.shape[3]), dtype)
    _forward(xs, np.ascontiguousarray(f, dtype), *_args(p, geo), out)
    return from_nhwc(out.astype(x.dtype, copy=False), p.data_format)


def _sizes(ctx, label, sizes, what):
    sizes = np.asarray(sizes)
    if sizes.ndim != 1:
        raise _error(ctx, "%s: %s input must be 1-dim, not %d" % (label, what, sizes.ndim))
    if np.any(sizes < 0):       # TF's TensorShape check (was a negative-size geometry)
        raise _error(ctx, "Dimension %d must be >= 0" % int(sizes[np.argmax(sizes < 0)]))
    return tuple(int(s) for s in sizes)


def depthwise_backprop_input(ctx, input_sizes, f, dy):
    label = "DepthwiseConv2DBackpropInput"
    p = conv_params(ctx)
    shape = _sizes(ctx, label, input_sizes, "input_sizes")
    geo = _check(ctx, label, shape, f.shape, dy.shape, p)
    dtype = compute_dtype(dy.dtype)
    n, h, w, c = (shape[a] for a in ((0, 2, 3, 1) if p.data_format == "NCHW" else range(4)))
    dx = np.zeros((n, h, w, c), dtype)
    _backprop_input(to_nhwc(dy, p.data_format).astype(dtype, copy=False),
                    np.ascontiguousarray(f, dtype), *_args(p, geo), dx)
    return from_nhwc(dx.astype(dy.dtype, copy=False), p.data_format)


def depthwise_backprop_filter(ctx, x, filter_sizes, dy):
    label = "DepthwiseConv2DBackpropFilter"
    p = conv_params(ctx)
    shape = _sizes(ctx, label, filter_sizes, "filter_sizes")
    geo = _check(ctx, label, x.shape, shape, dy.shape, p)
    dtype = compute_dtype(dy.dtype)
    df = np.zeros(shape, dtype)
    _backprop_filter(to_nhwc(x, p.data_format).astype(dtype, copy=False),
                     to_nhwc(dy, p.data_format).astype(dtype, copy=False), *_args(p, geo), df)
    return df.astype(dy.dtype, copy=False)


