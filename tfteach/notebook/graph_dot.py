"""The graph export (graph_export.py) drawn by Graphviz: JSON -> DOT -> SVG.

What the picture means (docs/notebook.md repeats it for students):
- a box per op, filled with the colour of its assigned device (legend at the bottom;
  virtual GPUs say "virtual"), white when it never ran anywhere;
- shapes by kind: placeholder = house pointing down, variable = cylinder, constant =
  ellipse, gradient ops (under `gradients/`) = box with cut corners, other ops = rounded
  box; name scopes are clusters (`collapse` folds deep scopes into one node);
- for the selected run: thick red border and `#k` = executed k-th; faded = pruned (did
  not run); a fed tensor's edge is dashed blue and marked "fed" (the cut: its producer did
  not need to run); a copy between devices is a small arrow node with its bytes.
- edges carry dtype and static shape; control dependencies are dotted.

Every name, attribute and label is escaped (`quote`), so a name like `<img ...>` is text
in the SVG, never markup. Long names are cut in labels and tooltips to a preview that
states the full size (`graph_export.preview_text`), and `quote` cuts whatever else is
longer than Graphviz accepts (it refuses quoted strings over 16 KiB), so a graph holding
a 20,000-character name or string constant is still drawn. `svg(dot_source)` runs Graphviz's `dot` when it is installed
and returns None otherwise (the bundle then has JSON and text only).
"""
import hashlib
import shutil
import subprocess

from tfteach.notebook.graph_export import UNPLACED_COLOR, preview_text, short_device
from tfteach.notebook.memory_report import format_bytes

__all__ = ["to_dot", "svg", "quote", "has_dot"]

_SHAPES = {"placeholder": ("invhouse", ""), "variable": ("cylinder", ""),
           "constant": ("ellipse", ""), "gradient": ("box", "diagonals"),
           "op": ("box", "rounded")}
RAN_COLOR = "#c0392b"
FED_COLOR = "#1f77b4"
DIM_TEXT = "#9a9a9a"
NOW_COLOR = "#f39c12"
FUSED_COLOR = "#e67e22"          # --optimized: what the graph optimizer rewrote
LABEL_CHARS = 60           # a name in a box or a cluster's title
TOOLTIP_LINE_CHARS = 300   # one line of a tooltip
# Graphviz's limit is 16,384 bytes per quoted string; escaping can make a character 6
# bytes ("&quot;" is not used, but "&amp;" and UTF-8 are), so cut well before.
_QUOTED_CHARS = 2000


def quote(text):
    """`text` as a DOT double-quoted string whose rendering is exactly `text`:
    backslashes (DOT's \\N, \\G escapes), quotes, and the characters that are markup in
    SVG are escaped (Graphviz passes character entities through to the SVG)."""
    text = preview_text(text, _QUOTED_CHARS)
    text = (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("\\", "\\\\").replace('"', '\\"'))
    return '"%s"' % text.replace("\r", "").replace("\n", "\\n")


def _shape_text(shape):
    if shape is None:
        return "<unknown>"
    return "[%s]" % ",".join("?" if d is None else str(d) for d in shape)


def _attrs(**kw):
    return "[%s]" % ", ".join("%s=%s" % (k, v) for k, v in kw.items() if v is not None)


class _Folding:
    """Which drawn box each op belongs to when scopes deeper than `level` are folded,
    and the scopes named in `scopes` (the export's `view.folded`) too. The outermost
    folded ancestor wins."""

    def __init__(self, export, level, scopes=()):
        self.level = level
        self.scopes = set(scopes)
        self.folded = {}                 # op name -> folded scope path
        for n in export["nodes"]:
            parts = n["scope"].split("/") if n["scope"] else []
            for i in range(len(parts)):
                if (level is not None and i == level) or "/".join(parts[:i + 1]) in self.scopes:
                    # "scope/" (an op name never ends with "/"): the op `c` of scope `c/`
                    # folds into the box of its scope, not onto itself
                    self.folded[n["name"]] = "/".join(parts[:i + 1]) + "/"
                    break

    def box(self, name):
        return self.folded.get(name, name)

    def is_open(self, path):
        """Is scope `path` drawn as a cluster (neither folded nor inside a fold)?"""
        parts = path.split("/")
        if self.level is not None and len(parts) > self.level:
            return False
        return not any("/".join(parts[:i + 1]) in self.scopes for i in range(len(parts)))


