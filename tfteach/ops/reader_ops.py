"""Readers in the graph: `tf.TFRecordReader`, `TextLineReader`, `WholeFileReader`,
`FixedLengthRecordReader`, `tf.matching_files` and `tf.read_file` (TF 1.15's io_ops.py).

As with queues, the reader op (`TFRecordReaderV2`, ...) outputs a `resource` handle to a
reader kept by each Session (kernels/cpu/readers.py); `reader.read(filename_queue)` is a
`ReaderReadV2` op taking the reader's and the queue's handles, and returns the
(key, value) string tensors. docs/queues.md.
"""
import glob

import numpy as np

from tfteach.framework import convert, dtypes, tensor_shape
from tfteach.framework.errors import FailedPreconditionError, NotFoundError
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import get_op_def, not_differentiable, register_op
from tfteach.kernels.cpu import readers
from tfteach.ops.op_builder import apply_op
from tfteach.ops.typed_inputs import convert_fixed_type
from tfteach.runtime.placement import register_cpu_only
from tfteach.runtime.session_resources import creating_kernel

__all__ = ["ReaderBase", "TFRecordReader", "TextLineReader", "WholeFileReader",
           "FixedLengthRecordReader", "matching_files", "read_file"]

_SCALAR = tensor_shape.TensorShape([])


def _creating_kernel(make):
    # A reader is made from its op's attrs alone.
    return creating_kernel(lambda name, op: make(name, op._attrs))


def _compression(attrs):
    value = attrs.get("compression_type", "")
    return value.decode() if isinstance(value, bytes) else value


_READER_TYPES = {
    "TFRecordReaderV2": lambda name, a: readers.TFRecordFileReader(name, _compression(a)),
    "TextLineReaderV2": lambda name, a: readers.TextLineFileReader(
        name, a["skip_header_lines"]),
    "WholeFileReaderV2": lambda name, a: readers.WholeFileFileReader(name),
    "FixedLengthRecordReaderV2": lambda name, a: readers.FixedLengthFileReader(
        name, a["header_bytes"], a["record_bytes"], a["footer_bytes"], a["hop_bytes"]),
}
for _type, _make in _READER_TYPES.items():
    register_op(_type, lambda op: [(dtypes.resource, _SCALAR)], cpu=_creating_kernel(_make),
                stateful=True)
    not_differentiable(_type)


def _read_kernel(ctx, reader, queue):
    key, value = reader.read_up_to(queue, 1)[0]
    return np.array(key, dtype=object), np.array(value, dtype=object)


def _read_up_to_kernel(ctx, reader, queue, num_records):
    pairs = reader.read_up_to(queue, int(num_records))
    keys = np.empty(len(pairs), dtype=object)
    values = np.empty(len(pairs), dtype=object)
    for i, (k, v) in enumerate(pairs):
        keys[i], values[i] = k, v
    return keys, values


def _reset_kernel(ctx, reader):
    reader.reset()


_VECTOR = tensor_shape.TensorShape([None])
register_op("ReaderReadV2", lambda op: [(dtypes.string, _SCALAR)] * 2, cpu=_read_kernel,
            stateful=True)
register_op("ReaderReadUpToV2", lambda op: [(dtypes.string, _VECTOR)] * 2,
            cpu=_read_up_to_kernel, stateful=True)
register_op("ReaderNumRecordsProducedV2", lambda op: [(dtypes.int64, _SCALAR)],
            cpu=lambda ctx, r: np.int64(r.records_produced), stateful=True)
register_op("ReaderNumWorkUnitsCompletedV2", lambda op: [(dtypes.int64, _SCALAR)],
            cpu=lambda ctx, r: np.int64(r.work_units_completed), stateful=True)
register_op("ReaderResetV2", lambda op: [], cpu=_reset_kernel, stateful=True)


def _matching_files_kernel(ctx, pattern):
    patterns = np.asarray(pattern, dtype=object).reshape(-1)
    found = []
    for p in patterns:
        p = p.decode() if isinstance(p, bytes) else str(p)
        found.extend(sorted(glob.glob(p)))
    out = np.empty(len(found), dtype=object)
    out[:] = [f.encode() for f in found]
    return out


# TF's MatchingFiles (tf.data's list_files uses it too, data/readers.py)
register_op("MatchingFiles", lambda op: [(dtypes.string, _VECTOR)], cpu=_matching_files_kernel)
not_differentiable("MatchingFiles")
for _type in ("ReaderReadV2", "ReaderReadUpToV2", "ReaderNumRecordsProducedV2",
              "ReaderNumWorkUnitsCompletedV2", "ReaderResetV2"):
    not_differentiable(_type)
for _type in list(_READER_TYPES) + ["ReaderReadUpToV2", "ReaderNumRecordsProducedV2",
                                    "ReaderNumWorkUnitsCompletedV2", "ReaderResetV2"]:
    register_cpu_only(_type)         # file work stays on the host, as in TF


def matching_files(pattern, name=None):
    """The sorted names of the files matching the glob `pattern` (TF's MatchingFiles)."""
    pattern = convert.convert_to_tensor(pattern, dtype=dtypes.string)
    return apply_op("MatchingFiles", [pattern], {}, name or "MatchingFiles")


