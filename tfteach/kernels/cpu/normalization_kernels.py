"""CPU kernels of the fused batch norm (`FusedBatchNormV3` and its gradient) and of
local response normalization (`LRN`, `LRNGrad`).

Fused batch norm works on x as a [rows, channels] matrix: NHWC's `x.reshape(-1, C)`
(NCHW is transposed to that first, in nn/normalization_ops.py). Per channel c:

  training:   mean = mean of column c,  var = mean of (x - mean)^2    (biased)
  inference:  mean, var = the given (moving) averages
  y = (x - mean) / sqrt(var + epsilon) * scale + offset

In training mode the op also returns var * rows / (rows - 1) (Bessel's correction: an
unbiased estimate for the moving average) and keeps mean and the biased var for the
gradient (reserve_space_1 / _2, as TF's CPU kernel does). Sums are float64.

The gradient, with xhat = (x - mean) / sqrt(var + eps) and N = rows:
  d offset = sum(dy),   d scale = sum(dy * xhat)
  training:  dx = scale / sqrt(var + eps) / N * (N * dy - d offset - xhat * d scale)
             (mean and var depend on x, hence the two correction terms)
  inference: dx = dy * scale / sqrt(var + eps)   (mean and var are constants)
"""
import math

import numpy as np
from numba import njit

__all__ = ["batch_norm_training", "batch_norm_inference", "batch_norm_grad", "lrn", "rows_of",
           "lrn_grad"]


@njit(cache=True)
def _column_moments(x, mean, var):
    """mean and biased variance of each column of the 2-D x (two passes, float64)."""
    rows, cols = x.shape
    acc = np.zeros(cols, np.float64)
    for i in range(rows):
        for c in range(cols):
            acc[c] += x[i, c]
    for c in range(cols):
        mean[c] = acc[c] / rows
    acc[:] = 0.0
    for i in range(rows):
        for c in range(cols):
            d = x[i, c] - mean[c]
            acc[c] += d * d
    for c in range(cols):
        var[c] = acc[c] / rows


@njit(cache=True)
def _normalize(x, mean, var, scale, offset, epsilon, y):
    """y = (x - mean) * (scale / sqrt(var + eps)) + offset, column by column."""
    rows, cols = x.shape
    mul = np.empty(cols, np.float64)
    for c in range(cols):
        mul[c] = scale[c] / math.sqrt(var[c] + epsilon)
    for i in range(rows):
        for c in range(cols):
            y[i, c] = (x[i, c] - mean[c]) * mul[c] + offset[c]


def batch_norm_training(x2, scale, offset, epsilon):
    """(y, mean, Bessel-corrected var, biased var) of the [rows, C] matrix x2."""
    cdt = np.float64 if x2.dtype == np.float64 else np.float32
    xc = np.ascontiguousarray(x2, dtype=cdt)
    cols = xc.shape[1]
    mean = np.zeros(cols, np.float64)
    var = np.zeros(cols, np.float64)
    y = np.empty(xc.shape, cdt)
    if xc.shape[0]:
        _column_moments(xc, mean, var)
    else:
        mean[:] = var[:] = np.nan
    _normalize(xc, mean, var, scale.astype(np.float64), offset.astype(np.float64),
               float(epsilon), y)
    rows = xc.shape[0]
    corrected = var * (rows / (rows - 1.0)) if rows > 1 else var.copy()
    return y.astype(x2.dtype, copy=False), mean, corrected, var


def batch_norm_inference(x2, scale, offset, mean, var, epsilon):
    cdt = np.float64 if x2.dtype == np.float64 else np.float32
    xc = np.ascontiguousarray(x2, dtype=cdt)
    y = np.empty(xc.shape, cdt)
    _normalize(xc, mean.astype(np.float64), var.astype(np.float64),
               scale.astype(np.float64), offset.astype(np.float64), float(epsilon), y)
    return y.astype(x2.dtype, copy=False)


@njit(cache=True)
def _batch_norm_grad(dy, x, scale, mean, var, epsilon, training, dx, dscale, doffset):
    rows, cols = x.shape
    inv = np.empty(cols, np.float64)
    for c in range(cols):
        inv[c] = 1.0 / math.sqrt(var[c] + epsilon)
    sum_dy = np.zeros(cols, np.float64)
    sum_dy_xhat = np.zeros(cols, np.float64)
    for i in range(rows):
        for c in range(cols):
            g = float(dy[i, c])
            sum_dy[c] += g
            sum_dy_xhat[c] += g * (x[i, c] - mean[c]) * inv[c]
    for c in range(cols):
        doffset[c] = sum_dy[c]
        dscale[c] = sum_dy_xhat[c]
    for i in range(rows):
        for c in range(cols):
            if training:
                xhat = (x[i, c] - mean[c]) * inv[c]
                dx[i, c] = scale[c] * inv[c] / rows * (
                    rows * dy[i, c] - sum_dy[c] - xhat * sum_dy_xhat[c])
            else:
                dx[i, c] = dy[i, c] * scale[c] * inv[c]


