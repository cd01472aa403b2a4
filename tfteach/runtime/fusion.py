"""The executor's one fusion: a weight gradient computed inside its gradient-descent update.

In a training step the gradient of a weight matrix is a `MatMul` (x^T @ dy) whose output
goes to exactly one place: `ApplyGradientDescent`, sometimes through the `Identity` ops
that `tf.gradients` inserts to gate a gradient tuple. Run as written, the MatMul makes a
gradient as large as the weights and the update reads it back. When the fast loop's plan
shows that pattern, the MatMul hands on a DeferredProduct instead (after its usual
checks, at its usual place) and the update writes `w - lr * (x^T @ dy)` with one GEMM
(kernels/cpu/gemm_update.py): the MNIST MLP's step loses a quarter of a millisecond,
LeNet's fc1 update 3.5 ms (docs/training.md).

Grappler rewrites graphs the same way (its remapper fuses MatMul + BiasAdd + Relu): the
graph is unchanged, only how the CPU runs it. What a student can observe stays as it
was: values (up to float rounding inside the GEMM), errors (the MatMul still checks its
shapes and names itself; a mismatched update computes the product and raises TF's
error), and the traced run — RunOptions(trace_level=FULL_TRACE), the notebook's views —
which runs the unfused steps one op at a time. Not fused: a product that is fetched, read
by any other op, or on a GPU (plans that account device memory keep their steps).
"""
import copy
from collections import Counter

from tfteach.kernels.cpu.linalg import deferred_matmul_kernel, matmul_kernel
from tfteach.kernels.cpu.training_kernels import apply_gradient_descent_kernel

__all__ = ["defer_products_into_updates"]


def defer_products_into_updates(steps, fetch_slots):
    """`steps` (the fast loop's) with each MatMul that only feeds a gradient-descent
    update replaced by a copy that defers its product; the other steps are unchanged."""
    readers = Counter(s for step in steps for s in step.in_slots)
    readers.update(fetch_slots)                 # a fetched value is read by the client
    producer = {step.single_out: step for step in steps
                if step.single_out is not None and step.source is None}
    deferred = {}
    for step in steps:
        if step.kernel is not apply_gradient_descent_kernel or step.alloc is not None:
            continue
        source = _product_feeding(step.in_slots[2], readers, producer)
        if source is not None:
            fused = copy.copy(source)            # the traced loop keeps the original
            fused.kernel = deferred_matmul_kernel
            deferred[source] = fused
    return [deferred.get(step, step) for step in steps]


def _product_feeding(slot, readers, producer):
    """The CPU MatMul step whose output reaches `slot` through Identity ops only, each
    value on the way read once (by the next); None when there is no such step."""
    while readers[slot] == 1:
        source = producer.get(slot)
        if source is None or source.alloc is not None:
            return None
        if source.kernel is matmul_kernel:
            return source
        if source.type != "Identity":
            return None
        slot = source.in_slots[0]
    return None
