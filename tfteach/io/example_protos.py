"""`tf.train.Example` and its parts: TensorFlow's example.proto and feature.proto.

Neither the `tensorboard` package nor any other maintained package ships them, so they
are declared here from TensorFlow's published field numbers
(tensorflow/core/example/feature.proto, example.proto), as io/bundle_protos.py does for
checkpoints. On the wire a message is only field numbers and types, so these write the
bytes TensorFlow writes and read TensorFlow's (tests/test_example_proto_reference.py):

    BytesList   { repeated bytes value = 1; }
    FloatList   { repeated float value = 1 [packed = true]; }
    Int64List   { repeated int64 value = 1 [packed = true]; }
    Feature     { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2;
                               Int64List int64_list = 3; } }
    Features    { map<string, Feature> feature = 1; }
    FeatureList { repeated Feature feature = 1; }
    FeatureLists { map<string, FeatureList> feature_list = 1; }
    Example     { Features features = 1; }
    SequenceExample { Features context = 1; FeatureLists feature_lists = 2; }

Their protobuf package is `tfteach.example`, not `tensorflow`, so importing TensorFlow in
the same process (the reference tests) never clashes with them.
"""
from google.protobuf import descriptor_pb2

from tfteach.io import proto_declare
from tfteach.io.proto_declare import F as _F

__all__ = ["BytesList", "FloatList", "Int64List", "Feature", "Features", "FeatureList",
           "FeatureLists", "Example", "SequenceExample"]

_FILE_NAME = "tfteach/io/example_messages.proto"
_PACKAGE = "tfteach.example"


def _field(message, name, number, kind, label=_F.LABEL_OPTIONAL, type_name=None):
    # Type names here are relative to this file's package.
    return proto_declare.field(message, name, number, kind, label,
                               type_name and "." + _PACKAGE + "." + type_name)


def _list(f, name, kind):
    message = f.message_type.add(name=name)
    field = _field(message, "value", 1, kind, _F.LABEL_REPEATED)
    if kind != _F.TYPE_BYTES:
        field.options.packed = True


def _map(f, message, field_name, entry_name, value_type):
    # A proto3 map is a repeated nested "entry" message (key = 1, value = 2).
    entry = message.nested_type.add(name=entry_name)
    entry.options.map_entry = True
    _field(entry, "key", 1, _F.TYPE_STRING)
    _field(entry, "value", 2, _F.TYPE_MESSAGE, type_name=value_type)
    _field(message, field_name, 1, _F.TYPE_MESSAGE, _F.LABEL_REPEATED,
           "%s.%s" % (message.name, entry_name))


def _file_descriptor():
    f = descriptor_pb2.FileDescriptorProto(name=_FILE_NAME, package=_PACKAGE,
                                           syntax="proto3")
    _list(f, "BytesList", _F.TYPE_BYTES)
    _list(f, "FloatList", _F.TYPE_FLOAT)
    _list(f, "Int64List", _F.TYPE_INT64)

    feature = f.message_type.add(name="Feature")
    feature.oneof_decl.add(name="kind")
    for number, (name, kind) in enumerate((("bytes_list", "BytesList"),
                                           ("float_list", "FloatList"),
                                           ("int64_list", "Int64List")), start=1):
        _field(feature, name, number, _F.TYPE_MESSAGE, type_name=kind).oneof_index = 0

    _map(f, f.message_type.add(name="Features"), "feature", "FeatureEntry", "Feature")
    feature_list = f.message_type.add(name="FeatureList")
    _field(feature_list, "feature", 1, _F.TYPE_MESSAGE, _F.LABEL_REPEATED, "Feature")
    _map(f, f.message_type.add(name="FeatureLists"), "feature_list", "FeatureListEntry",
         "FeatureList")

    example = f.message_type.add(name="Example")
    _field(example, "features", 1, _F.TYPE_MESSAGE, type_name="Features")
    sequence = f.message_type.add(name="SequenceExample")
    _field(sequence, "context", 1, _F.TYPE_MESSAGE, type_name="Features")
    _field(sequence, "feature_lists", 2, _F.TYPE_MESSAGE, type_name="FeatureLists")
    return f


_CLASSES = proto_declare.message_classes(_FILE_NAME, _file_descriptor, __all__)
BytesList = _CLASSES["BytesList"]
FloatList = _CLASSES["FloatList"]
Int64List = _CLASSES["Int64List"]
Feature = _CLASSES["Feature"]
Features = _CLASSES["Features"]
FeatureList = _CLASSES["FeatureList"]
FeatureLists = _CLASSES["FeatureLists"]
Example = _CLASSES["Example"]
SequenceExample = _CLASSES["SequenceExample"]
