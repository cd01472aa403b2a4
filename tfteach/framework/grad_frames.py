"""The gradient of a tf.while_loop written as TF 1.15 builds it: a second loop with stacks.

tfteach's WhileGrad op replays, last iteration first, the values its forward loop
recorded. TF 1.15 has no such op; its gradient is plain frame nodes (see
                                                                     loop_frames.py for frames):

  - the forward loop counts its iterations (`f_count`: a loop variable from 0, +1 per
                                            iteration, its Exit the number of iterations) and, for each forward value the
    gradient reads, pushes it each iteration onto a stack made outside the loop
    (`StackV2`; `StackPushV2` in the body);
  - the gradient loop, in its own frame, counts back down from that number to 1
    (`b_count`), pops the values (`StackPopV2`: last pushed, first popped), runs the
    body's gradient ops, and carries as loop variables the gradients of the loop
    variables and, for each captured tensor (a weight), the sum of its gradients over
    the iterations. Its Exits are the WhileGrad op's outputs.

Each push is a control input of the forward counter's increment and waits for that
iteration's counter; each pop waits for the backward counter and is a control input
of its NextIteration: so pushes and pops keep the iterations' order, however many
iterations run in parallel. A nested loop's stacks are made outside both loops
(order_nested_loops keeps the inner runs apart); a value of a tf.cond branch in the
body is pushed only when the branch is taken and popped through a Switch of the stack
handle, the counters waiting for ControlTriggers (pop).
"""
from tfteach.framework.loop_frames import (DT_INT32, DT_RESOURCE, FrameWriter,
                                           int32_scalar, split_input)

__all__ = ["write_forward_counter", "write_grad_loop", "pop", "order_nested_loops"]

_type = FrameWriter.attr_type


def write_forward_counter(w, op, frame, pred):
    """f_count: the forward loop counts its iterations; pushes are ordered by it."""
    base = op.name + "/f_count"
    zero = w.node(base + "/zero", "Const", [], frame.parent, {
        "dtype": _type(DT_INT32), "value": int32_scalar(0)}, DT_INT32)
    merge, _, identity, exit_ = w.loop_variable(base, zero.name, DT_INT32, frame,
                                                pred, base + "/Identity")
    one = w.node(base + "/one", "Const", ["^" + identity], frame, {
        "dtype": _type(DT_INT32), "value": int32_scalar(1)}, DT_INT32)
    add = w.node(base + "/add", "AddV2", [identity, one.name], frame,
                 {"T": _type(DT_INT32)}, DT_INT32)
    next_ = w.node(base + "/NextIteration", "NextIteration", [add.name], frame,
                   {"T": _type(DT_INT32)}, DT_INT32)
    merge.input.append(next_.name)
    w.fcount[op] = (identity, add, exit_, merge.input[0])


