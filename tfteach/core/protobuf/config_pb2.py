"""`tensorflow.core.protobuf.config_pb2`: the Session's options, as `tf.ConfigProto` etc.

tfteach's records (runtime/config.py) and its `RunMetadata` (what a traced run fills),
not protocol buffers: the same field names, defaults and enum values.
"""
from tfteach.runtime.config import (ConfigProto, GPUOptions, GraphOptions,  # noqa: F401
                                    OptimizerOptions, RunOptions)
from tfteach.runtime.run_metadata import RunMetadata  # noqa: F401
