"""A QueueRunner as a QueueRunnerDef, for meta graphs (TF's QueueRunner.to_proto /
from_proto): the names of its queue, enqueue ops, close and cancel ops, and the error
codes that mean "the queue is closed". export_meta_graph writes the QUEUE_RUNNERS
collection with it and import_meta_graph rebuilds the runners
(framework/meta_graph.py), so a meta graph's input pipeline restarts with
`tf.train.start_queue_runners` in either TensorFlow or tfteach."""
from tfteach.io.queue_runner_protos import QueueRunnerDef

__all__ = ["to_proto", "from_proto", "QueueRunnerDef"]


def _strip(name, export_scope):
    if export_scope and name.startswith(export_scope + "/"):
        return name[len(export_scope) + 1:]
    return name


def to_proto(qr, export_scope=None):
    """The QueueRunnerDef of `qr`; None if its queue is outside `export_scope`."""
    queue_name = qr.queue.name
    if export_scope and not queue_name.startswith(export_scope + "/"):
        return None
    return QueueRunnerDef(
        queue_name=_strip(queue_name, export_scope),
        enqueue_op_name=[_strip(op.name, export_scope) for op in qr.enqueue_ops],
        close_op_name=_strip(qr.close_op.name, export_scope),
        cancel_op_name=_strip(qr.cancel_op.name, export_scope),
        queue_closed_exception_types=[t.error_code for t in
                                      qr.queue_closed_exception_types])


class _ImportedQueue:
    """What a QueueRunner needs of its queue when rebuilt from a QueueRunnerDef: TF
    keeps only the queue op's output tensor (`qr.queue` is that Tensor)."""

    def __init__(self, tensor):
        self.queue_ref = tensor
        self.name = tensor.op.name


def from_proto(proto, graph, import_scope=None):
    """(queue, enqueue ops, close op, cancel op, error codes) named by `proto` in
    `graph` (under `import_scope`)."""
    if isinstance(proto, bytes):
        proto = QueueRunnerDef.FromString(proto)
    prefix = import_scope + "/" if import_scope else ""
    queue = _ImportedQueue(graph.as_graph_element(prefix + proto.queue_name + ":0"))
    enqueue_ops = [graph.as_graph_element(prefix + n) for n in proto.enqueue_op_name]
    close_op = graph.as_graph_element(prefix + proto.close_op_name)
    cancel_op = graph.as_graph_element(prefix + proto.cancel_op_name)
    return queue, enqueue_ops, close_op, cancel_op, list(proto.queue_closed_exception_types)