def write_grad_loop(w, op):
    grad_loop = op._attrs["_grad_loop"]
    forward, loop = grad_loop.forward_op, grad_loop.loop
    if forward not in w.fcount:
        raise w.error("Cannot write op '%s' (type WhileGrad) as a TensorFlow "
                      "NodeDef: its forward loop '%s' was not written first."
                      % (op.name, forward.name))
    forward_frame = w.frame_of(loop.loop_vars[0].op)
    outer = w.frame_of(op)
    frame = w.frame_of(grad_loop.grad_ins[0].op)
    w.forward_frame[frame] = forward_frame
    # b_count: from the forward count down to 1.
    base = op.name + "/b_count"
    count = w.fcount[forward][2]
    enter = w.enter(base + "/Enter", count, DT_INT32, frame, False)
    merge = w.node(base + "/Merge", "Merge", [enter.name], frame,
                   {"T": _type(DT_INT32), "N": 2}, DT_INT32)
    w.no_pivot.add(merge.name)
    one = w.node(base + "/one", "Const", ["^" + merge.name], frame, {
        "dtype": _type(DT_INT32), "value": int32_scalar(1)}, DT_INT32)
    more = w.node(base + "/GreaterEqual", "GreaterEqual", [merge.name, one.name],
                  frame, {"T": _type(DT_INT32)})
    pred = w.node(base + "/LoopCond", "LoopCond", [more.name], frame).name
    switch = w.node(base + "/Switch", "Switch", [merge.name, pred], frame,
                    {"T": _type(DT_INT32)}, DT_INT32)
    index = w.node(base + "/sub", "Sub", [switch.name + ":1", one.name], frame,
                   {"T": _type(DT_INT32)}, DT_INT32)
    next_ = w.node(base + "/NextIteration", "NextIteration", [index.name], frame,
                   {"T": _type(DT_INT32)}, DT_INT32)
    merge.input.append(next_.name)
    w.bcount[frame] = next_
    frame.pivot_pred, frame.pivot_body = merge.name, index.name
    n, k = len(loop.loop_vars), len(grad_loop.var_ids)
    outputs = []
    for grad_in, var_grad, i, init in zip(grad_loop.grad_ins, grad_loop.var_grads,
                                          grad_loop.var_ids, op.inputs[n:n + k]):
        vmerge, _, identity, exit_ = w.loop_variable(
            op.name, init._as_node_def_input(), grad_in.dtype, frame, pred,
            grad_in.op.name, fresh_identity=False)
        if var_grad is None:
            value = w.node(identity + "/zeros", "ZerosLike", [identity], frame,
                           {"T": _type(grad_in.dtype)}, grad_in.dtype).name
        else:
            value = var_grad._as_node_def_input()
        vnext = w.node(op.name + "/NextIteration", "NextIteration", [value], frame,
                       {"T": _type(grad_in.dtype)}, grad_in.dtype)
        vmerge.input.append(vnext.name)
        outputs.append(exit_)
    for j, cap_grad in zip(grad_loop.cap_ids, grad_loop.cap_grads):
        captured = loop.captured[j]
        dtype = captured.dtype.base_dtype
        zeros = w.node(op.name + "/zeros", "ZerosLike",
                       [captured._as_node_def_input()], outer,
                       {"T": _type(dtype)}, dtype)
        amerge, _, acc, exit_ = w.loop_variable(op.name + "/acc", zeros.name, dtype,
                                                frame, pred, op.name + "/acc/Identity")
        total = w.node(op.name + "/acc/add", "AddV2",
                       [acc, cap_grad._as_node_def_input()], frame,
                       {"T": _type(dtype)}, dtype)
        anext = w.node(op.name + "/acc/NextIteration", "NextIteration",
                       [total.name], frame, {"T": _type(dtype)}, dtype)
        amerge.input.append(anext.name)
        outputs.append(exit_)
    for index_, name in enumerate(outputs):
        w.renamed[(op.name, index_)] = name
    w.control_renamed[op.name] = outputs
    w.grad_exits[op] = outputs


