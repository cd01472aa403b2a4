"""`tf.summary`: summary ops (summary_ops.py) and the event-file writer (writer.py),
in TensorBoard's formats (docs/tensorboard.md)."""
from tfteach.io.tf_protos import (Event, SessionLog, Summary,  # noqa: F401
                                  SummaryDescription, TaggedRunMetadata)
from tfteach.summary.summary_ops import (audio, histogram, image, merge,  # noqa: F401
                                         merge_all, scalar, tensor_summary, text)
from tfteach.summary.writer import FileWriter, FileWriterCache  # noqa: F401


def get_summary_description(node_def):
    """The SummaryDescription of a TensorSummary node's `description` attr."""
    if node_def.op != "TensorSummary":
        raise ValueError("Can't get_summary_description on %s" % node_def.op)
    description = SummaryDescription()
    description.ParseFromString(node_def.attr["description"].s)
    return description
