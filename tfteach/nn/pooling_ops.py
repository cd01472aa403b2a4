"""`tf.nn.max_pool` and `tf.nn.avg_pool` (and TF 1.15's `max_pool2d` / `avg_pool2d`).

A pooling op slides a `ksize` window over the image with step `strides` and keeps the
window's maximum (`MaxPool`) or mean (`AvgPool`). `ksize` and `strides` are given per
dimension of the input, `[1, kh, kw, 1]` for NHWC; an int or a list of 1 or 2 numbers is
expanded to that, as TF 1.15 does. Padding "VALID" keeps only full windows, "SAME"
pads so that the output has ceil(in / stride) pixels (docs/nn_ops.md has the arithmetic).

The gradient ops have TensorFlow's inputs: `MaxPoolGrad(orig_input, orig_output, grad)`
and `AvgPoolGrad(orig_input_shape, grad)` (ops/pooling_grad.py builds them).
Kernels: kernels/cpu/pooling_kernels.py, written for NHWC. NCHW is transposed there
and back (TensorFlow's CPU kernels refuse NCHW; its GPU kernels accept it).
"""
import numpy as np

from tfteach.framework import convert, errors, tensor_shape
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import register_op
from tfteach.kernels.cpu import pooling_kernels as kernels
from tfteach.nn.conv_shapes import get_sequence
from tfteach.ops.build_time_values import inferred_value
from tfteach.ops.op_builder import ShapeError, apply_op

__all__ = ["max_pool", "avg_pool", "max_pool2d", "avg_pool2d"]

MAX_POOL_TYPES = ("float16, bfloat16, float32, float64, int32, int64, uint8, int16, int8, "
                  "uint16, qint8")
AVG_POOL_TYPES = "float16, bfloat16, float32, float64"


# -- attributes and shapes -----------------------------------------------------------------
def to_nhwc(values, data_format):
    """A 4-list in `data_format`'s order -> NHWC order (ksize, strides, shapes)."""
    v = list(values)
    return [v[0], v[2], v[3], v[1]] if data_format == "NCHW" else v


def _pool_shape(op):
    x = op._inputs[0]
    attrs = op._attrs
    return [(x.dtype.base_dtype, pooled_shape(op.type, x.shape, attrs))]


def pooled_shape(op_type, shape, attrs):
    """The static output shape of a pooling op on an input of static `shape`."""
    for attr in ("strides", "ksize"):
        if len(attrs[attr]) != 4:
            raise ShapeError("%s requires the %s attribute to contain 4 values, but got: %d"
                             % (op_type.replace("Grad", ""),
                                "stride" if attr == "strides" else attr, len(attrs[attr])))
    for s in attrs["strides"]:           # TF's shape function, even for unknown shapes
        if s <= 0:
            raise ShapeError("Stride must be > 0, but got %d" % s)
    if shape.ndims is None:
        return tensor_shape.unknown_shape(4)
    if shape.ndims != 4:
        raise ShapeError("Shape must be rank 4 but is rank %d" % shape.ndims)
    fmt = attrs["data_format"]
    n, h, w, c = to_nhwc(shape.as_list(), fmt)
    ksize = to_nhwc(attrs["ksize"], fmt)
    strides = to_nhwc(attrs["strides"], fmt)
    out = []
    for size, k, s in ((h, ksize[1], strides[1]), (w, ksize[2], strides[2])):
        if size is None:
            out.append(None)
            continue
        if attrs["padding"] == "VALID" and size < k:
            raise ShapeError("Negative dimension size caused by subtracting %d from %d"
                             % (k, size))
        out.append(kernels.output_size_and_padding(size, k, s, attrs["padding"])[0])
    dims = [n, out[0], out[1], c]
    if fmt == "NCHW":
        dims = [n, c, out[0], out[1]]
    return tensor_shape.TensorShape(dims)


