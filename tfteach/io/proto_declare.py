"""Declaring protobuf messages from TensorFlow's published field numbers.

Some messages TensorFlow writes are shipped by no maintained package (checkpoints'
bundle_protos.py, tf.train.Example's example_protos.py, queue_runner_protos.py). Each of
those modules builds a FileDescriptorProto with `field` and turns it into message
classes with `message_classes`; on the wire a message is only field numbers and types,
so the classes read and write TensorFlow's bytes.
"""
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

__all__ = ["F", "field", "message_classes"]

F = descriptor_pb2.FieldDescriptorProto


def field(message, name, number, kind, label=F.LABEL_OPTIONAL, type_name=None):
    """Adds field `name` = `number` of type `kind` to the DescriptorProto `message`;
    `type_name` (fully qualified, with its leading dot) names a message or enum type."""
    declared = message.field.add(name=name, number=number, type=kind, label=label)
    if type_name:
        declared.type_name = type_name
    return declared


def message_classes(file_name, build_file_descriptor, names):
    """{name: message class} for the messages `names` of the proto file `file_name`.

    The file is added to the default descriptor pool once per process
    (`build_file_descriptor()` makes its FileDescriptorProto); a second import (a module
    reloaded by a test) finds it there instead of adding it again, which protobuf refuses.
    """
    pool = descriptor_pool.Default()
    try:
        file_desc = pool.FindFileByName(file_name)
    except KeyError:
        file_desc = pool.Add(build_file_descriptor()) or pool.FindFileByName(file_name)
    classes = {name: message_factory.GetMessageClass(file_desc.message_types_by_name[name])
               for name in names}
    for cls in classes.values():
        cls.__str__ = _text_format_str
    return classes


def _text_format_str(message):
    """`print(message)` as TF 1.15's protobuf (3.x) printed it: text_format, with a map's
    entries sorted by key (`print(example)`: features 'labels', 'name', 'val'). The upb
    runtime of protobuf 4+ prints them in insertion order instead."""
    from google.protobuf import text_format
    return text_format.MessageToString(message)
