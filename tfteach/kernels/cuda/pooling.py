"""CUDA kernels of `MaxPool`, `AvgPool` and their gradients (NHWC, SAME/VALID, strides).
CPU twin: kernels/cpu/pooling_kernels.py; the window geometry and TensorFlow's checks
are the CPU twin's (`_geometry`, `check_window`).

The window of output pixel (i, j) covers input rows i*sh - top ... + kh and columns
j*sw - left ... + kw, clipped to the image: SAME's padding cells are never read, and an
average divides by the number of real cells (as TensorFlow does).

  MaxPool / AvgPool   one thread per output element scans its window;
  AvgPoolGrad         one thread per *input* element gathers the shares of every window
                      that covers it: grad[i, j] / count(i, j) (no two threads write
                      the same element);
  MaxPoolGrad         one thread per *output* element finds its window's first maximum
                      (a strict `>`, as the CPU twin) and adds its gradient there with
                      `cuda.atomic.add`: overlapping windows (stride < size) can pick the
                      same input element, and atomic adds make those additions safe (in
                      whatever order the threads come, as TensorFlow's GPU kernel).
"""
import numpy as np
from numba import cuda

from tfteach.framework.errors import InvalidArgumentError, UnimplementedError
from tfteach.kernels.cpu.pooling_kernels import _geometry, lowest_value
from tfteach.kernels.cuda import launch
from tfteach.kernels.cuda.conv import _unravel4

__all__ = ["max_pool_kernel", "avg_pool_kernel", "max_pool_grad_kernel",
           "avg_pool_grad_kernel", "max_pool", "avg_pool", "max_pool_grad", "avg_pool_grad"]


@cuda.jit(device=True, cache=True)
def _window(i, size, stride, pad, limit):
    """[start, stop) of window i along one axis, clipped to [0, limit)."""
    start = i * stride - pad
    return max(start, 0), min(start + size, limit)


@cuda.jit(cache=True)
def max_pool_kernel(y, x, kh, kw, sh, sw, top, left, lowest):
    """As the CPU twin: from the type's lowest value, a NaN never wins."""
    i = cuda.grid(1)
    if i < y.size:
        n, oh, ow, c = _unravel4(i, y.shape)
        h0, h1 = _window(oh, kh, sh, top, x.shape[1])
        w0, w1 = _window(ow, kw, sw, left, x.shape[2])
        best = lowest
        for h in range(h0, h1):
            for w in range(w0, w1):
                if x[n, h, w, c] > best:
                    best = x[n, h, w, c]
        y[n, oh, ow, c] = best


@cuda.jit(cache=True)
def avg_pool_kernel(y, x, kh, kw, sh, sw, top, left):
    i = cuda.grid(1)
    if i < y.size:
        n, oh, ow, c = _unravel4(i, y.shape)
        h0, h1 = _window(oh, kh, sh, top, x.shape[1])
        w0, w1 = _window(ow, kw, sw, left, x.shape[2])
        acc = 0.0
        for h in range(h0, h1):
            for w in range(w0, w1):
                acc += x[n, h, w, c]
        y[n, oh, ow, c] = acc / ((h1 - h0) * (w1 - w0))


@cuda.jit(cache=True)
def max_pool_grad_kernel(dx, x, grad, kh, kw, sh, sw, top, left):
    """dx must be zeros; every output pixel adds its gradient at its window's argmax."""
    i = cuda.grid(1)
    if i < grad.size:
        n, oh, ow, c = _unravel4(i, grad.shape)
        h0, h1 = _window(oh, kh, sh, top, x.shape[1])
        w0, w1 = _window(ow, kw, sw, left, x.shape[2])
        best = x[n, h0, w0, c]
        best_h, best_w = h0, w0
        for h in range(h0, h1):
            for w in range(w0, w1):
                if x[n, h, w, c] > best:
                    best = x[n, h, w, c]
                    best_h, best_w = h, w
        cuda.atomic.add(dx, (n, best_h, best_w, c), grad[n, oh, ow, c])


