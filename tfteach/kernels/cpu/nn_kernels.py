"""CPU kernels of the neural-network ops: activations, softmax and the cross entropies.

Two ideas keep them exact and fast:

- Softmax and the cross entropies work row by row on a `[batch, classes]` matrix and
  subtract each row's maximum before `exp`, so `exp` never overflows: softmax(x) equals
  softmax(x - max(x)), and log(sum(exp(x))) = max(x) + log(sum(exp(x - max(x)))). They
  are Numba loops (a few passes over each row, scratch arrays reused) doing TensorFlow's
  steps (`xent_op.h`, `softmax_op_functor.h`) in the input's precision.
- The activations are scalar formulas turned into ufuncs (`elementwise.LazyUfunc`), one
  C loop each, so `relu(x)` on a big tensor costs one pass.

float16 has no Numba arithmetic: those kernels compute in float32 and round back, as
TensorFlow's Eigen does for `half`.
"""
import math

import numpy as np
from numba import njit

from tfteach.framework.errors import InvalidArgumentError
from tfteach.kernels.cpu.cwise import shape_string
from tfteach.kernels.cpu.elementwise import LazyUfunc
from tfteach.kernels.cpu.two_workers import split_rows, worth_splitting

__all__ = ["softmax", "log_softmax", "softmax_xent", "sparse_softmax_xent", "l2_loss",
           "relu", "relu_grad", "relu6", "relu6_grad", "elu", "elu_grad", "selu",
           "selu_grad", "softplus", "softplus_grad", "softsign", "softsign_grad",
           "leaky_relu", "leaky_relu_grad", "SELU_ALPHA", "SELU_SCALE", "relu_scalar",
           "relu_grad_scalar", "add_bias_then_relu"]


# -- row loops (Numba) -----------------------------------------------------------------------
# Every step is TensorFlow's, in the input's precision T (float32 or float64):
# shifted = x - max, e = exp(shifted), s = sum(e), log(s), ... Each step's result is
# stored in an array of dtype T, so it is rounded to T where TF rounds. exp, log and the
# sums are evaluated in float64 and then rounded, so each step is (almost always)
# correctly rounded: the course notes' printed losses (1.2425356, ...) come out exactly,
# where a plain float32 sum or a fast float32 log gives 1.2425355.
@njit(cache=True)
def _shifted_exp_sum(x, i, shifted, exps, total):
    """Fills shifted = x[i] - max(x[i]), exps = exp(shifted) and total[0] = sum(exps).

    The sum is accumulated in float64 and rounded once (TF's vectorised Eigen sum is a
    tree of partial sums; a plain float32 running sum would round more often).
    """
    m = x[i, 0]
    for j in range(1, x.shape[1]):
        if x[i, j] > m:
            m = x[i, j]
    acc = 0.0
    for j in range(x.shape[1]):
        shifted[j] = x[i, j] - m
        exps[j] = math.exp(float(shifted[j]))
        acc += float(exps[j])
    total[0] = acc


@njit(cache=True)
def _softmax_rows(x, out, log):
    """softmax (or log-softmax) of each row of the 2-D `x`, written into `out`:
    softmax = exp(shifted) / sum(exp(shifted)); log_softmax = shifted - log(sum)."""
    shifted = np.empty(x.shape[1], x.dtype)
    exps = np.empty(x.shape[1], x.dtype)
    total = np.empty(1, x.dtype)
    log_sum = np.empty(1, x.dtype)
    for i in range(x.shape[0]):
        _shifted_exp_sum(x, i, shifted, exps, total)
        if log:
            log_sum[0] = math.log(float(total[0]))
            for j in range(x.shape[1]):
                out[i, j] = shifted[j] - log_sum[0]
        else:
            for j in range(x.shape[1]):
                out[i, j] = exps[j] / total[0]


