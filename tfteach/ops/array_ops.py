"""The array/shape op family of `tf.*`, gathered from the modules that define it.

Each module holds one idea: shape_ops (shape, reshape, squeeze, ...), join_ops (concat,
stack, split, auto-packing), layout_ops (transpose, reverse, tile, pad), slicing (slice,
strided_slice, `tensor[...]`), fill_ops (zeros, ones, range, eye, ...), gather_ops
(gather, one_hot, unsorted_segment_sum, ...) and where_ops (where, boolean_mask).
"""
from tfteach.ops import fill_ops, gather_ops, join_ops, layout_ops, shape_ops, slicing, where_ops
from tfteach.ops.fill_ops import *  # noqa: F401,F403
from tfteach.ops.gather_ops import *  # noqa: F401,F403
from tfteach.ops.join_ops import *  # noqa: F401,F403
from tfteach.ops.layout_ops import *  # noqa: F401,F403
from tfteach.ops.shape_ops import *  # noqa: F401,F403
from tfteach.ops.slicing import *  # noqa: F401,F403
from tfteach.ops.where_ops import *  # noqa: F401,F403

__all__ = (fill_ops.__all__ + gather_ops.__all__ + join_ops.__all__ + layout_ops.__all__ +
           shape_ops.__all__ + slicing.__all__ + where_ops.__all__)
