"""Protobuf messages of checkpoints that no maintained package ships.

The `tensorboard` package ships TensorFlow's framework messages (TensorShapeProto,
DataType, VersionDef, SaverDef, ...) under `tensorboard.compat.proto`; three messages a
checkpoint needs are not among them, so they are declared here from TensorFlow's
published field numbers (tensorflow/core/protobuf/tensor_bundle.proto and
tensorflow/python/training/checkpoint_state.proto). On the wire a message is only field
numbers and types, so these read and write exactly TensorFlow's bytes and text.

They live in their own protobuf package (`tfteach.io`) so that importing TensorFlow in
the same process (the reference tests do) never clashes with them.
"""
from google.protobuf import descriptor_pb2
from tensorboard.compat.proto import tensor_shape_pb2, types_pb2, versions_pb2

from tfteach.io.proto_declare import F as _F, field as _field, message_classes

__all__ = ["BundleHeaderProto", "BundleEntryProto", "CheckpointState", "LITTLE", "BIG"]

_FILE_NAME = "tfteach/io/checkpoint_messages.proto"


def _file_descriptor():
    f = descriptor_pb2.FileDescriptorProto(name=_FILE_NAME, package="tfteach.io",
                                           syntax="proto3")
    f.dependency.extend([tensor_shape_pb2.DESCRIPTOR.name, types_pb2.DESCRIPTOR.name,
                         versions_pb2.DESCRIPTOR.name])
    shape = "." + tensor_shape_pb2.TensorShapeProto.DESCRIPTOR.full_name
    dtype = "." + types_pb2.DESCRIPTOR.enum_types_by_name["DataType"].full_name
    version = "." + versions_pb2.VersionDef.DESCRIPTOR.full_name

    header = f.message_type.add(name="BundleHeaderProto")
    _field(header, "num_shards", 1, _F.TYPE_INT32)
    _field(header, "endianness", 2, _F.TYPE_ENUM,
           type_name=".tfteach.io.BundleHeaderProto.Endianness")
    _field(header, "version", 3, _F.TYPE_MESSAGE, type_name=version)
    endianness = header.enum_type.add(name="Endianness")
    endianness.value.add(name="LITTLE", number=0)
    endianness.value.add(name="BIG", number=1)

    # tensorflow.TensorSliceProto (framework/tensor_slice.proto), which tensorboard lacks.
    slice_ = f.message_type.add(name="TensorSliceProto")
    extent = slice_.nested_type.add(name="Extent")
    _field(extent, "start", 1, _F.TYPE_INT64)
    length = _field(extent, "length", 2, _F.TYPE_INT64)
    length.oneof_index = 0
    extent.oneof_decl.add(name="has_length")
    _field(slice_, "extent", 1, _F.TYPE_MESSAGE, _F.LABEL_REPEATED,
           ".tfteach.io.TensorSliceProto.Extent")

    entry = f.message_type.add(name="BundleEntryProto")
    _field(entry, "dtype", 1, _F.TYPE_ENUM, type_name=dtype)
    _field(entry, "shape", 2, _F.TYPE_MESSAGE, type_name=shape)
    _field(entry, "shard_id", 3, _F.TYPE_INT32)
    _field(entry, "offset", 4, _F.TYPE_INT64)
    _field(entry, "size", 5, _F.TYPE_INT64)
    _field(entry, "crc32c", 6, _F.TYPE_FIXED32)
    _field(entry, "slices", 7, _F.TYPE_MESSAGE, _F.LABEL_REPEATED,
           ".tfteach.io.TensorSliceProto")

    state = f.message_type.add(name="CheckpointState")
    _field(state, "model_checkpoint_path", 1, _F.TYPE_STRING)
    _field(state, "all_model_checkpoint_paths", 2, _F.TYPE_STRING, _F.LABEL_REPEATED)
    _field(state, "all_model_checkpoint_timestamps", 3, _F.TYPE_DOUBLE, _F.LABEL_REPEATED)
    _field(state, "last_preserved_timestamp", 4, _F.TYPE_DOUBLE)
    return f


_CLASSES = message_classes(_FILE_NAME, _file_descriptor,
                           ("BundleHeaderProto", "BundleEntryProto", "CheckpointState",
                            "TensorSliceProto"))
BundleHeaderProto = _CLASSES["BundleHeaderProto"]
BundleEntryProto = _CLASSES["BundleEntryProto"]
CheckpointState = _CLASSES["CheckpointState"]
TensorSliceProto = _CLASSES["TensorSliceProto"]
LITTLE, BIG = 0, 1
