"""The graph export: one JSON document every graph view is drawn from (DESIGN.md).

`export_graph(graph, runs, ...)` turns a `tf.Graph` and the runs a cell recorded
(`run_recorder.RecordedRun`) into plain JSON-able dicts and lists; the SVG
(`graph_dot.py`), the text outline (`graph_outline.py`), the widgets
(`graph_widgets.py`) and, later, the JupyterLab extension read nothing else. The schema
is documented field by field in docs/graph_export.md; bump `SCHEMA_VERSION` when a
field changes meaning or disappears (adding a field does not need a bump).

Everything here is data: names are kept verbatim (escaping is each view's job, since
SVG, HTML and text escape differently).
"""
import numpy as np

from tfteach.notebook import graph_queues

__all__ = ["SCHEMA_VERSION", "MIME_TYPE", "export_graph", "node_kind", "short_device",
           "value_preview", "preview_text", "DEVICE_COLORS", "UNPLACED_COLOR",
           "auxiliary_nodes", "training_scopes", "FOLD_TRAINING_FROM"]

SCHEMA_VERSION = 1
MIME_TYPE = "application/vnd.tfteach.graph+json"

# Fill colours by device (colour-blind-safe-ish pastels; text stays readable on them).
DEVICE_COLORS = {"CPU:0": "#9ecae1", "GPU:0": "#a1d99b", "GPU:1": "#fdae6b",
                 "GPU:2": "#bcbddc", "GPU:3": "#fa9fb5"}
EXTRA_COLORS = ["#c7e9c0", "#fdd0a2", "#dadaeb", "#fcc5c0"]
UNPLACED_COLOR = "#eeeeee"

_KINDS = {"Placeholder": "placeholder", "PlaceholderWithDefault": "placeholder",
          "VariableV2": "variable", "Variable": "variable", "VarHandleOp": "variable",
          "Const": "constant"}
_PREVIEW_CHARS = 160
# From this many ops on, the scopes training adds (tf.gradients', the optimizer's
# updates) start folded, as TensorBoard draws them: a two-layer MLP's minimize() alone
# adds ~90 ops, which hide the model a student wrote. A small graph keeps them open
# (the linear-regression lesson shows its gradient ops).
FOLD_TRAINING_FROM = 60
_ATTR_CHARS = 60


def preview_text(text, chars):
    """`text` if it has at most `chars` characters, else its start and its full size in
    `chars` characters: 'sssss... (20,000 characters)'. A 20,000-character string
    constant or name must not reach a view whole (Graphviz refuses quoted strings over
    16 KiB; a tooltip that long helps nobody), and the reader must see what was cut."""
    text = str(text)
    if len(text) <= chars:
        return text
    suffix = "... (%s characters)" % format(len(text), ",")
    return text[:max(chars - len(suffix), 1)] + suffix


def node_kind(op_type, name):
    """How a node is drawn: placeholder, variable, constant, gradient or op."""
    kind = _KINDS.get(op_type)
    if kind is not None:
        return kind
    # tf.gradients puts everything it builds under a `gradients` name scope.
    if any(part == "gradients" or part.startswith("gradients_")
           for part in name.split("/")[:-1]):
        return "gradient"
    return "op"


def short_device(name):
    """'/job:localhost/replica:0/task:0/device:GPU:1' -> 'GPU:1'; '' stays ''."""
    if not name:
        return ""
    tail = name.rsplit("/", 1)[-1]
    return tail[len("device:"):] if tail.startswith("device:") else tail.upper()


def _shape(shape):
    """A TensorShape as JSON: a list (None for unknown dimensions) or None (unknown rank)."""
    if shape is None or shape.ndims is None:
        return None
    return [None if d is None else int(d) for d in shape.as_list()]


def value_preview(value, chars=_PREVIEW_CHARS):
    """A short, printable description of one value: 'int32 [] 3' or 'float32 [2, 3] [[...'."""
    if value is None:
        return {"dtype": None, "shape": None, "preview": "(no value)"}
    if isinstance(value, (np.ndarray, np.generic)):
        arr = np.asarray(value)
        with np.printoptions(threshold=12, edgeitems=3, precision=4, linewidth=10_000):
            text = np.array2string(arr, separator=", ") if arr.ndim else repr(arr.item())
        dtype, shape = str(arr.dtype), list(arr.shape)
    else:
        text, dtype, shape = repr(value), type(value).__name__, None
    text = " ".join(text.split())
    return {"dtype": dtype, "shape": shape, "preview": preview_text(text, chars)}


def _attr_text(value):
    if isinstance(value, np.ndarray):
        if value.size > 6:
            return "<%s %s>" % (value.dtype, list(value.shape))
        with np.printoptions(threshold=12, linewidth=10_000):
            text = np.array2string(value, separator=", ")
    else:
        text = str(value)
    return preview_text(" ".join(text.split()), _ATTR_CHARS)


