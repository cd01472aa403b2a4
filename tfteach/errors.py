"""`tf.errors`: TensorFlow's runtime error classes."""
from tfteach.framework.errors import *  # noqa: F401,F403
from tfteach.framework.errors import __all__  # noqa: F401