# -- kernels (NHWC inside) -------------------------------------------------------------------
def check_window(ctx):
    """The runtime checks of TF's pooling kernels; returns NHWC (ksize, strides)."""
    fmt = ctx.attrs["data_format"]
    ksize = to_nhwc(ctx.attrs["ksize"], fmt)
    strides = to_nhwc(ctx.attrs["strides"], fmt)
    if ksize[0] != 1 or strides[0] != 1:
        raise errors.InvalidArgumentError(
            None, ctx.op, "Pooling is not yet supported on the batch dimension.")
    if ksize[3] != 1 or strides[3] != 1:
        raise errors.InvalidArgumentError(
            None, ctx.op, "Pooling over the depth dimension is not supported by tfteach.")
    for i in (1, 2):   # ops built from raw attrs skip tf.nn's checks; a 0 would divide
        if ksize[i] <= 0:
            raise errors.InvalidArgumentError(
                None, ctx.op, "Sliding window ksize for dimension %d was %s." % (
                    i, "zero" if ksize[i] == 0 else "negative: %d" % ksize[i]))
        if strides[i] <= 0:
            raise errors.InvalidArgumentError(
                None, ctx.op, "Stride must be > 0, but got %d" % strides[i])
    return ksize, strides, ctx.attrs["padding"]


def _check_output_size(ctx, x_nhwc, ksize, strides, padding):
    """A VALID window larger than the fed image (shapes unknown when the graph was built)."""
    if padding != "VALID":
        return
    for i in (1, 2):
        size = kernels.output_size_and_padding(x_nhwc.shape[i], ksize[i], strides[i],
                                               "VALID")[0]
        if size < 0:
            raise errors.InvalidArgumentError(
                None, ctx.op, "Computed output size would be negative: %d [input_size: %d, "
                "effective_filter_size: %d, stride: %d]"
                % (size, x_nhwc.shape[i], ksize[i], strides[i]))


def _nhwc(x, fmt):
    return np.transpose(x, (0, 2, 3, 1)) if fmt == "NCHW" else x


def _back(y, fmt):
    return np.ascontiguousarray(np.transpose(y, (0, 3, 1, 2))) if fmt == "NCHW" else y


def _check_rank(ctx, x, what="input"):
    if x.ndim != 4:
        raise errors.InvalidArgumentError(None, ctx.op, "%s must be 4-dimensional" % what)


def _max_pool_kernel(ctx, x):
    _check_rank(ctx, x)
    fmt = ctx.attrs["data_format"]
    x, window = _nhwc(x, fmt), check_window(ctx)
    _check_output_size(ctx, x, *window)
    return _back(kernels.max_pool(x, *window), fmt)


def _avg_pool_kernel(ctx, x):
    _check_rank(ctx, x)
    fmt = ctx.attrs["data_format"]
    x, window = _nhwc(x, fmt), check_window(ctx)
    _check_output_size(ctx, x, *window)
    return _back(kernels.avg_pool(x, *window), fmt)


def _max_pool_grad_kernel(ctx, x, y, grad, relu_of_input=False):
    """`relu_of_input`: ReluGrad(MaxPoolGrad(x, y, grad), x) in one pass, asked for by a
    fused plan where `x` is the output of the relu that ReluGrad differentiates
    (runtime/fusion.py)."""
    fmt = ctx.attrs["data_format"]
    return _back(kernels.max_pool_grad(_nhwc(x, fmt), _nhwc(y, fmt), _nhwc(grad, fmt),
                                       *check_window(ctx), relu_of_input=relu_of_input),
                 fmt)


def _max_pool_grad_grad_kernel(ctx, x, y, grad):
    fmt = ctx.attrs["data_format"]
    return _back(kernels.max_pool_grad_grad(_nhwc(x, fmt), _nhwc(y, fmt), _nhwc(grad, fmt),
                                            *check_window(ctx)), fmt)


def _avg_pool_grad_kernel(ctx, input_shape, grad):
    fmt = ctx.attrs["data_format"]
    shape = to_nhwc([int(d) for d in input_shape], fmt)
    return _back(kernels.avg_pool_grad(shape, _nhwc(grad, fmt), *check_window(ctx)), fmt)