def pop(w, frame, tensor):
    """The StackPopV2 in grad `frame` of forward `tensor` (pushed each iteration)."""
    key = (frame, tensor)
    if key in w.stacks:
        return w.stacks[key]
    branch = _branch_of(w, tensor)
    forward_frame = w.forward_frame[frame]
    forward = next(op for op in w.fcount
                   if w.frame_of(op._attrs["_loop"].loop_vars[0].op) is forward_frame)
    identity, add = w.fcount[forward][:2]
    dtype = w.dtype_of(tensor)
    base = split_input(tensor)[0]
    # One stack per run, outside every loop whose gradient is written: a nested loop
    # pushes all its outer iterations' values in order, and the outer gradient loop,
    # running the outer iterations backwards, pops them in exactly the reverse order.
    home = forward_frame.parent
    while home is not None and any(w.frame_of(op._attrs["_loop"].loop_vars[0].op) is home
                                   for op in w.fcount):
        home = home.parent
    max_size = w.node(base + "/f_acc/max_size", "Const", [], home, {
        "dtype": _type(DT_INT32), "value": int32_scalar(-1)}, DT_INT32)
    stack = w.node(base + "/f_acc", "StackV2", [max_size.name], home,
                   {"elem_type": _type(dtype), "stack_name": ""}, DT_RESOURCE)
    handle = w.enter(base + "/f_acc/Enter", stack.name, DT_RESOURCE, forward_frame,
                     True)
    push = w.node(base + "/StackPushV2", "StackPushV2",
                  [handle.name, tensor, "^" + identity], forward_frame,
                  {"T": _type(dtype),
                   "swap_memory": bool(forward._attrs.get("swap_memory", False))}, dtype)
    grad_handle = w.enter(base + "/b_acc/Enter", stack.name, DT_RESOURCE, frame,
                          True).name
    if branch is None:
        add.input.append("^" + push.name)
    else:
        # A value of one branch of a tf.cond in the body: pushed only in the iterations
        # that take the branch (the push is dead in the others), popped only in those
        # (through a Switch of the handle on the popped predicate). The counters wait
        # for ControlTriggers, which also fire after a dead push or pop.
        _sync(w, forward_frame, add, "f_sync").input.append("^" + push.name)
        pred = pop(w, frame, branch.pred_id._as_node_def_input())
        switch = w.node(base + "/b_acc/Switch", "Switch", [grad_handle, pred], frame,
                        {"T": _type(DT_RESOURCE)}, DT_RESOURCE).name
        grad_handle = switch + ":1" if branch.branch else switch
    pop_ = w.node(base + "/StackPopV2", "StackPopV2", [grad_handle], frame,
                  {"elem_type": _type(dtype)}, dtype)
    if branch is None:
        w.bcount[frame].input.append("^" + pop_.name)
    else:
        _sync(w, frame, w.bcount[frame], "b_sync").input.append("^" + pop_.name)
    w.stacks[key] = pop_.name
    return pop_.name


def _sync(w, frame, counter_node, name):
    """The ControlTrigger `counter_node` (a counter's step) waits for, made once."""
    key = (frame, name)
    if key not in w.syncs:
        trigger = w.node(counter_node.name.rsplit("/", 1)[0] + "/" + name,
                         "ControlTrigger", ["^" + frame.pivot_body], frame)
        w.no_pivot.add(trigger.name)
        counter_node.input.append("^" + trigger.name)
        w.syncs[key] = trigger
    return w.syncs[key]


def _branch_of(w, tensor):
    """The CondContext (directly in the loop's body) `tensor` is a branch value of, or
    None for a value every iteration has."""
    from tfteach.ops.cond_ops import CondContext
    try:
        op = w.graph.get_operation_by_name(split_input(tensor)[0])
    except (KeyError, ValueError):
        return None                       # a node of the frames (a counter, a stack)
    context = op._control_flow_context
    if not isinstance(context, CondContext):
        return None
    if isinstance(context.outer_context, CondContext):
        raise w.error(
            "Cannot write the gradient of a tf.while_loop as TensorFlow NodeDefs: it "
            "reads '%s', a value of a tf.cond nested in another tf.cond in the loop's "
            "body; tfteach writes the gradients of one level of tf.cond in a loop body."
            % tensor)
    return context


def order_nested_loops(w):
    """A loop nested in a loop whose gradient is written shares stacks across the outer
    iterations, so its runs must not overlap: the inner forward counter starts after the
    outer one counted this iteration (which waits for the previous inner run's count,
    pushed), and the outer gradient counter moves on after the inner gradient loop
    ended (its Exits)."""
    frame_loop = {w.frame_of(op._attrs["_loop"].loop_vars[0].op): op for op in w.fcount}
    for op, (_, _, _, enter) in w.fcount.items():
        outer = frame_loop.get(w.frame_of(op))
        if outer is not None:
            node = next(n for n in w.nodes if n.name == enter)
            node.input.append("^" + w.fcount[outer][0])
    for grad_op, exits in w.grad_exits.items():
        outer_frame = w.frame_of(grad_op)
        if outer_frame in w.bcount:
            w.bcount[outer_frame].input.extend("^" + e for e in exits)
