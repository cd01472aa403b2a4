"""`tf.clip_by_value`: clamp every element into [clip_value_min, clip_value_max]."""
from tfteach.framework import convert
from tfteach.framework.graph_functions import name_scope
from tfteach.ops.binary_ops import maximum, minimum

__all__ = ["clip_by_value"]


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """min(max(t, min), max) elementwise, as TF 1.15 builds it (Minimum then Maximum).

    The bounds may be scalars or broadcast *into* `t`'s shape, but they may not make
    the result bigger than `t`: TF checks that with `merge_with`, raising ValueError.
    """
    with name_scope(name, "clip_by_value", [t, clip_value_min, clip_value_max]) as scope:
        values = convert.convert_to_tensor(t, name="t")
        t_min = minimum(values, clip_value_max)
        values.shape.merge_with(t_min.shape)
        t_max = maximum(t_min, clip_value_min, name=scope)
        values.shape.merge_with(t_max.shape)
    return t_max
