"""Queues in the graph: `tf.FIFOQueue`, `RandomShuffleQueue`, `PaddingFIFOQueue`,
`PriorityQueue` and their ops (TF 1.15's data_flow_ops.py).

A queue is two things, as in TensorFlow: a graph op (`FIFOQueueV2`) whose output is a
`resource` handle, and the queue itself, which lives in each Session that runs that op
(kernels/cpu/queues.py; runtime/session_resources.py). The ops that use it take the
handle as their first input: `QueueEnqueueV2`, `QueueEnqueueManyV2`, `QueueDequeueV2`,
`QueueDequeueManyV2`, `QueueDequeueUpToV2`, `QueueCloseV2`, `QueueSizeV2`,
`QueueIsClosedV2` — TF's op types, attrs and node names (`fifo_queue_enqueue`,
`fifo_queue_Dequeue`, ...), so `%%tfgraph` shows the graph TensorBoard shows and a
GraphDef crosses to TensorFlow. The ops and kernels are registered in queue_ops.py;
docs/queues.md tells the whole story.
"""
from tfteach.framework import convert, dtypes as dtypes_lib, tensor_shape
from tfteach.framework.graph_functions import name_scope
from tfteach.ops import queue_ops  # noqa: F401 - registers the queue ops
from tfteach.ops.op_builder import apply_op, constant_value

__all__ = ["QueueBase", "FIFOQueue", "RandomShuffleQueue", "PaddingFIFOQueue",
           "PriorityQueue"]

# -- arguments, as TF's Python checks them -------------------------------------------------
def _as_type_list(dtypes):
    if isinstance(dtypes, (list, tuple)):
        return [dtypes_lib.as_dtype(d) for d in dtypes]
    return [dtypes_lib.as_dtype(dtypes)]


def _as_shape_list(shapes, unknown_dim_allowed=False, unknown_rank_allowed=False):
    if shapes is None:
        return None
    if isinstance(shapes, tensor_shape.TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (tuple, list)):
        raise TypeError("Shapes must be a TensorShape or a list or tuple of TensorShapes, "
                        "got %s instead." % type(shapes))
    if all(s is None or isinstance(s, int) for s in shapes):
        shapes = [shapes]                 # one shape: [2, 3] (so [] is one scalar)
    shapes = [tensor_shape.as_shape(s) for s in shapes]
    if not unknown_dim_allowed and any(not s.is_fully_defined() for s in shapes):
        raise ValueError("All shapes must be fully defined: %s" % shapes)
    if not unknown_rank_allowed and any(s.ndims is None for s in shapes):
        raise ValueError("All shapes must have a defined rank: %s" % shapes)
    return shapes


def _as_name_list(names, dtypes):
    if names is None:
        return None
    if not isinstance(names, (list, tuple)):
        names = [names]
    if len(names) != len(dtypes):
        raise ValueError("List of names must have the same length as the list of dtypes")
    return list(names)


def _queue_attrs(dtypes, shapes, capacity, shared_name):
    return {"component_types": dtypes, "shapes": shapes or [], "capacity": int(capacity),
            "container": "", "shared_name": shared_name or ""}


