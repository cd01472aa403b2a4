"""Normalization in `tf.nn`: moments, batch_normalization, fused_batch_norm,
local_response_normalization (lrn) and l2_normalize, as TF 1.15 builds them.

- `moments` and `batch_normalization` are built from ordinary ops (reduce_mean,
  squared_difference, rsqrt, ...), with TF's names (`moments/mean`, `batchnorm/Rsqrt`),
  so their gradients come from those ops.
- `fused_batch_norm` is one op, `FusedBatchNormV3`, with six outputs (y, batch mean,
  batch variance and three "reserve spaces" its gradient op reads), and one fused
  gradient op, `FusedBatchNormGradV3` (ops/normalization_grad.py).
  Kernels: kernels/cpu/normalization_kernels.py.
- `lrn` is one op (`LRN`) with its gradient op (`LRNGrad`).
docs/nn_ops.md explains training versus inference and the UPDATE_OPS pitfall.
"""
import numpy as np

from tfteach.framework import convert, dtypes, errors, tensor_shape
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import register_op
from tfteach.kernels.cpu import normalization_kernels as kernels
from tfteach.kernels.cpu.shape_kernels import shape_text
from tfteach.ops.cast_ops import cast
from tfteach.ops.binary_ops import maximum, multiply, squared_difference
from tfteach.ops.constant_op import constant
from tfteach.ops.op_builder import ShapeError, apply_op, deprecated_argument_lookup
from tfteach.ops.reduction_ops import reduce_mean, reduce_sum
from tfteach.ops.shape_ops import squeeze
from tfteach.ops.stop_gradient_op import stop_gradient
from tfteach.ops.unary_ops import rsqrt, square

__all__ = ["moments", "batch_normalization", "fused_batch_norm",
           "local_response_normalization", "lrn", "l2_normalize"]

# TF 1.15 allows float16, bfloat16 and float32 here; tfteach also runs float64 (so
# that gradients can be checked by finite differences in double precision).
BATCH_NORM_TYPES = "float16, bfloat16, float32, float64"
LRN_TYPES = "float16, bfloat16, float32, float64"


# -- moments and batch_normalization (plain ops) ------------------------------------------------
def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """(mean, variance) of `x` over `axes`; the variance is the biased one (divides by N).

    `shift` is unused (as in TF 1.15). float16 is computed in float32.
    """
    keep_dims = deprecated_argument_lookup("keepdims", keepdims, "keep_dims", keep_dims)
    keep_dims = bool(keep_dims)
    with name_scope(name, "moments", [x, axes]):
        x = convert.convert_to_tensor(x, name="x")
        y = cast(x, dtypes.float32) if x.dtype == dtypes.float16 else x
        mean = reduce_mean(y, axes, keepdims=True, name="mean")
        # stop_gradient: d variance / d mean is zero anyway, so no gradient is lost.
        variance = reduce_mean(squared_difference(y, stop_gradient(mean)), axes,
                               keepdims=True, name="variance")
        if not keep_dims:
            mean = squeeze(mean, axes)
            variance = squeeze(variance, axes)
        if x.dtype == dtypes.float16:
            return cast(mean, dtypes.float16), cast(variance, dtypes.float16)
        return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) / sqrt(variance + variance_epsilon) * scale + offset, as TF writes it:
    inv = rsqrt(variance + eps) * scale;  x * inv + (offset - mean * inv).

    `offset` (beta) and `scale` (gamma) may be None.
    """
    with name_scope(name, "batchnorm", [x, mean, variance, scale, offset]):
        x = convert.convert_to_tensor(x, name="x")
        inv = rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv *= scale
        shift = offset - mean * inv if offset is not None else -mean * inv
        return x * cast(inv, x.dtype) + cast(shift, x.dtype)


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x ** 2, axis), epsilon)) (TF1's old argument name: `dim`)."""
    axis = deprecated_argument_lookup("axis", axis, "dim", dim)
    with name_scope(name, "l2_normalize", [x]) as name:
        x = convert.convert_to_tensor(x, name="x")
        square_sum = reduce_sum(square(x), axis, keepdims=True)
        x_inv_norm = rsqrt(maximum(square_sum, epsilon))
        return multiply(x, x_inv_norm, name=name)


# -- FusedBatchNormV3 --------------------------------------------------------------------------
def _channels(shape, data_format):
    if shape.ndims is None:
        return None
    return shape.as_list()[1 if data_format == "NCHW" else -1]


def _fused_shape(op):
    x, scale, offset, mean, variance = op._inputs
    if x.shape.ndims not in (None, 4):
        raise ShapeError("Shape must be rank 4 but is rank %d" % x.shape.ndims)
    for t in (scale, offset) + ((mean, variance) if not op._attrs["is_training"] else ()):
        if t.shape.ndims not in (None, 1):
            raise ShapeError("Shape must be rank 1 but is rank %d" % t.shape.ndims)
    vectors = (scale, offset) + ((mean, variance) if not op._attrs["is_training"] else ())
    c = _merged_channels([_channels(x.shape, op._attrs["data_format"])] +
                         [_vector_length(t) for t in vectors])
    vec = tensor_shape.TensorShape([c])
    u = op._attrs["U"]
    # y is x's shape with the channel size the vectors may have told (TF's ReplaceDim).
    y_shape = _with_channels(x.shape, op._attrs["data_format"], c)
    return [(x.dtype.base_dtype, y_shape), (u, vec), (u, vec), (u, vec), (u, vec),
            (u, tensor_shape.unknown_shape(1))]


