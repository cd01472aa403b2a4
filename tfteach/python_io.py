"""`tf.python_io` (and the same names in `tf.io`): TFRecord files from Python.

    with tf.python_io.TFRecordWriter("train.tfrecords") as writer:
        writer.write(example.SerializeToString())
    for record in tf.python_io.tf_record_iterator("train.tfrecords"):
        ...

The bytes are TensorFlow's (io/tfrecord.py): files move both ways between tfteach and
TensorFlow, compressed (GZIP, ZLIB) or not.
"""
from tfteach.framework.errors import FailedPreconditionError
from tfteach.io import tfrecord

__all__ = ["TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter",
           "tf_record_iterator"]


class TFRecordCompressionType:
    """The compression of a TFRecord file, as TF 1.15's enum-like class."""
    NONE = 0
    ZLIB = 1
    GZIP = 2


class TFRecordOptions:
    """How a TFRecord file is compressed: `TFRecordOptions("GZIP")` or
    `TFRecordOptions(TFRecordCompressionType.GZIP)`, plus zlib's knobs."""

    compression_type_map = {
        TFRecordCompressionType.ZLIB: "ZLIB",
        TFRecordCompressionType.GZIP: "GZIP",
        TFRecordCompressionType.NONE: "",
    }

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None):
        self.get_compression_type_string(compression_type)      # TF's ValueError now
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        """"", "ZLIB" or "GZIP" for options, a compression type or None."""
        if not options:
            return ""
        if isinstance(options, TFRecordOptions):
            return cls.get_compression_type_string(options.compression_type)
        if options in cls.compression_type_map:
            return cls.compression_type_map[options]
        if options in cls.compression_type_map.values():
            return options
        raise ValueError('Not a valid compression_type: "{}"'.format(options))


def _zlib_options(options):
    if not isinstance(options, TFRecordOptions):
        return {}
    return {"compression_level": options.compression_level, "mem_level": options.mem_level,
            "window_bits": options.window_bits,
            "compression_strategy": options.compression_strategy}


class TFRecordWriter:
    """`tf.python_io.TFRecordWriter(path, options=None)`: writes records to a new file."""

    def __init__(self, path, options=None):
        compression = TFRecordOptions.get_compression_type_string(options)
        self._writer = tfrecord.RecordFileWriter(path, compression, **_zlib_options(options))

    def _open_writer(self):
        if self._writer.closed:
            raise FailedPreconditionError(None, None, "Writer is closed.")
        return self._writer

    def write(self, record):
        """Appends one record: bytes (a str is written as UTF-8)."""
        if isinstance(record, str):
            record = record.encode("utf-8")
        self._open_writer().write(record)

    def flush(self):
        self._open_writer().flush()

    def close(self):
        self._writer.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def tf_record_iterator(path, options=None):
    """Yields the records of a TFRecord file, as bytes (a generator: the file opens at the
    first `next`). Corrupt or truncated records raise DataLossError, as in TensorFlow."""
    return tfrecord.iterate_records(path, TFRecordOptions.get_compression_type_string(options))
