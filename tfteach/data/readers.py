"""File datasets: `TFRecordDataset`, `TextLineDataset`, `FixedLengthRecordDataset`,
and `Dataset.list_files`.

Each takes `filenames` (a string, a list of strings, a string tensor of any shape, or a
Dataset of file names) and reads the files one after the other, opening each when the
previous one is done, as TF's reader datasets do. `compression_type` is "" (none),
"ZLIB" or "GZIP". A missing file is TF's NotFoundError at `get_next()`.

TFRecord framing and its DataLossError on a corrupt record come from
`tfteach.io.tfrecord.iterate_records` (the one TFRecord reader of the package).
"""
import gzip
import io
import zlib

import numpy as np

from tfteach.data import streams
from tfteach.data.dataset_ops import DatasetV1, dataset_op, int64_scalar
from tfteach.data.structure import Spec
from tfteach.framework import convert, dtypes, tensor_shape
from tfteach.framework.errors import InvalidArgumentError, NotFoundError
from tfteach.framework.registry import get_op_def, not_differentiable, register_op
from tfteach.ops.op_builder import apply_op

__all__ = ["TFRecordDataset", "TextLineDataset", "FixedLengthRecordDataset", "list_files",
           "read_file_bytes"]

_STRING = Spec(dtypes.string, [])


def _text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _compression(value):
    kind = _text(value.item() if isinstance(value, np.ndarray) else value)
    if kind not in ("", "ZLIB", "GZIP"):
        raise InvalidArgumentError(None, None, "Unsupported compression_type: %s." % kind)
    return kind


def read_file_bytes(name, compression):
    """The (decompressed) bytes of file `name`; TF's NotFoundError if it is missing."""
    try:
        with open(name, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise NotFoundError(None, None, "%s; No such file or directory" % name) from None
    if compression == "GZIP":
        return gzip.decompress(raw)
    if compression == "ZLIB":
        return zlib.decompress(raw)
    return raw


def _file_names(value):
    return [_text(n) for n in np.asarray(value, dtype=object).reshape(-1)]


def _flat_filenames(filenames):
    tensor = convert.convert_to_tensor(filenames, dtype=dtypes.string, name="filenames")
    if tensor.dtype != dtypes.string:
        raise TypeError("`filenames` must be a `tf.Tensor` of `tf.string` elements.")
    return tensor


def _file_dataset(op_type, filenames, extra_inputs, read, name=None):
    """A dataset of strings read from each of `filenames` in turn by
    `read(name, *extra_values)` (an iterable of bytes)."""
    names = _flat_filenames(filenames)
    return dataset_op(op_type, [names] + extra_inputs, _STRING, file_stream_maker(read),
                      name=name)


def file_stream_maker(read):
    """The kernel body of a file dataset: `read(name, *extra_values)` file after file."""
    def make(ctx, names_value, *extra):
        files = _file_names(names_value)

        def elements():
            for name in files:
                for record in read(name, *extra):
                    yield [record]
        return streams.FromIterable(elements)
    return make


def _records(name, compression, buffer_size):
    # Imported when a file is read: tfteach.io's lazy public names (io_api.py) must not
    # be looked up while `import tfteach` is still loading the package.
    from tfteach.io.tfrecord import iterate_records
    return iterate_records(name, compression_type=_compression(compression))


def _lines(name, compression, buffer_size):
    data = read_file_bytes(name, _compression(compression))
    for line in io.BytesIO(data):
        if line.endswith(b"\n"):
            line = line[:-1]
            if line.endswith(b"\r"):
                line = line[:-1]
        yield line


def _fixed_records(name, header, record, footer, buffer_size, compression):
    kind = _compression(compression)
    data = read_file_bytes(name, kind)
    body = data[int(header):len(data) - int(footer)]
    size = int(record)
    if not kind and len(body) % size:
        raise InvalidArgumentError(
            None, None, "Excluding the header (%d bytes) and footer (%d bytes), input file "
            "\"%s\" has body length %d bytes, which is not an exact multiple of the record "
            "length (%d bytes)." % (int(header), int(footer), name, len(body), size))
    for start in range(0, len(body) - size + 1, size):
        yield body[start:start + size]


def _by_file(filenames, build):
    """A Dataset of file names read with `build(name)` (TF accepts such a Dataset)."""
    return filenames.flat_map(build)


def _compression_and_buffer(compression_type, buffer_size):
    """The (compression_type, buffer_size) inputs of TFRecordDataset and TextLineDataset
    ops: "" for no compression, TF's 256 KiB buffer by default."""
    return [convert.convert_to_tensor(compression_type or "", dtype=dtypes.string,
                                      name="compression_type"),
            int64_scalar(buffer_size if buffer_size is not None else 262144, "buffer_size")]


class TFRecordDataset(DatasetV1):
    """The records of TFRecord files, as scalar strings."""

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None):
        if isinstance(filenames, DatasetV1) or num_parallel_reads is not None:
            files = filenames if isinstance(filenames, DatasetV1) else \
                DatasetV1.from_tensor_slices(_flat_filenames(filenames))

            def one(name):
                return TFRecordDataset(name, compression_type, buffer_size)
            built = (files.interleave(one, cycle_length=int(num_parallel_reads),
                                      block_length=1) if num_parallel_reads
                     else _by_file(files, one))
        else:
            extra = _compression_and_buffer(compression_type, buffer_size)
            built = _file_dataset("TFRecordDataset", filenames, extra, _records)
        super().__init__(built._variant, built._structure)


