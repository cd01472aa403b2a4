"""TensorFlow's protocol buffer messages, taken from the `tensorboard` package.

TensorBoard ships TensorFlow's own `.proto` files compiled for Python under
`tensorboard.compat.proto` (field numbers identical to TensorFlow's), so a GraphDef or an
Event written with these classes is byte-for-byte what TensorFlow writes. Every module
of tfteach that reads or writes one imports it from here, so there is one place to look.
"""
from tensorboard.compat.proto.attr_value_pb2 import AttrValue, NameAttrList  # noqa: F401
from tensorboard.compat.proto.config_pb2 import RunMetadata as RunMetadataProto  # noqa: F401
from tensorboard.compat.proto.event_pb2 import Event, LogMessage, SessionLog, TaggedRunMetadata  # noqa: F401,E501
from tensorboard.compat.proto.graph_pb2 import GraphDef  # noqa: F401
from tensorboard.compat.proto.function_pb2 import FunctionDef  # noqa: F401
from tensorboard.compat.proto.meta_graph_pb2 import (CollectionDef, MetaGraphDef,  # noqa: F401
                                                     TensorInfo)
from tensorboard.compat.proto.node_def_pb2 import NodeDef  # noqa: F401
from tensorboard.compat.proto.op_def_pb2 import OpList  # noqa: F401
from tensorboard.compat.proto.saver_pb2 import SaverDef  # noqa: F401
from tensorboard.compat.proto.step_stats_pb2 import (AllocatorMemoryUsed, DeviceStepStats,  # noqa: F401,E501
                                                     NodeExecStats, NodeOutput, StepStats)
from tensorboard.compat.proto.summary_pb2 import (HistogramProto, Summary,  # noqa: F401
                                                  SummaryDescription, SummaryMetadata)
from tensorboard.compat.proto.tensor_pb2 import TensorProto  # noqa: F401
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto  # noqa: F401
from tensorboard.compat.proto.variable_pb2 import VariableDef  # noqa: F401
from tensorboard.compat.proto.versions_pb2 import VersionDef  # noqa: F401
