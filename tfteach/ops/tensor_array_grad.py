"""Gradients of the TensorArray ops (ops/tensor_array_ops.py), as TF 1.15's
tensor_array_grad.py builds them, so `tf.gradients` goes through a TensorFlow graph
imported with its TensorArrays (TF's dynamic_rnn) and tfteach can train it.

The gradient of an array is its gradient array (`TensorArrayGradV3`, found again by
every op of one `tf.gradients` call through the call's name, its `source`):

  - reading step i gives a gradient g: write g at step i of the gradient array (writes
    there add up: a step read twice gets both gradients);
  - writing a value at step i: its gradient is what the gradient array holds at step i;
  - scatter / gather are the same for several steps: gather / scatter.

The `flow` of each op orders them: a gradient array's writes come before its reads
because each read's flow is the flow the writes returned.
"""
from tfteach.framework.registry import gradient
from tfteach.ops.op_builder import apply_op

__all__ = []


def _grad_source(tensor):
    """The name scope of the `tf.gradients` call that made `tensor`: the name up to its
    last part starting with "gradients" (TF's _GetGradSource)."""
    parts = tensor.name.split("/")
    positions = [i for i, part in enumerate(parts) if part.startswith("gradients")]
    if not positions:
        raise ValueError("Expected op/tensor name to start with gradients (excluding "
                         "scope), got: %s" % tensor.name)
    return "/".join(parts[:positions[-1] + 1])


class SecondOrderTensorArrayGradientError(TypeError, LookupError):
    """Differentiating a gradient array again (a second derivative through an imported
    TensorArray) is refused rather than computed wrong: gradient arrays add up their
    writes, which their own gradients do not model. Also a LookupError, what callers of
    tf.gradients catch for an op without a gradient."""


def _gradient_array(handle, flow, source_of):
    """(gradient array handle, its flow) of the array `handle`."""
    if handle.op.type == "TensorArrayGradV3":
        raise SecondOrderTensorArrayGradientError(
            "Second-order gradient through a TensorArray is not supported by tfteach: "
            "'%s' is a gradient array (op %s)." % (handle.name, handle.op.name))
    return apply_op("TensorArrayGradV3", [handle, flow],
                    {"source": _grad_source(source_of)}, name="TensorArrayGrad")


@gradient("TensorArrayReadV3")
def _read_grad(op, grad):
    handle, index, flow = op.inputs
    grad_handle, grad_flow = _gradient_array(handle, flow, grad)
    written = apply_op("TensorArrayWriteV3", [grad_handle, index, grad, grad_flow],
                       {"T": op._attrs["dtype"]}, name="TensorArrayWrite")
    return [None, None, written]


@gradient("TensorArrayWriteV3")
def _write_grad(op, flow):
    handle, index, _, _ = op.inputs
    grad_handle, grad_flow = _gradient_array(handle, flow, flow)
    value = apply_op("TensorArrayReadV3", [grad_handle, index, grad_flow],
                     {"dtype": op._attrs["T"]}, name="TensorArrayRead")
    return [None, None, value, flow]


@gradient("TensorArrayGatherV3")
def _gather_grad(op, grad):
    handle, indices, flow = op.inputs
    grad_handle, grad_flow = _gradient_array(handle, flow, grad)
    scattered = apply_op("TensorArrayScatterV3", [grad_handle, indices, grad, grad_flow],
                         {"T": op._attrs["dtype"]}, name="TensorArrayScatter")
    return [None, None, scattered]


@gradient("TensorArrayScatterV3")
def _scatter_grad(op, flow):
    handle, indices, _, _ = op.inputs
    grad_handle, grad_flow = _gradient_array(handle, flow, flow)
    value = apply_op("TensorArrayGatherV3", [grad_handle, indices, grad_flow],
                     {"dtype": op._attrs["T"]}, name="TensorArrayGather")
    return [None, None, value, flow]
