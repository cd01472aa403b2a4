"""`tf.contrib.layers`: for now its regularizers (regularizers.py).

Later issues add the layer functions (fully_connected, conv2d, ...) as more modules.
"""
from tfteach.contrib.layers import regularizers
from tfteach.contrib.layers.regularizers import *  # noqa: F401,F403

__all__ = list(regularizers.__all__)
