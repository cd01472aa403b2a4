"""`tensorflow.core.framework.summary_pb2`: TensorFlow's own messages, as TensorBoard ships them."""
from tensorboard.compat.proto.summary_pb2 import *  # noqa: F401,F403
from tensorboard.compat.proto.summary_pb2 import DESCRIPTOR  # noqa: F401
