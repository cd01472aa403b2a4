"""`tf.count_up_to(ref, limit)` (TF's CountUpTo): the counter behind `num_epochs`.

Each run returns the variable's value and adds one to it; once the value has reached
`limit` the op fails with OutOfRangeError "Reached limit of <limit>" instead — which is
how an input producer with `num_epochs` ends its epochs (train/input.py: limit_epochs).
Runner threads run it concurrently, so the read-and-increment happens under a lock, as
TF's kernel holds the variable's mutex.
"""
import threading

import numpy as np

from tfteach.framework import tensor_shape
from tfteach.framework.errors import OutOfRangeError
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.kernels.cpu.state_kernels import variable_ref_of
from tfteach.ops.op_builder import apply_op
from tfteach.ops.state_ops import _ref_tensor

__all__ = ["count_up_to"]

_LOCK = threading.Lock()


def _count_up_to_kernel(ctx, ref):
    ref = variable_ref_of(ctx, ref)
    limit = ctx.attrs["limit"]
    with _LOCK:
        old = ref.deref()
        if old >= limit:
            raise OutOfRangeError(None, None, "Reached limit of %d" % limit)
        ref.store_value(np.asarray(old + 1, dtype=old.dtype), owned=True)
        return np.array(old, dtype=old.dtype)


def _count_up_to_shape(op):
    ref = op._inputs[0]
    ref.shape.merge_with(tensor_shape.TensorShape([]))   # TF: the counter is a scalar
    return [(ref.dtype.base_dtype, tensor_shape.TensorShape([]))]


register_op("CountUpTo", _count_up_to_shape, cpu=_count_up_to_kernel, stateful=True,
            ref_inputs=(0,))
not_differentiable("CountUpTo")


def count_up_to(ref, limit, name=None):
    """The op returning `ref`'s value and incrementing it, until it reaches `limit`."""
    ref = _ref_tensor(ref, "CountUpTo")
    with name_scope(name, "CountUpTo", [ref]) as scope:
        return apply_op("CountUpTo", [ref], {"T": ref.dtype.base_dtype, "limit": int(limit)},
                        scope)
