"""TensorFlow 2's `tf.summary` (the v2 namespace's; `tf.compat.v1.summary` stays TF 1's).

TF 2 has no summary ops to merge and run: a summary call *writes* to the default
writer, with a step:

    writer = tf.summary.create_file_writer("logs/run1")
    with writer.as_default():
        tf.summary.scalar("loss", loss, step=epoch)

Each value is a **tensor summary with plugin metadata**, as TensorBoard's summary v2 API
writes it: a float32 scalar under plugin "scalars", a [buckets, 3] float64 tensor of
(left edge, right edge, count) under "histograms", a string tensor [width, height,
png...] under "images", the string tensor itself under "text" — each event carrying
its metadata. The events go through TF 1's `FileWriter` (writer.py: the one event-file
writer), into a file named `events.out.tfevents.<time>.<host>.<pid>.<n>.v2` as TF 2
names it. TensorBoard's EventAccumulator lists the values under `tensors`.

Eagerly a summary is written at once. Inside a tf.function a call adds a
`PyWriteSummary` op (a Python callback, as PyFunc; TF's `WriteSummary` op takes the
writer as a resource input, which tfteach's graphs do not have) that writes on every run
of the graph; the writer, tag and record_if are those of the trace.
"""
import contextlib
import itertools
import os
import time

import numpy as np

from tfteach.framework import dtypes, eager_mode, tensor_shape
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.framework.tensor_proto import tensor_content_proto
from tfteach.io.tf_protos import Event, Summary, SummaryMetadata
from tfteach.summary.media import encode_png

__all__ = ["create_file_writer", "create_noop_writer", "SummaryWriter", "scalar",
           "histogram", "image", "text", "write", "flush", "record_if",
           "should_record_summaries", "experimental"]

DEFAULT_BUCKET_COUNT = 30          # TensorBoard's histogram default

_DEFAULT_WRITERS = []              # the `as_default` stack; [-1] is the default writer
_STEP = [None]                     # tf.summary.experimental.set_step
_RECORD_IF = [True]                # the record_if stack
_FILE_NUMBER = itertools.count()
_CALLBACKS = []                    # what each traced PyWriteSummary op writes (its attr)


def _write_kernel(ctx, step, data):
    _CALLBACKS[ctx.attrs["callback"]](step, data)
    return np.array(True)


register_op("PyWriteSummary", lambda op: [(dtypes.bool, tensor_shape.TensorShape([]))],
            cpu=_write_kernel, stateful=True)
not_differentiable("PyWriteSummary")


class SummaryWriter:
    """A TF 2 summary writer: `as_default(step=None)`, `set_as_default(step=None)`,
    `flush()`, `close()`, `init()`. Events go to a TF 1 `FileWriter`."""

    def __init__(self, logdir, max_queue=None, flush_millis=None, filename_suffix=None):
        from tfteach.summary.writer import FileWriter
        suffix = ".%d.%d%s" % (os.getpid(), next(_FILE_NUMBER),
                               ".v2" if filename_suffix is None else filename_suffix)
        self._writer = FileWriter(logdir, max_queue=10 if max_queue is None else max_queue,
                                  flush_secs=(120 if flush_millis is None
                                              else flush_millis / 1000.0),
                                  filename_suffix=suffix)

    def init(self):
        self._writer.reopen()

    @contextlib.contextmanager
    def as_default(self, step=None):
        """The default writer inside the `with` (and `step` the default step)."""
        _DEFAULT_WRITERS.append(self)
        saved_step = _STEP[0]
        if step is not None:
            _STEP[0] = step
        try:
            yield self
        finally:
            _DEFAULT_WRITERS.pop()
            if step is not None:
                _STEP[0] = saved_step
            self.flush()                # TF 2 flushes on leaving as_default

    def set_as_default(self, step=None):
        _DEFAULT_WRITERS[:] = [self]
        if step is not None:
            _STEP[0] = step

    def flush(self):
        self._writer.flush()

    def close(self):
        self._writer.close()

    def _write(self, tag, tensor_proto, metadata, step):
        summary = Summary()
        value = summary.value.add(tag=tag)
        value.tensor.CopyFrom(tensor_proto)
        value.metadata.CopyFrom(metadata)
        self._writer.add_event(Event(wall_time=time.time(), step=int(step),
                                     summary=summary))


