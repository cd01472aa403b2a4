"""The summary-writer ops of `tf.contrib.summary` in a graph: TF 1.15's op types.

`SummaryWriter` makes the writer's resource handle (its `shared_name`, by default
`logdir:<logdir>`); `CreateSummaryFileWriter` (the op `summary_writer_initializer_op()`
collects) creates the writer in the running Session's resources, once: a later run, or
another writer op of the same shared name, finds the one made. The writer ops
(`WriteScalarSummary`, `WriteHistogramSummary`, `WriteImageSummary`,
`WriteAudioSummary`, `WriteSummary`, `WriteGraphSummary`, `ImportEvent`) each append one
Event to it, with the step they are given; `FlushSummaryWriter` and
`CloseSummaryWriter` flush and close it. A write before the initializer ran is TF's
NotFoundError. The values are those of the TF 1 summary ops (summary_ops.py): the same
simple_value, histogram buckets, PNGs and WAVs. The writer is a TF 1 `FileWriter`
(writer.py), so the event file is TensorBoard's format; it is closed with the Session.
"""
import time
import types

import numpy as np

from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.errors import InvalidArgumentError, NotFoundError
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.framework.tensor_proto import tensor_content_proto
from tfteach.io.tf_protos import Event, Summary
from tfteach.summary import summary_ops

__all__ = ["WriterHandle", "WriterResource", "WRITER_OPS"]