def batch_norm_grad(dy2, x2, scale, mean, var, epsilon, training):
    """(dx, d scale, d offset) for the [rows, C] matrices dy2 and x2."""
    cdt = np.float64 if x2.dtype == np.float64 else np.float32
    cols = x2.shape[1]
    dx = np.empty(x2.shape, cdt)
    dscale = np.zeros(cols, np.float64)
    doffset = np.zeros(cols, np.float64)
    _batch_norm_grad(np.ascontiguousarray(dy2, dtype=cdt), np.ascontiguousarray(x2, dtype=cdt),
                     scale.astype(np.float64), mean.astype(np.float64),
                     var.astype(np.float64), float(epsilon), bool(training), dx, dscale,
                     doffset)
    return dx.astype(x2.dtype, copy=False), dscale, doffset


# -- local response normalization ------------------------------------------------------------
# Along the last axis (depth) of a [..., depth] array, with window d - r ... d + r:
#   norm[d] = bias + alpha * sum(x[d']^2 for d' in the window),   y[d] = x[d] / norm[d]^beta
@njit(cache=True)
def _norms(x, r, bias, alpha, norm):
    rows, depth = x.shape
    for i in range(rows):
        for d in range(depth):
            s = 0.0
            for k in range(max(0, d - r), min(depth, d + r + 1)):
                s += x[i, k] * x[i, k]
            norm[i, d] = bias + alpha * s


@njit(cache=True)
def _lrn(x, r, bias, alpha, beta, y):
    norm = np.empty(x.shape, np.float64)
    _norms(x, r, bias, alpha, norm)
    for i in range(x.shape[0]):
        for d in range(x.shape[1]):
            y[i, d] = x[i, d] * norm[i, d] ** -beta


@njit(cache=True)
def _lrn_grad(g, x, r, bias, alpha, beta, dx):
    """dy[i]/dx[j] = delta_ij norm[i]^-beta
                     - 2 alpha beta x[i] x[j] norm[i]^(-beta-1)  (j in i's window)."""
    rows, depth = x.shape
    norm = np.empty(x.shape, np.float64)
    _norms(x, r, bias, alpha, norm)
    for i in range(rows):
        for d in range(depth):
            dx[i, d] = g[i, d] * norm[i, d] ** -beta
        for d in range(depth):
            # output d's window holds d - r ... d + r; each of those inputs gets a share
            common = -2.0 * alpha * beta * g[i, d] * x[i, d] * norm[i, d] ** (-beta - 1.0)
            for k in range(max(0, d - r), min(depth, d + r + 1)):
                dx[i, k] += common * x[i, k]


def rows_of(shape):
    """The rows of a [..., C] array as a matrix; not -1, which numpy cannot infer when
    C is 0 (TF returns an empty result there)."""
    return math.prod(shape[:-1])       # a shape's ints (np.prod: ~3 us a call)


def lrn(x, depth_radius, bias, alpha, beta):
    cdt = np.float64 if x.dtype == np.float64 else np.float32
    x2 = np.ascontiguousarray(x, dtype=cdt).reshape(rows_of(x.shape), x.shape[-1])
    y = np.empty(x2.shape, cdt)
    _lrn(x2, depth_radius, bias, alpha, beta, y)
    return y.reshape(x.shape).astype(x.dtype, copy=False)


def lrn_grad(grads, x, depth_radius, bias, alpha, beta):
    cdt = np.float64 if x.dtype == np.float64 else np.float32
    x2 = np.ascontiguousarray(x, dtype=cdt).reshape(rows_of(x.shape), x.shape[-1])
    g2 = np.ascontiguousarray(grads, dtype=cdt).reshape(rows_of(x.shape), x.shape[-1])
    dx = np.empty(x2.shape, cdt)
    _lrn_grad(g2, x2, depth_radius, bias, alpha, beta, dx)
    return dx.reshape(x.shape).astype(x.dtype, copy=False)