def to_dot(export, run_index=None, collapse="view", current_step=None, folded="view",
           optimized=False):
    """DOT source for `export`, highlighting run `run_index` (default: the export's
    selected run; -1 or no runs: none). `collapse`: a depth, None, or "view" (the
    export's own hint). `folded`: scope paths drawn as one box each, or "view" (the
    export's `view.folded`: training scopes of a big graph). `current_step`: index into
    that run's steps, marked as "now" (the step-through view). Auxiliary nodes (the
    initialization subgraph) are drawn apart, in their own cluster, as TensorBoard
    does, with their edges into the model not shaping the layout. `optimized`: draw what
    the graph optimizer did to the run's plan (the run's `optimized` field): nodes it
    folded or read through faded and dotted, fused ones with an orange border, each
    labelled with its pass (optimized_view.marks)."""
    if collapse == "view":
        collapse = export.get("view", {}).get("collapse")
    runs = export.get("runs", [])
    if run_index is None:
        run_index = export.get("view", {}).get("selected_run")
    run = runs[run_index] if run_index is not None and 0 <= run_index < len(runs) else None
    from tfteach.notebook.optimized_view import FUSING, marks
    rewritten = marks(run) if optimized and run else {}
    fold = _Folding(export, collapse,
                    export.get("view", {}).get("folded") or () if folded == "view" else folded)
    auxiliary = {n["name"] for n in export["nodes"] if n.get("auxiliary")}
    colors = {d["name"]: d["color"] for d in export.get("devices", [])}
    virtual = {d["name"] for d in export.get("devices", []) if d["virtual"]}
    ran = {}                             # node -> execution position (1-based)
    step_device = {}
    fed = set(run["feeds"]) if run else set()
    now = None
    if run and current_step is not None and 0 <= current_step < len(run["steps"]):
        now = run["steps"][current_step]["name"]
    if run:
        for i, name in enumerate(run["executed"]):
            ran.setdefault(fold.box(name), i + 1)
        for s in run["steps"]:
            step_device[s["name"]] = s["device"]
    ids, lines = {}, ["digraph tfgraph {",
                      '  graph [rankdir=TB, fontname="Helvetica", fontsize=11, '
                      'nodesep=0.25, ranksep=0.35, tooltip=" "];',
                      '  node [fontname="Helvetica", fontsize=10, style=filled, '
                      'penwidth=1];',
                      '  edge [fontname="Helvetica", fontsize=8, color="#555555", '
                      'arrowsize=0.6];']
    placeholders_fed = {t.rsplit(":", 1)[0] for t in fed}

    def node_id(box):
        if box not in ids:
            ids[box] = "n%d" % len(ids)
        return ids[box]

    assigned = {n["name"]: short_device(n["assigned_device"]) for n in export["nodes"]}

    def device_of(name):
        return step_device.get(name) or assigned.get(name, "")

    # -- the boxes, nested in clusters by name scope --------------------------------------
    members = {}                          # folded scope -> member nodes
    boxes = []                            # (scope path it sits in, line)
    for n in export["nodes"]:
        box = fold.box(n["name"])
        if box != n["name"]:
            members.setdefault(box, []).append(n)
            continue
        shape, extra = _SHAPES.get(n["kind"], _SHAPES["op"])
        is_aux = n["name"] in auxiliary
        # apart from its scope, an auxiliary node is labelled with its whole name
        label = preview_text(n["name"] if is_aux else n["name"].rsplit("/", 1)[-1],
                             LABEL_CHARS) + "\n" + n["op"]
        style = ["filled"] + ([extra] if extra else [])
        device = device_of(n["name"])
        fill = colors.get(device, UNPLACED_COLOR)
        kw = {"shape": shape, "tooltip": quote(_tooltip(
            n, device + (" (virtual GPU)" if device in virtual else "")))}
        if run:
            if n["name"] in ran:
                label = "#%d %s" % (ran[n["name"]], label)
                kw.update(color=quote(RAN_COLOR), penwidth="2.5")
            else:
                fill += "55"                  # faded: pruned in this run
                kw.update(fontcolor=quote(DIM_TEXT), color=quote("#bbbbbb"))
                style.append("dashed")
            if n["name"] in placeholders_fed:
                label += "\nfed"
                kw.update(peripheries="2", color=quote(FED_COLOR))
            if n["name"] == now:
                label = "now: " + label
                kw.update(color=quote(NOW_COLOR), penwidth="5")
        if n["name"] in rewritten:
            pass_name, words = rewritten[n["name"]]
            label += "\n" + words
            if pass_name in FUSING:
                kw.update(color=quote(FUSED_COLOR), penwidth="3")
            else:
                fill = fill[:7] + "33"        # gone from the optimized run
                kw.update(fontcolor=quote(DIM_TEXT), color=quote(FUSED_COLOR))
                style.append("dotted")
        kw.update(label=quote(label), fillcolor=quote(fill), style=quote(",".join(style)))
        boxes.append((_AUX if is_aux else n["scope"],
                      "%s %s;" % (node_id(n["name"]), _attrs(**kw))))
    for box, nodes in members.items():
        devices = {device_of(n["name"]) for n in nodes}
        fill = colors.get(devices.pop(), UNPLACED_COLOR) if len(devices) == 1 else "#ffffff"
        path = box[:-1]
        label = "%s/\n(%d ops, folded)" % (preview_text(path.rsplit("/", 1)[-1], LABEL_CHARS),
                                            len(nodes))
        kw = {"shape": "box3d", "tooltip": quote(preview_text(box, TOOLTIP_LINE_CHARS))}
        if run:
            if box in ran:
                label = "#%d %s" % (ran[box], label)
                kw.update(color=quote(RAN_COLOR), penwidth="2.5")
            else:
                fill += "55"
                kw.update(fontcolor=quote(DIM_TEXT))
        kw.update(label=quote(label), fillcolor=quote(fill), style="filled")
        parent = path.rsplit("/", 1)[0] if "/" in path else ""
        boxes.append((parent, "%s %s;" % (node_id(box), _attrs(**kw))))
    lines += _clusters(export, boxes, fold)
    notes = [r["result"] for r in (run or {}).get("optimized") or [] if not r["nodes"]] \
        if optimized else []
    if notes:       # a plan left as built (optimizer.rewrites_of): say why, not nothing
        lines.append('  optimized_note [shape=note, style=filled, fillcolor="#fff7e6", '
                     'fontsize=9, label=%s];' % quote("\n".join(notes)))
    if rewritten:
        lines.append('  optimized_key [shape=note, style=filled, fillcolor="#ffffff", '
                     'fontsize=8, label=%s];' % quote(
                         "optimized (what an untraced run executes):\n"
                         "orange border: fused into one step\n"
                         "dotted, faded: folded or read through (the pass in the label)"))

    # -- edges ----------------------------------------------------------------------------
    seen = set()
    for e in export["edges"]:
        src, dst = fold.box(e["src"]), fold.box(e["dst"])
        if src == dst or (src, dst, e["tensor"], e["control"]) in seen:
            continue
        seen.add((src, dst, e["tensor"], e["control"]))
        apart = src in auxiliary or dst in auxiliary
        if e["control"]:
            lines.append("  %s -> %s [style=dotted, arrowhead=odot%s];"
                         % (node_id(src), node_id(dst), _APART if apart else ""))
            continue
        label = "%s %s" % (e["dtype"], _shape_text(e["shape"]))
        kw = {}
        if e["tensor"] in fed:
            label += "\nfed (cut)"
            kw.update(style="dashed", color=quote(FED_COLOR), fontcolor=quote(FED_COLOR),
                      penwidth="2")
        elif run and dst in ran and src in ran:
            kw.update(color=quote(RAN_COLOR), penwidth="1.6")
        if apart and "color" not in kw:
            kw.update(constraint="false", color=quote("#cccccc"), fontcolor=quote(DIM_TEXT))
        elif apart:
            kw.update(constraint="false")
        kw["label"] = quote(label)
        lines.append("  %s -> %s %s;" % (node_id(src), node_id(dst), _attrs(**kw)))
    if run:
        lines += _copies(export, run, fold, node_id, now)
    lines += _queue_runners(export, fold, node_id)
    lines += _legend(export, run)
    lines.append("}")
    return "\n".join(lines) + "\n"


