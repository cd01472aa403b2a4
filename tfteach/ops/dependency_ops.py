"""Ordering without data: `tf.no_op`, `tf.group`, `tf.tuple` and `with_dependencies`.

These ops compute nothing; their control inputs say what must have run first. Running
`tf.group(a, b)` runs `a` and `b` (in no particular order) and returns nothing.
"""
from tfteach.framework import convert
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.operation import Operation
from tfteach.framework.registry import register_op
from tfteach.ops.constant_op import identity
from tfteach.ops.op_builder import apply_op, graph_of
from tfteach.framework.eager_mode import executing_eagerly

__all__ = ["no_op", "group", "tuple", "with_dependencies"]

_builtin_tuple = tuple

register_op("NoOp", lambda op: [], cpu=lambda ctx: None)


def no_op(name=None):
    """An op that does nothing; a handy target for control dependencies."""
    return apply_op("NoOp", [], None, name or "NoOp")


def _flatten_inputs(values):
    flat = []
    for v in values:
        if isinstance(v, (list, _builtin_tuple, set)):
            flat.extend(_flatten_inputs(v))
        elif isinstance(v, dict):
            flat.extend(_flatten_inputs(list(v.values())))
        elif v is not None:
            flat.append(v)
    return flat


def group(*inputs, **kwargs):
    """A NoOp (named `group_deps`) that runs after all of `inputs` (ops, tensors, lists)."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError("Unknown keyword arguments: " + ", ".join(kwargs.keys()))
    if executing_eagerly():
        return None           # eagerly the inputs have already run (TF returns None too)
    ops = []
    for value in _flatten_inputs(inputs):
        try:
            ops.append(convert.as_op(value))
        except TypeError:
            raise TypeError("Expected tf.group() expected Tensor arguments not '%s' with type "
                            "'%s'" % (value, type(value))) from None
    graph = graph_of(ops)
    with graph.as_default(), name_scope(name, "group_deps", ops) as scope:
        # TF's op name is the scope itself (`group_deps`, not `group_deps/NoOp`).
        with graph.control_dependencies(ops):
            return no_op(name=scope)


def with_dependencies(dependencies, output_tensor, name=None):
    """`output_tensor`'s value, produced only after `dependencies` ran."""
    if executing_eagerly():
        return output_tensor
    graph = graph_of(list(dependencies) + [output_tensor])
    with graph.as_default(), name_scope(name, "control_dependency",
                                        list(dependencies) + [output_tensor]) as scope:
        output_tensor = convert.convert_to_tensor(output_tensor)
        # colocated with the tensor it passes on, as TF's (`_class: ["loc:@x"]`)
        with graph._colocate_with(output_tensor.op), \
                graph.control_dependencies(dependencies):
            return identity(output_tensor, name=scope)


def tuple(tensors, name=None, control_inputs=None):  # noqa: A001 - TF's name
    """Tensors with the values of `tensors`, each available only after all are computed."""
    tensors = list(tensors)
    with name_scope(name, "tuple", [t for t in tensors if t is not None]):
        tensors = [t if t is None or isinstance(t, Operation) or convert.is_tensor(t)
                   else convert.convert_to_tensor(t) for t in tensors]
        gating_ops = [convert.as_op(t) for t in tensors if t is not None]
        for c in control_inputs or ():
            if not (isinstance(c, Operation) or convert.is_tensor(c)):
                raise TypeError("Control input must be Operation or Tensor: %s" % c)
            gating_ops.append(convert.as_op(c))
        gating_ops = sorted(set(gating_ops), key=lambda op: op._id)
        if not gating_ops:
            raise ValueError("Must have at least one Tensor: %s" % tensors)
        gate = group(*gating_ops)
        result = []
        for t in tensors:
            if isinstance(t, Operation):
                with gate.graph.control_dependencies([gate]):
                    result.append(group(t))
            else:
                result.append(None if t is None else with_dependencies([gate], t))
        return result