def _vector_length(t):
    return t.shape[0].value if t.shape.ndims == 1 else None


def _merged_channels(sizes):
    """The one channel size all the known `sizes` agree on (None if none is known);
    TF's Merge, with its error when two differ."""
    c = None
    for d in sizes:
        if c is not None and d is not None and c != d:
            raise ShapeError("Dimensions must be equal, but are %d and %d" % (c, d))
        c = d if c is None else c
    return c


def _with_channels(shape, data_format, channels):
    """A rank-4 `shape` (unknown: 4 unknown dims) with its channel dimension set."""
    dims = shape.as_list() if shape.ndims is not None else [None] * 4
    dims[1 if data_format == "NCHW" else -1] = channels
    return tensor_shape.TensorShape(dims)


def to_rows(x, data_format):
    """x as the [rows, channels] matrix the kernels use (and how to undo it)."""
    if data_format == "NCHW":
        nhwc = np.transpose(x, (0, 2, 3, 1))
    else:
        nhwc = x
    # Not reshape(-1, C): numpy cannot infer -1 when there are no channels.
    return (np.ascontiguousarray(nhwc).reshape(kernels.rows_of(nhwc.shape), nhwc.shape[-1]),
            nhwc.shape)


def from_rows(y2, shape, data_format):
    y = y2.reshape(shape)
    return np.ascontiguousarray(np.transpose(y, (0, 3, 1, 2))) if data_format == "NCHW" else y


def _check_vectors(ctx, x, named):
    if x.ndim != 4:
        raise errors.InvalidArgumentError(None, ctx.op, "input must be 4-dimensional%s"
                                          % shape_text(x.shape))
    channels = x.shape[1 if ctx.attrs["data_format"] == "NCHW" else 3]
    for what, v in named:
        if v.ndim != 1:
            raise errors.InvalidArgumentError(None, ctx.op, "%s must be 1-dimensional%s"
                                              % (what, shape_text(v.shape)))
        if v.shape[0] != channels:
            raise errors.InvalidArgumentError(
                None, ctx.op, "%s must have the same number of elements as the channels "
                "of x, got %d and %d" % (what, v.shape[0], channels))


def _fused_kernel(ctx, x, scale, offset, mean, variance):
    fmt, eps = ctx.attrs["data_format"], ctx.attrs["epsilon"]
    u = ctx.attrs["U"].np
    if ctx.attrs["is_training"]:
        _check_vectors(ctx, x, [("scale", scale), ("offset", offset)])
        x2, shape = to_rows(x, fmt)
        y2, m, corrected, biased = kernels.batch_norm_training(x2, scale, offset, eps)
        return (from_rows(y2, shape, fmt), m.astype(u), corrected.astype(u), m.astype(u),
                biased.astype(u), np.zeros(0, u))
    _check_vectors(ctx, x, [("scale", scale), ("offset", offset), ("mean", mean),
                            ("variance", variance)])
    x2, shape = to_rows(x, fmt)
    y2 = kernels.batch_norm_inference(x2, scale, offset, mean, variance, eps)
    return (from_rows(y2, shape, fmt), np.array(mean, u), np.array(variance, u),
            np.array(mean, u), np.array(variance, u), np.zeros(0, u))


def _fused_grad_shape(op):
    """TF's FusedBatchNormGrad shapes: the channel size merged from dy, x, scale and the
    saved statistics; x's gradient has dy's shape with that channel size."""
    dy, x = op._inputs[:2]
    fmt = op._attrs["data_format"]
    c = _merged_channels([_channels(dy.shape, fmt), _channels(x.shape, fmt)] +
                         [_vector_length(t) for t in op._inputs[2:5]])
    u = op._attrs["U"]
    vec = tensor_shape.TensorShape([c])
    return [(x.dtype.base_dtype, _with_channels(dy.shape, fmt, c)), (u, vec), (u, vec),
            (u, tensor_shape.TensorShape([0])), (u, tensor_shape.TensorShape([0]))]


def _fused_grad_kernel(ctx, dy, x, scale, saved_mean, saved_var, _reserve3):
    fmt = ctx.attrs["data_format"]
    u = ctx.attrs["U"].np
    x2, shape = to_rows(x, fmt)
    dy2, _ = to_rows(dy, fmt)
    dx2, dscale, doffset = kernels.batch_norm_grad(dy2, x2, scale, saved_mean, saved_var,
                                                   ctx.attrs["epsilon"],
                                                   ctx.attrs["is_training"])
    return (from_rows(dx2, shape, fmt), dscale.astype(u), doffset.astype(u),
            np.zeros(0, u), np.zeros(0, u))


