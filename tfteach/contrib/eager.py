"""`tf.contrib.eager` (`tfe`): TF 1.x's eager API, as note 001's "Eager" section uses it.

    import tfteach as tf
    tfe = tf.contrib.eager
    tfe.enable_eager_execution()

Everything here is a tfteach name under the name `tfe` gave it in TF 1.15:
`tfe.Variable` is `tf.Variable` (a resource variable executing eagerly),
`tfe.Iterator(dataset)` iterates a dataset eagerly, `tfe.make_template` is
`tf.make_template`, `tfe.py_func` is `tf.py_function`, `tfe.defun` is `tf.function`
without AutoGraph (as TF's `defun`). The four gradient functions the note lists (TF's
first eager gradients, replaced by `tf.GradientTape`) are eager/gradient_functions.py.
"""
from tfteach.eager.context import enable_eager_execution, executing_eagerly
from tfteach.eager.function import function
from tfteach.eager.gradient_functions import (gradients_function, implicit_gradients,
                                              implicit_value_and_gradients, make_vjp,
                                              value_and_gradients_function)
from tfteach.eager.tape import GradientTape
from tfteach.eager.tensor_spec import TensorSpec
from tfteach.ops.template import make_template
# TF 1.15's tfe.Variable is ResourceVariable: tf.Variable is one executing eagerly; tfteach's
# graphs hold reference variables only (use_resource is accepted and has no effect).
from tfteach.ops.variables import Variable

__all__ = ["enable_eager_execution", "executing_eagerly", "in_eager_mode", "in_graph_mode",
           "Variable", "Iterator", "make_template", "py_func", "defun", "function",
           "GradientTape", "gradients_function", "value_and_gradients_function",
           "implicit_gradients", "implicit_value_and_gradients", "make_vjp",
           "Checkpoint", "TensorSpec", "num_gpus"]


def in_eager_mode():
    """TF 1.x's older name of `executing_eagerly()`."""
    return executing_eagerly()


def in_graph_mode():
    return not executing_eagerly()


def Iterator(dataset):  # noqa: N802 - TF's name for a class
    """`tfe.Iterator(dataset)`: the dataset's elements, executing eagerly. Building a
    graph it is TF's RuntimeError: a graph iterates with make_one_shot_iterator."""
    if not executing_eagerly():
        raise RuntimeError(
            "{} objects can only be used when eager execution is enabled, use "
            "tf.data.Dataset.make_initializable_iterator or "
            "tf.data.Dataset.make_one_shot_iterator for graph construction".format(
                "Iterator"))
    from tfteach.data.iterator_ops import EagerIterator
    return EagerIterator(dataset)


def py_func(func, inp, Tout, name=None):  # noqa: N803 - TF's argument name
    """`tfe.py_func`: `tf.py_function` (the function receives tensors)."""
    from tfteach.ops.script_ops import py_function
    return py_function(func, inp, Tout, name=name)


def defun(func=None, input_signature=None, experimental_autograph=False):
    """`tfe.defun`: `tf.function` without AutoGraph unless asked (TF's defun)."""
    return function(func, input_signature=input_signature, autograph=experimental_autograph)


def num_gpus():
    """The number of GPU devices this process has, real or virtual (the course kernel's),
    as `tf.test.is_gpu_available()` sees them."""
    from tfteach.test import _gpus
    return len(_gpus())


def __getattr__(name):
    if name == "Checkpoint":
        from tfteach.train import Checkpoint
        return Checkpoint
    raise AttributeError("module 'tensorflow.contrib.eager' has no attribute '%s'" % name)
