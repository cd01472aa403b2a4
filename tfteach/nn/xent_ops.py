"""The softmax cross entropies of `tf.nn`, fused into one op each as in TensorFlow.

- `softmax_cross_entropy_with_logits_v2(labels, logits)`: -sum(labels * log_softmax(logits))
  per row. One op, `SoftmaxCrossEntropyWithLogits`, with two outputs: the loss and its
  gradient `softmax(logits) - labels`, computed in the same pass; the registered
  gradient (ops/nn_grad.py) reuses that second output instead of differentiating a
  chain of exp/sum/log ops.
- `softmax_cross_entropy_with_logits` (TF1's, deprecated in 1.15): the same, but the
  labels go through `tf.stop_gradient` first, so no gradient flows into them.
- `sparse_softmax_cross_entropy_with_logits(labels, logits)`: labels are class indices,
  as if one-hot (`SparseSoftmaxCrossEntropyWithLogits`).

The TF1 functions insist on keyword arguments (`labels=..., logits=...`) with TF's
`_sentinel` trick: a positional call is TF's ValueError. Graphs are built as TF 1.15's
Python wrappers build them (flatten to 2-D, one op, reshape back), so tensors get TF's
names, e.g. `softmax_cross_entropy_with_logits_sg/Reshape_2:0`.
"""
from tfteach.framework import convert, dtypes, tensor_shape
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import register_op
from tfteach.kernels.cpu import nn_kernels
from tfteach.ops.binary_ops import subtract
from tfteach.ops.cast_ops import cast
from tfteach.ops.fill_ops import range as range_op
from tfteach.ops.join_ops import concat
from tfteach.ops.layout_ops import transpose
from tfteach.ops.op_builder import (ShapeError, apply_op, broadcast_static_shape,
                                     deprecated_argument_lookup)
from tfteach.ops.shape_ops import rank, reshape, shape as shape_op
from tfteach.ops.slicing import slice as slice_op
from tfteach.ops.stop_gradient_op import stop_gradient
from tfteach.nn.nn_dtypes import FLOATS, INDEX_TYPES, check_dtype

__all__ = ["softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits_v2",
           "sparse_softmax_cross_entropy_with_logits"]


# -- shape functions (TF 1.15's nn_ops.cc) ------------------------------------------------------
def _xent_shape(op):
    features, labels = op._inputs
    dtype = features.dtype.base_dtype
    merged = None
    if features.shape.ndims in (None, 2):
        try:
            merged = features.shape.with_rank(2).merge_with(labels.shape)
        except ValueError:
            merged = None
    if merged is None:
        # Not the same 2-D shape: TF 1.15 broadcasts labels against logits.
        merged = broadcast_static_shape(features.shape, labels.shape)
        if merged.ndims is None:
            raise ShapeError("Shape must be broadcasted with rank 2, but is rank is unknown.")
        if merged.ndims != 2:
            raise ShapeError("Shape must be broadcasted with rank 2, but is rank %d"
                             % merged.ndims)
    return [(dtype, tensor_shape.TensorShape([merged.dims[0]])), (dtype, merged)]


def _require_rank(shape, rank_wanted):
    if shape.ndims is not None and shape.ndims != rank_wanted:
        raise ShapeError("Shape must be rank %d but is rank %d" % (rank_wanted, shape.ndims))


def _sparse_xent_shape(op):
    features, labels = op._inputs
    _require_rank(features.shape, 2)
    _require_rank(labels.shape, 1)
    f = features.shape.with_rank(2).as_list()
    n = labels.shape.with_rank(1).as_list()[0]
    if f[0] is not None and n is not None and f[0] != n:
        raise ShapeError("Dimensions must be equal, but are %d and %d" % (f[0], n))
    batch = f[0] if f[0] is not None else n
    dtype = features.dtype.base_dtype
    return [(dtype, tensor_shape.TensorShape([batch])),
            (dtype, tensor_shape.TensorShape([batch, f[1]]))]


register_op("SoftmaxCrossEntropyWithLogits", _xent_shape, cpu=nn_kernels.softmax_xent)
register_op("SparseSoftmaxCrossEntropyWithLogits", _sparse_xent_shape,
            cpu=nn_kernels.sparse_softmax_xent)


def _xent_op(features, labels, name):
    """(loss, backprop) of SoftmaxCrossEntropyWithLogits(features, labels)."""
    check_dtype(features.dtype, FLOATS, "features")
    if labels.dtype.base_dtype != features.dtype.base_dtype:
        raise TypeError("Input 'labels' of 'SoftmaxCrossEntropyWithLogits' Op has type %s that "
                        "does not match type %s of argument 'features'."
                        % (labels.dtype.base_dtype.name, features.dtype.base_dtype.name))
    return apply_op("SoftmaxCrossEntropyWithLogits", [features, labels],
                    {"T": features.dtype.base_dtype}, name or "SoftmaxCrossEntropyWithLogits")


def _sparse_xent_op(features, labels, name):
    check_dtype(features.dtype, FLOATS, "features")
    check_dtype(labels.dtype, INDEX_TYPES, "labels")
    return apply_op("SparseSoftmaxCrossEntropyWithLogits", [features, labels],
                    {"T": features.dtype.base_dtype, "Tlabels": labels.dtype.base_dtype},
                    name or "SparseSoftmaxCrossEntropyWithLogits")


# -- argument rules ------------------------------------------------------------------------------
def _ensure_xent_args(name, sentinel, labels, logits):
    """TF1's rule: only keyword calls (the first parameter is a `_sentinel`)."""
    if sentinel is not None:
        raise ValueError("Only call `%s` with named arguments (labels=..., logits=..., ...)"
                         % name)
    if labels is None or logits is None:
        raise ValueError("Both labels and logits must be provided.")


