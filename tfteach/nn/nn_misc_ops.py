"""`tf.nn.dropout`, `tf.nn.embedding_lookup`, `tf.nn.top_k` and `tf.nn.in_top_k`.

- dropout is built from ordinary ops exactly as TF 1.15's `dropout_v2` builds it:
  `keep_prob` (deprecated) becomes rate = 1 - keep_prob, then
  mask = random_uniform(noise_shape) >= rate,  y = x * (1 / (1 - rate)) * cast(mask)
  (ops dropout/random_uniform, dropout/GreaterEqual, dropout/mul, dropout/Cast,
  dropout/mul_1), with x's static shape set on the result as TF 1.15 does (also when
  keep_prob is a placeholder). A rate known to be 0 (keep_prob=1 as a Python number) returns x
  itself: no op at all. Seeds follow tf.random_uniform's rules (docs/random.md).
- embedding_lookup of one params tensor (or Variable) is a gather of rows plus TF's
  `Identity`; its gradient is the gather's.
- top_k (`TopKV2`) and in_top_k (`InTopKV2`, TF 1.15's op) are single ops; kernels in
  kernels/cpu/nn_misc_kernels.py. top_k's values have a gradient (to the chosen
  positions); indices and in_top_k are integers/booleans and have none.
"""
import collections
import numbers

import numpy as np

from tfteach.framework import convert, dtypes, errors, tensor_shape
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import gradient, not_differentiable, register_op
from tfteach.kernels.cpu import nn_misc_kernels as kernels
from tfteach.kernels.cpu.shape_kernels import shape_text
from tfteach.ops.build_time_values import inferred_value
from tfteach.ops.cast_ops import cast
from tfteach.ops.clip_norm_ops import clip_by_norm
from tfteach.ops.constant_op import constant, identity
from tfteach.ops.gather_ops import gather, one_hot
from tfteach.ops.op_builder import ShapeError, apply_op, constant_value
from tfteach.ops.random_ops import random_uniform
from tfteach.ops.reduction_ops import reduce_sum
from tfteach.ops.shape_ops import expand_dims, shape as shape_op
from tfteach.ops.typed_inputs import check_allowed
from tfteach.ops.where_ops import where_v2
from tfteach.ops.binary_ops import maximum

__all__ = ["dropout", "embedding_lookup", "top_k", "in_top_k"]


# -- dropout -----------------------------------------------------------------------------------
def _noise_shape(x, noise_shape):
    """TF's `_get_noise_shape`: None -> shape(x); unknown dims are filled from x."""
    if noise_shape is None:
        return shape_op(x)
    try:
        wanted = tensor_shape.as_shape(noise_shape)
    except (TypeError, ValueError):
        return noise_shape                 # a tensor: the op checks it
    if x.shape.ndims is not None and wanted.ndims == x.shape.ndims:
        return tensor_shape.TensorShape(
            [d if w is None and d is not None else w
             for d, w in zip(x.shape.as_list(), wanted.as_list())])
    return noise_shape


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """Zeroes each element of x with probability `rate` (= 1 - keep_prob) and scales the
    kept ones by 1 / (1 - rate), so the expected sum is unchanged.

    noise_shape: the shape of the random keep/drop mask, broadcast against x; e.g. for
    x of shape [k, l, m, n], noise_shape=[k, 1, 1, n] keeps or drops whole rows/columns.
    """
    try:
        rate_from_keep_prob = 1. - keep_prob if keep_prob is not None else None
    except TypeError:
        raise ValueError("keep_prob must be a floating point number or Tensor (got %r)"
                         % (keep_prob,)) from None
    if rate is not None and rate_from_keep_prob is not None:
        raise ValueError("Cannot specify both 'keep_prob' and 'rate'.")
    rate = rate if rate is not None else rate_from_keep_prob
    if rate is None:
        raise ValueError("You must provide a rate to dropout.")
    return _dropout_v2(x, rate, noise_shape, seed, name)


