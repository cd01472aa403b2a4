"""Slot variables: the extra state an optimizer keeps *per variable* (TF's slot_creator).

Momentum keeps a running velocity for every trained variable, Adam two moment
estimates, ... Each is an ordinary non-trainable variable, shaped like the variable it
belongs to (its "primary") and named after it: the Momentum slot of `W` is `W/Momentum`,
Adam's two slots of `W` are `W/Adam` and `W/Adam_1`. The name comes from a variable
scope `<primary>/<optimizer name>`, made unique the way variable scopes are, and
`get_variable("")` inside it -- which is why the second Adam slot gets the `_1`.
"""
import contextlib

from tfteach.framework import tensor_shape
from tfteach.framework.graph_functions import colocate_with
from tfteach.ops import init_ops, variable_scope, variables

__all__ = ["create_slot", "create_slot_with_initializer", "create_zeros_slot"]


def _prefix(primary):
    return primary.op.name


def _colocated(primary, colocate_with_primary):
    """A slot's ops sit with its primary (`_class: ["loc:@w"]`), as TF's slots."""
    return colocate_with(primary) if colocate_with_primary else contextlib.nullcontext()


def _create_slot_var(primary, val, validate_shape, shape, dtype):
    """`get_variable("")` in the slot's scope: non-trainable, in GLOBAL_VARIABLES."""
    scope = variable_scope.get_variable_scope()
    partitioner = scope.partitioner
    scope.set_partitioner(None)          # slots are never partitioned
    try:
        return variable_scope.get_variable(
            "", initializer=val, trainable=False, shape=shape if callable(val) else None,
            dtype=dtype, validate_shape=validate_shape)
    finally:
        scope.set_partitioner(partitioner)


def create_slot(primary, val, name, colocate_with_primary=True):
    """A slot for `primary` whose initial value is the tensor `val`."""
    validate_shape = val.get_shape().is_fully_defined()
    with variable_scope.variable_scope(None, _prefix(primary) + "/" + name), \
            _colocated(primary, colocate_with_primary):
        return _create_slot_var(primary, val, validate_shape, None, None)


def create_slot_with_initializer(primary, initializer, shape, dtype, name,
                                 colocate_with_primary=True):
    """A slot for `primary` filled by `initializer(shape, dtype)`."""
    shape = tensor_shape.as_shape(shape)
    with variable_scope.variable_scope(None, _prefix(primary) + "/" + name), \
            _colocated(primary, colocate_with_primary):
        return _create_slot_var(primary, initializer, shape.is_fully_defined(), shape,
                                dtype)


def create_zeros_slot(primary, name, dtype=None, colocate_with_primary=True):
    """A slot of zeros shaped like `primary` (momentum, Adam's m and v, ...)."""
    if dtype is None:
        dtype = primary.dtype.base_dtype
    slot_shape = primary.get_shape()
    if slot_shape.is_fully_defined():
        return create_slot_with_initializer(primary, init_ops.zeros_initializer(),
                                            slot_shape, dtype, name)
    # Shape known only when running: zeros shaped like the primary's (initial) value.
    import tfteach as tf
    value = (primary.initialized_value() if isinstance(primary, variables.Variable)
             else primary)
    return create_slot(primary, tf.zeros(tf.shape(value), dtype=dtype), name)
