"""Build-time side of the convolution ops: argument conversion and shape functions.

- `get_sequence` / `convert_padding` are TF 1.15's Python helpers (nn_ops.py): strides
  and dilations given as 1, 2 or 4 numbers, padding as "SAME", "VALID" or a list of
  explicit [before, after] pairs.
- The shape functions are TF's C++ shape inference (`Conv2DShapeWithExplicitPadding`,
  `DepthwiseConv2DNativeShape`, `MakeShapeFromShapeTensor`) with their messages; the
  graph adds ` for 'Conv2D' (op: 'Conv2D') with input shapes: ...`.
The output-size arithmetic itself is shared with the kernels (conv_geometry.py).
"""
import numpy as np

from tfteach.framework import tensor_shape
from tfteach.kernels.cpu.conv_geometry import effective_size, layout_axes
from tfteach.ops.build_time_values import inferred_value
from tfteach.ops.op_builder import ShapeError

__all__ = ["make_int", "get_sequence", "convert_padding", "check_data_format", "check_padding",
           "conv_output_dims", "conv2d_shape", "depthwise_shape", "shape_from_tensor",
           "spatial_shape"]


def make_int(value, attr):
    """TF's op_def_library `_MakeInt`: a string or non-number is a TypeError, not int()."""
    if not isinstance(value, str):
        try:
            return int(value)
        except (TypeError, ValueError):
            pass
    raise TypeError("Expected int for argument '%s' not %r." % (attr, value))


def get_sequence(value, n, channel_index, name):
    """TF's `_get_sequence`: 1, n or n + 2 numbers -> the n + 2 of a 4-D attribute."""
    if value is None:
        return [1] * (n + 2)
    if isinstance(value, (int, np.integer)) or not hasattr(value, "__len__"):
        value = [value]
    value = [make_int(v, name) for v in value]
    if len(value) == n + 2:
        return value
    if len(value) == 1:
        value = value * n
    elif len(value) != n:
        raise ValueError("%s should be of length 1, %d or %d but was %d"
                         % (name, n, n + 2, len(value)))
    return [1, 1] + value if channel_index == 1 else [1] + value + [1]


def convert_padding(padding):
    """(padding, explicit_paddings): a list of 4 [before, after] pairs means EXPLICIT."""
    explicit = []
    if isinstance(padding, str) and padding == "EXPLICIT":
        raise ValueError('"EXPLICIT" is not a valid value for the padding parameter. To use '
                         'explicit padding, the padding parameter must be a list.')
    if isinstance(padding, (list, tuple)):
        for i, pair in enumerate(padding):
            if not isinstance(pair, (list, tuple)):
                raise ValueError("When padding is a list, each element of padding must be a "
                                 "list/tuple of size 2. Element with index %d of padding is "
                                 "not a list/tuple" % i)
            if len(pair) != 2:
                raise ValueError("When padding is a list, each element of padding must be a "
                                 "list/tuple of size 2. Element with index %d of padding has "
                                 "size %d" % (i, len(pair)))
            explicit.extend(make_int(p, "explicit_paddings") for p in pair)
        if len(padding) != 4:
            raise ValueError("When padding is a list, it must be of size 4. Got padding of "
                             "size: %d" % len(padding))
        padding = "EXPLICIT"
    return padding, explicit


def _check_attr(op_type, attr, value, allowed):
    if value not in allowed:
        raise ValueError("Attr '%s' of '%s' Op passed string '%s' not in: \"%s\"."
                         % (attr, op_type, value, '", "'.join(allowed)))


def check_data_format(op_type, data_format):
    _check_attr(op_type, "data_format", data_format, ("NHWC", "NCHW"))


def check_padding(op_type, padding, explicit=True):
    allowed = ("SAME", "VALID", "EXPLICIT") if explicit else ("SAME", "VALID")
    if not isinstance(padding, str):
        raise TypeError("Expected string for argument 'padding' not %r." % (padding,))
    _check_attr(op_type, "padding", padding, allowed)


# -- shape functions ---------------------------------------------------------------------------
def _with_rank(shape, rank):
    if shape.ndims is None:
        return [None] * rank
    if shape.ndims != rank:
        raise ShapeError("Shape must be rank %d but is rank %d" % (rank, shape.ndims))
    return shape.as_list()


def _window_dim(size, k, stride, dilation, padding, before=0, after=0):
    """TF's `GetWindowedOutputSizeFromDimsV2`: one output dimension, or None if unknown."""
    if stride <= 0:
        raise ShapeError("Stride must be > 0, but got %d" % stride)
    if dilation < 1:
        raise ShapeError("Dilation rate must be >= 1, but got %d" % dilation)
    if padding == "SAME":                 # needs no filter size: known even when it is not
        return None if size is None else (size + stride - 1) // stride
    if size is None or k is None:
        return None
    size += before + after
    eff = effective_size(k, dilation)
    if size < eff:
        raise ShapeError("Negative dimension size caused by subtracting %d from %d"
                         % (eff, size))
    return (size - eff + stride) // stride


