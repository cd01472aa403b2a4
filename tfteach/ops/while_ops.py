"""`tf.while_loop`: repeat a body while a condition holds, as one While op.

    i, total = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), [0, 0])

builds, in name scope `while/`:
  - one `while/Identity` op per loop variable: the variable's value in the current
    iteration, fed by the loop (TF1 names these ops the same way);
  - the condition's ops ending in `while/LoopCond`, and the body's ops ending in one
    `while/NextIteration` per loop variable — built once, in a WhileContext that records
    every outside tensor they use (the loop's *captures*);
  - the op `while` (type While) whose inputs are the initial values and the captures;
    its kernel (runtime/loop_runner.py) runs the condition and body sub-plans;
  - `while/Exit`, `while/Exit_1`, ...: the final values, the tensors the student gets.
"""
from tfteach.framework import convert, dtypes, tensor_shape
from tfteach.framework.errors import InvalidArgumentError
from tfteach.framework.graph import GraphKeys
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import register_op
from tfteach.ops import math_ops, nest
from tfteach.ops.constant_op import constant
from tfteach.ops.control_flow_context import ControlFlowContext, reads_session_state
from tfteach.ops.op_builder import ShapeError, apply_op, graph_of, same_shape_fn
from tfteach.runtime import loop_runner
from tfteach.framework.eager_mode import executing_eagerly

__all__ = ["while_loop"]


# -- the loop's op types -------------------------------------------------------------------
def _loop_var_kernel(ctx):
    # Only reachable when something outside the loop uses a tensor of its body.
    raise InvalidArgumentError(
        None, ctx.op, "%s is a loop variable of a tf.while_loop: it has a value only while "
        "the loop runs. Use the tensors tf.while_loop returns instead." % ctx.op.name)


register_op("LoopVar", lambda op: [(op._attrs["dtype"], op._attrs["shape"])],
            cpu=_loop_var_kernel)


def _loop_cond_shape(op):
    pred = op._inputs[0]
    if pred.shape.ndims not in (None, 0):
        raise ShapeError("Shape must be rank 0 but is rank %d" % pred.shape.ndims)
    return [(dtypes.bool, tensor_shape.scalar())]


register_op("LoopCond", _loop_cond_shape, cpu=lambda ctx, pred: pred)
register_op("NextIteration", same_shape_fn, cpu=lambda ctx, x: x)
register_op("Exit", same_shape_fn, cpu=lambda ctx, x: x)
register_op("While", lambda op: [(v.dtype, v.shape) for v in op._attrs["_loop"].loop_vars],
            cpu=loop_runner.run_while, stateful=True)


class _Loop:
    """What the While kernel needs: the tensors its sub-plans feed and fetch."""

    def __init__(self, loop_vars, cond, next_values, captured):
        self.loop_vars = loop_vars        # the while/Identity tensors
        self.cond = cond                  # while/LoopCond
        self.next_values = next_values    # the while/NextIteration tensors
        self.captured = captured          # outside tensors the loop uses


# -- the context the condition and body are built in ------------------------------------------
class WhileContext(ControlFlowContext):
    """Records what the loop's ops take from outside it."""

    def __init__(self, graph):
        super().__init__(graph)
        self.captured = {}                # outside tensor -> None, in order of first use
        self.external_controls = []       # outside ops the loop's ops wait for

    def process_inputs(self, inputs, op_name):
        for t in inputs:
            # A variable is read again inside each iteration (it may be assigned there).
            if not self.contains(t.op) and not reads_session_state(t.op):
                self.captured.setdefault(t, None)
        return inputs

    def add_inner_op(self, op):
        # The body's sub-plan must not wander outside the loop through a control edge:
        # the While op waits for such ops instead, once, before the first iteration.
        # (Also for ops of a cond inside the body, hence add_inner_op.)
        for control in list(op._control_inputs):
            if not self.contains(control) and not reads_session_state(control):
                op._control_inputs.remove(control)
                control._control_outputs.remove(op)
                if control not in self.external_controls:
                    self.external_controls.append(control)
        self.graph.prevent_fetching(op)       # TF: loop tensors are not fetchable
        super().add_inner_op(op)


# -- loops that capture tensors of a cond branch --------------------------------------------------
class _AcceptsDeadInputs:
    """The While op type, except that the executor runs the op with dead inputs.

    A loop built *outside* a cond may still capture a tensor that is dead in some runs:
    tf.hessians builds a loop whose body differentiates gradient ops of a cond's two
    branches. As in TF1, such a tensor is dead inside the body (and the body's Merges
    pick the live side); loop_runner.run_while does that. Only loops that need it get
    this op def: a plan with an op accepting dead inputs runs the executor's slower
    general loop."""
    handles_dead_inputs = True

    def __init__(self, op_def):
        self._op_def = op_def

    def __getattr__(self, name):        # everything else: While's registered op def
        return getattr(self._op_def, name)