QUEUE_COLOR = "#fff3b0"
RUNNER_COLOR = "#8e44ad"


def _queue_runners(export, fold, node_id):
    """Queues drawn as cylinders; each QueueRunner as a box outside the graph's scopes
    with a bold dashed arrow to every enqueue op its threads run ("3 threads"): which
    thread feeds which queue, what TensorBoard's picture leaves out."""
    out = []
    for i, q in enumerate(export.get("queues", [])):
        if fold.box(q["name"]) == q["name"]:
            out.append("  %s [shape=cylinder, fillcolor=%s];"
                       % (node_id(q["name"]), quote(QUEUE_COLOR)))
        for j, runner in enumerate(q["runners"]):
            count = sum(runner["threads"].values())
            runner_id = "runner_%d_%d" % (i, j)
            out.append("  %s [shape=component, style=filled, fillcolor=\"#f5eef8\", "
                       "color=%s, fontcolor=%s, label=%s, tooltip=%s];" % (
                           runner_id, quote(RUNNER_COLOR), quote(RUNNER_COLOR),
                           quote("QueueRunner\n%d thread%s" % (count, "s" * (count != 1))),
                           quote(preview_text("QueueRunner of %s: %d background thread(s) "
                                              "run its enqueue op(s) again and again"
                                              % (q["name"], count), TOOLTIP_LINE_CHARS))))
            for op_name, threads in runner["threads"].items():
                out.append("  %s -> %s [style=\"dashed,bold\", color=%s, fontcolor=%s, "
                           "label=%s];" % (runner_id, node_id(fold.box(op_name)),
                                           quote(RUNNER_COLOR), quote(RUNNER_COLOR),
                                           quote("%d thread%s" % (threads,
                                                                 "s" * (threads != 1)))))
    return out