@njit(cache=True)
def _softmax_xent_rows(logits, labels, loss, backprop):
    """TensorFlow's SoftmaxCrossEntropyWithLogits, one row at a time.

    With shifted = logits - max(logits) and s = sum(exp(shifted)):
      loss     = sum(labels * (log(s) - shifted))      (= -sum(labels * log_softmax))
      backprop = exp(shifted) / s - labels             (= d loss / d logits)
    """
    shifted = np.empty(logits.shape[1], logits.dtype)
    exps = np.empty(logits.shape[1], logits.dtype)
    total = np.empty(1, logits.dtype)
    log_sum = np.empty(1, logits.dtype)
    for i in range(logits.shape[0]):
        _shifted_exp_sum(logits, i, shifted, exps, total)
        log_sum[0] = math.log(float(total[0]))
        row_loss = 0.0
        for j in range(logits.shape[1]):
            row_loss += float(labels[i, j] * (log_sum[0] - shifted[j]))
        loss[i] = row_loss
        for j in range(logits.shape[1]):
            backprop[i, j] = exps[j] / total[0] - labels[i, j]


@njit(cache=True)
def _sparse_softmax_xent_rows(logits, labels, loss, backprop):
    """SparseSoftmaxCrossEntropyWithLogits: the label of row i is the class index
    labels[i] (checked to be in range before), i.e. a one-hot row without building it:
    loss = log(s) - shifted[label]; backprop = exp(shifted) / s - onehot(label)."""
    shifted = np.empty(logits.shape[1], logits.dtype)
    exps = np.empty(logits.shape[1], logits.dtype)
    total = np.empty(1, logits.dtype)
    log_sum = np.empty(1, logits.dtype)
    for i in range(logits.shape[0]):
        _shifted_exp_sum(logits, i, shifted, exps, total)
        log_sum[0] = math.log(float(total[0]))
        label = labels[i]
        loss[i] = log_sum[0] - shifted[label]
        for j in range(logits.shape[1]):
            backprop[i, j] = exps[j] / total[0]
        backprop[i, label] -= 1


def _compute_dtype(x):
    """float16 is computed in float32 (Numba has no half arithmetic)."""
    return np.float32 if x.dtype == np.float16 else x.dtype


def _as_rows(x):
    """`x` as a C-contiguous 2-D array of its last axis (a view when possible)."""
    x = np.asarray(x)
    # No -1: numpy cannot infer it when the last axis is 0 (an empty softmax is empty).
    rows = math.prod(x.shape[:-1])     # (np.prod: ~3 us of a small softmax's ~10)
    return np.ascontiguousarray(x.reshape(rows, x.shape[-1]), dtype=_compute_dtype(x))


# -- softmax -------------------------------------------------------------------------------------
def _softmax_kernel(log):
    def kernel(ctx, logits):
        if np.ndim(logits) < 1:
            raise InvalidArgumentError(None, ctx.op, "logits must have >= 1 dimension, got %s"
                                       % shape_string(logits))
        rows = _as_rows(logits)
        out = np.empty_like(rows)
        if rows.size:
            _softmax_rows(rows, out, log)
        return out.reshape(np.shape(logits)).astype(logits.dtype, copy=False)
    return kernel


softmax = _softmax_kernel(log=False)
log_softmax = _softmax_kernel(log=True)


# -- cross entropies ---------------------------------------------------------------------------
def softmax_xent(ctx, logits, labels):
    """(loss [batch], backprop [batch, classes]); labels broadcast against logits (TF 1.15)."""
    if np.shape(logits) != np.shape(labels):
        try:
            logits, labels = np.broadcast_arrays(logits, labels)
        except ValueError:
            raise InvalidArgumentError(
                None, ctx.op, "logits and labels must be broadcastable: logits_size=%s "
                "labels_size=%s" % (shape_string(logits), shape_string(labels))) from None
    if np.ndim(logits) != 2:
        raise InvalidArgumentError(None, ctx.op, "logits and labels must be either 2-dimensional,"
                                   " or broadcasted to be 2-dimensional")
    dtype = logits.dtype
    logits = np.ascontiguousarray(logits, dtype=_compute_dtype(logits))
    labels = np.ascontiguousarray(labels, dtype=logits.dtype)
    loss = np.zeros(logits.shape[0], logits.dtype)
    backprop = np.empty_like(logits)
    if logits.shape[1]:
        _softmax_xent_rows(logits, labels, loss, backprop)
    return loss.astype(dtype, copy=False), backprop.astype(dtype, copy=False)


