"""`tf.nn.bias_add` (`BiasAdd`, gradient `BiasAddGrad`) and `tf.nn.xw_plus_b`.

bias_add(value, bias) adds a 1-D bias along the channel axis: the last one ("NHWC",
any rank >= 2) or the one after the batch ("NCHW"). Unlike `value + bias` it never
broadcasts anything else, and its gradient for the bias is one `BiasAddGrad` op (a sum
over every other axis). Kernels: kernels/cpu/bias_kernels.py.
"""
from tfteach.framework import convert, tensor_shape
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import register_op
from tfteach.kernels.cpu import bias_kernels
from tfteach.ops.linalg_ops import matmul
from tfteach.ops.op_builder import ShapeError, apply_op
from tfteach.ops.typed_inputs import check_allowed

__all__ = ["bias_add", "xw_plus_b", "bias_add_grad"]


def _channel_index(op, rank):
    """The channel axis: 1 for NCHW (any rank >= 3, as the kernel reads it), else -1.

    TF 1.15's BiasAddShape merged an NCHW bias into dimension -3, which is axis 1 only
    at rank 4: it refused a valid rank-3 or rank-5 NCHW input at graph build (and
    checked the wrong axis) while its kernel added along axis 1. Later TFs use axis 1.
    """
    return 1 if op._attrs.get("data_format", "NHWC") == "NCHW" else rank - 1


def _min_rank(op, shape):
    least = 3 if op._attrs.get("data_format", "NHWC") == "NCHW" else 2
    if shape.ndims is not None and shape.ndims < least:
        raise ShapeError("Shape must be at least rank %d but is rank %d" % (least, shape.ndims))


def _bias_add_shape(op):
    x, bias = op._inputs
    _min_rank(op, x.shape)
    if bias.shape.ndims is not None and bias.shape.ndims != 1:
        raise ShapeError("Shape must be rank 1 but is rank %d" % bias.shape.ndims)
    if x.shape.ndims is None:
        return [(x.dtype.base_dtype, tensor_shape.unknown_shape())]
    dims = x.shape.as_list()
    k = _channel_index(op, len(dims))
    b = bias.shape.as_list()[0] if bias.shape.ndims == 1 else None
    if dims[k] is not None and b is not None and dims[k] != b:
        raise ShapeError("Dimensions must be equal, but are %d and %d" % (dims[k], b))
    dims[k] = dims[k] if dims[k] is not None else b
    return [(x.dtype.base_dtype, tensor_shape.TensorShape(dims))]


def _bias_add_grad_shape(op):
    g = op._inputs[0]
    _min_rank(op, g.shape)
    if g.shape.ndims is None:
        return [(g.dtype.base_dtype, tensor_shape.unknown_shape(1))]
    return [(g.dtype.base_dtype,
             tensor_shape.TensorShape([g.shape.as_list()[_channel_index(op, g.shape.ndims)]]))]


register_op("BiasAdd", _bias_add_shape, cpu=bias_kernels.bias_add)
register_op("BiasAddGrad", _bias_add_grad_shape, cpu=bias_kernels.bias_add_grad)


def _data_format(data_format):
    if data_format is None:
        return "NHWC"
    if data_format.startswith("NC"):
        return "NCHW"
    if data_format.startswith("N") and data_format.endswith("C"):
        return "NHWC"
    raise ValueError("data_format must be of the form `N...C` or `NC...`")


def bias_add(value, bias, data_format=None, name=None):
    """value + bias along the channel axis (`BiasAdd`); bias is 1-D."""
    with name_scope(name, "BiasAdd", [value, bias]) as scope:
        fmt = _data_format(data_format)
        value = convert.convert_to_tensor(value, name="input")
        check_allowed(value.dtype.base_dtype, "number", "value")    # no bool / string
        bias = convert.convert_to_tensor(bias, dtype=value.dtype, name="bias")
        return apply_op("BiasAdd", [value, bias], {"T": value.dtype.base_dtype,
                                                   "data_format": fmt}, scope)


def bias_add_grad(out_backprop, data_format="NHWC", name=None):
    """The bias gradient of BiasAdd: `out_backprop` summed over all but the channel axis."""
    g = convert.convert_to_tensor(out_backprop, name="out_backprop")
    return apply_op("BiasAddGrad", [g], {"T": g.dtype.base_dtype,
                                         "data_format": data_format}, name or "BiasAddGrad")


def xw_plus_b(x, weights, biases, name=None):
    """matmul(x, weights) + biases, the bias added with BiasAdd."""
    with name_scope(name, "xw_plus_b", [x, weights, biases]) as scope:
        x = convert.convert_to_tensor(x, name="x")
        weights = convert.convert_to_tensor(weights, name="weights")
        biases = convert.convert_to_tensor(biases, name="biases")
        mm = matmul(x, weights)
        return bias_add(mm, biases, name=scope)
