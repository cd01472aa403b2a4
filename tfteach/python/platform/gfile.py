"""`tensorflow.python.platform.gfile`: the same module as `tf.gfile` (tfteach/gfile.py)."""
from tfteach.gfile import *  # noqa: F401,F403
from tfteach.gfile import FileStatistics  # noqa: F401
