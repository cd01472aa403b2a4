"""tfteach's one-node while loops written as TF 1.15's control-flow *frames*.

tfteach runs a `tf.while_loop` as one `While` op whose kernel runs the body's ops once
per iteration (runtime/loop_runner.py); its gradient is one `WhileGrad` op. TensorFlow
1.15 has no such op: its executor runs a loop as ordinary nodes that pass values
around in a *frame* (one per loop, named `<loop>/while_context`):

    Enter ─> Merge ─> Switch ─(true)─> Identity ─> body ... ─> NextIteration ─┐
               ^         │ (false)                                            │
               └─────────┼────────────────────────────────────────────────────┘
                         └─> Exit                  (Switch's predicate: LoopCond)

`Enter` brings a value into the frame (`is_constant: true` for an outside tensor the
loop only reads: it is visible in every iteration), `Merge` takes the Enter's value in
iteration 0 and the `NextIteration` value afterwards, `Switch` sends it into the body
while `LoopCond` is true and to `Exit` (out of the frame) once it is false.

This module writes those nodes for each While op (`FrameWriter`). tfteach's own loop
ops map one to one: `while/Identity` (LoopVar) is the Identity of the Switch's true
output, `while/LoopCond`, `while/NextIteration` and `while/Exit` keep their names.
Every other node inside a loop is written as usual, then (`finish`):
  - an input from outside the frame is routed through a constant Enter (one per
    frame and tensor, `<consumer>/Enter`), frame by frame for nested loops;
  - a node with no input from inside the frame (a constant) gets a control input on
    the frame's pivot, `while/Merge` in the condition and `while/Identity` in the body,
    so that it runs once per iteration and belongs to the frame (TF does the same).

The gradient (WhileGrad) becomes a second loop with stacks: grad_frames.py.
"""
from tfteach.framework.attr_values import to_attr_value
from tfteach.io.tf_protos import AttrValue, NodeDef

__all__ = ["FrameWriter", "needs_frames", "split_input", "DT_RESOURCE", "DT_INT32",
           "int32_scalar"]

DT_RESOURCE = 20           # types.proto: a stack handle
DT_INT32 = 3
# Ops whose output 0 is a `resource` handle in TF (a Python object in tfteach).
_RESOURCE_HANDLES = frozenset({"StackV2", "TensorArrayV3", "TensorArrayGradV3"})


def needs_frames(graph):
    return any(op.type in ("While", "WhileGrad") for op in graph.get_operations())


def split_input(name):
    """("node", index) of an input string "node" / "node:1" (not a control input)."""
    node, sep, index = name.rpartition(":")
    if sep and index.isdigit():
        return node, int(index)
    return name, 0


class _Frame:
    """One loop's frame: its name, the frame around it and its pivots."""

    def __init__(self, name, parent, parallel_iterations, controls):
        self.name = name
        self.parent = parent
        self.parallel_iterations = parallel_iterations
        self.controls = controls          # outside ops the loop waits for (its Enters do)
        self.pivot_pred = None            # what condition-side constants wait for
        self.pivot_body = None            # what body-side constants wait for
        self.cond_side = set()            # op names of the condition's ops
        self.enters = {}                  # outside tensor name -> its constant Enter
        self.merge_of = {}                # loop variable's Identity -> its Merge