# -- reshaping to the op's [batch, classes] ------------------------------------------------------
def _flatten_outer_dims(logits):
    """`logits` reshaped to [-1, last dim], keeping a static shape when known (TF's)."""
    r = rank(logits)
    last_dim_size = slice_op(shape_op(logits), [subtract(r, 1)], [1])
    output = reshape(logits, concat([[-1], last_dim_size], 0))
    dims = logits.shape.dims
    if dims is not None:
        outer = [d.value for d in dims[:-1]]
        if all(d is not None for d in outer):
            product = 1
            for d in outer:
                product *= d
            output.set_shape([product, dims[-1].value])
    return output


def _move_dim_to_end(tensor, dim_index, tensor_rank):
    return transpose(tensor, concat([range_op(dim_index),
                                     range_op(dim_index + 1, tensor_rank), [dim_index]], 0))


# -- tf.nn functions ------------------------------------------------------------------------------
def softmax_cross_entropy_with_logits_v2(labels, logits, axis=None, name=None, dim=None):
    """-sum(labels * log(softmax(logits)), axis): one loss per example.

    Gradients flow into both `logits` and `labels` (use tf.stop_gradient on labels that
    are data). float16 logits are computed in float32, as TF does.
    """
    axis = deprecated_argument_lookup("axis", axis, "dim", dim)
    if axis is None:
        axis = -1
    with name_scope(name, "softmax_cross_entropy_with_logits", [logits, labels]) as name:
        logits = convert.convert_to_tensor(logits, name="logits")
        labels = convert.convert_to_tensor(labels, name="labels")
        to_float32 = logits.dtype.base_dtype.name in ("float16", "bfloat16")
        precise_logits = cast(logits, dtypes.float32) if to_float32 else logits
        labels = cast(labels, precise_logits.dtype)
        input_rank = rank(precise_logits)
        static_shape = logits.shape
        if axis != -1:
            precise_logits = _move_dim_to_end(precise_logits, axis, input_rank)
            labels = _move_dim_to_end(labels, axis, input_rank)
        input_shape = shape_op(precise_logits)
        precise_logits = _flatten_outer_dims(precise_logits)
        labels = _flatten_outer_dims(labels)
        cost, _ = _xent_op(precise_logits, labels, name)
        output_shape = slice_op(input_shape, [0], [subtract(input_rank, 1)])
        cost = reshape(cost, output_shape)
        if static_shape.dims is not None:
            dims = static_shape.as_list()
            del dims[axis]
            cost.set_shape(dims)
        if to_float32:
            return cast(cost, logits.dtype)
        return cost


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1,
                                      name=None, axis=None):
    """TF1's softmax cross entropy: like `_v2`, but no gradient flows into `labels`.

    Deprecated in TF 1.15 in favour of `softmax_cross_entropy_with_logits_v2`; the
    arguments must be named (labels=..., logits=...).
    """
    dim = deprecated_argument_lookup("axis", axis, "dim", dim)
    _ensure_xent_args("softmax_cross_entropy_with_logits", _sentinel, labels, logits)
    with name_scope(name, "softmax_cross_entropy_with_logits_sg", [logits, labels]) as name:
        labels = stop_gradient(labels, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=dim,
                                                name=name)


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None,
                                             name=None):
    """-log(softmax(logits)[label]) per example; `labels` are int32/int64 class indices.

    labels has the shape of logits without its last axis; a label outside
    [0, num_classes) is an InvalidArgumentError when the graph runs.
    """
    _ensure_xent_args("sparse_softmax_cross_entropy_with_logits", _sentinel, labels, logits)
    with name_scope(name, "SparseSoftmaxCrossEntropyWithLogits", [labels, logits]):
        labels = convert.convert_to_tensor(labels)
        logits = convert.convert_to_tensor(logits)
        is_half = logits.dtype.base_dtype == dtypes.float16
        precise_logits = cast(logits, dtypes.float32) if is_half else logits
        labels_static_shape = labels.shape
        labels_shape = shape_op(labels)
        logits_shape = logits.shape
        static_shapes_fully_defined = (labels_static_shape.is_fully_defined() and
                                       logits_shape.ndims is not None and
                                       logits_shape[:-1].is_fully_defined())
        if logits_shape.ndims is not None and logits_shape.ndims == 0:
            raise ValueError("Logits cannot be scalars - received shape %s." % logits_shape)
        if (logits_shape.ndims is not None and labels_static_shape.ndims is not None and
                labels_static_shape.ndims != logits_shape.ndims - 1):
            raise ValueError("Rank mismatch: Rank of labels (received %s) should equal rank of "
                             "logits minus 1 (received %s)."
                             % (labels_static_shape.ndims, logits_shape.ndims))
        if static_shapes_fully_defined and labels_static_shape != logits_shape[:-1]:
            raise ValueError("Shape mismatch: The shape of labels (received %s) should equal "
                             "the shape of logits except for the last dimension (received %s)."
                             % (labels_static_shape, logits_shape))
        if logits_shape.ndims == 2:
            cost, _ = _sparse_xent_op(precise_logits, labels, name)
            return cast(cost, dtypes.float16) if is_half else cost
        # Any other rank: flatten to [-1, classes] and [-1], then reshape the loss back.
        # (TF also asserts at run time that unknown shapes agree; here the op's own
        # first-dimension check reports a mismatch.)
        num_classes = shape_op(logits)[rank(logits) - 1]
        precise_logits = reshape(precise_logits, [-1, num_classes])
        labels = reshape(labels, [-1])
        cost, _ = _sparse_xent_op(precise_logits, labels, name)
        cost = reshape(cost, labels_shape)
        cost.set_shape(labels_static_shape)
        return cast(cost, dtypes.float16) if is_half else cost
