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
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

__all__ = ["QueueRunnerDef"]

_F = descriptor_pb2.FieldDescriptorProto
_FILE_NAME = "tfteach/io/queue_runner_messages.proto"


def _file_descriptor():
    f = descriptor_pb2.FileDescriptorProto(name=_FILE_NAME, package="tfteach.io",
                                           syntax="proto3")
    m = f.message_type.add(name="QueueRunnerDef")
    m.field.add(name="queue_name", number=1, type=_F.TYPE_STRING, label=_F.LABEL_OPTIONAL)
    m.field.add(name="enqueue_op_name", number=2, type=_F.TYPE_STRING,
                label=_F.LABEL_REPEATED)
    m.field.add(name="close_op_name", number=3, type=_F.TYPE_STRING, label=_F.LABEL_OPTIONAL)
    m.field.add(name="cancel_op_name", number=4, type=_F.TYPE_STRING,
                label=_F.LABEL_OPTIONAL)
    m.field.add(name="queue_closed_exception_types", number=5, type=_F.TYPE_INT32,
                label=_F.LABEL_REPEATED)
    return f


def _message_class():
    pool = descriptor_pool.Default()
    try:
        file_desc = pool.FindFileByName(_FILE_NAME)
    except KeyError:
        file_desc = pool.Add(_file_descriptor()) or pool.FindFileByName(_FILE_NAME)
    return message_factory.GetMessageClass(file_desc.message_types_by_name["QueueRunnerDef"])


QueueRunnerDef = _message_class()
