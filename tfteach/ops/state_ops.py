"""The variable ops: VariableV2, Assign, AssignAdd, AssignSub, IsVariableInitialized.

`tf.assign(ref, value)` and friends take the variable *by reference* (TF's `Ref(T)`
input): their first input is the variable's `float32_ref` tensor, and their kernel
changes the value the Session keeps for it (kernels/cpu/state_kernels.py). Like TF's
generated op functions, each opens a name scope for the op, so a Python value becomes
`Assign/value`, and the op is named after the scope.
"""
from tfteach.framework import convert, dtypes, tensor_shape
from tfteach.framework.registry import register_op
from tfteach.framework.tensor import Tensor
from tfteach.kernels.cpu import state_kernels
from tfteach.ops.op_builder import apply_op, graph_of, merge_shapes

__all__ = ["assign", "assign_add", "assign_sub", "is_variable_initialized"]


# -- shape functions -----------------------------------------------------------------
def _variable_shape(op):
    return [(op._attrs["dtype"]._as_ref, op._attrs["shape"])]


def _assign_shape(op):
    ref, value = op._inputs
    if op._attrs["validate_shape"]:
        shape = merge_shapes(ref.shape, value.shape)
    else:
        shape = value.shape        # the variable takes the new value's shape
    return [(ref.dtype.base_dtype._as_ref, shape)]


def _update_shape(op):
    ref, value = op._inputs
    return [(ref.dtype.base_dtype._as_ref, merge_shapes(ref.shape, value.shape))]


def _is_initialized_shape(op):
    return [(dtypes.bool, tensor_shape.TensorShape([]))]


register_op("VariableV2", _variable_shape, cpu=state_kernels.variable_kernel, stateful=True)
register_op("Assign", _assign_shape, cpu=state_kernels.assign_kernel, stateful=True,
            ref_inputs=(0,))
register_op("AssignAdd", _update_shape, cpu=state_kernels.assign_add_kernel, stateful=True,
            ref_inputs=(0,))
register_op("AssignSub", _update_shape, cpu=state_kernels.assign_sub_kernel, stateful=True,
            ref_inputs=(0,))
register_op("IsVariableInitialized", _is_initialized_shape,
            cpu=state_kernels.is_variable_initialized_kernel, stateful=True, ref_inputs=(0,))


# -- building ------------------------------------------------------------------------
def variable_op_v2(shape, dtype, name="Variable", container="", shared_name=""):
    """The VariableV2 op (`state_ops.variable_op_v2`): outputs a `<dtype>_ref` tensor."""
    return apply_op("VariableV2", [], {
        "shape": tensor_shape.as_shape(shape), "dtype": dtypes.as_dtype(dtype),
        "container": container, "shared_name": shared_name}, name)


def _ref_tensor(ref, op_type):
    """The ref tensor of a Variable (or a ref Tensor); TF's error for anything else."""
    element = getattr(ref, "_as_graph_element", None)
    tensor = element() if element is not None and not isinstance(ref, Tensor) else ref
    if isinstance(tensor, Tensor) and tensor.dtype.is_ref_dtype:
        return tensor
    if isinstance(tensor, Tensor):
        # TF 1.15 hands a non-ref tensor to `ref.assign(...)`, which Tensors lack.
        method = {"Assign": "assign", "AssignAdd": "assign_add",
                  "AssignSub": "assign_sub"}.get(op_type)
        if method:
            raise AttributeError("'Tensor' object has no attribute '%s'" % method)
    raise TypeError("'%s' Op requires that input 'ref' be a mutable tensor (e.g.: a "
                    "tf.Variable)" % op_type)


def _value_tensor(value, ref, op_type):
    dtype = ref.dtype.base_dtype
    if isinstance(value, Tensor) and value.dtype.base_dtype != dtype:
        raise TypeError("Input 'value' of '%s' Op has type %s that does not match type %s "
                        "of argument 'ref'." % (op_type, value.dtype.base_dtype.name,
                                                dtype.name))
    return convert.convert_to_tensor(value, dtype=dtype, name="value")


def _build_update(op_type, ref, value, attrs, name):
    ref = _ref_tensor(ref, op_type)
    with graph_of([ref]).as_default() as graph, graph.name_scope(name or op_type) as scope:
        value = _value_tensor(value, ref, op_type)
        attrs = dict(attrs, T=ref.dtype.base_dtype)
        return apply_op(op_type, [ref, value], attrs, scope)


def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    """`ref = value`; returns the variable's ref tensor, holding the new value.

    With `validate_shape=False` the variable takes the value's shape.
    """
    return _build_update("Assign", ref, value, {
        "validate_shape": True if validate_shape is None else bool(validate_shape),
        "use_locking": True if use_locking is None else bool(use_locking)}, name)


def assign_add(ref, value, use_locking=None, name=None):
    """`ref += value`; returns the variable's ref tensor, holding the new value."""
    return _build_update("AssignAdd", ref, value,
                         {"use_locking": bool(use_locking)}, name)


def assign_sub(ref, value, use_locking=None, name=None):
    """`ref -= value`; returns the variable's ref tensor, holding the new value."""
    return _build_update("AssignSub", ref, value,
                         {"use_locking": bool(use_locking)}, name)


def is_variable_initialized(ref, name=None):
    """A bool scalar: has this Session run the variable's initializer?"""
    ref = _ref_tensor(ref, "IsVariableInitialized")
    return apply_op("IsVariableInitialized", [ref], {"dtype": ref.dtype.base_dtype},
                    name or "IsVariableInitialized")


