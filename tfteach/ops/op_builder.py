"""Helpers every op module uses to add its ops to a graph and infer their shapes.

`apply_op` picks the graph from the inputs (TensorFlow's rule: inputs must share one
graph), creates the op and returns its output(s). Shape functions raise `ShapeError`
with TensorFlow's shape-inference text; the builder adds `for 'NAME' (op: 'TYPE') with
input shapes: ...`, exactly as TF1's C++ shape inference reports it.
"""
import numpy as np

from tfteach.framework import graph as graph_lib
from tfteach.framework.eager_mode import STATE as _EAGER
from tfteach.framework import tensor_shape
from tfteach.framework.tensor import Tensor

__all__ = ["merge_shapes", "deprecated_argument_lookup", "apply_op", "graph_of", "ShapeError", "broadcast_static_shape", "constant_value",
           "unknown", "same_shape_fn"]


ShapeError = tensor_shape.ShapeError


def graph_of(values):
    """The graph the tensors among `values` belong to (else the default graph)."""
    found = None
    for v in values:
        if isinstance(v, Tensor) or hasattr(v, "_as_graph_element") and hasattr(v, "graph"):
            g = graph_lib.building_graph(v.graph)
            if found is None:
                found, first = g, v
            elif g is not found:
                raise ValueError("%s must be from the same graph as %s." % (v, first))
    return found if found is not None else graph_lib.get_default_graph()


def apply_op(op_type, inputs, attrs=None, name=None, graph=None, control_inputs=()):
    """Creates one op; returns its Tensor, its list of Tensors, or the op if it has none.

    In eager mode (framework/eager_mode.py) the op runs at once instead and the result
    is an EagerTensor (tfteach/eager/execute.py); a graph being built (a tf.function's
    trace) turns the EagerTensors among the inputs into constants of that graph."""
    if _EAGER.used:
        if graph is None and _EAGER.enabled and not graph_lib._default_graph_stack.graphs:
            return _EAGER.execute(op_type, inputs, attrs, name, control_inputs)
        inputs = [t._captured_in_graph() if hasattr(t, "_captured_in_graph") else t
                  for t in inputs]
    graph = graph or graph_of(inputs)
    op = graph._create_op(op_type, list(inputs), attrs, name, control_inputs)
    outputs = op._outputs
    if len(outputs) == 1:
        return outputs[0]
    if not outputs:
        return op
    return list(outputs)


def unknown():
    return tensor_shape.unknown_shape()


def same_shape_fn(op):
    """Shape function of ops whose one output is like their first input."""
    x = op._inputs[0]
    return [(x.dtype.base_dtype, x.shape)]


def broadcast_static_shape(shape_x, shape_y):
    """NumPy broadcasting on static shapes with unknown dims; TF's error if impossible."""
    if shape_x.ndims is None or shape_y.ndims is None:
        return tensor_shape.unknown_shape()
    # The common cases answered without a new TensorShape (its Dimensions cost ~2 us,
    # an eager `t * 1.0001` op's sixth): a scalar operand broadcasts to the other's
    # shape, and a known shape with itself is itself. (TensorShapes are never changed.)
    if not shape_y._dims:
        return shape_x
    if not shape_x._dims:
        return shape_y
    x = shape_x.as_list()
    y = shape_y.as_list()
    if x == y and None not in x:
        return shape_x
    n = max(len(x), len(y))
    x = [1] * (n - len(x)) + x
    y = [1] * (n - len(y)) + y
    out = []
    for a, b in zip(x, y):
        if a == 1:
            out.append(b)
        elif b == 1:
            out.append(a)
        elif a is None or b is None:
            out.append(a if b is None else b)
        elif a == b:
            out.append(a)
        else:
            raise ShapeError("Dimensions must be equal, but are %d and %d" % (a, b))
    return tensor_shape.TensorShape(out)


def constant_value(tensor):
    """The value of `tensor` if it is known at graph-build time (else None).

    Used by shape functions, as TensorFlow's `tensor_util.constant_value`: a reshape to
    a constant shape gets a static shape.
    """
    if not isinstance(tensor, Tensor):
        return None
    eager_value = getattr(tensor, "_value", None)      # an EagerTensor: its value
    if eager_value is not None and not tensor.dtype.is_ref_dtype:
        return np.asarray(eager_value)
    op = tensor.op
    kind = op.type
    if kind == "Const":
        return op._attrs["value"]
    if kind == "Shape":
        shape = op._inputs[0].shape
        if shape.is_fully_defined():
            return np.array(shape.as_list(), dtype=op._attrs["out_type"].np)
    if kind == "Size":
        shape = op._inputs[0].shape
        if shape.is_fully_defined():
            return np.array(shape.num_elements(), dtype=op._attrs["out_type"].np)
    if kind == "Rank":
        if op._inputs[0].shape.ndims is not None:
            return np.array(op._inputs[0].shape.ndims, dtype=np.int32)
    if kind in ("Identity", "StopGradient"):
        return constant_value(op._inputs[0])
    if kind == "Cast":
        v = constant_value(op._inputs[0])
        return None if v is None else np.asarray(v).astype(op._attrs["DstT"].np)
    if kind == "Pack":
        parts = [constant_value(t) for t in op._inputs]
        if any(p is None for p in parts):
            return None
        return np.stack(parts, axis=op._attrs.get("axis", 0))
    if kind == "ConcatV2":
        parts = [constant_value(t) for t in op._inputs]
        if any(p is None for p in parts):
            return None
        return np.concatenate(parts[:-1], axis=int(parts[-1]))
    return None


def merge_shapes(a, b):
    """TF's C++ `Merge` of two static shapes, with its error texts."""
    if a.ndims is None:
        return b
    if b.ndims is None:
        return a
    if a.ndims != b.ndims:
        raise ShapeError("Shapes must be equal rank, but are %d and %d" % (a.ndims, b.ndims))
    dims = []
    for i, (da, db) in enumerate(zip(a.as_list(), b.as_list())):
        if da is not None and db is not None and da != db:
            raise ShapeError("Dimension %d in both shapes must be equal, but are %d and %d. "
                             "Shapes are %s and %s." % (i, da, db, a.debug_string(),
                                                        b.debug_string()))
        dims.append(da if da is not None else db)
    return tensor_shape.TensorShape(dims)


def deprecated_argument_lookup(new_name, new_value, old_name, old_value):
    """TF's rule for a renamed argument (axis/dim, keepdims/keep_dims): either name may
    be used, never both."""
    if old_value is not None:
        if new_value is not None:
            raise ValueError("Cannot specify both '%s' and '%s'." % (old_name, new_name))
        return old_value
    return new_value
