"""The sums WhileGrad makes: a captured tensor's gradient, added up over the iterations.

The gradient of a tensor a loop body captured (a weight, the input `dynamic_rnn` reads
one time step of) is the sum of every iteration's (runtime/loop_runner.py). The body's
gradient sub-plan hands each iteration's on in the cheapest form to add
(runtime/fusion.py, `defer_summed_products`):

- a plain array: added in place into the running sum;
- a DeferredProduct (x_t^T @ dy_t, a weight's gradient): the operands of all
  iterations are multiplied as one GEMM (`Products`);
- a SegmentRows (the gradient of a gather, TF 1.15's IndexedSlices): only its rows
  that are not zero are added (`Sum.add`), not a zero-filled tensor of the whole input.

Bits: each is the sum the plain arrays would give. The running sum starts at +0.0 (as
`zeros_like` did); a sum that starts at +0.0 is never -0.0 (x + y is -0.0 only when
both are), so adding the +0.0 rows a SegmentRows leaves out changes nothing (NaN and
infinities included), and the first value added is `0 + g` (which turns a -0.0 of g
into +0.0, as before).

The running sums are made from the first value added, not from zeros: a weight's sum
is its GEMM's own output (plus +0.0, in place), and no zero-filled array is made and
added to.
"""
import numpy as np

from tfteach.framework.dead import DEAD
from tfteach.kernels.cpu.index_kernels import SegmentRows
from tfteach.kernels.cpu.two_workers import split_matmul

__all__ = ["Products", "Sum", "accumulate"]


class Products:
    """Products a @ b of several iterations (a captured weight's gradient, x_t^T @ dy_t),
    summed as one GEMM: [a_1 ... a_n] @ [b_1; ...; b_n]. An LSTM's weight gradient is 20
    products with K = 32 (the batch); one product with K = 640 runs at BLAS's full speed
    and replaces the 20 additions too. Measured (bench/nn_steps.py's LSTM, 2 cores): its
    second layer's gradient 3.3 ms -> 2.4 ms, the training step 1.3-3.4 ms less (A/B in
    one process). The sum is rounded differently from 20 separate additions (by float32
    rounding, as TF's own GEMMs are).

    The operands are concatenated when the product is due, not written into work arrays
    as each iteration hands them on: measured (docs/rnn.md, Speed), that was slower, the
    GEMM reading operands written long before (out of the caches) and the copies made
    one small piece at a time."""

    # Operands wait until their inner dimensions add up to this, then are multiplied:
    # enough for a fast GEMM, and a long loop holds only a bounded number of them.
    MAX_INNER = 2048

    def __init__(self):
        self.pending, self.inner = [], 0

    def add(self, deferred):
        """Keeps `deferred`; returns what is ready to be added to the sum now (or None)."""
        if self.pending and (deferred.shape != self.pending[0].shape or
                             deferred.dtype != self.pending[0].dtype):
            return deferred.compute()       # a loop whose shapes change: added alone
        self.pending.append(deferred)
        self.inner += deferred.left.shape[1]
        return self.product() if self.inner >= self.MAX_INNER else None

    def product(self):
        """The sum of the kept products as one array (None if none), and forgets them."""
        if not self.pending:
            return None
        pending, self.pending, self.inner = self.pending, [], 0
        if len(pending) == 1:
            return pending[0].compute()
        left = np.concatenate([p.left for p in pending], axis=1)
        right = np.concatenate([p.right for p in pending], axis=0)
        return split_matmul(left, right)


def accumulate(total, grad):
    """total + grad, the sum of a captured tensor's gradient over the iterations.

    `total` is this kernel's own array (zeros to start), so a gradient of its shape and
    dtype is added in place: a fresh 256x512 float32 sum each iteration cost 56 us
    against 16 (new pages every time), for each weight matrix of an LSTM."""
    if grad is None or grad is DEAD:
        return total
    if isinstance(grad, SegmentRows):
        if grad.shape == total.shape and grad.dtype == total.dtype and total.flags.writeable:
            grad.add_to(total)
            return total
        grad = grad.dense()
    if (isinstance(grad, np.ndarray) and grad.shape == total.shape and
            grad.dtype == total.dtype and total.flags.writeable):
        return np.add(total, grad, out=total)
    return total + grad


class Sum:
    """The running sum of one captured tensor's gradient: `zeros_like(like)` plus every
    value added, made at the first value (see the module's docstring)."""

    __slots__ = ("like", "total")

    def __init__(self, like):
        self.like = np.asarray(like)
        self.total = None

    def add(self, grad, owned=False):
        """Adds `grad` (an array, a SegmentRows, None or DEAD: nothing). `owned`: grad is
        a fresh array no one else holds (a product), which may become the sum itself."""
        if grad is None or grad is DEAD:
            return
        total = self.total
        if total is None:
            like = self.like
            if isinstance(grad, np.ndarray) and grad.shape == like.shape and \
                    grad.dtype == like.dtype:
                # 0 + grad, as zeros_like + grad would be (a -0.0 becomes +0.0).
                self.total = np.add(grad, grad.dtype.type(0), out=grad if owned else None)
                return
            # rows, or a value of another dtype or shape. C order, as a kernel's dense
            # result is, not the layout of `like` (a transposed view for dynamic_rnn's
            # input): what reads the sum (a Reshape) then views or copies it as it
            # would the plain sum, and a GPU's figures count the same tensors.
            total = np.zeros(like.shape, like.dtype)
        self.total = accumulate(total, grad)

    def result(self):
        """The sum, in the captured tensor's dtype."""
        total = np.zeros(self.like.shape, self.like.dtype) if self.total is None \
            else self.total
        return np.asarray(total, dtype=self.like.dtype)
