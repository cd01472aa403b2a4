"""TF 1.15's while-loop frames read back as tfteach's one-node loops (import side).

A GraphDef written by TF 1.15 (or by tfteach, loop_frames.py) holds a `tf.while_loop`
as Enter / Merge / Switch / LoopCond / NextIteration / Exit nodes sharing a frame name.
tfteach runs loops as one While op, so the importer rebuilds one per frame:

  - which frame each node is in: an Enter's output is in the Enter's `frame_name`, an
    Exit's output in the frame around its input's, every other node in its inputs'
    frame (`find_frames`);
  - per frame, each non-constant Enter is a loop variable: Enter -> Merge -> Switch
    (-> Identity for the body, -> Exit after the loop), with the Merge's other input a
    NextIteration; the Switch's predicate is the LoopCond;
  - the condition's nodes (what the LoopCond needs, reading the Merges) and the body's
    (the rest, reading the Switches' true outputs) are imported inside a WhileContext,
    as `tf.while_loop` builds its functions; a constant Enter is the outside tensor
    itself (the context captures it); a nested frame is imported inside the body;
  - the While op gets the frame's name less `/while_context`, each Exit keeps its name.

A malformed frame is an InvalidArgumentError in TensorFlow's words ("Invalid Exit op:
Cannot find a corresponding Enter op."), found before anything runs: never a hang.
"""
from tfteach.framework.errors import InvalidArgumentError

__all__ = ["find_frames", "Frame", "build_loop", "ENTERS"]

ENTERS = ("Enter", "RefEnter")
EXITS = ("Exit", "RefExit")


def _source(name):
    if name.startswith("^"):
        return name[1:]
    node, sep, index = name.rpartition(":")
    return node if sep and index.isdigit() else name


def _invalid(message):
    return InvalidArgumentError(None, None, message)


class Frame:
    """The nodes of one frame and its loop variables (Enter, Merge, Switch, Identity,
    Exit, NextIteration nodes), the constant Enters and its condition's nodes."""

    def __init__(self, name):
        self.name = name
        self.parent = None            # the Frame around it (None: the root)
        self.nodes = []               # node names directly in this frame
        self.children = []
        self.variables = []           # dicts: enter, merge, switch, identity, exit, next
        self.constants = []           # constant Enter nodes
        self.cond_nodes = set()
        self.loop_cond = None

    @property
    def op_name(self):
        suffix = "/while_context"
        return self.name[:-len(suffix)] if self.name.endswith(suffix) else self.name


def find_frames(nodes):
    """({node name: Frame or None}, [Frame]) for a GraphDef's nodes; ({}, []) if it has
    no Enter node. Raises InvalidArgumentError for a malformed frame."""
    if not any(n.op in ENTERS for n in nodes):
        for n in nodes:
            if n.op in EXITS:
                raise _invalid("Invalid Exit op: Cannot find a corresponding Enter op.")
        return {}, []
    by_name = {n.name: n for n in nodes}
    frames, frame_of = {}, {}
    consumers = {n.name: [] for n in nodes}
    for n in nodes:
        for i in n.input:
            if _source(i) in consumers:
                consumers[_source(i)].append(n)
    # Propagate frames from the Enters (and the root) along the edges until stable.
    pending = list(nodes)
    known = {}
    changed = True
    while changed:
        changed = False
        for n in pending:
            if n.name in known:
                continue
            frame = _frame_from_inputs(n, known, frames, by_name)
            if frame is not _UNKNOWN:
                known[n.name] = frame
                changed = True
    for n in nodes:
        frame_of[n.name] = known.get(n.name)
    for frame in frames.values():
        for n in nodes:
            if frame_of[n.name] is frame:
                frame.nodes.append(n.name)
        if frame.parent is not None:
            frame.parent.children.append(frame)
    for frame in frames.values():
        _read_loop_structure(frame, by_name, consumers, frame_of)
    return frame_of, list(frames.values())


_UNKNOWN = object()