class _NoopWriter(SummaryWriter):
    def __init__(self):
        pass

    def init(self):
        pass

    def flush(self):
        pass

    def close(self):
        pass

    def _write(self, tag, tensor_proto, metadata, step):
        pass


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None,
                       name=None, experimental_trackable=False,
                       experimental_mesh=None):
    """`tf.summary.create_file_writer`: a SummaryWriter writing into `logdir`."""
    return SummaryWriter(logdir, max_queue, flush_millis, filename_suffix)


def create_noop_writer():
    return _NoopWriter()


# -- recording -------------------------------------------------------------------------------
@contextlib.contextmanager
def record_if(condition):
    """Summaries are written only while `condition` (a bool, a tensor, or a callable
    returning one) is true."""
    _RECORD_IF.append(condition)
    try:
        yield
    finally:
        _RECORD_IF.pop()


def should_record_summaries():
    """Whether a summary written now would be recorded (a default writer, and record_if)."""
    condition = _RECORD_IF[-1]
    if callable(condition):
        condition = condition()
    return bool(_DEFAULT_WRITERS) and bool(np.asarray(condition))


def flush(writer=None, name=None):
    writer = writer if writer is not None else (_DEFAULT_WRITERS[-1] if _DEFAULT_WRITERS
                                                else None)
    if writer is not None:
        writer.flush()


class _Experimental:
    """`tf.summary.experimental`: the default step."""

    @staticmethod
    def set_step(step):
        _STEP[0] = step

    @staticmethod
    def get_step():
        return _STEP[0]


experimental = _Experimental()


# -- the values ------------------------------------------------------------------------------
def _value(data):
    return np.asarray(data.numpy() if hasattr(data, "numpy") else data)


def _metadata(plugin_name, description):
    metadata = SummaryMetadata()
    metadata.plugin_data.plugin_name = plugin_name
    if description:
        metadata.summary_description = description
    return metadata


def _tag(name):
    return eager_mode.STATE.name_scope + name


def _emit(name, metadata, step, data, make_tensor):
    """Writes one value to the default writer; False (and nothing computed) when no
    writer is the default or record_if says no, as TF 2. `make_tensor(value)` makes
    the TensorProto from the value as a NumPy array. Eagerly it is written at once;
    while a graph is built (a tf.function tracing) a `PyWriteSummary` op writes it
    whenever the graph runs (the writer, tag and record_if fixed at trace time, as TF's
    trace captures them)."""
    if not should_record_summaries():
        return _as_tensor(False)
    if step is None:
        step = _STEP[0]
    if step is None:
        raise ValueError("No step set. Please specify one either through the `step` "
                         "argument or through tf.summary.experimental.set_step()")
    writer, tag = _DEFAULT_WRITERS[-1], _tag(name)

    def write_now(step_value, value):
        writer._write(tag, make_tensor(np.asarray(value)), metadata, int(step_value))
    if eager_mode.executing_eagerly():
        write_now(_value(step), _value(data))
        return _as_tensor(True)
    return _write_op(write_now, step, data, tag)


def _write_op(write_now, step, data, tag):
    from tfteach.framework import convert, dtypes
    from tfteach.ops.op_builder import apply_op
    step = convert.convert_to_tensor(step)
    if step.dtype.base_dtype != dtypes.int64:
        from tfteach.ops.math_ops import cast
        step = cast(step, dtypes.int64)
    _CALLBACKS.append(write_now)
    return apply_op("PyWriteSummary", [step, convert.convert_to_tensor(data)],
                    {"callback": len(_CALLBACKS) - 1, "tag": tag}, name="write_summary")


def _as_tensor(flag):
    from tfteach.ops.constant_op import constant
    return constant(flag)