def _node(op, placement):
    scope = op.name.rsplit("/", 1)[0] if "/" in op.name else ""
    attrs = {k: _attr_text(v) for k, v in sorted(op._public_attrs().items())
             if k not in ("_class",)}
    location = op.traceback_location
    return {
        "name": op.name,
        "op": op.type,
        "kind": node_kind(op.type, op.name),
        "scope": scope,
        "requested_device": op.device,
        "assigned_device": placement.get(op.name, ""),
        "inputs": [{"node": t.op.name, "output": t.value_index, "tensor": t.name}
                   for t in op.inputs],
        "control_inputs": [c.name for c in op.control_inputs],
        "outputs": [{"index": t.value_index, "tensor": t.name, "dtype": t.dtype.name,
                     "shape": _shape(t.shape)} for t in op.outputs],
        "attrs": attrs,
        "location": str(location) if location is not None else "",
    }


def _scopes(nodes):
    """Every name-scope path with its parent and depth (scopes hold ops or scopes)."""
    paths = set()
    for n in nodes:
        parts = n["scope"].split("/") if n["scope"] else []
        for i in range(1, len(parts) + 1):
            paths.add("/".join(parts[:i]))
    out = []
    for path in sorted(paths):
        parent = path.rsplit("/", 1)[0] if "/" in path else ""
        out.append({"path": path, "parent": parent, "depth": path.count("/") + 1,
                    "num_nodes": sum(1 for n in nodes if n["scope"] == path or
                                     n["scope"].startswith(path + "/"))})
    return out


def _edges(nodes):
    edges = []
    for n in nodes:
        for i, inp in enumerate(n["inputs"]):
            edges.append({"src": inp["node"], "src_output": inp["output"],
                          "tensor": inp["tensor"], "dst": n["name"], "dst_input": i,
                          "control": False})
        for c in n["control_inputs"]:
            edges.append({"src": c, "src_output": None, "tensor": None, "dst": n["name"],
                          "dst_input": None, "control": True})
    by_tensor = {o["tensor"]: o for n in nodes for o in n["outputs"]}
    for e in edges:
        out = by_tensor.get(e["tensor"])
        e["dtype"] = out["dtype"] if out else None
        e["shape"] = out["shape"] if out else None
    return edges


def _run(index, run, graph_names):
    """One recorded run (or a planned one) as JSON."""
    names = set(graph_names)
    executed_ops = [n for n in run.executed if n in names]
    ran = set(executed_ops)
    steps, copies = [], []
    for step in run.steps:
        entry = {"index": step["index"], "name": step["name"], "op": step["op"],
                 "device": short_device(step["device"]), "time_us": step["time_us"],
                 "output_bytes": step["output_bytes"], "is_copy": step["is_copy"],
                 "outputs": [value_preview(v) for v in step["values"]]
                 if step["values"] is not None else []}
        steps.append(entry)
        if step["is_copy"]:
            copies.append({"name": step["name"], "op": step["op"], "tensor": step["tensor"],
                           "from": short_device(step["from_device"]),
                           "to": short_device(step["device"]), "bytes": step["output_bytes"]})
    return {
        "index": index,
        "kind": run.kind,              # "run" | "dry_run" | "fetch"
        "label": run.label,
        "fetches": list(run.fetches),
        "feeds": list(run.feeds),
        "targets": list(run.targets),
        "executed": executed_ops,
        "pruned": [n for n in graph_names if n not in ran],
        "steps": steps,
        "copies": copies,
        "total_us": sum(s["time_us"] for s in steps),
        "error": run.error,
        # what the graph optimizer did to this run's plan (%%tfgraph --optimized):
        # [{"pass", "nodes", "result"}]; empty when not asked (docs/optimizer.md)
        "optimized": list(getattr(run, "optimized", None) or []),
    }


def _devices(nodes, runs):
    names = []
    for n in nodes:
        d = short_device(n["assigned_device"])
        if d and d not in names:
            names.append(d)
    for r in runs:
        for s in r["steps"]:
            if s["device"] and s["device"] not in names:
                names.append(s["device"])
    names.sort(key=lambda d: (not d.startswith("CPU"), d))
    virtual = _virtual_gpu_names() if any(d.startswith("GPU") for d in names) else set()
    out = []
    for i, d in enumerate(names):
        color = DEVICE_COLORS.get(d) or EXTRA_COLORS[i % len(EXTRA_COLORS)]
        out.append({"name": d, "type": d.split(":")[0], "virtual": d in virtual,
                    "color": color})
    return out


def _virtual_gpu_names():
    # The device registry exists already: a session ran on a GPU before we got here.
    from tfteach.runtime import devices as devices_lib
    return {short_device(d.name) for d in devices_lib.local_devices() if d.is_virtual}


