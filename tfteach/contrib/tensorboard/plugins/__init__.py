"""`tf.contrib.tensorboard.plugins`."""
from tfteach.contrib.tensorboard.plugins import projector  # noqa: F401