register_op("FusedBatchNormV3", _fused_shape, cpu=_fused_kernel)
register_op("FusedBatchNormGradV3", _fused_grad_shape, cpu=_fused_grad_kernel)


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001,
                     data_format="NHWC", is_training=True, name=None):
    """Batch normalization of a 4-D `x` as one op; returns (y, batch_mean, batch_var).

    is_training=True: normalizes with this batch's mean and (biased) variance and returns
    them, the variance Bessel-corrected (times n / (n - 1)) for the moving averages.
    is_training=False: normalizes with the given `mean` and `variance`.
    """
    if not is_training and (mean is None or variance is None):
        raise ValueError("Both 'mean' and 'variance' must be a 1D tensor when is_training "
                         "is False.")
    x = convert.convert_to_tensor(x, name="input")
    scale = convert.convert_to_tensor(scale, name="scale")
    offset = convert.convert_to_tensor(offset, name="offset")
    if mean is None:
        mean = constant(np.zeros(0, np.float32))
    if variance is None:
        variance = constant(np.zeros(0, np.float32))
    mean = convert.convert_to_tensor(mean)
    variance = convert.convert_to_tensor(variance)
    dtype = x.dtype.base_dtype
    if dtype.name not in BATCH_NORM_TYPES.split(", "):
        raise TypeError("Value passed to parameter 'x' has DataType %s not in list of allowed "
                        "values: %s" % (dtype.name, BATCH_NORM_TYPES))
    if data_format not in ("NHWC", "NCHW"):
        # TF 1.15's op-definition check (its attr lists NHWC and NCHW only).
        raise ValueError("Value for attr 'data_format' of \"%s\" is not in the list of "
                         "allowed values: \"NHWC\", \"NCHW\"" % (data_format,))
    # cuDNN's minimum epsilon, which TF applies on every device.
    epsilon = max(float(epsilon), 1.001e-5)
    u = scale.dtype.base_dtype
    outputs = apply_op("FusedBatchNormV3", [x, scale, offset, mean, variance],
                       {"T": dtype, "U": u, "epsilon": epsilon, "data_format": data_format,
                        "is_training": bool(is_training)}, name or "FusedBatchNormV3")
    return outputs[0], outputs[1], outputs[2]


# -- LRN ---------------------------------------------------------------------------------------
def _lrn_shape(op):
    x = op._inputs[0]
    if x.shape.ndims not in (None, 4):
        raise ShapeError("Shape must be rank 4 but is rank %d" % x.shape.ndims)
    return [(x.dtype.base_dtype, x.shape)]


def _lrn_args(ctx):
    a = ctx.attrs
    return a["depth_radius"], a["bias"], a["alpha"], a["beta"]


def _check_lrn(ctx, x, what="in"):
    # TF's kernel checks (TF 1.15's text): a negative radius at kernel construction,
    # the rank in Compute.
    r = ctx.attrs["depth_radius"]
    if not 0 <= r <= 2 ** 31 - 1:
        raise errors.InvalidArgumentError(None, ctx.op, "depth_radius = %d larger than int max"
                                          % r)
    if x.ndim != 4:
        raise errors.InvalidArgumentError(None, ctx.op, "%s must be 4-dimensional" % what)


def _lrn_kernel(ctx, x):
    _check_lrn(ctx, x)
    return kernels.lrn(x, *_lrn_args(ctx))


def _lrn_grad_kernel(ctx, g, x, y):
    _check_lrn(ctx, x, "input_grads, input_image, and out_image")
    return kernels.lrn_grad(g, x, *_lrn_args(ctx))


register_op("LRN", _lrn_shape, cpu=_lrn_kernel)
register_op("LRNGrad", lambda op: [(op._inputs[1].dtype.base_dtype, op._inputs[1].shape)],
            cpu=_lrn_grad_kernel)


def local_response_normalization(input, depth_radius=5, bias=1, alpha=1, beta=0.5,  # noqa: A002
                                 name=None):
    """x / (bias + alpha * sum(x[d - r : d + r + 1] ** 2)) ** beta along the depth (last)
    axis of a 4-D input (`LRN`), the AlexNet-era normalization."""
    with name_scope(name, "LRN", [input]) as scope:
        x = convert.convert_to_tensor(input, name="input")
        dtype = x.dtype.base_dtype
        if dtype.name not in LRN_TYPES.split(", "):
            raise TypeError("Value passed to parameter 'input' has DataType %s not in list of "
                            "allowed values: %s" % (dtype.name, LRN_TYPES))
        # bias, alpha and beta are 32-bit float attributes in TF.
        attrs = {"T": dtype, "depth_radius": int(depth_radius),
                 "bias": float(np.float32(bias)), "alpha": float(np.float32(alpha)),
                 "beta": float(np.float32(beta))}
        return apply_op("LRN", [x], attrs, scope)


lrn = local_response_normalization

from tfteach.ops import normalization_grad  # noqa: E402,F401 - registers the gradients