def conv_output_dims(op, input_dims, filter_hw, op_label):
    """[out_h, out_w] from the op's strides / dilations / padding attributes."""
    attrs = op._attrs
    strides = attrs["strides"]
    dilations = attrs.get("dilations", [1, 1, 1, 1])
    if len(strides) != 4:
        raise ShapeError("%s requires the stride attribute to contain 4 values, but got: %d"
                         % (op_label, len(strides)))
    if len(dilations) != 4:
        raise ShapeError("%s requires the dilation attribute to contain 4 values, but got: %d"
                         % (op_label, len(dilations)))
    n, h, w, c = layout_axes(attrs.get("data_format", "NHWC"))
    pads = list(attrs.get("explicit_paddings", []))
    if attrs["padding"] == "EXPLICIT":
        if len(pads) != 8:
            raise ShapeError("explicit_paddings attribute must contain 8 values, but got: %d"
                             % len(pads))
        if any(pads[2 * a + s] != 0 for a in (n, c) for s in (0, 1)):
            raise ShapeError("Nonzero explicit padding in the batch or depth dimensions is "
                             "not supported")
        if any(p < 0 for p in pads):
            raise ShapeError("All elements of explicit_paddings must be nonnegative")
    else:
        pads = [0] * 8
    return [_window_dim(input_dims[a], filter_hw[k], strides[a], dilations[a],
                        attrs["padding"], pads[2 * a], pads[2 * a + 1])
            for k, a in enumerate((h, w))]


def spatial_shape(data_format, batch, hw, channels):
    if data_format == "NCHW":
        return tensor_shape.TensorShape([batch, channels] + hw)
    return tensor_shape.TensorShape([batch] + hw + [channels])


def conv2d_shape(op):
    """Conv2D: [batch, out_h, out_w, out_channels] in the op's data format."""
    x, f = op._inputs
    fmt = op._attrs.get("data_format", "NHWC")
    dims = _with_rank(x.shape, 4)
    fdims = _with_rank(f.shape, 4)
    n, _, _, c = layout_axes(fmt)
    in_depth, filter_depth, out_depth = dims[c], fdims[2], fdims[3]
    if in_depth is not None and filter_depth is not None:
        if filter_depth == 0 or in_depth % filter_depth != 0:
            raise ShapeError("Depth of input (%d) is not a multiple of input depth of filter "
                             "(%d)" % (in_depth, filter_depth))
        groups = in_depth // filter_depth
        if out_depth is not None and out_depth % groups != 0:
            raise ShapeError("Depth of output (%d) is not a multiple of the number of groups "
                             "(%d)" % (out_depth, groups))
    hw = conv_output_dims(op, dims, fdims[:2], "Conv2D")
    return [(x.dtype.base_dtype, spatial_shape(fmt, dims[n], hw, out_depth))]


def depthwise_shape(op):
    """DepthwiseConv2dNative: channels become in_channels * channel_multiplier."""
    x, f = op._inputs
    fmt = op._attrs.get("data_format", "NHWC")
    dims = _with_rank(x.shape, 4)
    fdims = _with_rank(f.shape, 4)
    n, _, _, c = layout_axes(fmt)
    if dims[c] is not None and fdims[2] is not None and dims[c] != fdims[2]:
        raise ShapeError("Dimensions must be equal, but are %d and %d" % (dims[c], fdims[2]))
    in_depth = dims[c] if dims[c] is not None else fdims[2]
    out_depth = None if in_depth is None or fdims[3] is None else in_depth * fdims[3]
    strides = op._attrs["strides"]
    if len(strides) == 4:
        h, w = layout_axes(fmt)[1:3]
        if strides[h] != strides[w]:
            raise ShapeError("Current implementation only supports equal length strides in "
                             "the row and column dimensions.")
    hw = conv_output_dims(op, dims, fdims[:2], "DepthwiseConv2D")
    return [(x.dtype.base_dtype, spatial_shape(fmt, dims[n], hw, out_depth))]


def shape_from_tensor(sizes):
    """TF's `MakeShapeFromShapeTensor` + `WithRank(4)`: the shape a sizes tensor names."""
    if sizes.shape.ndims is not None and sizes.shape.ndims != 1:
        raise ShapeError("Shape must be rank 1 but is rank %d" % sizes.shape.ndims)
    value = inferred_value(sizes)
    if value is not None:
        dims = [int(d) for d in np.asarray(value).reshape(-1)]
        bad = [d for d in dims if d < -1]       # -1 means unknown; below is an error
        if bad:
            raise ShapeError("Invalid value in tensor used for shape: %d" % bad[0])
        dims = [None if d < 0 else d for d in dims]
    elif sizes.shape.ndims == 1 and sizes.shape.as_list()[0] is not None:
        dims = [None] * sizes.shape.as_list()[0]
    else:
        return tensor_shape.unknown_shape(4)
    if len(dims) != 4:
        raise ShapeError("Shape must be rank 4 but is rank %d" % len(dims))
    return tensor_shape.TensorShape(dims)