def _frame_from_inputs(node, known, frames, by_name):
    if node.op in ENTERS:
        name = node.attr["frame_name"].s.decode("utf-8")
        frame = frames.get(name)
        if frame is None:
            frame = frames[name] = Frame(name)
        source = _source(node.input[0]) if node.input else None
        if source is not None and source in by_name:
            if source not in known:
                return _UNKNOWN
            outer = known[source]
            if frame.parent is None and outer is not None and outer is not frame:
                frame.parent = outer
        return frame
    data = [_source(i) for i in node.input if not i.startswith("^")]
    sources = [s for s in data if s in by_name] or \
        [_source(i) for i in node.input if _source(i) in by_name]
    if not sources:
        return None
    found = [known[s] for s in sources if s in known]
    if not found:
        return _UNKNOWN
    frame = found[0]
    if node.op in EXITS:
        if frame is None:
            raise _invalid("Invalid Exit op: Cannot find a corresponding Enter op.")
        return frame.parent
    return frame


def _read_loop_structure(frame, by_name, consumers, frame_of):
    members = set(frame.nodes)
    for name in frame.nodes:
        node = by_name[name]
        if node.op not in ENTERS or node.attr["frame_name"].s.decode() != frame.name:
            continue
        if node.attr["is_constant"].b:
            frame.constants.append(node)
            continue
        merges = [c for c in consumers[name] if c.op in ("Merge", "RefMerge")]
        if len(merges) != 1:
            raise _invalid("Invalid loop structure: the Enter op '%s' of frame '%s' does "
                           "not feed exactly one Merge." % (name, frame.name))
        merge = merges[0]
        nexts = [by_name.get(_source(i)) for i in merge.input if _source(i) != name]
        if len(merge.input) != 2 or not nexts or nexts[0] is None or \
                nexts[0].op not in ("NextIteration", "RefNextIteration"):
            raise _invalid("Invalid loop structure: the Merge op '%s' of frame '%s' must "
                           "merge an Enter and a NextIteration." % (merge.name, frame.name))
        switches = [c for c in consumers[merge.name] if c.op in ("Switch", "RefSwitch")]
        if len(switches) != 1:
            raise _invalid("Invalid loop structure: the Merge op '%s' of frame '%s' does "
                           "not feed exactly one Switch." % (merge.name, frame.name))
        switch = switches[0]
        cond = by_name.get(_source(switch.input[1]))
        if cond is None or cond.op != "LoopCond" or \
                (frame.loop_cond is not None and cond is not frame.loop_cond):
            raise _invalid("Invalid loop structure: the Switch op '%s' of frame '%s' is "
                           "not controlled by the frame's LoopCond." % (switch.name,
                                                                       frame.name))
        frame.loop_cond = cond
        body_reads = [c for c in consumers[switch.name]
                      if any(i == switch.name + ":1" for i in c.input)]
        identity = next((c for c in body_reads if c.op == "Identity"
                         and not any(i.startswith("^") for i in c.input)), None)
        exits = [c for c in consumers[switch.name] if c.op in EXITS]
        frame.variables.append(dict(enter=node, merge=merge, switch=switch,
                                    identity=identity, exit=exits[0] if exits else None,
                                    next=nexts[0]))
    if not frame.variables:
        raise _invalid("Invalid loop structure: frame '%s' has no loop variable (an "
                       "Enter with is_constant false)." % frame.name)
    merged = {v["next"].name for v in frame.variables}
    for name in frame.nodes:
        node = by_name[name]
        if node.op in ("NextIteration", "RefNextIteration") and name not in merged:
            raise _invalid("Invalid loop structure: the NextIteration op '%s' of frame "
                           "'%s' does not feed the Merge of a loop variable."
                           % (name, frame.name))
    # The condition: what the LoopCond needs inside the frame, up to the Merges.
    stop = {v["merge"].name for v in frame.variables} | {c.name for c in frame.constants}
    stack = [_source(i) for i in frame.loop_cond.input]
    while stack:
        name = stack.pop()
        if name in frame.cond_nodes or name in stop or name not in members:
            continue
        frame.cond_nodes.add(name)
        stack.extend(_source(i) for i in by_name[name].input)


