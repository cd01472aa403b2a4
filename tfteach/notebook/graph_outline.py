"""The graph export as plain text: the `text/plain` part of the %%tfgraph bundle.

It is what a terminal, a plain `print`, a screen reader or a front end without SVG
shows, so it says everything the picture says, in words: the scopes, every node with
its kind, device and output (dtype, static shape), and for each run what executed in
which order, what was fed (the cut), what was pruned and what was copied between devices.
"""
from tfteach.notebook.graph_export import short_device

__all__ = ["outline"]

_MAX_NODES = 200


def _shape(shape):
    if shape is None:
        return "<unknown>"
    return "[%s]" % ", ".join("?" if d is None else str(d) for d in shape)


def _outputs(n):
    return ", ".join("%s %s" % (o["dtype"], _shape(o["shape"])) for o in n["outputs"]) or "-"


def outline(export, max_nodes=_MAX_NODES):
    """A readable multi-line description of `export` (graph_export.export_graph)."""
    nodes = export["nodes"]
    scopes = [s["path"] for s in export["scopes"]]
    devices = ", ".join(d["name"] + (" (virtual)" if d["virtual"] else "")
                        for d in export["devices"]) or "not placed yet"
    lines = ["tfteach graph: %d ops, %d name scopes; devices: %s"
             % (len(nodes), len(scopes), devices)]
    if export.get("note"):
        lines.append("note: " + export["note"])
    if scopes:
        lines.append("name scopes: " + ", ".join(s + "/" for s in scopes))
    width = min(40, max([len(n["name"]) for n in nodes] + [4]))
    for n in nodes[:max_nodes]:
        inputs = [i["tensor"] for i in n["inputs"]] + ["^" + c for c in n["control_inputs"]]
        lines.append("  %-*s %-12s %-11s %-8s -> %s%s" % (
            width, n["name"], n["op"], n["kind"],
            short_device(n["assigned_device"]) or "-", _outputs(n),
            ("   <- " + ", ".join(inputs)) if inputs else ""))
    if len(nodes) > max_nodes:
        lines.append("  ... and %d more ops" % (len(nodes) - max_nodes))
    lines += _queue_lines(export.get("queues", []))
    for run in export["runs"]:
        lines += _run_lines(run)
    return "\n".join(lines)


def _queue_lines(queues):
    """Each queue: who fills it (runner threads or plain ops), who empties it."""
    lines = []
    for q in queues:
        lines.append("queue %s (%s):" % (q["name"], q["op"]))
        for runner in q["runners"]:
            lines.append("  filled by a QueueRunner: " + ", ".join(
                "%d thread%s running %s" % (n, "s" * (n != 1), op)
                for op, n in runner["threads"].items()))
        run_by_threads = {op for r in q["runners"] for op in r["threads"]}
        others = [op for op in q["enqueue_ops"] if op not in run_by_threads]
        if others:
            lines.append("  enqueued by: " + ", ".join(others))
        if q["dequeue_ops"] or q["readers"]:
            lines.append("  dequeued by: " + ", ".join(q["dequeue_ops"] + [
                r + " (a reader taking file names)" for r in q["readers"]]))
    return lines


def _run_lines(run):
    verb = {"run": "executed", "dry_run": "would execute (not run)",
            "fetch": "would execute"}[run["kind"]]
    lines = ["run %d: %s" % (run["index"] + 1, run["label"]),
             "  %s %d ops, in order: %s" % (verb, len(run["executed"]),
                                           ", ".join(run["executed"]) or "-")]
    if run["feeds"]:
        lines.append("  fed (cut, their producers need not run): " + ", ".join(run["feeds"]))
    lines.append("  pruned (did not run): " + (", ".join(run["pruned"]) or "nothing"))
    for c in run["copies"]:
        lines.append("  copy %s: %s -> %s, %d bytes" % (c["tensor"], c["from"] or "?", c["to"],
                                                        c["bytes"]))
    if run["steps"]:
        lines.append("  %d steps, %d us in kernels" % (len(run["steps"]), run["total_us"]))
    if run["error"]:
        lines.append("  raised " + run["error"])
    return lines