def check_sparse_xent_inputs(ctx, logits, labels):
    """TF's checks of SparseSoftmaxCrossEntropyWithLogits' inputs (shapes, label range);
    the CUDA kernel makes the same ones. Returns (batch, classes)."""
    if np.ndim(logits) != 2:
        raise InvalidArgumentError(None, ctx.op, "logits must be 2-D, but got shape %s"
                                   % shape_string(logits))
    if np.ndim(labels) != 1:
        raise InvalidArgumentError(None, ctx.op, "labels must be 1-D, but got shape %s"
                                   % shape_string(labels))
    batch, classes = logits.shape
    if labels.shape[0] != batch:
        raise InvalidArgumentError(
            None, ctx.op, "logits and labels must have the same first dimension, got logits "
            "shape %s and labels shape %s" % (shape_string(logits), shape_string(labels)))
    if classes == 0 and batch > 0:
        raise InvalidArgumentError(None, ctx.op, "Must have at least one class, but got logits "
                                   "shape %s" % shape_string(logits))
    bad = (labels < 0) | (labels >= classes)
    if bad.any():
        # TF reports the first bad label and every label value.
        raise InvalidArgumentError(
            None, ctx.op, "Received a label value of %d which is outside the valid range of "
            "[0, %d).  Label values: %s" % (labels[np.argmax(bad)], classes,
                                            " ".join(str(v) for v in labels.tolist())))
    return batch, classes


def sparse_softmax_xent(ctx, logits, labels):
    """(loss [batch], backprop [batch, classes]) for class-index labels."""
    batch, _ = check_sparse_xent_inputs(ctx, logits, labels)
    dtype = logits.dtype
    logits = np.ascontiguousarray(logits, dtype=_compute_dtype(logits))
    loss = np.empty(batch, logits.dtype)
    backprop = np.empty_like(logits)
    if logits.size:
        _sparse_softmax_xent_rows(logits, np.ascontiguousarray(labels), loss, backprop)
    return loss.astype(dtype, copy=False), backprop.astype(dtype, copy=False)


def l2_loss(ctx, x):
    """sum(x ** 2) / 2, a scalar of x's dtype (TF's L2Loss)."""
    x = np.asarray(x)
    flat = x.reshape(-1).astype(_compute_dtype(x), copy=False)
    return np.asarray(np.dot(flat, flat) * 0.5, dtype=x.dtype)


# -- activations (scalar formulas -> ufuncs) ---------------------------------------------------
# Constants of SELU (Klambauer et al. 2017), as TF's selu_op.
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


_NUMBA_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _relu(x):
    return 0 if x < 0 else x


def _relu_grad(g, x):
    # ReluGrad(gradients, features): the gradient passes where the relu was active.
    return g if x > 0 else g * 0


def _relu6(x):
    # min(max(x, 0), 6), written so that NaN passes through as in TF.
    if x < 0:
        return 0
    if x > 6:
        return 6
    return x


def _relu6_grad(g, x):
    return g if 0 < x < 6 else g * 0


def _elu(x):
    # exp(x) - 1 (not expm1): TF's Elu computes it so, and tfteach matches its bits.
    return x if x >= 0 else math.exp(x) - 1


def _elu_grad(g, y):
    # EluGrad(gradients, outputs): d/dx expm1(x) = exp(x) = y + 1 for x < 0.
    return g * (y + 1) if y < 0 else g


def _selu(x):
    return SELU_SCALE * x if x >= 0 else SELU_SCALE * SELU_ALPHA * (math.exp(x) - 1)


def _selu_grad(g, y):
    # SeluGrad(gradients, outputs): for x < 0, dy/dx = scale*alpha*exp(x) = y + scale*alpha.
    return g * (y + SELU_SCALE * SELU_ALPHA) if y < 0 else g * SELU_SCALE


def _softplus(x):
    # log(1 + e^x) without overflow: x + log(1 + e^-x) for x > 0.
    if x > 0:
        return x + math.log1p(math.exp(-x))
    return math.log1p(math.exp(x))


