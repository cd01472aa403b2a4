"""Rescaling tensors by their L2 norm: `tf.clip_by_norm`, `tf.global_norm`,
`tf.clip_by_global_norm` (gradient clipping) and `tf.clip_by_average_norm`.

Built from ordinary ops with TF 1.15's formulas and names, so the graph shows how the
clipping is computed, e.g. clip_by_norm(t, c) = t * c / max(||t||, c): unchanged when
the norm is at most c, scaled down to norm c otherwise.
"""
import numpy as np

from tfteach.framework import convert, dtypes
from tfteach.framework.graph_functions import name_scope
from tfteach.ops import binary_ops, cast_ops, unary_ops, where_ops
from tfteach.ops.constant_op import constant, identity
from tfteach.ops.fill_ops import ones_like, range as range_
from tfteach.ops.join_ops import stack
from tfteach.ops.reduction_ops import reduce_sum
from tfteach.ops.shape_ops import rank, size

__all__ = ["clip_by_norm", "global_norm", "clip_by_global_norm", "clip_by_average_norm"]


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """`t * clip_norm / max(l2norm(t), clip_norm)`; the norm over `axes` (default: all).

    Written as TF does so that its gradient is never NaN, even when t is all zeros.
    """
    with name_scope(name, "clip_by_norm", [t, clip_norm]) as scope:
        t = convert.convert_to_tensor(t, name="t")
        if np.isscalar(clip_norm) and clip_norm < 0:
            # Later TF's: a negative norm clips to 0 (TF 1.15 flipped the sign of t).
            clip_norm = 0
        l2sum = reduce_sum(t * t, axes, keepdims=True)
        pred = l2sum > 0
        # Two-tap where: sqrt is never evaluated at 0, whose gradient would be inf.
        l2sum_safe = where_ops.where(pred, l2sum, ones_like(l2sum))
        l2norm = where_ops.where(pred, unary_ops.sqrt(l2sum_safe), l2sum)
        intermediate = t * clip_norm
        # The shapes must agree: a clip_norm of another shape must not broadcast t.
        t.shape.merge_with(intermediate.shape)
        return identity(intermediate / binary_ops.maximum(l2norm, clip_norm), name=scope)


def _check_sequence(t_list):
    if not isinstance(t_list, (list, tuple)):
        raise TypeError("t_list should be a sequence")
    return list(t_list)


def _l2_loss(v):
    from tfteach.nn.losses_ops import l2_loss        # the nn family builds on this module
    return l2_loss(v)


def global_norm(t_list, name=None):
    """sqrt(sum of the squares of every element of every tensor); None entries skipped."""
    t_list = _check_sequence(t_list)
    with name_scope(name, "global_norm", [t for t in t_list if t is not None]):
        values = [convert.convert_to_tensor(t, name="t_%d" % i) if t is not None else None
                  for i, t in enumerate(t_list)]
        half_squared_norms = [_l2_loss(v) for v in values if v is not None]
        half_squared_norm = reduce_sum(stack(half_squared_norms))
        return unary_ops.sqrt(
            half_squared_norm * constant(2.0, dtype=half_squared_norm.dtype.base_dtype),
            name="global_norm")


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """(the tensors scaled by clip_norm / max(global_norm, clip_norm), the global norm).

    All tensors are scaled by the same factor, so the direction of the whole gradient
    is kept. None entries stay None. An infinite or NaN norm makes every value NaN.
    """
    t_list = _check_sequence(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list, name)
    present = [t for t in t_list if t is not None]
    with name_scope(name, "clip_by_global_norm", present + [clip_norm]) as scope:
        scale_for_finite = clip_norm * binary_ops.minimum(
            1.0 / use_norm, constant(1.0, dtype=use_norm.dtype.base_dtype) / clip_norm)
        # use_norm - use_norm is 0 for a finite norm and NaN for inf or NaN.
        scale = scale_for_finite + (use_norm - use_norm)
        values = [convert.convert_to_tensor(t, name="t_%d" % i) if t is not None else None
                  for i, t in enumerate(t_list)]
        clipped = []
        for i, v in enumerate(values):
            if v is None:
                clipped.append(None)
            else:
                clipped.append(identity(v * scale, name="%s_%d" % (scope, i)))
    return clipped, use_norm


def clip_by_average_norm(t, clip_norm, name=None):
    """`t * clip_norm / max(l2norm(t) / size(t), clip_norm)` (deprecated in TF 1.x)."""
    with name_scope(name, "clip_by_average_norm", [t, clip_norm]) as scope:
        t = convert.convert_to_tensor(t, name="t")
        n_element = cast_ops.cast(size(t), dtypes.float32)
        l2norm_inv = unary_ops.rsqrt(reduce_sum(t * t, range_(rank(t))))
        return identity(t * clip_norm * binary_ops.minimum(
            l2norm_inv * n_element, constant(1.0) / clip_norm), name=scope)
