"""`tf.contrib.tensorboard` (TF 1.15): the projector plugin's config writer."""
from tfteach.contrib.tensorboard import plugins  # noqa: F401