def _softplus_grad(g, x):
    # d/dx softplus(x) = sigmoid(x), computed without overflow.
    if x >= 0:
        return g / (1 + math.exp(-x))
    e = math.exp(x)
    return g * e / (1 + e)


def _softsign(x):
    return x / (1 + abs(x))


def _softsign_grad(g, x):
    d = 1 + abs(x)
    return g / (d * d)


def _leaky_relu(x, alpha):
    return x if x > 0 else x * alpha


def _leaky_relu_grad(g, x, alpha):
    return g if x > 0 else g * alpha


_relu_ufunc = LazyUfunc(_relu)
_relu_grad_ufunc = LazyUfunc(_relu_grad)
relu6 = LazyUfunc(_relu6)
relu6_grad = LazyUfunc(_relu6_grad)
elu = LazyUfunc(_elu)
elu_grad = LazyUfunc(_elu_grad)
selu = LazyUfunc(_selu)
selu_grad = LazyUfunc(_selu_grad)
softplus = LazyUfunc(_softplus)
softplus_grad = LazyUfunc(_softplus_grad)
softsign = LazyUfunc(_softsign)
softsign_grad = LazyUfunc(_softsign_grad)
_leaky_relu_ufunc = LazyUfunc(_leaky_relu)
_leaky_relu_grad_ufunc = LazyUfunc(_leaky_relu_grad)


def relu(x):
    """max(x, 0) as TF's Relu: NaN stays NaN and -0.0 stays -0.0 (Eigen's `x < 0 ? 0 : x`).
    A Numba ufunc: NumPy's `maximum`, which must also propagate NaN, runs ~4x slower."""
    if _splittable(x):
        return _in_halves(_relu_loop, x)
    return _relu_ufunc(x)


def relu_grad(g, x):
    """ReluGrad(gradients, features): g where x > 0, else g * 0 (NaN in g stays NaN)."""
    if _splittable(g) and g.shape == x.shape and g.dtype == x.dtype:
        return _in_halves(_relu_grad_loop, g, np.ascontiguousarray(x))
    return _relu_grad_ufunc(g, x)


# In a step with convolutions big activations run in two halves (two_workers.py). A
# LazyUfunc runs whole (two_workers.split_ufunc), so the halves use these nogil loops.
# The scalar forms are also what fused kernels apply (pooling, conv_fourier): one
# formula for Relu and ReluGrad wherever they are computed.
relu_scalar = njit(cache=True, inline="always")(_relu)
relu_grad_scalar = njit(cache=True, inline="always")(_relu_grad)


@njit(cache=True, nogil=True)
def _relu_loop(out, x):
    for i in range(out.size):
        out[i] = relu_scalar(x[i])


@njit(cache=True, nogil=True)
def _relu_grad_loop(out, g, x):
    for i in range(out.size):
        out[i] = relu_grad_scalar(g[i], x[i])


@njit(cache=True, nogil=True)
def add_bias_then_relu(rows, b):
    """rows[r, c] = relu(rows[r, c] + b[c]) in place: a fused plan's bias add and Relu
    after a convolution (runtime/fusion.py), with their roundings (the add in the rows'
    dtype, then Relu's formula)."""
    for r in range(rows.shape[0]):
        for c in range(rows.shape[1]):
            rows[r, c] = relu_scalar(rows[r, c] + b[c])
    return rows


def _splittable(x):
    return (x.dtype in _NUMBA_FLOATS and x.flags.c_contiguous and worth_splitting(x.size))


def _in_halves(loop, *arrays):
    out = np.empty_like(arrays[0])
    flat_out = out.reshape(-1)
    flat = [a.reshape(-1) for a in arrays]
    split_rows(lambda lo, hi: loop(flat_out[lo:hi], *[a[lo:hi] for a in flat]),
               flat_out.size, flat_out.size)
    return out


def leaky_relu(x, alpha):
    return _leaky_relu_ufunc(x, np.asarray(alpha, dtype=x.dtype))


def leaky_relu_grad(g, x, alpha):
    return _leaky_relu_grad_ufunc(g, x, np.asarray(alpha, dtype=x.dtype))
