"""One %%tfgraph output: the MIME bundle built from the graph export, and its state.

`mime_bundle(export, ...)` is the single output of the magic:
- `application/vnd.tfteach.graph+json`: the export itself (docs/graph_export.md), for
  the JupyterLab extension;
- `image/svg+xml`: Graphviz's drawing (graph_dot.py), when `dot` is installed — it is
  what a static `jupyter nbconvert --to html` shows;
- `text/plain`: the outline (graph_outline.py), so nothing is ever blank.

A `GraphView` keeps the export, the recorded runs (with their values, for the
step-through) and the display handle, so the widgets (graph_widgets.py) can re-draw
the same output for another run, another collapse level or another step.
"""
import copy
import subprocess

from tfteach.notebook import graph_dot, graph_outline
from tfteach.install_hints import DOT_HINT
from tfteach.notebook.graph_export import MIME_TYPE

__all__ = ["mime_bundle", "GraphView"]


def mime_bundle(export, run_index=None, collapse="view", step=None, optimized=False):
    """The three-part bundle for `export`, showing run `run_index` (default: the export's
    selected run) at collapse level `collapse`, with step `step` of that run marked;
    `optimized`: the picture marks what the graph optimizer did to that run's plan."""
    export = copy.copy(export)
    view = dict(export.get("view", {}))
    if run_index is not None:
        view["selected_run"] = run_index
    if collapse != "view":
        view["collapse"] = collapse
        view["folded"] = []           # a level chosen in the menu replaces the start folds
    view["step"] = step
    export["view"] = view
    bundle = {MIME_TYPE: export, "text/plain": graph_outline.outline(export)}
    try:
        svg = graph_dot.svg(graph_dot.to_dot(export, current_step=step, optimized=optimized))
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
        svg = None          # the JSON and the outline still say everything
        bundle["text/plain"] += "\n(no picture: %s)" % e
    if svg is not None:
        bundle["image/svg+xml"] = svg
    elif not graph_dot.has_dot():
        bundle["text/plain"] += "\n(no picture: %s)" % DOT_HINT
    return bundle


class GraphView:
    """The state behind one displayed graph: which run, which collapse level, which step."""

    def __init__(self, export, runs, graph):
        self.export = export
        self.runs = runs                      # RecordedRun objects, same order as export
        self.graph = graph
        self.run_index = export["view"]["selected_run"]
        self.collapse = export["view"]["collapse"]
        self.step = None
        self.chosen_collapse = False
        self.handle = None                    # IPython DisplayHandle once displayed
        from tfteach.notebook.graph_widgets import StepThrough
        self.stepper = StepThrough(self)

    def bundle(self):
        # the export's own fold hints until the student picks a level in the menu
        collapse = self.collapse if self.chosen_collapse else "view"
        return mime_bundle(self.export, self.run_index, collapse, self.step)

    @property
    def optimized(self):
        """The picture of what the executor really runs for the selected run (the
        graph optimizer's folds and fusions marked: docs/optimizer.md), displayable."""
        return _Bundle(mime_bundle(self.export, self.run_index, "view", None, optimized=True))

    def display(self):
        from IPython.display import display
        self.handle = display(self.bundle(), raw=True, display_id=True)
        return self.handle

    def redraw(self):
        if self.handle is not None:
            self.handle.update(self.bundle(), raw=True)

    def select(self, run_index=None, collapse="same", step="same"):
        if run_index is not None:
            self.run_index = run_index
        if collapse != "same":
            self.collapse = collapse
            self.chosen_collapse = True
        if step != "same":
            self.step = step
        self.redraw()

    @property
    def selected_run(self):
        """The RecordedRun shown (None when the cell recorded no run)."""
        if self.run_index is None:
            return None
        return self.runs[self.run_index]


class _Bundle:
    """A mime bundle IPython displays as it is."""

    def __init__(self, bundle):
        self.bundle = bundle

    def _repr_mimebundle_(self, include=None, exclude=None):
        return self.bundle
