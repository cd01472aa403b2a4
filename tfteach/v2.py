"""`import tfteach.v2 as tf`: the TensorFlow 2 namespace, eager by default.

Importing it switches eager execution on for the process (TF 2 has no other mode);
`tf.compat.v1` is the TF 1 namespace (`tfteach`), with graphs and Sessions inside
`with tf.Graph().as_default():`. See docs/eager.md.
"""
import sys as _sys

from tfteach.eager import context as _context
from tfteach.eager import namespaces as _namespaces

_namespaces.fill_v2(_sys.modules[__name__])
_context.v2_mode_on()
