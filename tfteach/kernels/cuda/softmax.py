"""CUDA kernels of `Softmax` and the fused `SoftmaxCrossEntropyWithLogits`.
CPU twin: kernels/cpu/nn_kernels.py (`_softmax_rows`, `_softmax_xent_rows`).

One thread handles one row of a [batch, classes] matrix and does the CPU twin's steps,
which keep `exp` from overflowing: softmax(x) = softmax(x - max(x)), so with
shifted = x - max(x) every exp(shifted) is at most 1, and
    log(sum(exp(x))) = max(x) + log(sum(exp(shifted))).
The cross entropy is fused (one kernel gives the loss and its gradient, as TF's):
    loss     = sum(labels * (log(s) - shifted))        s = sum(exp(shifted))
    backprop = exp(shifted) / s - labels               (= d loss / d logits)
The sums are float64 and the results rounded once to the row's dtype, as on the CPU.

A thread per row is the simple choice for classifiers (a few to a few thousand classes
per row, many rows); a block per row with a shared-memory reduction (reduce.py) would
be the next step for very wide rows.
"""
import math

import numpy as np
from numba import cuda

from tfteach.framework.errors import InvalidArgumentError
from tfteach.kernels.cpu.cwise import shape_string
from tfteach.kernels.cpu.nn_kernels import check_sparse_xent_inputs
from tfteach.kernels.cuda import launch

__all__ = ["softmax_kernel", "xent_kernel", "sparse_xent_kernel", "softmax", "softmax_xent",
           "sparse_softmax_xent"]


@cuda.jit(device=True, cache=True)
def _row_max(x, i):
    m = x[i, 0]
    for j in range(1, x.shape[1]):
        if x[i, j] > m:
            m = x[i, j]
    return m


@cuda.jit(device=True, cache=True)
def _exp_sum(x, i, m):
    total = 0.0
    for j in range(x.shape[1]):
        total += math.exp(float(x[i, j] - m))
    return total


@cuda.jit(cache=True)
def softmax_kernel(out, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        m = _row_max(x, i)
        total = _exp_sum(x, i, m)
        for j in range(x.shape[1]):
            out[i, j] = math.exp(float(x[i, j] - m)) / total


@cuda.jit(cache=True)
def xent_kernel(loss, backprop, logits, labels, label_row_stride, label_col_stride):
    """Labels are read at labels[i * row_stride + j * col_stride] (flat): a stride of 0
    broadcasts a single row (or column) of labels, as TF 1.15 allows."""
    i = cuda.grid(1)
    if i < logits.shape[0]:
        m = _row_max(logits, i)
        total = _exp_sum(logits, i, m)
        log_total = math.log(total)
        row_loss = 0.0
        for j in range(logits.shape[1]):
            shifted = float(logits[i, j] - m)
            label = labels[i * label_row_stride + j * label_col_stride]
            row_loss += label * (log_total - shifted)
            backprop[i, j] = math.exp(shifted) / total - label
        loss[i] = row_loss


@cuda.jit(cache=True)
def sparse_xent_kernel(loss, backprop, logits, labels):
    """The same with class indices for labels (a one-hot row, never built):
    loss = log(s) - shifted[label]; backprop = exp(shifted) / s - onehot(label)."""
    i = cuda.grid(1)
    if i < logits.shape[0]:
        m = _row_max(logits, i)
        total = _exp_sum(logits, i, m)
        label = labels[i]
        loss[i] = math.log(total) - float(logits[i, label] - m)
        for j in range(logits.shape[1]):
            backprop[i, j] = math.exp(float(logits[i, j] - m)) / total - (1.0 if j == label
                                                                           else 0.0)


def softmax(ctx, logits):
    """TF's `Softmax` over the last axis, any rank >= 1."""
    logits = launch.on_device(logits)
    launch.check_float(ctx, logits)
    if logits.ndim < 1:
        raise InvalidArgumentError(None, ctx.op, "logits must have >= 1 dimension, got %s"
                                   % shape_string(logits))
    out = launch.empty(logits.shape, logits.dtype)
    classes = tuple(logits.shape)[-1]   # (the simulator's shapes refuse index -1)
    if logits.size:
        rows = logits.size // classes
        softmax_kernel[launch.blocks_for(rows), launch.THREADS](
            out.reshape(rows, classes), logits.reshape(rows, classes))
    return out


def softmax_xent(ctx, logits, labels):
    """(loss [batch], backprop [batch, classes]) of TF's SoftmaxCrossEntropyWithLogits."""
    logits, labels = launch.on_device(logits), launch.on_device(labels)
    launch.check_float(ctx, logits, labels)
    try:
        shape = np.broadcast_shapes(logits.shape, labels.shape)
    except ValueError:
        raise InvalidArgumentError(
            None, ctx.op, "logits and labels must be broadcastable: logits_size=%s "
            "labels_size=%s" % (shape_string(logits), shape_string(labels))) from None
    if len(shape) != 2 or logits.shape != shape:
        raise InvalidArgumentError(None, ctx.op, "logits and labels must be either "
                                   "2-dimensional, or broadcasted to be 2-dimensional")
    batch, classes = shape
    loss = launch.empty((batch,), logits.dtype)
    backprop = launch.empty(shape, logits.dtype)
    if batch and not classes:                     # no class: loss 0, as on the CPU
        return launch.on_device(np.zeros(batch, logits.dtype)), backprop
    if batch:
        full = (1,) * (2 - labels.ndim) + tuple(labels.shape)
        row_stride = 0 if full[0] == 1 else full[1]
        col_stride = 0 if full[1] == 1 else 1
        flat = labels.reshape(labels.size) if labels.ndim != 1 else labels
        xent_kernel[launch.blocks_for(batch), launch.THREADS](
            loss, backprop, logits, flat, row_stride, col_stride)
    return loss, backprop


def sparse_softmax_xent(ctx, logits, labels):
    """(loss [batch], backprop [batch, classes]) for class-index labels (int32 / int64)."""
    logits = launch.on_device(logits)
    launch.check_float(ctx, logits)
    labels = launch.on_host(labels)               # read on the host to check the range
    if labels.dtype.kind not in "iu":
        raise InvalidArgumentError(None, ctx.op, "labels must be 1-D, but got shape %s"
                                   % shape_string(labels))
    # On a GPU an out-of-range label would read outside its row: the CPU's checks first.
    batch, classes = check_sparse_xent_inputs(ctx, logits, labels)
    loss = launch.empty((batch,), logits.dtype)
    backprop = launch.empty((batch, classes), logits.dtype)
    if batch:
        sparse_xent_kernel[launch.blocks_for(batch), launch.THREADS](
            loss, backprop, logits, launch.on_device(labels.astype(np.int64)))
    return loss, backprop
