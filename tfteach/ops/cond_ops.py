"""`tf.cond`: run one of two branches, built as TF1 builds it (Switch ... Merge).

    p = tf.placeholder(tf.bool)
    r = tf.cond(p, lambda: x + 1.0, lambda: x - 1.0)

builds, in name scope `cond/`:
  - `Switch(p, p)` and its two outputs' identities `switch_t` / `switch_f` (the pivots)
    and `pred_id` (the predicate every branch Switch tests);
  - each branch in its own CondContext: every tensor from outside that a branch op uses
    goes through a `Switch(x, pred_id)` (`cond/add/Switch`), whose untaken output is
    DEAD; an op with no input from inside the branch (a constant) gets a control input
    on the branch's pivot, so it is dead in the untaken branch too;
  - `Merge(false_result, true_result)`, which forwards whichever input is alive.
At run time the executor skips every op with a dead input: only the taken branch runs.
"""
import contextlib

import numpy as np

from tfteach.framework import convert, dtypes, tensor_shape
from tfteach.framework.dead import DEAD
from tfteach.framework.graph import GraphKeys
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.operation import Operation
from tfteach.framework.registry import register_op
from tfteach.ops import nest
from tfteach.ops.constant_op import identity
from tfteach.ops.control_flow_context import (ControlFlowContext, building_in,
                                              reads_session_state)
from tfteach.ops.dependency_ops import with_dependencies
from tfteach.ops.op_builder import ShapeError, apply_op, graph_of
from tfteach.framework.eager_mode import executing_eagerly

__all__ = ["cond", "switch", "merge"]


# -- Switch: forwards `data` to output 1 if `pred` else output 0; the other is DEAD ------
def _switch_shape(op):
    data, pred = op._inputs
    if pred.shape.ndims not in (None, 0):
        raise ShapeError("Shape must be rank 0 but is rank %d" % pred.shape.ndims)
    spec = (data.dtype.base_dtype, data.shape)
    return [spec, spec]


def _switch_kernel(ctx, data, pred):
    return (DEAD, data) if pred else (data, DEAD)


register_op("Switch", _switch_shape, cpu=_switch_kernel)


def switch(data, pred, name=None):
    """(output_false, output_true): `data` on the side `pred` selects, DEAD on the other."""
    data = convert.convert_to_tensor(data)
    pred = convert.convert_to_tensor(pred)
    if pred.dtype.base_dtype != dtypes.bool:
        raise TypeError("Input 'pred' of 'Switch' Op has type %s that does not match "
                        "expected type of bool." % pred.dtype.base_dtype.name)
    outputs = apply_op("Switch", [data, pred], {"T": data.dtype.base_dtype}, name or "Switch")
    return tuple(outputs)


# -- Merge: forwards the one input that is alive, and its index --------------------------
def _common_shape(a, b):
    """The most specific shape both `a` and `b` fit (TF's Merge shape function)."""
    if a.ndims is None or b.ndims is None or a.ndims != b.ndims:
        return tensor_shape.unknown_shape()
    return tensor_shape.TensorShape([x if x == y and x is not None else None
                                     for x, y in zip(a.as_list(), b.as_list())])


def _merge_shape(op):
    shape = op._inputs[0].shape
    for t in op._inputs[1:]:
        shape = _common_shape(shape, t.shape)
    return [(op._inputs[0].dtype.base_dtype, shape), (dtypes.int32, tensor_shape.scalar())]


def _merge_kernel(ctx, *inputs):
    for index, value in enumerate(inputs):
        if value is not DEAD:
            return value, np.int32(index)
    return DEAD, DEAD          # a cond nested in an untaken branch: still dead


register_op("Merge", _merge_shape, cpu=_merge_kernel).handles_dead_inputs = True


def merge(inputs, name=None):
    """(output, value_index): the first input that is alive at run time."""
    inputs = [convert.convert_to_tensor(t) for t in inputs]
    return tuple(apply_op("Merge", inputs, {"T": inputs[0].dtype.base_dtype,
                                            "N": len(inputs)}, name or "Merge"))