class FrameWriter:
    """Writes the frames of a graph's While/WhileGrad ops into a GraphDef."""

    def __init__(self, graph, names, not_exportable):
        from tfteach.ops.while_grad import WhileGradContext
        from tfteach.ops.while_ops import WhileContext
        self._loop_contexts = (WhileContext, WhileGradContext)
        self.error = not_exportable
        self.graph = graph
        self.names = names                # every node name in use (fresh names avoid them)
        self.frames = {}                  # control-flow context -> _Frame
        self.node_frame = {}              # node name -> _Frame (None: the root)
        self.input_frame = {}             # node name -> where its inputs live if not its own
        self.dtypes = {}                  # generated tensor name -> DType or enum
        self.renamed = {}                 # (node, index) -> tensor name to read instead
        self.nodes = []                   # generated nodes, appended to the GraphDef
        self.const_enters = set()
        self.no_pivot = set()             # structural nodes: never given a pivot
        self.grads_of = {}                # While op -> its WhileGrad ops
        self.stacks = {}                  # (grad frame, forward tensor) -> pop name
        self.fcount = {}                  # While op -> f_count (identity, add node, exit,
        #                                   enter)
        self.grad_exits = {}              # WhileGrad op -> its gradient loop's Exits
        self.syncs = {}                   # (frame, "f_sync"/"b_sync") -> ControlTrigger
        self.bcount = {}                  # grad frame -> its NextIteration node
        self.forward_frame = {}           # grad frame -> forward frame
        self.loop_op = {}                 # loop context -> its While / WhileGrad op
        self.switches = {}                # (While op name, i) -> its Switch node's name
        self.control_renamed = {}         # loop op name -> its Exit nodes (for "^loop")
        for op in graph.get_operations():
            if op.type == "While":
                self.loop_op[self._context_of_loop(op)] = op
            if op.type == "WhileGrad":
                self.loop_op[op._attrs["_grad_loop"].grad_ins[0].op._control_flow_context] = op
            if op.type == "WhileGrad":
                forward = op._attrs["_grad_loop"].forward_op
                self.grads_of.setdefault(forward, []).append(op)

    # -- which frame an op is in -------------------------------------------------------------
    def frame_of(self, op):
        context = op._control_flow_context
        while context is not None and not isinstance(context, self._loop_contexts):
            context = context.outer_context
        if context is None:
            return None
        frame = self.frames.get(context)
        if frame is None:
            loop_op = self.loop_op[context]
            source = (loop_op if loop_op.type == "While"
                      else loop_op._attrs["_grad_loop"].forward_op)
            frame = self.frames[context] = _Frame(
                loop_op.name + "/while_context", self.frame_of(loop_op),
                source._attrs["parallel_iterations"],
                [c.name for c in loop_op.control_inputs])
        return frame

    def place(self, nodes, op):
        """The frame of the nodes written for `op` is `op`'s."""
        frame = self.frame_of(op)
        for node in nodes:
            self.node_frame.setdefault(node.name, frame)

    def handles(self, op):
        return op.type in ("While", "WhileGrad", "LoopVar", "LoopHistory", "Exit")

    # -- helpers that make nodes ----------------------------------------------------------------
    def _fresh(self, base):
        name, i = base, 0
        while name in self.names:
            i += 1
            name = "%s_%d" % (base, i)
        self.names.add(name)
        return name

    def node(self, base, op_type, inputs, frame, attrs=None, dtype=None, fresh=True,
             device=""):
        name = self._fresh(base) if fresh else base
        node = NodeDef(name=name, op=op_type, device=device)
        node.input.extend(inputs)
        for key, value in (attrs or {}).items():
            if isinstance(value, AttrValue):
                node.attr[key].CopyFrom(value)
            else:
                node.attr[key].CopyFrom(to_attr_value(value))
        self.node_frame[name] = frame
        if dtype is not None:
            self.dtypes[name] = dtype
        self.nodes.append(node)
        return node

    @staticmethod
    def attr_type(dtype):
        return AttrValue(type=dtype if isinstance(dtype, int) else
                         dtype.base_dtype.as_datatype_enum)

    def enter(self, base, source, dtype, frame, constant, ref=False):
        node = self.node(base, "RefEnter" if ref else "Enter", [source], frame, {
            "T": self.attr_type(dtype), "frame_name": frame.name, "is_constant": constant,
            "parallel_iterations": frame.parallel_iterations}, dtype)
        node.input.extend("^" + c for c in frame.controls)
        self.input_frame[node.name] = frame.parent
        self.no_pivot.add(node.name)
        if constant:
            self.const_enters.add(node.name)
        return node

    def loop_variable(self, base, init, dtype, frame, pred, identity_name, device="",
                      fresh_identity=True, with_exit=True):
        """Enter -> Merge -> Switch -> (Identity, Exit) for one loop variable; returns
        (merge node, switch name, identity name, exit name). The Merge's second input,
        the NextIteration, is appended by the caller."""
        enter = self.enter(base + "/Enter", init, dtype, frame, False)
        merge = self.node(base + "/Merge", "Merge", [enter.name], frame,
                          {"T": self.attr_type(dtype), "N": 2}, dtype, device=device)
        self.no_pivot.add(merge.name)
        switch = self.node(base + "/Switch", "Switch", [merge.name, pred], frame,
                           {"T": self.attr_type(dtype)}, dtype, device=device)
        identity = self.node(identity_name, "Identity", [switch.name + ":1"], frame,
                             {"T": self.attr_type(dtype)}, dtype, fresh=fresh_identity,
                             device=device)
        frame.merge_of[identity.name] = merge.name
        if not with_exit:                 # tfteach's own Exit op is written instead
            return merge, switch.name, identity.name, None
        exit_ = self.node(base + "/Exit", "Exit", [switch.name], frame.parent,
                          {"T": self.attr_type(dtype)}, dtype, device=device)
        self.input_frame[exit_.name] = frame
        self.no_pivot.add(exit_.name)
        return merge, switch.name, identity.name, exit_.name

    # -- the nodes of one op --------------------------------------------------------------------
    def nodes_for(self, op, plain_node):
        """The NodeDefs that stand for `op` (plain_node(op): its ordinary NodeDef).

        A While/WhileGrad op's frame nodes are kept until `finish`; LoopVar ops are
        written with their loop (as the Identity of its Switch)."""
        if op.type == "While":
            self._write_loop(op)
            return []
        if op.type == "WhileGrad":
            from tfteach.framework import grad_frames
            grad_frames.write_grad_loop(self, op)
            return []
        if op.type in ("LoopVar", "LoopHistory"):
            # (A nested loop's history is its stacks, pushed onto the outer loop's.)
            return []
        # Exit: TF's Exit reads the Switch's false output inside the loop's frame.
        node = plain_node(op)
        source = op.inputs[0]
        if source.op.type == "While":
            node.input[0] = self.switches[(source.op.name, source.value_index)]
            self.input_frame[op.name] = self.frame_of(source.op._attrs["_loop"]
                                                      .loop_vars[0].op)
            self.no_pivot.add(op.name)
        return [node]

    @staticmethod
    def _context_of_loop(while_op):
        return while_op._attrs["_loop"].loop_vars[0].op._control_flow_context

    def _write_loop(self, op):
        loop = op._attrs["_loop"]
        context = self._context_of_loop(op)
        frame = self.frame_of(loop.loop_vars[0].op)
        frame.cond_side = self._cond_side(loop, context)
        pred = loop.cond.op.name
        n = len(loop.loop_vars)
        for i, (init, var, next_value) in enumerate(zip(op.inputs[:n], loop.loop_vars,
                                                       loop.next_values)):
            merge, switch, identity, _ = self.loop_variable(
                op.name, init._as_node_def_input(), init.dtype, frame, pred,
                var.op.name, device=var.op.device, fresh_identity=False, with_exit=False)
            merge.input.append(next_value.op.name)
            if i == 0:
                frame.pivot_pred, frame.pivot_body = merge.name, identity
            self.switches[(op.name, i)] = switch
        # Consumers other than the Exit ops (a gradient's zeros_like) read the Exits.
        for i, out in enumerate(op.outputs):
            exits = [c for c in out.consumers() if c.type == "Exit"]
            if exits:
                self.renamed[(op.name, i)] = exits[0].name
                self.control_renamed.setdefault(op.name, []).append(exits[0].name)
        if op in self.grads_of:
            from tfteach.framework import grad_frames
            grad_frames.write_forward_counter(self, op, frame, pred)

    def _cond_side(self, loop, context):
        seen, stack = set(), [loop.cond.op]
        while stack:
            op = stack.pop()
            if op.name in seen or not context.contains(op):
                continue
            seen.add(op.name)
            stack.extend(t.op for t in op.inputs)
            stack.extend(op.control_inputs)
        return seen

    def dtype_of(self, tensor):
        node, index = split_input(tensor)
        if node in self.dtypes:
            return self.dtypes[node]
        t = self.graph.get_tensor_by_name("%s:%d" % (node, index))
        if index == 0 and t.op.type in _RESOURCE_HANDLES:
            return DT_RESOURCE               # a handle tfteach keeps as a host object
        return t.dtype

    # -- after every node is written: frames crossed, pivots -----------------------------------
    def finish(self, graph_def):
        """Adds the frame nodes to `graph_def` and fixes its nodes' inputs and pivots."""
        # graph_def.node's elements are edited in place; the generated nodes are still
        # this writer's own (pushes add control inputs to the counters), copied last.
        if self.fcount:
            from tfteach.framework import grad_frames
            grad_frames.order_nested_loops(self)
        for node in list(graph_def.node):
            self._rewrite_inputs(node)
        done = 0                          # generated nodes, also those made meanwhile
        while done < len(self.nodes):
            self._rewrite_inputs(self.nodes[done])
            done += 1
        graph_def.node.extend(self.nodes)
        self.nodes = []
        present = {node.name for node in graph_def.node}
        for node in graph_def.node:
            self._add_pivot(node)
            _drop_missing_colocations(node, present)

    def _rewrite_inputs(self, node):
        if node.op == "Exit" and node.name in self.input_frame:
            return                        # reads its loop's Switch, as written
        frame = self.input_frame.get(node.name, self.node_frame.get(node.name))
        controls = [c for name in node.input if name.startswith("^")
                    for c in self.control_renamed.get(name[1:], [name[1:]])]
        del node.input[len(node.input) - sum(i.startswith("^") for i in node.input):]
        node.input.extend("^" + c for c in dict.fromkeys(controls))
        for pos, name in enumerate(list(node.input)):
            if name.startswith("^"):
                continue
            source, index = split_input(name)
            if (source, index) in self.renamed:
                name = self.renamed[(source, index)]
                source, index = split_input(name)
            source_frame = self.node_frame.get(source)
            if source_frame is frame and frame is not None and \
                    node.name in frame.cond_side and source in frame.merge_of:
                # The condition reads the loop variable before the Switch: its Merge.
                name = frame.merge_of[source]
            elif source_frame is not frame:
                name = self._cross(name, source_frame, frame, node.name)
            node.input[pos] = name

    def _cross(self, name, source_frame, frame, consumer):
        """`name` (made in `source_frame`) as read in `frame`: through a constant Enter
        per frame crossed, or popped in a gradient frame from its forward frame."""
        if frame is source_frame:
            return name
        if frame in self.forward_frame and self.forward_frame[frame] is source_frame:
            from tfteach.framework import grad_frames
            return grad_frames.pop(self, frame, name)
        if frame is None:
            raise self.error(
                "Cannot write the graph as TensorFlow NodeDefs: node '%s' reads '%s' from "
                "inside a tf.while_loop it is not in." % (consumer, name))
        # Available in the frame around first (an outer gradient loop pops it there:
        # a nested loop's gradient reads the outer iteration's value), then entered.
        name = self._cross(name, source_frame, frame.parent, consumer)
        enter = frame.enters.get(name)
        if enter is None:
            dtype = self.dtype_of(name)
            ref = not isinstance(dtype, int) and dtype.is_ref_dtype
            # TF names it after its first consumer: `<consumer>/Enter`, or for a
            # variable's ref (an assignment's input, `v.read_value()`) `/RefEnter`.
            enter = self.enter(consumer + ("/RefEnter" if ref else "/Enter"), name, dtype,
                               frame, True, ref).name
            self.node_frame[enter] = frame
            frame.enters[name] = enter
        return enter

    def _add_pivot(self, node):
        frame = self.node_frame.get(node.name)
        if frame is None or node.name in self.no_pivot or node.op in ("Enter", "RefEnter"):
            return
        if any(i.startswith("^") for i in node.input):
            return
        if any(split_input(i)[0] not in self.const_enters for i in node.input):
            return
        pivot = frame.pivot_pred if node.name in frame.cond_side else frame.pivot_body
        node.input.append("^" + pivot)


def _drop_missing_colocations(node, present):
    """A colocation with a node the GraphDef no longer has (an imported TF loop's Merge,
    which tfteach's While op replaced) is left out: TF's importer rejects it."""
    if "_class" not in node.attr:
        return
    groups = [c for c in node.attr["_class"].list.s
              if not c.startswith(b"loc:@") or c[5:].decode("utf-8") in present]
    if len(groups) == len(node.attr["_class"].list.s):
        return
    if groups:
        del node.attr["_class"].list.s[:]
        node.attr["_class"].list.s.extend(groups)
    else:
        del node.attr["_class"]


def int32_scalar(value):
    import numpy as np
    return np.array(value, np.int32)