@cuda.jit(cache=True)
def avg_pool_grad_kernel(dx, grad, kh, kw, sh, sw, top, left):
    i = cuda.grid(1)
    if i < dx.size:
        n, h, w, c = _unravel4(i, dx.shape)
        acc = 0.0
        # the output rows oh whose window [oh*sh - top, + kh) contains h, same for w
        for oh in range(grad.shape[1]):
            h0, h1 = _window(oh, kh, sh, top, dx.shape[1])
            if h0 <= h < h1:
                for ow in range(grad.shape[2]):
                    w0, w1 = _window(ow, kw, sw, left, dx.shape[2])
                    if w0 <= w < w1:
                        acc += grad[n, oh, ow, c] / ((h1 - h0) * (w1 - w0))
        dx[n, h, w, c] = acc


# -- host side -----------------------------------------------------------------------------------
def _window_params(ctx, shape):
    """(out_h, out_w, kh, kw, sh, sw, top, left) for an NHWC `shape`, TF's checks first."""
    from tfteach.nn.pooling_ops import check_window      # TF's runtime checks (CPU twin)
    if ctx.attrs.get("data_format", "NHWC") != "NHWC":
        raise UnimplementedError(None, ctx.op, "tfteach's GPU pooling supports NHWC only")
    if len(shape) != 4:
        raise InvalidArgumentError(None, ctx.op, "input must be 4-dimensional")
    ksize, strides, padding = check_window(ctx)
    return _geometry(shape, ksize, strides, padding)


def _run(kernel, threads_for, *args):
    if threads_for:
        kernel[launch.blocks_for(threads_for), launch.THREADS](*args)


def _pool(kernel, ctx, x, *extra):
    x = launch.on_device(x)
    launch.check_float(ctx, x)
    out_h, out_w, *geo = _window_params(ctx, x.shape)
    y = launch.empty((x.shape[0], out_h, out_w, x.shape[3]), x.dtype)
    _run(kernel, y.size, y, x, *geo, *extra)
    return y


def max_pool(ctx, x):
    return _pool(max_pool_kernel, ctx, x, np.dtype(x.dtype).type(lowest_value(x.dtype)))


def avg_pool(ctx, x):
    return _pool(avg_pool_kernel, ctx, x)


def max_pool_grad(ctx, x, y, grad):
    # y (MaxPoolGrad's orig_output) is not needed: the window scan finds the argmax.
    x, grad = launch.on_device(x), launch.on_device(grad)
    launch.check_float(ctx, x, grad)
    out_h, out_w, *geo = _window_params(ctx, x.shape)
    if tuple(grad.shape) != (x.shape[0], out_h, out_w, x.shape[3]):
        raise InvalidArgumentError(None, ctx.op, "Expected grad shape to be [%d,%d,%d,%d], "
                                   "but got [%s]" % (x.shape[0], out_h, out_w, x.shape[3],
                                                     ",".join(map(str, grad.shape))))
    dx = launch.zeros(x.shape, x.dtype)
    _run(max_pool_grad_kernel, grad.size, dx, x, grad, *geo)
    return dx


def avg_pool_grad(ctx, input_shape, grad):
    grad = launch.on_device(grad)
    launch.check_float(ctx, grad)
    shape = tuple(int(d) for d in launch.on_host(input_shape))
    out_h, out_w, *geo = _window_params(ctx, shape)
    if tuple(grad.shape) != (shape[0], out_h, out_w, shape[3]):
        raise InvalidArgumentError(None, ctx.op, "Expected grad shape to be [%d,%d,%d,%d], "
                                   "but got [%s]" % (shape[0], out_h, out_w, shape[3],
                                                     ",".join(map(str, grad.shape))))
    dx = launch.empty(shape, grad.dtype)
    _run(avg_pool_grad_kernel, dx.size, dx, grad, *geo)
    return dx