def _tooltip(n, device):
    lines = ["%s (%s)" % (preview_text(n["name"], TOOLTIP_LINE_CHARS), n["op"])]
    if device:
        lines.append("device: " + device)
    if n["requested_device"]:
        lines.append("requested: " + n["requested_device"])
    for k, v in n["attrs"].items():
        lines.append("%s = %s" % (k, v))
    if n["location"]:
        lines.append("built at " + n["location"])
    return "\n".join(preview_text(line, TOOLTIP_LINE_CHARS) for line in lines)


AUX_COLUMNS = 4
_AUX = "\x00auxiliary"           # the aux cluster's key: no scope path looks like it
_APART = ', constraint=false, color="#cccccc"'


def _clusters(export, boxes, fold):
    """Nested `subgraph cluster_...` blocks, one per open name scope, and the cluster of
    auxiliary nodes beside them."""
    scopes = [s["path"] for s in export["scopes"] if fold.is_open(s["path"])]
    children = {}
    for path in scopes:
        parent = path.rsplit("/", 1)[0] if "/" in path else ""
        children.setdefault(parent, []).append(path)
    inside = {}
    for scope, line in boxes:
        inside.setdefault(scope, []).append(line)
    out = []

    def emit(path, indent):
        pad = "  " * indent
        for line in inside.get(path, []):
            out.append(pad + line)
        for i, child in enumerate(children.get(path, [])):
            out.append('%ssubgraph "cluster_%s" {' % (pad, _cluster_id(child)))
            out.append('%s  label=%s; tooltip=%s; style="rounded,dashed"; color="#888888"; '
                       'fontcolor="#444444";'
                       % (pad, quote(preview_text(child.rsplit("/", 1)[-1], LABEL_CHARS) + "/"),
                          quote(preview_text(child + "/", TOOLTIP_LINE_CHARS))))
            emit(child, indent + 1)
            out.append(pad + "}")
    emit("", 1)
    if inside.get(_AUX):
        out.append('  subgraph "cluster_auxiliary" {')
        out.append('    label="initialization (auxiliary nodes)"; style="rounded,dotted"; '
                   'color="#aaaaaa"; fontcolor="#777777"; tooltip="run once, by the '
                   'initializer: drawn apart from the model";')
        out += ["    " + line for line in inside[_AUX]]
        # a compact block beside the model, not a row as wide as the page: invisible
        # edges stack the nodes AUX_COLUMNS to a row
        ids = [line.split(" ", 1)[0] for line in inside[_AUX]]
        out += ["    %s -> %s [style=invis];" % (ids[i], ids[i + AUX_COLUMNS])
                for i in range(len(ids) - AUX_COLUMNS)]
        out.append("  }")
    return out


