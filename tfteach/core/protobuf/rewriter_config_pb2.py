"""`tensorflow.core.protobuf.rewriter_config_pb2`: Grappler's switches.

`RewriterConfig(constant_folding=RewriterConfig.OFF)` in a `GraphOptions` turns passes
of tfteach's graph optimizer off, as in TensorFlow (docs/optimizer.md, "Turning passes
off"; runtime/optimizer/toggles.py says which field turns off which pass).
"""
from tfteach.runtime.config import RewriterConfig  # noqa: F401
