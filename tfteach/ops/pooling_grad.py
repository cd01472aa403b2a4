"""Gradients of the pooling ops, as TF 1.15's `nn_grad.py` builds them.

- MaxPool: `MaxPoolGrad(x, y, grad)` sends each output's gradient to the first
  maximum of its window (the kernel finds it by comparing x with y).
- AvgPool: `AvgPoolGrad(shape(x), grad)` shares each output's gradient equally among
  the real (unpadded) cells of its window.
- Second derivatives: MaxPoolGrad is linear in `grad`, so its own gradient picks the
  incoming gradient at each window's argmax (`MaxPoolGradGrad`); AvgPoolGrad is linear
  too, and its gradient is an average pooling of the incoming gradient.
"""
import numpy as np

from tfteach.framework import dtypes
from tfteach.framework.registry import gradient
from tfteach.ops.constant_op import constant
from tfteach.ops.fill_ops import zeros_like
from tfteach.ops.op_builder import apply_op
from tfteach.ops.shape_ops import shape as shape_op

__all__ = []


def _attrs(op):
    return {k: op.get_attr(k) for k in ("T", "ksize", "strides", "padding", "data_format")}


@gradient("MaxPool")
def _max_pool_grad(op, grad):
    return [apply_op("MaxPoolGrad", [op.inputs[0], op.outputs[0], grad], _attrs(op),
                     "MaxPoolGrad")]


@gradient("MaxPoolGrad")
def _max_pool_grad_grad(op, grad):
    x, y = op.inputs[0], op.inputs[1]
    return [zeros_like(x), zeros_like(y),
            apply_op("MaxPoolGradGrad", [x, y, grad], _attrs(op), "MaxPoolGradGrad")]


@gradient("MaxPoolGradGrad")
def _max_pool_grad_grad_grad(op, grad):
    # MaxPoolGradGrad(x, y, g) picks g at each window's argmax: linear in g, its
    # gradient sends `grad` back to those argmaxes (a MaxPoolGrad); x and y get zeros.
    x, y = op.inputs[0], op.inputs[1]
    return [zeros_like(x), zeros_like(y),
            apply_op("MaxPoolGrad", [x, y, grad], _attrs(op), "MaxPoolGrad")]


@gradient("AvgPool")
def _avg_pool_grad(op, grad):
    x = op.inputs[0]
    if x.shape.is_fully_defined():
        # Known when the graph is built: a constant instead of TF's Shape op.
        input_shape = constant(np.array(x.shape.as_list(), np.int32), dtype=dtypes.int32,
                               name="Shape")
    else:
        input_shape = shape_op(x)
    return [apply_op("AvgPoolGrad", [input_shape, grad], _attrs(op), "AvgPoolGrad")]


@gradient("AvgPoolGrad")
def _avg_pool_grad_grad(op, grad):
    return [None, apply_op("AvgPool", [grad], _attrs(op), "AvgPool")]