def auxiliary_nodes(nodes):
    """The names of the initialization subgraph, which TensorBoard draws apart as
    "auxiliary" nodes: the `init` ops (global_variables_initializer and friends, NoOps
    named init, init_1, ...), each variable's initializing Assign (`v/Assign`), and the
    ops whose every consumer is one of those (the initial values and their random ops).
    Variables, placeholders and anything a model op reads are never auxiliary."""
    by_name = {n["name"]: n for n in nodes}
    consumers = {n["name"]: set() for n in nodes}
    for n in nodes:
        for inp in n["inputs"]:
            consumers.setdefault(inp["node"], set()).add(n["name"])
        for c in n["control_inputs"]:
            consumers.setdefault(c, set()).add(n["name"])
    aux = set()
    for n in nodes:
        base = n["name"].rsplit("/", 1)[-1]
        if n["op"] == "NoOp" and (base == "init" or base.startswith("init_")):
            aux.add(n["name"])
        elif (n["op"] == "Assign" and n["inputs"] and n["name"] == n["inputs"][0]["node"]
              + "/Assign" and by_name.get(n["inputs"][0]["node"], {}).get("kind")
              == "variable"):
            aux.add(n["name"])
    changed = True
    while changed:                      # walk back from them while only they consume
        changed = False
        for n in nodes:
            name = n["name"]
            if name in aux or n["kind"] in ("variable", "placeholder"):
                continue
            users = consumers.get(name, set())
            if users and users <= aux:
                aux.add(name)
                changed = True
    return aux


LIBRARY_SCOPE_OPS = (8, 60)      # a library function's insides: 8 to 60 ops


def training_scopes(nodes):
    """The scopes a big graph starts with folded, as TensorBoard draws a model: the
    scopes training adds — tf.gradients' (`gradients`, `gradients_1`) and an
    optimizer's (a top-level scope holding an Apply* update: `GradientDescent/`,
    `Adam/`) — and the insides of library functions: any scope of 8 to 60 ops
    (LIBRARY_SCOPE_OPS) that holds no variable or placeholder (`softmax_cross_entropy_
    with_logits/`'s reshapes), outermost first. Scopes with the student's variables
    stay open, and so do bigger ones (an unrolled loop the student wrote: views fold
    those by depth when the graph is too big to draw)."""
    found = set()
    for n in nodes:
        top = n["scope"].split("/", 1)[0] if n["scope"] else ""
        if top and (top == "gradients" or top.startswith("gradients_") or
                    (n["op"].startswith(("Apply", "ResourceApply", "SparseApply")) and
                     "/" in n["name"])):
            found.add(top)
    members, holds_state = {}, set()
    for n in nodes:
        parts = n["scope"].split("/") if n["scope"] else []
        for i in range(len(parts)):
            path = "/".join(parts[:i + 1])
            members[path] = members.get(path, 0) + 1
            if n["kind"] in ("variable", "placeholder"):
                holds_state.add(path)
    for path in sorted(members, key=lambda p: p.count("/")):
        inside_found = any(path == f or path.startswith(f + "/") for f in found)
        low, high = LIBRARY_SCOPE_OPS
        if not inside_found and path not in holds_state and low <= members[path] <= high:
            found.add(path)
    return sorted(found)


def export_graph(graph, runs=(), collapse=None, selected_run=0, note=""):
    """The export of `graph` with the recorded `runs` (RecordedRun objects, in order).

    `collapse`: a view hint, the name-scope depth below which views fold scopes into one
    node (None: no depth folded; big graphs still start with their training scopes
    folded, `view.folded`). `selected_run`: which run views show first.
    """
    placement = {}
    for run in runs:
        placement.update(run.placement)
    nodes = [_node(op, placement) for op in graph.get_operations()]
    names = [n["name"] for n in nodes]
    # An op whose name is also a scope (tf.add(x, 1.0, name="c") puts its constant at
    # "c/y") is drawn inside that scope, as TensorBoard does.
    prefixes = {n["scope"] for n in nodes}
    for n in nodes:
        if n["name"] in prefixes:
            n["scope"] = n["name"]
    aux = auxiliary_nodes(nodes)
    for n in nodes:
        n["auxiliary"] = n["name"] in aux
    folded = (training_scopes(nodes) if collapse is None and len(nodes) >= FOLD_TRAINING_FROM
              else [])
    run_entries = [_run(i, r, names) for i, r in enumerate(runs)]
    devices = _devices(nodes, run_entries)
    return {
        "version": SCHEMA_VERSION,
        "kind": "tfteach.graph",
        "nodes": nodes,
        "edges": _edges(nodes),
        "scopes": _scopes(nodes),
        "devices": devices,
        "runs": run_entries,
        "view": {"collapse": collapse, "folded": folded,
                 "selected_run": selected_run if run_entries else None},
        "note": note,
        # queues, who fills them and how many runner threads (graph_queues.py)
        "queues": graph_queues.export_queues(graph),
    }