# -- the Python classes --------------------------------------------------------------------
class QueueBase:
    """What every queue offers (TF's `tf.QueueBase`): enqueue and dequeue ops on the
    queue behind `queue_ref`."""

    def __init__(self, dtypes, shapes, names, queue_ref):
        self._dtypes = dtypes
        if shapes is not None:
            if len(shapes) != len(dtypes):
                raise ValueError("Queue shapes must have the same length as dtypes, "
                                 "received len(shapes)=%d, len(dtypes)=%d"
                                 % (len(shapes), len(dtypes)))
            self._shapes = [tensor_shape.TensorShape(s) for s in shapes]
        else:
            self._shapes = [tensor_shape.unknown_shape() for _ in dtypes]
        if names is not None:
            if len(names) != len(dtypes):
                raise ValueError("Queue names must have the same length as dtypes,"
                                 "received len(names)=%d,len %d" % (len(names), len(dtypes)))
            self._names = names
        else:
            self._names = None
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name.split("/")[-1]

    @property
    def queue_ref(self):
        return self._queue_ref

    @property
    def name(self):
        return self._queue_ref.op.name

    @property
    def dtypes(self):
        return self._dtypes

    @property
    def shapes(self):
        return self._shapes

    @property
    def names(self):
        return self._names

    def _check_enqueue_dtypes(self, vals):
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError("Keys in dictionary to enqueue do not match names of Queue. "
                                 " Dictionary: %s,Queue: %s" % (sorted(vals.keys()),
                                                                sorted(self._names)))
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        return [convert.convert_to_tensor(v, dtype=d, name="component_%d" % i)
                for i, (v, d) in enumerate(zip(vals, self._dtypes))]

    @staticmethod
    def _scope_vals(vals):
        if isinstance(vals, (list, tuple)):
            return vals
        if isinstance(vals, dict):
            return list(vals.values())
        return [vals]

    def enqueue(self, vals, name=None):
        """The op that adds one element (blocks while the queue is full)."""
        with name_scope(name, "%s_enqueue" % self._name, self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            for val, shape in zip(vals, self._shapes):
                val.shape.assert_is_compatible_with(shape)
            return apply_op("QueueEnqueueV2", [self._queue_ref] + vals,
                            {"Tcomponents": [v.dtype.base_dtype for v in vals],
                             "timeout_ms": -1}, scope)

    def enqueue_many(self, vals, name=None):
        """The op that adds the slices of `vals` along dimension 0, one element each."""
        with name_scope(name, "%s_EnqueueMany" % self._name,
                        self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            batch_dim = vals[0].shape.with_rank_at_least(1)[0]
            for val, shape in zip(vals, self._shapes):
                batch_dim = batch_dim.merge_with(val.shape.with_rank_at_least(1)[0])
                val.shape[1:].assert_is_compatible_with(shape)
            return apply_op("QueueEnqueueManyV2", [self._queue_ref] + vals,
                            {"Tcomponents": [v.dtype.base_dtype for v in vals],
                             "timeout_ms": -1}, scope)

    def _dequeue_return_value(self, tensors):
        if self._names:
            return {n: tensors[i] for i, n in enumerate(self._names)}
        if len(tensors) == 1:
            return tensors[0]
        return tensors

    def _outputs(self, op_type, inputs, name):
        out = apply_op(op_type, [self._queue_ref] + inputs,
                       {"component_types": list(self._dtypes), "timeout_ms": -1},
                       name)
        return out if isinstance(out, list) else [out]

    def dequeue(self, name=None):
        """The op that takes one element (blocks while the queue is empty)."""
        ret = self._outputs("QueueDequeueV2", [], name or "%s_Dequeue" % self._name)
        for t, shape in zip(ret, self._shapes):
            t.set_shape(shape)
        return self._dequeue_return_value(ret)

    def dequeue_many(self, n, name=None):
        """The op that takes `n` elements, stacked along a new dimension 0."""
        name = name or "%s_DequeueMany" % self._name
        n = convert.convert_to_tensor(n, dtype=dtypes_lib.int32, name="n") \
            if not hasattr(n, "op") else n
        ret = self._outputs("QueueDequeueManyV2", [n], name)
        value = constant_value(n)
        batch = tensor_shape.TensorShape([None if value is None else int(value)])
        for t, shape in zip(ret, self._shapes):
            t.set_shape(batch.concatenate(shape))
        return self._dequeue_return_value(ret)

    def dequeue_up_to(self, n, name=None):
        """Like dequeue_many, but once the queue is closed it takes what is left."""
        name = name or "%s_DequeueUpTo" % self._name
        n = convert.convert_to_tensor(n, dtype=dtypes_lib.int32, name="n") \
            if not hasattr(n, "op") else n
        ret = self._outputs("QueueDequeueUpToV2", [n], name)
        for t, shape in zip(ret, self._shapes):
            t.set_shape(tensor_shape.TensorShape([None]).concatenate(shape))
        return self._dequeue_return_value(ret)

    def close(self, cancel_pending_enqueues=False, name=None):
        """The op that closes the queue: no more enqueues; dequeues drain what is left."""
        return apply_op("QueueCloseV2", [self._queue_ref],
                        {"cancel_pending_enqueues": bool(cancel_pending_enqueues)},
                        name or "%s_Close" % self._name)

    def is_closed(self, name=None):
        return apply_op("QueueIsClosedV2", [self._queue_ref], {},
                        name or "%s_Is_Closed" % self._name)

    def size(self, name=None):
        return apply_op("QueueSizeV2", [self._queue_ref], {}, name or "%s_Size" % self._name)


def _queue_op(op_type, attrs, name, default):
    return apply_op(op_type, [], attrs, name or default)


class FIFOQueue(QueueBase):
    """`tf.FIFOQueue(capacity, dtypes, shapes=None, names=None, shared_name=None,
    name="fifo_queue")`: elements leave in the order they came."""

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None,
                 name="fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes)
        names = _as_name_list(names, dtypes)
        ref = _queue_op("FIFOQueueV2", _queue_attrs(dtypes, shapes, capacity, shared_name),
                        name, "fifo_queue")
        super().__init__(dtypes, shapes, names, ref)


class PaddingFIFOQueue(QueueBase):
    """A FIFOQueue whose shapes may have None dims; dequeue_many pads to the longest."""

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None,
                 name="padding_fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, unknown_dim_allowed=True)
        names = _as_name_list(names, dtypes)
        if len(dtypes) != len(shapes):
            raise ValueError("Shapes must be provided for all components, but received "
                             "%d dtypes and %d shapes." % (len(dtypes), len(shapes)))
        ref = _queue_op("PaddingFIFOQueueV2",
                        _queue_attrs(dtypes, shapes, capacity, shared_name),
                        name, "padding_fifo_queue")
        super().__init__(dtypes, shapes, names, ref)


class RandomShuffleQueue(QueueBase):
    """Dequeues random elements, keeping `min_after_dequeue` behind until closed."""

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None,
                 seed=None, shared_name=None, name="random_shuffle_queue"):
        from tfteach.ops import random_ops
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes)
        names = _as_name_list(names, dtypes)
        seed1, seed2 = random_ops.get_seed(seed)
        attrs = _queue_attrs(dtypes, shapes, capacity, shared_name)
        attrs.update({"min_after_dequeue": int(min_after_dequeue), "seed": seed1 or 0,
                      "seed2": seed2 or 0})
        ref = _queue_op("RandomShuffleQueueV2", attrs, name, "random_shuffle_queue")
        super().__init__(dtypes, shapes, names, ref)


class PriorityQueue(QueueBase):
    """Dequeues the element with the smallest priority first. Each element is
    (priority: int64 scalar, *components); `shapes` are required."""

    def __init__(self, capacity, types, shapes=None, names=None, shared_name=None,
                 name="priority_queue"):
        types = _as_type_list(types)
        shapes = _as_shape_list(shapes)
        ref = _queue_op("PriorityQueueV2", _queue_attrs(types, shapes, capacity, shared_name),
                        name, "priority_queue")
        priority_dtypes = [dtypes_lib.int64] + types
        priority_shapes = [()] + shapes if shapes else shapes
        super().__init__(priority_dtypes, priority_shapes, names, ref)
