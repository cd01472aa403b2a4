"""The interactive half of %%tfgraph: a run selector and a step-through (ipywidgets).

ipywidgets work in JupyterLab, Notebook 7 and VS Code alike. The widgets never draw the
graph themselves: they change the GraphView's selection and it re-draws its one MIME
bundle (graph_view.py), so the static output (nbconvert, a front end without widgets)
and the interactive one are the same picture.

`StepThrough` is tfdbg for a classroom: "next" / "previous" walk the selected run's
execution order and show each step's outputs (dtype, shape, a value preview). It holds
no widget state of its own, so tests (and curious students) can drive it from code:
`view.stepper.next()`, `view.stepper.current()`.
"""
import html
import sys

from tfteach.notebook.graph_export import short_device, value_preview

__all__ = ["StepThrough", "controls", "step_html", "STATIC_TEXT"]

# What an export without widget state (nbconvert, GitHub's viewer) shows in place of the
# controls: ipywidgets' own fallback is the box's repr, `VBox(children=(HBox(...`.
STATIC_TEXT = ("[interactive controls of the graph above: run selector and step-through "
               "— open the notebook in Jupyter to use them]")


class StepThrough:
    """Walks the steps of the selected run of a GraphView."""

    def __init__(self, view):
        self.view = view
        self.position = -1               # before the first step

    @property
    def steps(self):
        run = self.view.selected_run
        return run.steps if run is not None else []

    def current(self):
        """The current step: name, op, device, values (tuple), or None before the start."""
        steps = self.steps
        if not 0 <= self.position < len(steps):
            return None
        s = steps[self.position]
        return {"index": self.position, "name": s["name"], "op": s["op"],
                "device": short_device(s["device"]), "values": s["values"],
                "output_bytes": s["output_bytes"], "time_us": s["time_us"]}

    def go(self, position):
        self.position = max(-1, min(position, len(self.steps) - 1))
        self.view.select(step=self.position if self.position >= 0 else None)
        return self.current()

    def next(self):
        return self.go(self.position + 1)

    def previous(self):
        return self.go(self.position - 1)

    def reset(self):
        self.position = -1


def step_html(stepper):
    """The step panel as HTML; every name and value is escaped."""
    steps = stepper.steps
    cur = stepper.current()
    if not steps:
        return "<i>No executed steps to walk through in this run.</i>"
    if cur is None:
        return ("<b>%d steps</b> in this run. Press <b>next</b> to execute them one by one."
                % len(steps))
    rows = []
    for i, value in enumerate(cur["values"] or ()):
        p = value_preview(value, chars=400)
        rows.append("<tr><td>output %d</td><td>%s</td><td>%s</td><td><code>%s</code></td>"
                    "</tr>" % (i, html.escape(str(p["dtype"])),
                               html.escape(str(p["shape"])), html.escape(p["preview"])))
    if cur["values"] is None:
        rows.append("<tr><td colspan=4><i>values not recorded for this run</i></td></tr>")
    return ("<div><b>step %d of %d</b>: <code>%s</code> (%s) on %s, %d bytes, %d us"
            "<table>%s</table></div>"
            % (cur["index"] + 1, len(steps), html.escape(cur["name"]), html.escape(cur["op"]),
               html.escape(cur["device"]), cur["output_bytes"], cur["time_us"],
               "".join(rows)))


_widgets_missing_said = []


def _say_widgets_missing():
    """Once per kernel: the run selector and step-through need ipywidgets."""
    if not _widgets_missing_said:
        _widgets_missing_said.append(True)
        from tfteach.install_hints import missing_message
        print(missing_message("ipywidgets", "The graph's run selector and step-through"),
              file=sys.stderr)


def controls(view):
    """The widget box for `view` (or None when there is nothing to choose or step)."""
    try:
        import ipywidgets as w
    except ImportError:          # the static bundle still says everything
        _say_widgets_missing()
        return None
    stepper = view.stepper
    parts = []
    runs = view.export["runs"]
    if len(runs) > 1:
        run_select = w.Dropdown(
            options=[("%d: %s" % (r["index"] + 1, r["label"]), r["index"]) for r in runs],
            value=view.run_index, description="run", layout=w.Layout(width="auto"))
        parts.append(run_select)
    else:
        run_select = None
    depth = max([s["depth"] for s in view.export["scopes"]] + [0])
    if depth:
        options = [("all scopes open", -1)] + [("fold scopes below depth %d" % d, d)
                                              for d in range(depth)]
        collapse = w.Dropdown(options=options,
                              value=-1 if view.collapse is None else min(view.collapse,
                                                                          depth - 1),
                              description="scopes", layout=w.Layout(width="auto"))
        collapse.observe(lambda ch: view.select(collapse=None if ch["new"] < 0
                                                else ch["new"]), names="value")
        parts.append(collapse)
    panel = w.HTML(step_html(stepper))
    prev_b = w.Button(description="previous", icon="step-backward")
    next_b = w.Button(description="next", icon="step-forward")

    def move(fn):
        fn()
        panel.value = step_html(stepper)

    prev_b.on_click(lambda _b: move(stepper.previous))
    next_b.on_click(lambda _b: move(stepper.next))
    if run_select is not None:
        def on_run(change):
            stepper.reset()
            view.select(run_index=change["new"], step=None)
            panel.value = step_html(stepper)
        run_select.observe(on_run, names="value")
    if not any(r["steps"] for r in runs) and not parts:
        return None
    box = [w.HBox(parts)] if parts else []
    if any(r["steps"] for r in runs):
        box += [w.HBox([prev_b, next_b]), panel]
    controls_box = w.VBox(box)
    # the lab extension's own view has these controls: its CSS hides this box under it
    controls_box.add_class("tft-graph-controls")
    return _with_static_text(controls_box)


def _with_static_text(box):
    """`box`, whose text/plain (what a static export shows) is STATIC_TEXT."""
    widget_bundle = box._repr_mimebundle_

    def bundle(**kwargs):
        data = widget_bundle(**kwargs)
        if isinstance(data, dict):
            data["text/plain"] = STATIC_TEXT
        return data
    box._repr_mimebundle_ = bundle
    return box
