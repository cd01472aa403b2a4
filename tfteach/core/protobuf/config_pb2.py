"""`tensorflow.core.protobuf.config_pb2`: the Session's options, as `tf.ConfigProto` etc.

TensorFlow's own messages (runtime/config.py: as the tensorboard package compiles them)
and tfteach's `RunMetadata` (what a traced run fills: runtime/run_metadata.py).
"""
from tfteach.runtime.config import (ConfigProto, GPUOptions, GraphOptions,  # noqa: F401
                                    OptimizerOptions, RunOptions)
from tfteach.runtime.run_metadata import RunMetadata  # noqa: F401