def _dropout_v2(x, rate, noise_shape, seed, name):
    with name_scope(name, "dropout", [x]):
        x = convert.convert_to_tensor(x, name="x")
        if not x.dtype.is_floating:
            raise ValueError("x has to be a floating point tensor since it's going to be "
                             "scaled. Got a %s tensor instead." % x.dtype)
        if isinstance(rate, numbers.Real):
            if not (0 <= rate < 1):
                raise ValueError("rate must be a scalar tensor or a float in the range "
                                 "[0, 1), got %g" % rate)
            if rate == 0:
                return x                   # nothing to drop: no ops at all
        rate = convert.convert_to_tensor(rate, dtype=x.dtype, name="rate")
        rate.shape.assert_is_compatible_with(tensor_shape.scalar())
        known = constant_value(rate)
        if known is not None and known == 0:
            return x
        noise = _noise_shape(x, noise_shape)
        random_tensor = random_uniform(noise, seed=seed, dtype=x.dtype)
        keep_prob = 1 - rate
        scale = 1 / keep_prob
        # u >= rate has probability 1 - rate for u uniform in [0, 1).
        keep_mask = random_tensor >= rate
        # TF 1.15's graph, also for a fed rate (the notes' keep_prob placeholder, drawn by
        # %%tfgraph): a keep_prob fed as 0 gives NaN (inf * 0), exactly as TF 1.15 does.
        result = x * scale * cast(keep_mask, x.dtype)
        # The mask's shape comes from shape(x) at run time, so the product's static shape
        # can be unknown (a fed keep_prob); TF 1.15 sets x's shape on it, as here.
        result.set_shape(x.shape)
        return result


# -- embedding_lookup --------------------------------------------------------------------------
def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True,
                     max_norm=None):
    """The rows params[ids] (shape ids.shape + params.shape[1:]).

    `params`: a tensor or Variable of shape [vocabulary, ...], or a list of shards of
    one, split by `partition_strategy` as TF 1.15 does: "mod" puts id i in shard
    i % n (row i // n), "div" gives each shard a contiguous range of ids. Rows with an
    L2 norm above `max_norm` are scaled down to it.
    """
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, (list, tuple)):
        if not params:
            raise ValueError("Need at least one param")
        if len(params) > 1:
            return _sharded_lookup(list(params), ids, partition_strategy, name, max_norm)
        params = params[0]
    with name_scope(name, "embedding_lookup", [params, ids]) as scope:
        params = convert.convert_to_tensor(params, name="params")
        ids = convert.convert_to_tensor(ids, name="ids")
        result = gather(params, ids, name=scope)
        return identity(_clip(result, ids, max_norm))


def _clip(result, ids, max_norm):
    if max_norm is None:
        return result
    ids_rank, params_rank = ids.shape.ndims, result.shape.ndims
    if ids_rank is None or params_rank is None:
        raise NotImplementedError("max_norm needs ids and params of known rank")
    return clip_by_norm(result, max_norm, axes=list(range(ids_rank, params_rank)))


