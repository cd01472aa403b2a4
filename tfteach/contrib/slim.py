"""`tf.contrib.slim` (TF-Slim, as TF 1.15 shipped it): the subset the notes use.

    slim.conv2d, conv2d_transpose, fully_connected, flatten, max_pool2d, avg_pool2d,
    dropout, batch_norm       layer functions (tfteach/contrib/layers/layers.py)
    slim.arg_scope, add_arg_scope
                              default arguments for a block (contrib/layers/arg_scope.py)
    slim.l2_regularizer, l1_regularizer, xavier_initializer, variance_scaling_initializer
    slim.variable, model_variable, get_variables, get_model_variables
    slim.losses               tf.losses (slim.losses.get_total_loss(), ...)

`slim.conv2d` IS `tf.contrib.layers.conv2d` (same function), as in TensorFlow.
"""
from tfteach.contrib.layers.arg_scope import (add_arg_scope, arg_scope,  # noqa: F401
                                              arg_scoped_arguments, current_arg_scope,
                                              has_arg_scope)
from tfteach.contrib.layers.initializers import (variance_scaling_initializer,  # noqa: F401
                                                 xavier_initializer,
                                                 xavier_initializer_conv2d)
from tfteach.contrib.layers.layers import (avg_pool2d, batch_norm, conv2d,  # noqa: F401
                                           conv2d_transpose, convolution2d,
                                           convolution2d_transpose, dropout, flatten,
                                           fully_connected, max_pool2d, model_variable,
                                           variable)
from tfteach.contrib.layers.regularizers import (l1_l2_regularizer,  # noqa: F401
                                                 l1_regularizer, l2_regularizer,
                                                 sum_regularizer)
from tfteach.framework.graph import GraphKeys
from tfteach.framework.graph_functions import get_collection
from tfteach import losses  # noqa: F401 - slim.losses: TF 1.15's were tf.losses' twins


def get_variables(scope=None, suffix=None, collection=GraphKeys.GLOBAL_VARIABLES):
    """Variables in `collection` whose name starts with `scope` (and ends in suffix)."""
    if scope is not None and not isinstance(scope, str):
        scope = scope.name
    found = get_collection(collection, scope)
    if suffix is not None:
        found = [v for v in found if v.op.name.endswith(suffix)]
    return found


def get_model_variables(scope=None, suffix=None):
    return get_variables(scope, suffix, GraphKeys.MODEL_VARIABLES)


def get_trainable_variables(scope=None, suffix=None):
    return get_variables(scope, suffix, GraphKeys.TRAINABLE_VARIABLES)


def get_variables_by_name(given_name, scope=None):
    """Variables whose last name component is `given_name` ('weights', 'biases')."""
    return get_variables(scope=scope, suffix="/" + given_name)