def _may_be_dead(tensors):
    """Whether a tensor may be dead when it is computed: a Switch feeds it through ops
    that are not Merges (a Merge's output is alive)."""
    seen = set()
    stack = [t.op for t in tensors]
    while stack:
        op = stack.pop()
        if op in seen or op.type == "Merge":
            continue
        if op.type == "Switch":
            return True
        seen.add(op)
        stack.extend(t.op for t in op._inputs)
        stack.extend(op._control_inputs)
    return False


# -- building -------------------------------------------------------------------------------------
def _shape_less_than_or_equal(shape, invariant):
    """Whether every shape `shape` allows is allowed by `invariant` (TF's rule)."""
    if invariant.ndims is None:
        return True
    if shape.ndims != invariant.ndims:
        return False
    return all(b is None or a == b for a, b in zip(shape.as_list(), invariant.as_list()))


def _flat_invariants(loop_vars, flat_init, shape_invariants):
    if shape_invariants is None:
        return [t.shape for t in flat_init]
    nest.assert_same_structure(loop_vars, shape_invariants)
    flat = nest.flatten(shape_invariants)
    if not all(isinstance(s, tensor_shape.TensorShape) for s in flat):
        raise ValueError("`shapes` must be a (possibly nested) list of shapes.")
    for init, invariant in zip(flat_init, flat):
        if not _shape_less_than_or_equal(init.shape, invariant):
            raise ValueError(
                "The shape invariant specified for %s is not compatible with the initial "
                "shape of the loop variable. It enters the loop with shape %s, but the "
                "specified shape invariant is %s." % (init.name, init.shape, invariant))
    return flat


def _check_next_value(init, loop_var, next_value):
    if next_value.dtype.base_dtype != loop_var.dtype:
        raise TypeError(
            "Input tensor '%s' enters the loop with dtype %s, but has dtype %s after one "
            "iteration. A loop variable keeps its dtype: cast the body's result."
            % (init.name, loop_var.dtype.name, next_value.dtype.base_dtype.name))
    if not _shape_less_than_or_equal(next_value.shape, loop_var.shape):
        raise ValueError(
            "Input tensor '%s' enters the loop with shape %s, but has shape %s after one "
            "iteration. To allow the shape to vary across iterations, use the "
            "`shape_invariants` argument of tf.while_loop to specify a less-specific shape."
            % (init.name, init.shape, next_value.shape))


def _build_loop_body(context, cond, body, structure, flat_init, invariants):
    """Builds condition and body in `context`; returns (_Loop, body result structure)."""
    with context.entered():
        loop_vars = [apply_op("LoopVar", [], {"dtype": t.dtype.base_dtype, "shape": shape},
                              name="Identity") for t, shape in zip(flat_init, invariants)]
        packed = nest.pack_sequence_as(structure, loop_vars)
        pred = convert.convert_to_tensor(cond(*packed))
        if pred.dtype.base_dtype != dtypes.bool:
            raise TypeError("Input 'input' of 'LoopCond' Op has type %s that does not match "
                            "expected type of bool." % pred.dtype.base_dtype.name)
        pred = apply_op("LoopCond", [pred], None, "LoopCond")
        body_result = body(*packed)
        if not nest.is_nested(body_result):
            body_result = [body_result]
        # TF compares the top level as lists: a body may return a tuple for a list.
        nest.assert_same_structure(list(packed), list(body_result))
        flat_next = [convert.convert_to_tensor(v) for v in nest.flatten(body_result)]
        if len(flat_next) != len(loop_vars):
            raise ValueError("Number of inputs and outputs of body must match loop_vars: "
                             "%d, %d" % (len(loop_vars), len(flat_next)))
        for init, var, value in zip(flat_init, loop_vars, flat_next):
            _check_next_value(init, var, value)
        next_values = [apply_op("NextIteration", [v], {"T": v.dtype.base_dtype},
                                "NextIteration") for v in flat_next]
    loop = _Loop(loop_vars, pred, next_values, list(context.captured))
    return loop, body_result