# -- the branch context ---------------------------------------------------------------
class CondContext(ControlFlowContext):
    """One branch of a cond: routes outside tensors through Switches on `pred_id`."""

    def __init__(self, graph, pred_id, pivot, branch):
        super().__init__(graph)
        self.pred_id = pred_id
        self.pivot = pivot                  # alive exactly when this branch is taken
        self.branch = branch                # 1: true branch, 0: false branch
        self._inside = {pred_id: pred_id}   # outside tensor -> its value in this branch
        pivot.op._control_flow_context = self

    def process_inputs(self, inputs, op_name):
        return [self.value_inside(t, op_name + "/") for t in inputs]

    def add_op(self, op):
        # An op that takes nothing from inside the branch (a constant, a read of a
        # variable) would run whichever branch is taken: make it wait for the pivot.
        if not any(self.contains(t.op) for t in op._inputs) and \
                not any(self.contains(c) for c in op._control_inputs):
            op._add_control_input(self.pivot.op)
        self.graph.prevent_fetching(op)     # TF: branch tensors are not fetchable
        self.add_inner_op(op)

    def value_inside(self, tensor, scope=None):
        """`tensor` as seen inside this branch: itself, or its Switch's output."""
        if self.contains(tensor.op) or reads_session_state(tensor.op):
            return tensor
        inside = self._inside.get(tensor)
        if inside is None:
            inside = self._inside[tensor] = self._switch(tensor, scope)
        return inside

    def _switch(self, tensor, scope):
        graph = self.graph
        # The Switch sits between the branch and its outside: built in the outer context
        # (which may switch `tensor` again, for nested conds), free of control deps.
        # Colocated with `tensor` (TF's _SwitchRefOrTensor): `_class: ["loc:@x"]`.
        with building_in(graph, self.outer_context), graph.control_dependencies(None), \
                (graph.name_scope(scope) if scope else contextlib.nullcontext()), \
                graph._colocate_with(tensor.op, ignore_existing=True):
            outputs = switch(tensor, self.pred_id)
        switch_op = outputs[0].op
        switch_op._control_flow_context = self
        graph.prevent_fetching(switch_op)
        return outputs[self.branch]

    def branch_output(self, value):
        """A branch's result as a tensor of this branch (TF's `_BuildCondTensor`)."""
        if isinstance(value, Operation):
            # An op has no value: the result is the pivot, available once the op ran.
            return with_dependencies([value], self.pivot)
        tensor = convert.convert_to_tensor(value)
        if reads_session_state(tensor.op):
            # A variable itself is never dead: read it inside the branch (the read
            # waits for the pivot), so that Merge sees the untaken side dead.
            return identity(tensor)
        return self.value_inside(tensor)


def _build_branch(context, fn, fn_name):
    with context.entered():
        original = fn()
        if original is None:
            raise ValueError("%s must have a return value." % fn_name)
        flat = [context.branch_output(v) for v in nest.flatten(original)]
    return original, flat


def _unpack_if_singleton(value):
    if isinstance(value, (list, tuple)) and len(value) == 1:
        return value[0]
    return value


def _check_fns(true_fn, false_fn, fn1, fn2):
    # TF 1.x renamed fn1/fn2 to true_fn/false_fn and still accepts the old names.
    if fn1 is not None:
        if true_fn is not None:
            raise TypeError("cond(): true_fn and fn1 may not be set simultaneously.")
        true_fn = fn1
    elif true_fn is None:
        raise TypeError("cond(): true_fn argument required")
    if fn2 is not None:
        if false_fn is not None:
            raise TypeError("cond(): false_fn and fn2 may not be set simultaneously.")
        false_fn = fn2
    elif false_fn is None:
        raise TypeError("cond(): false_fn argument required")
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    return true_fn, false_fn


def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """`true_fn()` if `pred` else `false_fn()`; only the taken branch's ops run."""
    true_fn, false_fn = _check_fns(true_fn, false_fn, fn1, fn2)
    if executing_eagerly():
        # As TF's eager cond: the predicate is known, only the taken branch runs.
        if isinstance(pred, bool):
            raise TypeError("pred must not be a Python bool")
        return true_fn() if bool(pred) else false_fn()
    graph = graph_of([pred])
    with graph.as_default(), name_scope(name, "cond", [pred]):
        if isinstance(pred, bool):
            raise TypeError("pred must not be a Python bool")
        pred_false, pred_true = switch(pred, pred)
        pivot_t = identity(pred_true, name="switch_t")
        pivot_f = identity(pred_false, name="switch_f")
        pred_id = identity(pred, name="pred_id")
        for t in (pred_true, pivot_t, pivot_f, pred_id):
            graph.prevent_fetching(t.op)
        context_t = CondContext(graph, pred_id, pivot_t, branch=1)
        orig_t, res_t = _build_branch(context_t, true_fn, "true_fn")
        context_f = CondContext(graph, pred_id, pivot_f, branch=0)
        orig_f, res_f = _build_branch(context_f, false_fn, "false_fn")
        if not strict:
            orig_t = _unpack_if_singleton(orig_t)
            orig_f = _unpack_if_singleton(orig_f)
        nest.assert_same_structure(orig_t, orig_f)
        for x, y in zip(res_t, res_f):
            if x.dtype.base_dtype != y.dtype.base_dtype:
                raise ValueError("Outputs of true_fn and false_fn must have the same type: "
                                 "%s, %s" % (x.dtype.name, y.dtype.name))
        merged = [merge([f, t])[0] for f, t in zip(res_f, res_t)]
        if context_t.outer_context is None:
            graph.add_to_collection(GraphKeys.COND_CONTEXT, context_t)
            graph.add_to_collection(GraphKeys.COND_CONTEXT, context_f)
        result = nest.pack_sequence_as(orig_t, merged)
        return result if strict else _unpack_if_singleton(result)
