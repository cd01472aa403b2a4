"""`tf.train.summary_iterator(path)`: the Event protobufs of one event file, in order."""
from tfteach.io.records import read_records
from tfteach.io.tf_protos import Event

__all__ = ["summary_iterator"]


def summary_iterator(path):
    """Yields each Event of the event file at `path` (the first is its file_version)."""
    with open(path, "rb") as f:
        raw = f.read()
    for record in read_records(raw):
        yield Event.FromString(record)