class WriterHandle:
    """What a `SummaryWriter` op outputs: the name of a writer in a Session."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "<summary writer handle %r>" % self.name


class WriterResource:
    """A file writer and what the write ops do to it; a Session's resource in a graph
    (closed with the Session: `cancel`), the writer itself when executing eagerly."""

    def __init__(self, logdir, max_queue, flush_millis, filename_suffix):
        from tfteach.summary.writer import FileWriter
        self.file_writer = FileWriter(logdir, max_queue=int(max_queue),
                                      flush_secs=float(flush_millis) / 1000.0,
                                      filename_suffix=filename_suffix)

    def add_summary(self, step, serialized_summary):
        self.add_event(Event(step=int(step), wall_time=time.time(),
                             summary=Summary.FromString(serialized_summary)))

    def add_event(self, event):
        self.file_writer.add_event(event)

    def flush(self):
        self.file_writer.flush()

    def close(self):
        self.file_writer.close()

    cancel = close              # the Session closes: its writers are flushed and closed


# TF's ResourceMgr names a resource's type by its C++ type name in its errors.
_TYPE_NAME = "N10tensorflow22SummaryWriterInterfaceE"


_text = summary_ops._text


def _not_found(ctx, handle):
    return NotFoundError(None, ctx.op, "Resource localhost/%s/%s does not exist."
                         % (handle.name, _TYPE_NAME))


def _writer(ctx, handle):
    writer = ctx.session.resources.lookup(handle.name)
    if writer is None:
        raise _not_found(ctx, handle)
    return writer


def _step(step):
    return int(np.asarray(step))


def _handle_kernel(ctx):
    return WriterHandle(ctx.attrs["shared_name"] or ctx.op.name)


def _create_kernel(ctx, handle, logdir, max_queue, flush_millis, filename_suffix):
    ctx.session.resources.lookup_or_create(
        ctx.op, handle.name, lambda name: WriterResource(
            _text(logdir), int(np.asarray(max_queue)), int(np.asarray(flush_millis)),
            _text(filename_suffix)))


def _summary_writing(make_summary):
    """A write op's kernel: `make_summary(ctx, *values)` gives the serialized Summary
    (the TF 1 summary op's kernel on the same values)."""
    def kernel(ctx, handle, step, *values):
        writer = _writer(ctx, handle)
        writer.add_summary(_step(step), make_summary(ctx, *values))
    return kernel


def _scalar(ctx, tag, value):
    value = np.asarray(value)
    if value.size == 0:          # TF reads the first element (out of range: an error)
        raise InvalidArgumentError(None, ctx.op, "tensor is empty")
    summary = Summary()
    summary.value.add(tag=_text(tag), simple_value=float(value.ravel()[0]))
    return summary.SerializeToString()


def _histogram(ctx, tag, values):
    return summary_ops._histogram_kernel(ctx, tag, values).item()


def _image(ctx, tag, tensor, bad_color):
    shim = types.SimpleNamespace(op=ctx.op, attrs={
        "max_images": ctx.attrs["max_images"], "bad_color": np.asarray(bad_color, np.uint8)})
    return summary_ops._image_kernel(shim, tag, tensor).item()


def _audio(ctx, tag, tensor, sample_rate):
    shim = types.SimpleNamespace(op=ctx.op, attrs={"max_outputs": ctx.attrs["max_outputs"]})
    return summary_ops._audio_kernel(shim, tag, tensor, sample_rate).item()


def _write_tensor_kernel(ctx, handle, step, tensor, tag, serialized_metadata):
    summary = Summary()
    value = summary.value.add(tag=_text(tag))
    value.metadata.ParseFromString(summary_ops._as_bytes(serialized_metadata))
    # In a graph the input's dtype (a float32 tensor stays float32 whatever NumPy made);
    # eagerly (no op) the value's own.
    dtype = ctx.op.inputs[2].dtype.base_dtype if ctx.op is not None else None
    value.tensor.CopyFrom(tensor_content_proto(np.asarray(tensor), dtype=dtype))
    _writer(ctx, handle).add_event(Event(step=_step(step), wall_time=time.time(),
                                         summary=summary))


def _write_graph_kernel(ctx, handle, step, graph_def):
    _writer(ctx, handle).add_event(Event(step=_step(step), wall_time=time.time(),
                                         graph_def=summary_ops._as_bytes(graph_def)))


def _import_event_kernel(ctx, handle, event):
    writer = _writer(ctx, handle)
    for serialized in np.asarray(event, dtype=object).ravel():
        try:
            parsed = Event.FromString(summary_ops._as_bytes(serialized))
        except Exception:  # noqa: BLE001 - a corrupt proto is TF's InvalidArgumentError
            raise InvalidArgumentError(
                None, ctx.op, "Bad Event proto") from None
        writer.add_event(parsed)


def _flush_kernel(ctx, handle):
    _writer(ctx, handle).flush()


def _close_kernel(ctx, handle):
    # TF deletes the resource: a later write needs the initializer again.
    writer = ctx.session.resources.remove(handle.name)
    if writer is None:
        raise _not_found(ctx, handle)
    writer.close()


def _no_outputs(op):
    return []


WRITER_OPS = ("SummaryWriter", "CreateSummaryFileWriter", "WriteScalarSummary",
              "WriteHistogramSummary", "WriteImageSummary", "WriteAudioSummary",
              "WriteSummary", "WriteGraphSummary", "ImportEvent", "FlushSummaryWriter",
              "CloseSummaryWriter")

register_op("SummaryWriter", lambda op: [(dtypes.resource, tensor_shape.TensorShape([]))],
            cpu=_handle_kernel, stateful=True)
register_op("CreateSummaryFileWriter", _no_outputs, cpu=_create_kernel, stateful=True)
register_op("WriteScalarSummary", _no_outputs, cpu=_summary_writing(_scalar), stateful=True)
register_op("WriteHistogramSummary", _no_outputs, cpu=_summary_writing(_histogram),
            stateful=True)
register_op("WriteImageSummary", _no_outputs, cpu=_summary_writing(_image), stateful=True)
register_op("WriteAudioSummary", _no_outputs, cpu=_summary_writing(_audio), stateful=True)
register_op("WriteSummary", _no_outputs, cpu=_write_tensor_kernel, stateful=True)
register_op("WriteGraphSummary", _no_outputs, cpu=_write_graph_kernel, stateful=True)
register_op("ImportEvent", _no_outputs, cpu=_import_event_kernel, stateful=True)
register_op("FlushSummaryWriter", _no_outputs, cpu=_flush_kernel, stateful=True)
register_op("CloseSummaryWriter", _no_outputs, cpu=_close_kernel, stateful=True)
for _type in WRITER_OPS:
    not_differentiable(_type)
