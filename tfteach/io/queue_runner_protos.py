"""TensorFlow's QueueRunnerDef (tensorflow/core/protobuf/queue_runner.proto), which the
`tensorboard` package does not ship: declared here from its field numbers, as
bundle_protos.py declares the checkpoint messages, so a meta graph's QUEUE_RUNNERS
collection is TensorFlow's bytes.

    message QueueRunnerDef {
      string queue_name = 1;
      repeated string enqueue_op_name = 2;
      string close_op_name = 3;
      string cancel_op_name = 4;
      repeated error.Code queue_closed_exception_types = 5;   // packed varints
    }

`error.Code` is an enum; on the wire an enum is a varint, so the field is declared as
int32 (same bytes). Its own protobuf package (`tfteach.io`) keeps it apart from
TensorFlow's when both are imported (reference tests).
"""
from google.protobuf import descriptor_pb2

from tfteach.io.proto_declare import F as _F, field as _field, message_classes

__all__ = ["QueueRunnerDef"]

_FILE_NAME = "tfteach/io/queue_runner_messages.proto"


def _file_descriptor():
    f = descriptor_pb2.FileDescriptorProto(name=_FILE_NAME, package="tfteach.io",
                                           syntax="proto3")
    m = f.message_type.add(name="QueueRunnerDef")
    _field(m, "queue_name", 1, _F.TYPE_STRING)
    _field(m, "enqueue_op_name", 2, _F.TYPE_STRING, _F.LABEL_REPEATED)
    _field(m, "close_op_name", 3, _F.TYPE_STRING)
    _field(m, "cancel_op_name", 4, _F.TYPE_STRING)
    _field(m, "queue_closed_exception_types", 5, _F.TYPE_INT32, _F.LABEL_REPEATED)
    return f


QueueRunnerDef = message_classes(_FILE_NAME, _file_descriptor,
                                 ["QueueRunnerDef"])["QueueRunnerDef"]
