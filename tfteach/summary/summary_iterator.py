"""`tf.train.summary_iterator(path)`: the Event protobufs of one event file, in order.

As TF 1.15's, it reads the file with the TFRecord reader (io/tfrecord.py): a missing file
is NotFoundError, a damaged or truncated record DataLossError ("truncated record at
154") after the events before it. (`%tfscalars` reads files still being written with its
own tolerant reader.)
"""
from tfteach.io.tf_protos import Event
from tfteach.io.tfrecord import iterate_records

__all__ = ["summary_iterator"]


def summary_iterator(path):
    """Yields each Event of the event file at `path` (the first is its file_version)."""
    for record in iterate_records(path):
        yield Event.FromString(record)
