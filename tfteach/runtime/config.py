"""`tf.ConfigProto`, `tf.GPUOptions`, `tf.RunOptions`, `tf.GraphOptions`,
`tf.OptimizerOptions` and Grappler's `RewriterConfig`: TensorFlow's own protocol buffer
messages, as the `tensorboard` package compiles TF's config.proto and
rewriter_config.proto (tensorboard.compat.proto).

So every field, default and enum name of TensorFlow's is there
(`RewriterConfig.NO_MEM_OPT`, `GraphOptions.timeline_step`, ...), the notes'
`config.gpu_options.allow_growth = True` works as written, a misspelt field or a value
of the wrong type is refused with protobuf's own error, and a ConfigProto serializes to
the bytes TensorFlow reads (`SerializeToString`, `text_format`). What the fields mean
for devices and memory is the devices issue's (docs/devices.md), for the graph
optimizer runtime/optimizer/toggles.py's; the Session keeps them. Fields tfteach has
no use for (cluster_def, rpc_options, XLA's jit levels) are accepted and ignored, as
a single-process TensorFlow without XLA ignores them.

(tfteach's `RunMetadata`, what a traced run fills, is its own class:
runtime/run_metadata.py.)

The messages are imported on first use (this module's `__getattr__`): a Session made
without a config keeps None for the defaults, and a tiny run loads no protobuf
(docs/engine.md, "Lazy imports").
"""
import importlib

__all__ = ["ConfigProto", "GPUOptions", "RunOptions", "GraphOptions", "OptimizerOptions",
           "RewriterConfig"]

_MODULE_OF = {"ConfigProto": "config_pb2", "GPUOptions": "config_pb2",
              "GraphOptions": "config_pb2", "OptimizerOptions": "config_pb2",
              "RunOptions": "config_pb2", "RewriterConfig": "rewriter_config_pb2"}


def __getattr__(name):
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    message = getattr(importlib.import_module("tensorboard.compat.proto." + module), name)
    globals()[name] = message              # looked up once
    return message


def __dir__():
    return sorted(list(globals()) + list(_MODULE_OF))