def build_loop(importer, frame):
    """Imports `frame` as one tfteach While op (importer: importer._Importer)."""
    from tfteach.framework import tensor_shape
    from tfteach.framework.graph import GraphKeys
    from tfteach.ops.op_builder import apply_op
    from tfteach.ops.while_ops import WhileContext, _AcceptsDeadInputs, _Loop, _may_be_dead
    graph, prefix, by_name = importer.graph, importer.prefix, importer.by_name
    inits = [importer.resolve(v["enter"].input[0], v["enter"].name) for v in frame.variables]
    for enter in frame.constants:         # an outside tensor: the loop captures it
        importer.mapped["%s:0" % enter.name] = importer.resolve(enter.input[0], enter.name)
        importer.mapped["^" + enter.name] = importer.mapped["%s:0" % enter.name].op
    controls = [importer.resolve(i, v["enter"].name) for v in frame.variables
                for i in v["enter"].input[1:] if i.startswith("^")]
    context = WhileContext(graph)
    if context.outer_context is None:
        graph.add_to_collection(GraphKeys.WHILE_CONTEXT, context)
    structure = {frame.loop_cond.name} | {c.name for c in frame.constants} | {
        v[k].name for v in frame.variables for k in ("enter", "merge", "switch", "next",
                                                     "identity") if v[k] is not None}
    body_nodes = [by_name[n] for n in frame.nodes
                  if n not in frame.cond_nodes and n not in structure]
    with context.entered():
        loop_vars = []
        for v, init in zip(frame.variables, inits):
            name = (v["identity"] or v["switch"]).name
            var = apply_op("LoopVar", [], {"dtype": init.dtype.base_dtype,
                                           "shape": tensor_shape.unknown_shape()},
                           name=prefix + name + "/")
            loop_vars.append(var)
            importer.ops[name] = var.op
            for key in ("%s:0" % v["merge"].name, "%s:1" % v["switch"].name):
                importer.mapped[key] = var
            for node in (v["merge"], v["switch"], v["identity"]):
                if node is not None:
                    importer.mapped["^" + node.name] = var.op
                    importer.mapped["%s:0" % node.name] = var
        importer.import_level(frame, [by_name[n] for n in frame.nodes
                                      if n in frame.cond_nodes], [])
        pred = importer.resolve(frame.loop_cond.input[0], frame.loop_cond.name)
        pred = apply_op("LoopCond", [pred], None, name=prefix + frame.loop_cond.name + "/",
                        control_inputs=_controls(importer, frame.loop_cond))
        importer.import_level(frame, body_nodes, frame.children)
        next_values = []
        for v, var in zip(frame.variables, loop_vars):
            value = importer.resolve(v["next"].input[0], v["next"].name)
            # Its control inputs matter: TF orders a gradient's stack pushes before
            # the iteration counter's NextIteration.
            next_values.append(apply_op("NextIteration", [value],
                                        {"T": value.dtype.base_dtype},
                                        name=prefix + v["next"].name + "/",
                                        control_inputs=_controls(importer, v["next"])))
    loop = _Loop(loop_vars, pred, next_values, list(context.captured))
    enter = frame.variables[0]["enter"]
    attrs = {"parallel_iterations": enter.attr["parallel_iterations"].i or 10,
             "back_prop": True, "swap_memory": False,
             "T": [v.dtype for v in loop_vars], "_loop": loop,
             "loop_vars": [v.name for v in loop_vars], "cond": pred.name,
             "body": [v.name for v in next_values],
             "captured": [t.name for t in loop.captured]}
    # Named like tfteach's own loops: the op "while" beside the "while/..." ops.
    name = prefix + (frame.op_name if frame.op_name not in by_name else frame.name)
    base, k = name, 0
    while name in graph._nodes_by_name:
        k += 1
        name = "%s_%d" % (base, k)
    while_op = graph._create_op("While", inits + loop.captured, attrs, name + "/",
                                context.external_controls + controls)
    # As tf.while_loop does: a loop capturing a tensor of a cond branch (tf.hessians of
    # a cond) runs with it dead inside when the branch is not taken.
    if context.outer_context is None and _may_be_dead(loop.captured):
        while_op._op_def = _AcceptsDeadInputs(while_op._op_def)
    for v, out in zip(frame.variables, while_op.outputs):
        if v["exit"] is not None:
            exit_ = graph._create_op("Exit", [out], {"T": out.dtype},
                                     prefix + v["exit"].name + "/")
            importer.ops[v["exit"].name] = exit_


def _controls(importer, node):
    return [importer.resolve(i, node.name) for i in node.input if i.startswith("^")]