def _like_input(index):
    def shape_fn(op):
        t = op._inputs[index]
        return [(op._attrs["T"], t.shape)]
    return shape_fn


def _avg_pool_grad_shape(op):
    value = inferred_value(op._inputs[0])
    shape = (tensor_shape.unknown_shape(4) if value is None
             else tensor_shape.TensorShape([int(d) for d in value]))
    return [(op._attrs["T"], shape)]


register_op("MaxPool", _pool_shape, cpu=_max_pool_kernel)
register_op("AvgPool", _pool_shape, cpu=_avg_pool_kernel)
register_op("MaxPoolGrad", _like_input(0), cpu=_max_pool_grad_kernel)
register_op("MaxPoolGradGrad", _like_input(1), cpu=_max_pool_grad_grad_kernel)
register_op("AvgPoolGrad", _avg_pool_grad_shape, cpu=_avg_pool_grad_kernel)


# -- tf.nn functions ---------------------------------------------------------------------------
def pool_attrs(dtype, ksize, strides, padding, data_format):
    """The attributes every pooling op (and its gradient ops) carries."""
    if padding not in ("SAME", "VALID"):
        raise ValueError("padding must be one of SAME, VALID; got %r" % (padding,))
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError("data_format must be NHWC or NCHW; got %r" % (data_format,))
    return {"T": dtype, "ksize": list(ksize), "strides": list(strides), "padding": padding,
            "data_format": data_format}


def _pool(op_type, allowed, value, ksize, strides, padding, data_format, name):
    with name_scope(name, op_type, [value]) as scope:
        if data_format is None:
            data_format = "NHWC"
        x = convert.convert_to_tensor(value, name="input")
        dtype = x.dtype.base_dtype
        if dtype.name not in allowed.split(", "):
            raise TypeError("Value passed to parameter 'input' has DataType %s not in list "
                            "of allowed values: %s" % (dtype.name, allowed))
        channel_index = 1 if data_format.startswith("NC") else 3
        ksize = get_sequence(ksize, 2, channel_index, "ksize")
        strides = get_sequence(strides, 2, channel_index, "strides")
        if any(k == 0 for k in ksize):      # TF 1.15 pooled garbage here; later TFs refuse
            raise ValueError("`ksize` cannot be zero. Received: ksize=%s" % (ksize,))
        return apply_op(op_type, [x], pool_attrs(dtype, ksize, strides, padding, data_format),
                        scope)


def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):
    """The maximum of each `ksize` window, moved by `strides` (`MaxPool`).

    value: 4-D [batch, height, width, channels] (NHWC) or [batch, channels, height,
    width] (NCHW); ksize, strides: e.g. [1, 2, 2, 1]; padding: "SAME" or "VALID".
    """
    if input is not None:
        if value is not None:
            raise ValueError("Cannot specify both 'value' and 'input'.")
        value = input
    return _pool("MaxPool", MAX_POOL_TYPES, value, ksize, strides, padding, data_format, name)


def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):
    """The mean of each `ksize` window (`AvgPool`); with "SAME" padding the padded
    cells are left out of the mean (a corner window of 4 real cells divides by 4)."""
    if input is not None:
        if value is not None:
            raise ValueError("Cannot specify both 'value' and 'input'.")
        value = input
    return _pool("AvgPool", AVG_POOL_TYPES, value, ksize, strides, padding, data_format, name)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """TF 1.15's `tf.nn.max_pool2d`: `max_pool` with the argument named `input`."""
    return max_pool(input, ksize, strides, padding, data_format, name)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """TF 1.15's `tf.nn.avg_pool2d`: `avg_pool` with the argument named `input`."""
    return avg_pool(input, ksize, strides, padding, data_format, name)


from tfteach.ops import pooling_grad  # noqa: E402,F401 - registers the gradients

