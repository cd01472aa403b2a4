"""CUDA kernels of `Conv2D` and its two gradients, NHWC, SAME/VALID, strides, dilations.
CPU twin: kernels/cpu/conv_kernels.py (im2col + BLAS there); the window geometry
(output sizes, SAME's padding) and TensorFlow's checks are the CPU twin's own code.

Direct convolution, one thread per element of the result, each written by exactly one
thread (no two threads add into the same place, so no atomics):

  forward          y[n, oh, ow, o] = sum over (kh, kw, c) of
                       x[n, oh*sh - top + kh*dh, ow*sw - left + kw*dw, c] * f[kh, kw, c, o]
                   (input positions outside the image are SAME's zero padding: skipped);
  input gradient   dx[n, h, w, c] = sum over (kh, kw, o) of dy[n, oh, ow, o] * f[kh, kw, c, o]
                   for the output positions whose window put filter tap (kh, kw) on
                   (h, w): oh = (h + top - kh*dh) / sh when that divides exactly;
  filter gradient  df[kh, kw, c, o] = sum over (n, oh, ow) of x[n, h, w, c] * dy[n, oh, ow, o]
                   with h, w as in the forward pass.

Sums are float64, rounded once. This is the readable kernel, not cuDNN: a tiled (or
im2col + matmul.py) version is the way to make it fast.
"""
from numba import cuda

from tfteach.framework.errors import InvalidArgumentError, UnimplementedError
from tfteach.kernels.cpu.conv_kernels import (_backprop_dims, _sizes, conv_params,
                                              geometry)
from tfteach.kernels.cuda import launch

__all__ = ["conv2d_kernel", "conv2d_input_grad_kernel", "conv2d_filter_grad_kernel",
           "conv2d", "conv2d_backprop_input", "conv2d_backprop_filter"]


@cuda.jit(device=True, cache=True)
def _unravel4(i, shape):
    """The coordinates (a, b, c, d) of flat index i in a C-ordered 4-D `shape`."""
    d = i % shape[3]
    i //= shape[3]
    c = i % shape[2]
    i //= shape[2]
    b = i % shape[1]
    return i // shape[1], b, c, d


@cuda.jit(cache=True)
def conv2d_kernel(y, x, f, sh, sw, dh, dw, top, left):
    i = cuda.grid(1)
    if i < y.size:
        n, oh, ow, o = _unravel4(i, y.shape)
        acc = 0.0
        for kh in range(f.shape[0]):
            h = oh * sh - top + kh * dh
            if 0 <= h < x.shape[1]:
                for kw in range(f.shape[1]):
                    w = ow * sw - left + kw * dw
                    if 0 <= w < x.shape[2]:
                        for c in range(x.shape[3]):
                            acc += x[n, h, w, c] * f[kh, kw, c, o]
        y[n, oh, ow, o] = acc


@cuda.jit(cache=True)
def conv2d_input_grad_kernel(dx, f, dy, sh, sw, dh, dw, top, left):
    i = cuda.grid(1)
    if i < dx.size:
        n, h, w, c = _unravel4(i, dx.shape)
        acc = 0.0
        for kh in range(f.shape[0]):
            th = h + top - kh * dh                 # = oh * sh, if tap kh landed on h
            if th >= 0 and th % sh == 0 and th // sh < dy.shape[1]:
                oh = th // sh
                for kw in range(f.shape[1]):
                    tw = w + left - kw * dw
                    if tw >= 0 and tw % sw == 0 and tw // sw < dy.shape[2]:
                        ow = tw // sw
                        for o in range(dy.shape[3]):
                            acc += dy[n, oh, ow, o] * f[kh, kw, c, o]
        dx[n, h, w, c] = acc


@cuda.jit(cache=True)
def conv2d_filter_grad_kernel(df, x, dy, sh, sw, dh, dw, top, left):
    i = cuda.grid(1)
    if i < df.size:
        kh, kw, c, o = _unravel4(i, df.shape)
        acc = 0.0
        for n in range(dy.shape[0]):
            for oh in range(dy.shape[1]):
                h = oh * sh - top + kh * dh
                if 0 <= h < x.shape[1]:
                    for ow in range(dy.shape[2]):
                        w = ow * sw - left + kw * dw
                        if 0 <= w < x.shape[2]:
                            acc += x[n, h, w, c] * dy[n, oh, ow, o]
        df[kh, kw, c, o] = acc


# -- host side -----------------------------------------------------------------------------------
def _params(ctx):
    p = conv_params(ctx)                          # TF's attribute checks (CPU twin)
    if p.data_format != "NHWC":
        raise UnimplementedError(None, ctx.op, "tfteach's GPU convolution supports NHWC "
                                 "only, got data_format=%s" % p.data_format)
    if p.padding == "EXPLICIT":
        raise UnimplementedError(None, ctx.op, "tfteach's GPU convolution supports SAME "
                                 "and VALID padding only")
    return p


def _launch(kernel, out, *args):
    if out.size:
        kernel[launch.blocks_for(out.size), launch.THREADS](out, *args)
    return out


def _geometry_args(p, rows, cols):
    (_, top, _), (_, left, _) = rows, cols
    return (p.strides[0], p.strides[1], p.dilations[0], p.dilations[1], top, left)


def conv2d(ctx, x, f):
    p = _params(ctx)
    x, f = launch.on_device(x), launch.on_device(f)
    launch.check_float(ctx, x, f)
    for what, value in (("input", x), ("filter", f)):
        if value.ndim != 4:
            raise InvalidArgumentError(None, ctx.op, "%s must be 4-dimensional: [%s]"
                                       % (what, ",".join(map(str, value.shape))))
    n, h, w, c = x.shape
    kh, kw, fc, oc = f.shape
    if c != fc:
        raise InvalidArgumentError(None, ctx.op, "input depth must be equal to filter "
                                   "depth: %d vs %d" % (c, fc))
    rows, cols = geometry(ctx, p, h, w, kh, kw)
    y = launch.empty((n, rows[0], cols[0], oc), x.dtype)
    return _launch(conv2d_kernel, y, x, f, *_geometry_args(p, rows, cols))


def conv2d_backprop_input(ctx, input_sizes, f, dy):
    label = "Conv2DBackpropInput"
    p = _params(ctx)
    f, dy = launch.on_device(f), launch.on_device(dy)
    launch.check_float(ctx, f, dy)
    input_shape = _sizes(ctx, label, launch.on_host(input_sizes))
    shape, (rows, cols) = _backprop_dims(ctx, label, p, input_shape, f.shape, dy)
    dx = launch.empty(shape, dy.dtype)
    return _launch(conv2d_input_grad_kernel, dx, f, dy, *_geometry_args(p, rows, cols))


def conv2d_backprop_filter(ctx, x, filter_sizes, dy):
    label = "Conv2DBackpropFilter"
    p = _params(ctx)
    x, dy = launch.on_device(x), launch.on_device(dy)
    launch.check_float(ctx, x, dy)
    filter_shape = _sizes(ctx, label, launch.on_host(filter_sizes))
    if x.ndim != 4:
        raise InvalidArgumentError(None, ctx.op, "%s: input must be 4-dimensional" % label)
    _, (rows, cols) = _backprop_dims(ctx, label, p, x.shape, filter_shape, dy)
    df = launch.empty(filter_shape, dy.dtype)
    return _launch(conv2d_filter_grad_kernel, df, x, dy, *_geometry_args(p, rows, cols))
