"""The queue ops (TF's op types, attrs and kernels): `FIFOQueueV2`,
`RandomShuffleQueueV2`, `PaddingFIFOQueueV2`, `PriorityQueueV2` create a queue in the
Session that runs them (runtime/session_resources.py) and output its `resource` handle;
`QueueEnqueueV2`, `QueueEnqueueManyV2`, `QueueDequeueV2`, `QueueDequeueManyV2`,
`QueueDequeueUpToV2`, `QueueCloseV2`, `QueueSizeV2`, `QueueIsClosedV2` take the handle
and call the queue (kernels/cpu/queues.py), waiting there as long as it takes. The
Python classes that build them are in data_flow_ops.py; docs/queues.md.
"""
import numpy as np

from tfteach.framework import dtypes as dtypes_lib, tensor_shape
from tfteach.framework.errors import InvalidArgumentError
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.kernels.cpu import queues
from tfteach.runtime.placement import register_cpu_only
from tfteach.runtime.session_resources import creating_kernel

__all__ = []

_SCALAR = tensor_shape.TensorShape([])


# -- the queue ops: creation ---------------------------------------------------------------
def _attr_shapes(op):
    """The `shapes` attr as tuples (-1 for an unknown dim), or None when empty."""
    shapes = op._attrs.get("shapes") or []
    if not shapes:
        return None
    return [tuple(-1 if d is None else d for d in s.as_list()) for s in shapes]


def _handle_shape(op):
    return [(dtypes_lib.resource, _SCALAR)]


def _make_fifo(name, op):
    return queues.FIFOQueue(name, op._attrs["capacity"], op._attrs["component_types"],
                            _attr_shapes(op))


def _make_padding(name, op):
    return queues.PaddingFIFOQueue(name, op._attrs["capacity"],
                                   op._attrs["component_types"], _attr_shapes(op))


def _make_shuffle(name, op):
    a = op._attrs
    return queues.RandomShuffleQueue(name, a["capacity"], a["min_after_dequeue"],
                                     a["component_types"], _attr_shapes(op), a["seed"],
                                     a["seed2"])


def _make_priority(name, op):
    shapes = [()] + (_attr_shapes(op) or [])
    return queues.PriorityQueue(name, op._attrs["capacity"],
                                [dtypes_lib.int64] + list(op._attrs["component_types"]),
                                shapes)


for _type, _make in (("FIFOQueueV2", _make_fifo), ("PaddingFIFOQueueV2", _make_padding),
                     ("RandomShuffleQueueV2", _make_shuffle),
                     ("PriorityQueueV2", _make_priority)):
    register_op(_type, _handle_shape, cpu=creating_kernel(_make), stateful=True)
    not_differentiable(_type)


# -- the queue ops: using a queue ----------------------------------------------------------
def _as_array(value, dtype):
    return np.asarray(value, dtype=dtype.np)


def _enqueue_kernel(ctx, queue, *components):
    element = tuple(_as_array(v, d) for v, d in zip(components, queue.dtypes))
    queue.check_element(element)
    queue.enqueue_many([element])


def _enqueue_many_kernel(ctx, queue, *components):
    values = [_as_array(v, d) for v, d in zip(components, queue.dtypes)]
    if any(v.ndim == 0 for v in values):
        raise InvalidArgumentError(None, None, "Input tensor must have rank at least 1 "
                                   "(enqueue_many slices it along dimension 0)")
    batch = values[0].shape[0]
    for i, v in enumerate(values):
        if v.shape[0] != batch:
            raise InvalidArgumentError(
                None, None, "All input tensors must have the same size in the 0th "
                "dimension. Component %d has %d, and should have %d" % (i, v.shape[0], batch))
    if queue.shapes is not None:
        for i, (v, shape) in enumerate(zip(values, queue.shapes)):
            expected = (batch,) + shape
            if v.shape != expected and (len(v.shape) != len(expected) or any(
                    e >= 0 and e != g for e, g in zip(expected, v.shape))):
                raise InvalidArgumentError(
                    None, None, "Shape mismatch in tuple component %d. Expected %s, got %s"
                    % (i, queues._shape_text(expected), queues._shape_text(v.shape)))
    queue.enqueue_many([tuple(v[j] for v in values) for j in range(batch)])


def _dequeue_kernel(ctx, queue):
    element = queue.dequeue_many(1)[0]
    return element if len(element) > 1 else element[0]


def _dequeue_many_kernel(up_to):
    def kernel(ctx, queue, n):
        n = int(n)
        if n < 0:
            raise InvalidArgumentError(None, None, "Request to dequeue %d elements; "
                                       "it must be at least 0" % n)
        if queue.shapes is None or (queue.kind != "PaddingFIFOQueue" and any(
                d < 0 for s in queue.shapes for d in s)):
            raise InvalidArgumentError(None, None, "%s's DequeueMany and DequeueUpTo require "
                                       "the components to have specified shapes."
                                       % queue.kind)
        batch = queue.stack(queue.dequeue_many(n, up_to=up_to))
        return tuple(batch) if len(batch) > 1 else batch[0]
    return kernel


def _close_kernel(ctx, queue):
    queue.close(ctx.attrs["cancel_pending_enqueues"])


def _size_kernel(ctx, queue):
    return np.int32(queue.size())


def _is_closed_kernel(ctx, queue):
    return np.bool_(queue.is_closed())


def _no_outputs(op):
    return []


def _component_outputs(op):
    return [(d, tensor_shape.unknown_shape()) for d in op._attrs["component_types"]]


register_op("QueueEnqueueV2", _no_outputs, cpu=_enqueue_kernel, stateful=True)
register_op("QueueEnqueueManyV2", _no_outputs, cpu=_enqueue_many_kernel, stateful=True)
register_op("QueueDequeueV2", _component_outputs, cpu=_dequeue_kernel, stateful=True)
register_op("QueueDequeueManyV2", _component_outputs, cpu=_dequeue_many_kernel(False),
            stateful=True)
register_op("QueueDequeueUpToV2", _component_outputs, cpu=_dequeue_many_kernel(True),
            stateful=True)
register_op("QueueCloseV2", _no_outputs, cpu=_close_kernel, stateful=True)
register_op("QueueSizeV2", lambda op: [(dtypes_lib.int32, _SCALAR)], cpu=_size_kernel,
            stateful=True)
register_op("QueueIsClosedV2", lambda op: [(dtypes_lib.bool, _SCALAR)],
            cpu=_is_closed_kernel, stateful=True)
for _type in ("QueueEnqueueV2", "QueueEnqueueManyV2", "QueueDequeueV2",
              "QueueDequeueManyV2", "QueueDequeueUpToV2", "QueueCloseV2", "QueueSizeV2",
              "QueueIsClosedV2"):
    not_differentiable(_type)
for _type in ("FIFOQueueV2", "PaddingFIFOQueueV2", "RandomShuffleQueueV2", "PriorityQueueV2",
              "QueueEnqueueV2", "QueueEnqueueManyV2", "QueueDequeueV2", "QueueDequeueManyV2",
              "QueueDequeueUpToV2", "QueueCloseV2", "QueueSizeV2", "QueueIsClosedV2"):
    register_cpu_only(_type)         # queues live in host memory, as in TF
