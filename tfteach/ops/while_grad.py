"""The gradient of `tf.while_loop`: the body's gradient, run backwards over the iterations.

A loop computes v1 = body(v0), v2 = body(v1), ..., vN = body(vN-1). By the chain rule,
the gradient flows back the same way: from dL/dvN, the body's gradient gives dL/dvN-1,
then dL/dvN-2, ... down to dL/dv0, the gradient of the initial values. An outside tensor
w the body uses (a *captured* tensor) gets the sum of its gradients over all iterations.

TensorFlow 1.x builds this as a second loop that pops, from stacks the forward loop
pushed, the values each iteration used. tfteach does the same in its own shape:
  - the body's gradient graph is built once, by `tf.gradients` of the body's results
    with respect to the loop variables and the captured tensors, with the incoming
    gradients as `grad_ys` (fed placeholders, `LoopVar` ops) — in a WhileGradContext
    that records which forward tensors it reads;
  - once a gradient exists, the forward While op records, every iteration, the loop
    variables and those forward tensors (TF's stack pushes), so nothing in the body is
    run twice (a random op or an assign in the body keeps its forward value);
  - one WhileGrad op (kernel: runtime/loop_runner.run_while_grad) takes the loop's final
    values, their gradients and the captured tensors, and runs the body-gradient
    sub-plan once per recorded iteration, last to first.
A loop nested in another loop's body runs once per outer iteration, so its history is
per outer iteration too: a `LoopHistory` op next to the inner loop (in the outer body)
outputs the history object of the inner loop's latest run. The inner WhileGrad takes it
as its last input; being a forward body tensor of the outer loop, it is recorded by the
outer loop each iteration (like any tensor the outer gradient reads) and fed back by the
outer WhileGrad for that iteration: TF's per-frame stacks, at any depth of nesting.
"""
from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.registry import gradient, register_op
from tfteach.ops import gradients_impl
from tfteach.ops.control_flow_context import (ControlFlowContext, building_in,
                                              reads_session_state)
from tfteach.ops.fill_ops import zeros_like
from tfteach.ops.op_builder import apply_op
from tfteach.ops.while_ops import WhileContext
from tfteach.runtime import loop_runner

__all__ = ["WhileGradContext"]


register_op("WhileGrad", lambda op: op._attrs["_grad_loop"].output_specs,
            cpu=loop_runner.run_while_grad, stateful=True)
# Its value is a Python object (runtime/loop_runner._History); `string` keeps it on the
# host, where the placer keeps every string tensor.
register_op("LoopHistory", lambda op: [(dtypes.string, tensor_shape.scalar())],
            cpu=loop_runner.run_loop_history, stateful=True)


class WhileGradContext(ControlFlowContext):
    """Where the body's gradient graph is built: notes what it reads from outside it."""

    def __init__(self, graph, forward):
        super().__init__(graph)
        self.forward = forward            # the forward loop's WhileContext
        self.saved = {}                   # forward body tensors read: recorded per iteration
        self.captured = {}                # outside tensors read: inputs of WhileGrad
        self.external_controls = []       # outside ops to wait for (before the first step)

    def note(self, tensor):
        if self.contains(tensor.op) or reads_session_state(tensor.op):
            return
        if self.forward.contains(tensor.op):
            if tensor.op.type != "LoopVar":       # loop variables are recorded anyway
                self.saved.setdefault(tensor, None)
        else:
            self.captured.setdefault(tensor, None)

    def process_inputs(self, inputs, op_name):
        for t in inputs:
            self.note(t)
        return inputs

    def add_inner_op(self, op):
        # The sub-plan must not run forward ops again (they ran, their values are
        # recorded) nor wander outside: the WhileGrad op waits for outside ops instead.
        for control in list(op._control_inputs):
            if not self.contains(control):
                op._control_inputs.remove(control)
                control._control_outputs.remove(op)
                if not self.forward.contains(control) and control not in self.external_controls:
                    self.external_controls.append(control)
        self.graph.prevent_fetching(op)
        super().add_inner_op(op)


class GradLoop:
    """What the WhileGrad kernel needs (the counterpart of while_ops._Loop)."""

    def __init__(self, forward_op, loop, var_ids, cap_ids, grad_ins, var_grads, cap_grads,
                 saved, extra, output_specs, history=None):
        self.forward_op = forward_op      # the While op whose history is replayed
        self.loop = loop
        self.var_ids = var_ids            # loop variables that carry a gradient
        self.cap_ids = cap_ids            # captured tensors that get a gradient (outputs)
        self.grad_ins = grad_ins          # fed: the gradient of the body's results
        self.var_grads = var_grads        # fetched: body gradient per var (None: zero)
        self.cap_grads = cap_grads        # fetched: body gradient per captured tensor
        self.saved = saved                # forward tensors fed from the recorded history
        self.extra = extra                # outside tensors beyond the loop's captures
        self.output_specs = output_specs
        self.history = history            # nested loop: the LoopHistory input (else None)