def _build_loop(graph, scope, cond, body, loop_vars, shape_invariants, attrs,
                return_same_structure):
    flat_init = [convert.convert_to_tensor(v) for v in nest.flatten(loop_vars)]
    structure = nest.pack_sequence_as(loop_vars, flat_init)
    invariants = _flat_invariants(loop_vars, flat_init, shape_invariants)
    context = WhileContext(graph)
    if context.outer_context is None:
        graph.add_to_collection(GraphKeys.WHILE_CONTEXT, context)
    loop, body_result = _build_loop_body(context, cond, body, structure, flat_init,
                                         invariants)
    attrs = dict(attrs, T=[v.dtype for v in loop.loop_vars], _loop=loop,
                 loop_vars=[v.name for v in loop.loop_vars], cond=loop.cond.name,
                 body=[v.name for v in loop.next_values],
                 captured=[t.name for t in loop.captured])
    # The op is named like the scope ("while"), its final values while/Exit, ...
    while_op = graph._create_op("While", flat_init + loop.captured, attrs, scope,
                                context.external_controls)
    # (Inside a cond, what the loop captures is dead exactly when its branch is not
    # taken, and so are its initial values: skipping the loop then is right.)
    if context.outer_context is None and _may_be_dead(loop.captured):
        while_op._op_def = _AcceptsDeadInputs(while_op._op_def)
    exits = [apply_op("Exit", [out], {"T": out.dtype}, "Exit") for out in while_op._outputs]
    packed_exits = nest.pack_sequence_as(body_result, exits)
    if return_same_structure:
        return packed_exits
    return packed_exits[0] if len(exits) == 1 else packed_exits


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, name=None, maximum_iterations=None,
               return_same_structure=False):
    """Repeats `body` while `cond` is true; returns the loop variables' final values."""
    if not callable(cond):
        raise TypeError("cond must be callable.")
    if not callable(body):
        raise TypeError("body must be callable.")
    if parallel_iterations < 1:
        raise TypeError("parallel_iterations must be a positive integer.")
    if executing_eagerly():
        return _eager_while_loop(cond, body, loop_vars, maximum_iterations,
                                 return_same_structure)
    if not nest.is_nested(loop_vars):
        loop_vars = [loop_vars]            # a single tensor: tfteach accepts it, as TF 2
    graph = graph_of(nest.flatten(loop_vars))
    with graph.as_default(), name_scope(name, "while", nest.flatten(loop_vars)) as scope:
        if not loop_vars:
            raise ValueError("No loop variables provided")
        try_to_pack = len(loop_vars) == 1 and not return_same_structure
        if maximum_iterations is not None:
            # TF's own construction: an iteration counter becomes loop variable 0.
            cond, body, loop_vars = _with_iteration_limit(
                cond, body, loop_vars, maximum_iterations, try_to_pack)
            if shape_invariants is not None:
                shape_invariants = (tensor_shape.TensorShape([]), shape_invariants)
        attrs = {"parallel_iterations": parallel_iterations, "back_prop": back_prop,
                 "swap_memory": swap_memory}
        result = _build_loop(graph, scope, cond, body, loop_vars, shape_invariants, attrs,
                             return_same_structure)
        return result[1] if maximum_iterations is not None else result


def _with_iteration_limit(cond, body, loop_vars, maximum_iterations, try_to_pack):
    limit = convert.convert_to_tensor(maximum_iterations, name="maximum_iterations")
    if limit.shape.ndims != 0:
        raise ValueError("maximum_iterations must be a scalar, saw shape: %s" % limit.shape)
    counter = constant(0, dtype=limit.dtype, name="iteration_counter")
    if try_to_pack:
        return (lambda i, lv: math_ops.logical_and(i < limit, cond(lv)),
                lambda i, lv: (i + 1, body(lv)),
                (counter, loop_vars[0]))
    return (lambda i, lv: math_ops.logical_and(i < limit, cond(*lv)),
            lambda i, lv: (i + 1, body(*lv)),
            (counter, loop_vars))


def _eager_while_loop(cond, body, loop_vars, maximum_iterations, return_same_structure):
    """TF's eager while_loop: a Python loop over the values. As in graph mode, one loop
    variable comes back unpacked unless `return_same_structure`."""
    was_list = isinstance(loop_vars, list)
    if not nest.is_nested(loop_vars):
        loop_vars = (loop_vars,)
    loop_vars = tuple(loop_vars)
    iteration = 0
    while (maximum_iterations is None or iteration < int(maximum_iterations)) and \
            bool(cond(*loop_vars)):
        result = body(*loop_vars)
        if not isinstance(result, (list, tuple)) or hasattr(result, "_fields"):
            result = (result,)
        loop_vars = tuple(result)
        iteration += 1
    if len(loop_vars) == 1 and not return_same_structure:
        return loop_vars[0]
    return list(loop_vars) if was_list else loop_vars
