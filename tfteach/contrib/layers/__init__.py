"""`tf.contrib.layers`: regularizers (regularizers.py), initializers (xavier,
initializers.py) and TF-Slim's layer functions (fully_connected, conv2d, ...,
layers.py; arg_scope.py holds slim.arg_scope).
"""
from tfteach.contrib.layers import initializers, layers, regularizers
from tfteach.contrib.layers.initializers import *  # noqa: F401,F403
from tfteach.contrib.layers.layers import *  # noqa: F401,F403
from tfteach.contrib.layers.regularizers import *  # noqa: F401,F403

__all__ = list(regularizers.__all__) + list(initializers.__all__) + list(layers.__all__)
# -- est (issue 19): optimize_loss, as note 004's LSTM Estimator uses it -----------------
from tfteach.contrib.layers.optimizers import optimize_loss  # noqa: E402
__all__ += ["optimize_loss"]
# -- end est ------------------------------------------------------------------------------
