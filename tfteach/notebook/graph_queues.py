"""Queues and their runner threads in the graph export (the `queues` field).

TF1's input pipelines are the part of the graph students find most opaque: the graph
shows a queue op and some enqueue ops, but not that a QueueRunner runs those enqueue
ops in background threads, nor which dequeue a training step waits on. This module
reads both from the graph — the ops that take a queue's handle, and the QueueRunners
in the QUEUE_RUNNERS collection — so the views can draw "N threads run this enqueue
op into that queue" (graph_dot.py: a runner box with dashed arrows to its enqueue ops,
the queue drawn as a cylinder) and say it in words (graph_outline.py).

One entry per queue op (docs/graph_export.md):
  {"name", "op", "enqueue_ops", "dequeue_ops", "other_ops", "readers",
   "runners": [{"threads": {enqueue op: thread count}, "close_op", "cancel_op"}]}
`readers` are the ReaderRead ops that take their file names from the queue.
"""
__all__ = ["QUEUE_OPS", "export_queues"]

QUEUE_OPS = {"FIFOQueueV2", "RandomShuffleQueueV2", "PaddingFIFOQueueV2",
             "PriorityQueueV2", "FIFOQueue", "RandomShuffleQueue", "PaddingFIFOQueue",
             "PriorityQueue"}
_ENQUEUE = {"QueueEnqueueV2", "QueueEnqueueManyV2", "QueueEnqueue", "QueueEnqueueMany"}
_DEQUEUE = {"QueueDequeueV2", "QueueDequeueManyV2", "QueueDequeueUpToV2", "QueueDequeue",
            "QueueDequeueMany", "QueueDequeueUpTo"}
_READ = {"ReaderReadV2", "ReaderReadUpToV2", "ReaderRead", "ReaderReadUpTo"}


def _runner_entry(qr):
    threads = {}
    for op in qr.enqueue_ops:
        threads[op.name] = threads.get(op.name, 0) + 1
    return {"threads": threads,
            "close_op": getattr(qr.close_op, "name", None),
            "cancel_op": getattr(qr.cancel_op, "name", None)}


def export_queues(graph):
    """The `queues` list of the export of `graph` ([] for a graph without queues)."""
    queues = [op for op in graph.get_operations() if op.type in QUEUE_OPS]
    if not queues:
        return []
    entries = {}
    for q in queues:
        entries[q.name] = {"name": q.name, "op": q.type, "enqueue_ops": [],
                           "dequeue_ops": [], "readers": [], "other_ops": [], "runners": []}
    for op in graph.get_operations():
        for i, t in enumerate(op._inputs):
            entry = entries.get(t.op.name)
            if entry is None:
                continue
            if op.type in _ENQUEUE:
                entry["enqueue_ops"].append(op.name)
            elif op.type in _DEQUEUE:
                entry["dequeue_ops"].append(op.name)
            elif op.type in _READ and i == 1:        # input 1: the filename queue
                entry["readers"].append(op.name)
            else:
                entry["other_ops"].append(op.name)
    for qr in graph.get_collection("queue_runners"):
        queue_op = getattr(getattr(qr.queue, "queue_ref", None), "op", None)
        entry = entries.get(getattr(queue_op, "name", None))
        if entry is not None:
            entry["runners"].append(_runner_entry(qr))
    return list(entries.values())