def _in_a_loop(op):
    """Whether `op` was built in the body of a loop (maybe inside a cond there)."""
    context = op._control_flow_context
    while context is not None:
        if isinstance(context, (WhileContext, WhileGradContext)):
            return True
        context = context.outer_context
    return False


def _history_of(op, loop):
    """The LoopHistory tensor of the nested loop `op`, built once next to it."""
    history = getattr(loop, "history_tensor", None)
    if history is None:
        graph = op.graph
        # In the inner loop's own context (the outer body), so that the outer loop's
        # gradient sees a forward tensor to record; named after the loop, free of the
        # control dependencies and name scope of the gradient code that asks for it.
        with building_in(graph, op._control_flow_context), \
                graph.control_dependencies(None), graph.name_scope(op.name + "/"):
            history = apply_op("LoopHistory", [op.outputs[0]], {"_forward": op},
                               name="History")
        loop.history_tensor = history
    return history


def _body_gradients(op, loop, var_ids, cap_ids):
    """Builds the body's gradient graph; returns (context, grad_ins, var and cap grads)."""
    graph = op.graph
    forward_context = loop.loop_vars[0].op._control_flow_context
    context = WhileGradContext(graph, forward_context)
    results = [loop.next_values[i].op.inputs[0] for i in var_ids]
    with context.entered():
        grad_ins = [apply_op("LoopVar", [], {"dtype": loop.loop_vars[i].dtype,
                                             "shape": loop.loop_vars[i].shape}, name="grad_y")
                    for i in var_ids]
        xs = [loop.loop_vars[i] for i in var_ids] + [loop.captured[j] for j in cap_ids]
        grads = gradients_impl.gradients(results, xs, grad_ys=grad_ins, name="body")
    for g in grads:
        if g is not None:
            context.note(g)       # a gradient that is a forward or outside tensor itself
    return context, grad_ins, grads[:len(var_ids)], grads[len(var_ids):]


class SecondOrderLoopGradientError(TypeError, LookupError):
    """TF 1.15 raises TypeError for a loop's second derivative; it is also a LookupError,
    what callers of tf.gradients (the optimizers) catch for an op without a gradient."""


@gradient("WhileGrad")
def _while_grad_grad(op, *grads):
    raise SecondOrderLoopGradientError(
        "Second-order gradient for while loops not supported: '%s' (op type: WhileGrad) "
        "is the gradient of the tf.while_loop '%s'." % (op.name,
                                                       op._attrs["_grad_loop"].forward_op.name))


@gradient("While")
def _while_grad(op, *grads):
    loop = op._attrs["_loop"]
    n = len(loop.loop_vars)
    var_ids = [i for i in range(n) if gradients_impl.is_trainable(loop.loop_vars[i])]
    if not var_ids or all(grads[i] is None for i in var_ids):
        return [None] * len(op.inputs)
    # Only the captured tensors this tf.gradients call wants a gradient for: as TF 1.15,
    # whose loop builds gradient ops for between ops only. (dynamic_rnn's input sequence
    # fed by a placeholder: minimize() asks for the weights', not the input's, which was
    # a Slice, two Reshapes and an UnsortedSegmentSum each time step, and their sum.)
    cap_ids = [j for j, t in enumerate(loop.captured)
               if gradients_impl.is_trainable(t) and gradients_impl.leads_to_xs(t)]
    context, grad_ins, var_grads, cap_grads = _body_gradients(op, loop, var_ids, cap_ids)
    cap_ids = [j for j, g in zip(cap_ids, cap_grads) if g is not None]
    cap_grads = [g for g in cap_grads if g is not None]
    saved = list(context.saved)
    captured_set = set(loop.captured)
    extra = [t for t in context.captured if t not in captured_set]
    specs = [(loop.loop_vars[i].dtype, op.inputs[i].shape) for i in var_ids] + \
            [(loop.captured[j].dtype.base_dtype, loop.captured[j].shape) for j in cap_ids]
    history = _history_of(op, loop) if _in_a_loop(op) else None
    grad_loop = GradLoop(op, loop, var_ids, cap_ids, grad_ins, var_grads, cap_grads,
                         saved, extra, specs, history)
    # From now on the forward loop records these tensors each iteration.
    loop_runner.request_history(loop, saved)
    out_grads = [zeros_like(op.outputs[i]) if grads[i] is None else grads[i]
                 for i in var_ids]
    inputs = list(op.outputs[i] for i in range(n)) + out_grads + list(loop.captured) + \
        extra + ([] if history is None else [history])
    grad_op = op.graph._create_op("WhileGrad", inputs, {"_grad_loop": grad_loop},
                                  "WhileGrad", context.external_controls)
    outputs = grad_op._outputs
    result = [None] * len(op.inputs)
    for k, i in enumerate(var_ids):
        result[i] = outputs[k]
    for k, j in enumerate(cap_ids):
        result[n + j] = outputs[len(var_ids) + k]
    return result