def _sharded_lookup(params, ids, partition_strategy, name, max_norm):
    """TF 1.15's lookup in n shards: DynamicPartition of the ids by shard, one gather per
    shard, DynamicStitch of the rows back in order."""
    from tfteach.ops.fill_ops import range as range_
    from tfteach.ops.join_ops import concat, stack
    from tfteach.ops.partition_ops import dynamic_partition, dynamic_stitch
    from tfteach.ops.reduction_ops import reduce_sum as sum_
    from tfteach.ops.shape_ops import reshape, size
    n = len(params)
    with name_scope(name, "embedding_lookup", params + [ids]) as scope:
        params = [convert.convert_to_tensor(p, name="params") for p in params]
        ids = convert.convert_to_tensor(ids, name="ids")
        flat_ids = reshape(ids, [-1])
        original_indices = range_(size(flat_ids))
        if partition_strategy == "mod":
            p_assignments = flat_ids % n
            new_ids = flat_ids // n
        elif partition_strategy == "div":
            dims = [p.shape[0].value if p.shape.ndims else None for p in params]
            if all(d is not None for d in dims):
                num_total_ids = constant(sum(dims), dtype=flat_ids.dtype)
            else:
                num_total_ids = sum_(cast(stack([shape_op(p)[0] for p in params]),
                                          flat_ids.dtype))
            ids_per_partition = num_total_ids // n
            extras = num_total_ids % n
            p_assignments = maximum(flat_ids // (ids_per_partition + 1),
                                    (flat_ids - extras) // ids_per_partition)
            new_ids = where_v2(p_assignments < extras, flat_ids % (ids_per_partition + 1),
                               (flat_ids - extras) % ids_per_partition)
        else:
            raise ValueError("Unrecognized partition strategy: " + str(partition_strategy))
        p_assignments = cast(p_assignments, dtypes.int32)
        gather_ids = dynamic_partition(new_ids, p_assignments, n)
        pindices = dynamic_partition(original_indices, p_assignments, n)
        partitioned = [gather(params[p], gather_ids[p]) for p in range(n)]
        ret = dynamic_stitch(pindices, partitioned, name=scope)
        element_shape = params[0].shape[1:]
        for p in params[1:]:
            element_shape = element_shape.merge_with(p.shape[1:])
        element_shape_d = (element_shape.as_list() if element_shape.is_fully_defined()
                           else shape_op(params[0])[1:])
        ret = reshape(ret, concat([shape_op(ids), element_shape_d], 0))
        ret.set_shape(ids.shape.concatenate(element_shape))
        return _clip(ret, ids, max_norm)


# -- top_k and in_top_k ------------------------------------------------------------------------
def _top_k_shape(op):
    x, k = op._inputs
    if x.shape.ndims is not None and x.shape.ndims < 1:
        raise ShapeError("Shape must be at least rank 1 but is rank %d" % x.shape.ndims)
    if k.shape.ndims not in (None, 0):
        raise ShapeError("Input must be scalar but has rank %d" % k.shape.ndims)
    k_value = inferred_value(k)
    if k_value is not None:
        k_value = int(k_value)
        if k_value < 0:
            raise ShapeError("Input 'k' cannot be negative, got %d" % k_value)
        last = x.shape[-1].value if x.shape.ndims is not None else None
        if last is not None and last < k_value:
            raise ShapeError("input must have last dimension >= k = %d but is %d"
                             % (k_value, last))
    if x.shape.ndims is None:
        shape = tensor_shape.unknown_shape()
    else:
        shape = tensor_shape.TensorShape(x.shape.as_list()[:-1] + [k_value])
    return [(x.dtype.base_dtype, shape), (dtypes.int32, shape)]


def _top_k_kernel(ctx, x, k):
    if np.ndim(k) != 0:
        raise errors.InvalidArgumentError(None, ctx.op, "k must be scalar, got shape %s"
                                          % shape_text(np.shape(k)))
    k = int(k)
    if k < 0:
        raise errors.InvalidArgumentError(None, ctx.op, "Need k >= 0, got %d" % k)
    if x.ndim < 1:
        raise errors.InvalidArgumentError(None, ctx.op, "input must be >= 1-D, got shape %s"
                                          % list(x.shape))
    if x.shape[-1] < k:
        raise errors.InvalidArgumentError(None, ctx.op, "input must have at least k "
                                          "columns. Had %d, needed %d" % (x.shape[-1], k))
    return kernels.top_k(x, k, ctx.attrs["sorted"])


def _in_top_k_shape(op):
    predictions, targets, k = op._inputs
    if k.shape.ndims not in (None, 0):
        raise ShapeError("Shape must be rank 0 but is rank %d" % k.shape.ndims)
    if predictions.shape.ndims not in (None, 2):
        raise ShapeError("Shape must be rank 2 but is rank %d" % predictions.shape.ndims)
    if targets.shape.ndims not in (None, 1):
        raise ShapeError("Shape must be rank 1 but is rank %d" % targets.shape.ndims)
    batch = tensor_shape.TensorShape([None])
    if predictions.shape.ndims is not None:
        batch = tensor_shape.TensorShape([predictions.shape[0].value])
    try:
        batch = batch.merge_with(targets.shape)
    except ValueError:
        raise ShapeError("Dimensions must be equal, but are %s and %s"
                         % (predictions.shape[0].value, targets.shape[0].value)) from None
    return [(dtypes.bool, batch)]


def _in_top_k_kernel(ctx, predictions, targets, k):
    if predictions.shape[0] != targets.shape[0]:
        raise errors.InvalidArgumentError(
            None, ctx.op, "First dimension of predictions %d must match length of targets %d"
            % (predictions.shape[0], targets.shape[0]))
    return kernels.in_top_k(predictions, targets, int(k))


register_op("TopKV2", _top_k_shape, cpu=_top_k_kernel)
register_op("InTopKV2", _in_top_k_shape, cpu=_in_top_k_kernel)
not_differentiable("InTopKV2")


@gradient("TopKV2")
def _top_k_grad(op, grad, _):
    # Each value's gradient goes back to the position it came from:
    # d input[..., j] = sum_i grad[..., i] * (indices[..., i] == j).
    x, indices = op.inputs[0], op.outputs[1]
    depth = x.shape[-1].value if x.shape.ndims is not None else None
    if depth is None:
        depth = shape_op(x)[-1]
    chosen = one_hot(indices, depth, dtype=grad.dtype)
    return [reduce_sum(expand_dims(grad, -1) * chosen, axis=-2), None]


def top_k(input, k=1, sorted=True, name=None):  # noqa: A002 - TF's argument names
    """(values, indices) of the k largest entries of each last-axis row, largest first;
    equal values in index order."""
    with name_scope(name, "TopKV2", [input, k]) as scope:
        x = convert.convert_to_tensor(input, name="input")
        check_allowed(x.dtype.base_dtype, "real_number", "input")
        if convert.is_tensor(k):
            check_allowed(k.dtype.base_dtype, "int32", "k")
        k = convert.convert_to_tensor(k, dtype=dtypes.int32, name="k")
        values, indices = apply_op("TopKV2", [x, k], {"T": x.dtype.base_dtype,
                                                      "sorted": bool(sorted)}, scope)
        return _TopKResult(values, indices)


# TF's result type: a namedtuple, so `values, indices = tf.nn.top_k(x)` and `.values` work.
_TopKResult = collections.namedtuple("TopKV2", ["values", "indices"])


def in_top_k(predictions, targets, k, name=None):
    """A bool per row: is targets[i] among the k highest predictions[i]? (`InTopKV2`)

    Ties count as in: the target is in when fewer than k classes score higher.
    """
    with name_scope(name, "in_top_k", [predictions, targets]):
        predictions = convert.convert_to_tensor(predictions, name="predictions")
        targets = convert.convert_to_tensor(targets, name="targets")
        if predictions.dtype.base_dtype != dtypes.float32:
            raise TypeError("Value passed to parameter 'predictions' has DataType %s not in "
                            "list of allowed values: float32" % predictions.dtype.base_dtype.name)
        if targets.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError("Value passed to parameter 'targets' has DataType %s not in list "
                            "of allowed values: int32, int64" % targets.dtype.base_dtype.name)
        k = convert.convert_to_tensor(k, dtype=targets.dtype.base_dtype, name="k")
        return apply_op("InTopKV2", [predictions, targets, k],
                        {"T": targets.dtype.base_dtype}, name)

