"""The global step: one int64 variable counting training steps (`global_step:0`).

`tf.train.get_or_create_global_step()` makes it (scalar, int64, zeros, not trainable,
in the GLOBAL_VARIABLES and GLOBAL_STEP collections) or returns the one that exists.
Passing it to `minimize(loss, global_step=step)` makes every training step add 1 to it
after the updates; learning-rate schedules read it.
"""
import logging

from tfteach.framework import dtypes
from tfteach.framework import graph as graph_lib
from tfteach.framework.graph import GraphKeys
from tfteach.framework.tensor import Tensor
from tfteach.ops import init_ops, variable_scope, variables

__all__ = ["global_step", "get_global_step", "create_global_step",
           "get_or_create_global_step", "assert_global_step"]


def global_step(sess, global_step_tensor):
    """The global step's value in `sess`, as a Python int."""
    return int(sess.run(global_step_tensor))


def get_global_step(graph=None):
    """The graph's global step: the one in the GLOBAL_STEP collection, else the tensor
    named `global_step:0`, else None."""
    graph = graph or graph_lib.get_default_graph()
    global_step_tensor = None
    global_step_tensors = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(global_step_tensors) == 1:
        global_step_tensor = global_step_tensors[0]
    elif not global_step_tensors:
        try:
            global_step_tensor = graph.get_tensor_by_name("global_step:0")
        except KeyError:
            return None
    else:
        logging.error("Multiple tensors in global_step collection.")
        return None
    assert_global_step(global_step_tensor)
    return global_step_tensor


def create_global_step(graph=None):
    """Creates the global step; ValueError if the graph already has one."""
    graph = graph or graph_lib.get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    # Named `global_step` wherever it is created: no name scope, root variable scope.
    with graph.as_default() as g, g.name_scope(None):
        return variable_scope.get_variable(
            GraphKeys.GLOBAL_STEP, shape=[], dtype=dtypes.int64,
            initializer=init_ops.zeros_initializer(), trainable=False,
            collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP])


def get_or_create_global_step(graph=None):
    """The graph's global step, created if it has none."""
    graph = graph or graph_lib.get_default_graph()
    global_step_tensor = get_global_step(graph)
    if global_step_tensor is None:
        global_step_tensor = create_global_step(graph)
    return global_step_tensor


def assert_global_step(global_step_tensor):
    """TypeError unless `global_step_tensor` is an integer scalar Variable or Tensor."""
    if not isinstance(global_step_tensor, (variables.Variable, Tensor)):
        raise TypeError('Existing "global_step" must be a Variable or Tensor: %s.'
                        % global_step_tensor)
    if not global_step_tensor.dtype.base_dtype.is_integer:
        raise TypeError('Existing "global_step" does not have integer type: %s'
                        % global_step_tensor.dtype)
    if (global_step_tensor.get_shape().ndims != 0
            and global_step_tensor.get_shape().is_fully_defined()):
        raise TypeError('Existing "global_step" is not scalar: %s'
                        % global_step_tensor.get_shape())