def write(tag, tensor, step=None, metadata=None, name=None):
    """`tf.summary.write`: any tensor, with the given SummaryMetadata (or none)."""
    if metadata is None:
        metadata = SummaryMetadata()
    elif isinstance(metadata, bytes):
        metadata = SummaryMetadata.FromString(metadata)
    return _emit(tag, metadata, step, tensor, tensor_content_proto)


def scalar(name, data, step=None, description=None):
    """`tf.summary.scalar`: the value as a float32 scalar, plugin "scalars"."""
    shape = getattr(data, "shape", np.shape(data))
    if tensor_shape.as_shape(shape).ndims not in (0, None):
        # tf.debugging.assert_scalar's words: eagerly it names no tensor
        seen = tuple(tensor_shape.as_shape(shape).as_list())
        if eager_mode.executing_eagerly():
            raise ValueError("Expected scalar shape, saw shape: %s." % (seen,))
        raise ValueError("Expected scalar shape for %s, saw shape: %s." % (name, seen))
    return _emit(name, _metadata("scalars", description), step, data,
                 lambda value: tensor_content_proto(value.astype(np.float32)))


def histogram_buckets(data, bucket_count=DEFAULT_BUCKET_COUNT):
    """TensorBoard's v2 histogram: `bucket_count` equal buckets from min to max (the
    last one closed), rows (left, right, count) in float64; all values equal: every
    bucket is [v, v] and the last one holds them; no data: zeros."""
    data = np.asarray(data, np.float64).ravel()
    k = max(int(bucket_count), 0)
    if data.size == 0 or k == 0:
        return np.zeros((k, 3))
    low, high = data.min(), data.max()
    if low == high:
        counts = np.zeros(k)
        counts[-1] = data.size
        return np.stack([np.full(k, low), np.full(k, low), counts], axis=1)
    width = (high - low) / k
    index = np.minimum(np.floor((data - low) / width).astype(np.int64), k - 1)
    counts = np.bincount(index, minlength=k).astype(np.float64)
    edges = low + np.arange(k + 1) * ((high - low) / k)     # tf.linspace's formula
    edges[-1] = high
    return np.stack([edges[:-1], edges[1:], counts], axis=1)


def histogram(name, data, step=None, buckets=None, description=None):
    """`tf.summary.histogram`: plugin "histograms", (left, right, count) rows."""
    count = DEFAULT_BUCKET_COUNT if buckets is None else buckets
    return _emit(name, _metadata("histograms", description), step, data,
                 lambda value: tensor_content_proto(histogram_buckets(value, count)))


def image(name, data, step=None, max_outputs=3, description=None):
    """`tf.summary.image`: [k, h, w, c] images (uint8, or floats in [0, 1] converted as
    tf.image.convert_image_dtype(saturate=True)); at most `max_outputs` PNGs after the
    width and height, plugin "images"."""
    def tensor(images):
        if images.ndim != 4:
            raise ValueError("Expected a 4-D tensor [k, h, w, c] of images for %s, saw "
                             "shape: %s." % (name, tuple(images.shape)))
        if images.dtype != np.uint8:
            images = np.clip(images.astype(np.float32) * 255.5, 0, 255).astype(np.uint8)
        pngs = [encode_png(im) for im in images[:max_outputs]]
        strings = [str(images.shape[2]).encode(), str(images.shape[1]).encode()] + pngs
        return tensor_content_proto(np.array(strings, dtype=object))
    return _emit(name, _metadata("images", description), step, data, tensor)


def text(name, data, step=None, description=None):
    """`tf.summary.text`: a string tensor, plugin "text"."""
    def tensor(value):
        if value.dtype.kind not in "SUO":
            raise TypeError("tf.summary.text needs a string tensor, got %s" % value.dtype)
        encoded = np.vectorize(lambda s: s if isinstance(s, bytes) else str(s).encode(),
                               otypes=[object])(value)
        return tensor_content_proto(encoded)
    return _emit(name, _metadata("text", description), step, data, tensor)