# TF's ReadFile: a file's bytes, whole (`tf.read_file`, the first step of an image
# pipeline: `list_files(...).map(lambda f: tf.image.decode_png(tf.read_file(f)))`)
def _read_file_shape(op):
    shape = op._inputs[0].shape
    if shape.ndims is not None and shape.ndims != 0:
        raise tensor_shape.ShapeError("Shape must be rank 0 but is rank %d" % shape.ndims)
    return [(dtypes.string, _SCALAR)]


def _read_file_kernel(ctx, filename):
    path = filename.item() if isinstance(filename, np.ndarray) else filename
    path = path.decode() if isinstance(path, bytes) else str(path)
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise NotFoundError(None, None, "%s; No such file or directory" % path) from None
    except IsADirectoryError:
        raise FailedPreconditionError(None, None, "%s; Is a directory" % path) from None


register_op("ReadFile", _read_file_shape, cpu=_read_file_kernel)
not_differentiable("ReadFile")
register_cpu_only("ReadFile")


def read_file(filename, name=None):
    """`tf.read_file(filename)`: the bytes of the file `filename` (a string scalar), read
    when the op runs; a missing file is NotFoundError then."""
    with name_scope(name, "ReadFile", [filename]) as scope:
        (filename,) = convert_fixed_type("ReadFile", [("filename", filename)], dtypes.string)
        return apply_op("ReadFile", [filename], {}, scope)


def _queue_ref(queue):
    return queue if hasattr(queue, "op") and hasattr(queue, "dtype") else queue.queue_ref


class ReaderBase:
    """What every reader offers: `read`, `read_up_to`, `num_records_produced`,
    `num_work_units_completed`, `reset`."""

    def __init__(self, reader_ref, supports_serialize=False):
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    @property
    def reader_ref(self):
        return self._reader_ref

    @property
    def supports_serialize(self):
        return self._supports_serialize

    def read(self, queue, name=None):
        """(key, value): the next record, taking a new file from `queue` when needed."""
        return apply_op("ReaderReadV2", [self._reader_ref, _queue_ref(queue)], {},
                        name or "ReaderReadV2")

    def read_up_to(self, queue, num_records, name=None):
        """(keys, values): up to `num_records` records."""
        n = convert.convert_to_tensor(num_records, dtype=dtypes.int64)
        return apply_op("ReaderReadUpToV2", [self._reader_ref, _queue_ref(queue), n], {},
                        name or "ReaderReadUpToV2")

    def num_records_produced(self, name=None):
        return apply_op("ReaderNumRecordsProducedV2", [self._reader_ref], {},
                        name or "ReaderNumRecordsProducedV2")

    def num_work_units_completed(self, name=None):
        return apply_op("ReaderNumWorkUnitsCompletedV2", [self._reader_ref], {},
                        name or "ReaderNumWorkUnitsCompletedV2")

    def reset(self, name=None):
        return apply_op("ReaderResetV2", [self._reader_ref], {}, name or "ReaderResetV2")


def _reader(op_type, attrs, name):
    attrs = dict(attrs, container="", shared_name="")
    return apply_op(op_type, [], attrs, name or op_type)


class TFRecordReader(ReaderBase):
    """`tf.TFRecordReader(name=None, options=None)`: the records of TFRecord files."""

    def __init__(self, name=None, options=None):
        compression = ""
        if options is not None:
            from tfteach.python_io import TFRecordOptions
            compression = TFRecordOptions.get_compression_type_string(options)
        super().__init__(_reader("TFRecordReaderV2", {"compression_type": compression},
                                 name))


class TextLineReader(ReaderBase):
    """`tf.TextLineReader(skip_header_lines=None)`: the lines of text files, without
    their newline."""

    def __init__(self, skip_header_lines=None, name=None):
        super().__init__(_reader("TextLineReaderV2",
                                 {"skip_header_lines": int(skip_header_lines or 0)}, name))


class WholeFileReader(ReaderBase):
    """`tf.WholeFileReader()`: each file whole, its name as the key."""

    def __init__(self, name=None):
        super().__init__(_reader("WholeFileReaderV2", {}, name))


class FixedLengthRecordReader(ReaderBase):
    """`tf.FixedLengthRecordReader(record_bytes, header_bytes=None, footer_bytes=None,
    hop_bytes=None)`: records of `record_bytes` bytes between a header and a footer."""

    def __init__(self, record_bytes, header_bytes=None, footer_bytes=None, hop_bytes=None,
                 name=None, encoding=None):
        if encoding:
            from tfteach.framework.errors import UnimplementedError
            raise UnimplementedError(None, None, "FixedLengthRecordReader with an encoding "
                                     "is not supported by tfteach")
        super().__init__(_reader("FixedLengthRecordReaderV2", {
            "record_bytes": int(record_bytes), "header_bytes": int(header_bytes or 0),
            "footer_bytes": int(footer_bytes or 0), "hop_bytes": int(hop_bytes or 0),
            "encoding": ""}, name))