def _cluster_id(path):
    # Cluster ids appear in the SVG as comments/ids: keep them to safe characters, and
    # short (a long scope name keeps its start and a digest that tells it apart).
    safe = "".join(c if c.isalnum() else "_%02x" % ord(c) if ord(c) < 256 else "_"
                   for c in path)
    if len(safe) <= 200:
        return safe
    return "%s_%s" % (safe[:160], hashlib.sha1(path.encode("utf-8")).hexdigest())


def _copies(export, run, fold, node_id, now):
    """A small node per copy between devices, between the producer and its consumers."""
    out = []
    step_device = {s["name"]: s["device"] for s in run["steps"]}
    for k, c in enumerate(run["copies"]):
        cid = "c%d" % k
        label = "copy %s\n%s -> %s\n%s" % (c["op"].replace("MEMCPY", ""), c["from"] or "?",
                                         c["to"], format_bytes(c["bytes"]))
        if c["name"] == now:
            label = "now: " + label
        out.append("  %s [shape=cds, style=filled, fillcolor=\"#ffffff\", fontsize=8, "
                   "color=%s, penwidth=%s, label=%s, tooltip=%s];"
                   % (cid, quote(NOW_COLOR if c["name"] == now else RAN_COLOR),
                      "5" if c["name"] == now else "1", quote(label), quote(c["name"])))
        producer = c["tensor"].rsplit(":", 1)[0]
        out.append("  %s -> %s [style=dashed, color=%s];"
                   % (node_id(fold.box(producer)), cid, quote(RAN_COLOR)))
        for e in export["edges"]:
            if e["tensor"] == c["tensor"] and step_device.get(e["dst"]) == c["to"]:
                out.append("  %s -> %s [style=dashed, color=%s];"
                           % (cid, node_id(fold.box(e["dst"])), quote(RAN_COLOR)))
    return out


def _legend(export, run):
    devices = export.get("devices", [])
    out = ['  subgraph "cluster_legend" {', '    label="legend"; style="rounded"; '
           'color="#cccccc"; fontsize=9;']
    prev = None
    for i, d in enumerate(devices):
        text = d["name"] + (" (virtual GPU)" if d["virtual"] else "")
        out.append("    legend_d%d [shape=box, style=filled, fillcolor=%s, fontsize=9, "
                   "label=%s];" % (i, quote(d["color"]), quote(text)))
        if prev is not None:
            out.append("    %s -> legend_d%d [style=invis];" % (prev, i))
        prev = "legend_d%d" % i
    keys = "not placed (no run yet)" if not devices else ""
    if run:
        keys = ("red border, #k: ran k-th in %s\nfaded, dashed: pruned (did not run)\n"
                "dashed blue: fed tensor (cut)" % run["label"])
    if any(q["runners"] for q in export.get("queues", [])):
        keys = (keys + "\n" if keys else "") + (
            "yellow cylinder: a queue\npurple box: a QueueRunner, its threads\n"
            "running the enqueue op its dashed arrow points to")
    if keys:
        out.append("    legend_k [shape=note, style=filled, fillcolor=\"#ffffff\", "
                   "fontsize=8, label=%s];" % quote(keys))
        if prev is not None:
            out.append("    %s -> legend_k [style=invis];" % prev)
    out.append("  }")
    return out


def has_dot():
    return shutil.which("dot") is not None


def svg(dot_source, timeout=30):
    """The SVG Graphviz draws for `dot_source` (str), or None when `dot` is missing.
    The XML prolog and DOCTYPE are dropped so the SVG embeds in HTML as is."""
    exe = shutil.which("dot")
    if exe is None:
        return None
    proc = subprocess.run([exe, "-Tsvg"], input=dot_source.encode("utf-8"),
                          capture_output=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError("Graphviz dot failed: %s" % proc.stderr.decode("utf-8", "replace"))
    text = proc.stdout.decode("utf-8")
    start = text.find("<svg")
    text = text[start:] if start >= 0 else text
    # fit the output's width: shrink (never grow) a wide graph, keeping its proportions
    return text.replace("<svg ", '<svg style="max-width: 100%; height: auto" ', 1)