class TextLineDataset(DatasetV1):
    """The lines of text files, without their line ends ("\\n", "\\r\\n")."""

    def __init__(self, filenames, compression_type=None, buffer_size=None):
        if isinstance(filenames, DatasetV1):
            built = _by_file(filenames, lambda name: TextLineDataset(
                name, compression_type, buffer_size))
        else:
            extra = _compression_and_buffer(compression_type, buffer_size)
            built = _file_dataset("TextLineDataset", filenames, extra, _lines)
        super().__init__(built._variant, built._structure)


class FixedLengthRecordDataset(DatasetV1):
    """Records of `record_bytes` bytes after `header_bytes` and before `footer_bytes`
    of each file. An uncompressed file whose body is not whole records is TF's
    InvalidArgumentError; in a compressed one a short last record is dropped."""

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None,
                 buffer_size=None, compression_type=None):
        if isinstance(filenames, DatasetV1):
            built = _by_file(filenames, lambda name: FixedLengthRecordDataset(
                name, record_bytes, header_bytes, footer_bytes, buffer_size,
                compression_type))
        else:
            extra = [int64_scalar(header_bytes or 0, "header_bytes"),
                     int64_scalar(record_bytes, "record_bytes"),
                     int64_scalar(footer_bytes or 0, "footer_bytes"),
                     int64_scalar(buffer_size or 0, "buffer_size"),
                     convert.convert_to_tensor(compression_type or "", dtype=dtypes.string,
                                               name="compression_type")]
            built = _file_dataset("FixedLengthRecordDataset", filenames, extra,
                                  _fixed_records)
        super().__init__(built._variant, built._structure)


# -- list_files -------------------------------------------------------------------------------
# TF's MatchingFiles op, the one tf.train.match_filenames_once also uses, is registered by
# ops/reader_ops.py: one op, one kernel, whichever namespace a program imports first.
from tfteach.ops import reader_ops as _reader_ops  # noqa: E402,F401 (registers MatchingFiles)


def list_files(file_pattern, shuffle=None, seed=None):
    """The files matching `file_pattern` (a glob, or several), sorted, then shuffled
    unless `shuffle=False`. No match: InvalidArgumentError at `get_next()`."""
    pattern = convert.convert_to_tensor(file_pattern, dtype=dtypes.string,
                                        name="file_pattern")
    matching = apply_op("MatchingFiles", [pattern], {}, "MatchingFiles")
    patterns_text = pattern

    def make(ctx, names, pattern_value):
        if len(names) == 0:
            raise InvalidArgumentError(None, None, "No files matched pattern: %s"
                                       % ",".join(_file_names(pattern_value)))
        # Sorted here too: the MatchingFiles kernel may be another module's.
        return streams.Slices([np.array(sorted(np.asarray(names, dtype=object).tolist()),
                                        dtype=object)])

    files = dataset_op("TensorSliceDataset", [matching, patterns_text], _STRING, make)
    if shuffle is None or shuffle:
        from tfteach.data.shuffling import shuffle as shuffled
        # TF: the whole list is the buffer, so every order is possible.
        files = shuffled(files, _count(matching), seed, None)
    return files


def _count(matching):
    from tfteach.ops.shape_ops import size
    return size(matching, out_type=dtypes.int64)
