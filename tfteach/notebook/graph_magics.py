"""`%%tfgraph` and `%tfgraph`: the graph a cell built and what each `Session.run` ran.

    %%tfgraph [--fetch NAME[,NAME]] [--collapse LEVEL] [--no-run] [--keep] [--no-release]
              [--optimized]
    <cell>

runs the cell (in a fresh default graph unless `--keep`), records every `Session.run`
in it with full tracing (run_recorder.py), then shows one MIME bundle (graph_view.py)
and, where ipywidgets is installed, a run selector and a step-through (graph_widgets.py).

    %tfgraph [graph-expr] [--fetch NAME] [--collapse LEVEL]

draws the current default graph, or the graph of `graph-expr` (a tf.Graph, a Session,
or anything with a `.graph`; for a tf.function, each graph it traced). docs/notebook.md
is the user's guide.

The magic registers no per-cell hooks: a cell without `%%tfgraph` pays nothing for it.
"""
import argparse
import ast
import contextlib
import shlex

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class

__all__ = ["register", "unregister", "last_view", "no_release_requested"]

_state = {"view": None, "no_release": set()}


def last_view():
    """The GraphView of the last %%tfgraph / %tfgraph output (tests, curious students)."""
    return _state["view"]


def no_release_requested(execution_count):
    """True if the cell with this execution count ran `%%tfgraph --no-release`: the
    per-cell memory half (cell_memory.py) then keeps what the cell left on the devices."""
    return execution_count in _state["no_release"]


class _Parser(argparse.ArgumentParser):
    def error(self, message):                    # never SystemExit inside a kernel
        raise UsageError("%s: %s\n%s" % (self.prog, message, self.format_usage().strip()))


def _level(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("LEVEL must be a whole number >= 0, got %r" % text)
    if value < 0:
        raise argparse.ArgumentTypeError("LEVEL must be >= 0, got %d" % value)
    return value


def _parser(cell):
    p = _Parser(prog="%%tfgraph" if cell else "%tfgraph", add_help=False,
                exit_on_error=False)
    p.add_argument("--fetch", action="append", default=[], metavar="NAME",
                   help="highlight what fetching NAME would run (nothing is run for it)")
    p.add_argument("--collapse", type=_level, default=None, metavar="LEVEL",
                   help="fold name scopes deeper than LEVEL into one box")
    if cell:
        p.add_argument("--no-run", action="store_true",
                       help="plan each sess.run (prune, place) without executing it")
        p.add_argument("--keep", action="store_true",
                       help="add to the current default graph instead of a fresh one")
        p.add_argument("--no-release", action="store_true",
                       help="keep device memory after the cell (the memory half)")
        p.add_argument("--optimized", action="store_true",
                       help="also draw what the graph optimizer made of each run")
    else:
        p.add_argument("graph", nargs="?", default=None, help="a tf.Graph expression")
    return p


def _interactive_session_runs_default_graph(tf):
    """Whether the default session is an open InteractiveSession on the default graph."""
    session = tf.get_default_session()
    return (isinstance(session, tf.InteractiveSession) and not session._closed
            and session.graph is tf.get_default_graph())


def _parse(line, cell):
    try:
        args = _parser(cell).parse_args(shlex.split(line))
    except argparse.ArgumentError as e:
        raise UsageError("%s: %s" % ("%%tfgraph" if cell else "%tfgraph", e)) from None
    except ValueError as e:                      # shlex: unbalanced quotes
        raise UsageError("%%tfgraph: cannot read the options: %s" % e) from None
    args.fetch = [n.strip() for f in args.fetch for n in f.split(",") if n.strip()]
    return args


@magics_class
class TfGraphMagics(Magics):

    @line_cell_magic
    def tfgraph(self, line, cell=None):
        __tracebackhide__ = True     # noqa: F841 - IPython hides this frame in tracebacks
        args = _parse(line, cell is not None)
        if cell is None:
            return self._draw_line(args)
        return self._run_cell(args, cell)

    # -- %tfgraph [graph-expr] ---------------------------------------------------------
    def _draw_line(self, args):
        import tfteach as tf
        graph = tf.get_default_graph()
        if args.graph:
            try:
                obj = self.shell.ev(args.graph)
            except Exception as e:
                raise UsageError("%%tfgraph: cannot evaluate %r: %s: %s"
                                 % (args.graph, type(e).__name__, e)) from None
            concrete = getattr(obj, "concrete_functions", None)
            if concrete is not None:             # a tf.function: each traced graph
                return self._draw_function(args.graph, concrete, args)
            graph = obj if isinstance(obj, tf.Graph) else getattr(obj, "graph", None)
            if not isinstance(graph, tf.Graph):
                raise UsageError("%%tfgraph: %r is a %s, not a tf.Graph (or something with "
                                 "a .graph)" % (args.graph, type(obj).__name__))
        self._show(graph, [], args, note="")

    def _draw_function(self, expr, concrete, args):
        """`%tfgraph f` for a tf.function: one view per concrete function (per input
        signature traced so far), oldest first (docs/eager.md)."""
        if not concrete:
            raise UsageError("%%tfgraph: %s has not been traced yet: call it (or its "
                             "get_concrete_function(...)) first" % expr)
        for i, function in enumerate(concrete):
            signature = ", ".join("%s: %s %s" % (t.op.name, t.dtype.name, t.shape)
                                  for t in function.inputs)
            self._show(function.graph, [], args, note="%s, concrete function %d of %d "
                       "(%s)" % (expr, i + 1, len(concrete), signature or "no tensors"))

    # -- %%tfgraph ---------------------------------------------------------------------
    def _run_cell(self, args, cell):
        __tracebackhide__ = True     # noqa: F841 - the student's frames are what matter
        import tfteach as tf
        from tfteach.notebook.run_recorder import RunRecorder
        if args.no_release:
            _state["no_release"].add(self.shell.execution_count)
            from tfteach.notebook import cell_memory
            cell_memory.skip_release_for_this_cell()
        note, scope = "", contextlib.nullcontext()
        if args.keep:
            graph = tf.get_default_graph()
        elif _interactive_session_runs_default_graph(tf):
            # Resetting would leave the open InteractiveSession on a graph no later cell
            # builds into: keep its graph the default, draw this cell in its own graph.
            graph = tf.Graph()
            scope = graph.as_default()
            note = ("an open InteractiveSession runs the default graph, so this cell ran "
                    "in a fresh graph that is the default only inside it; use --keep to "
                    "add to the session's graph")
        else:
            try:
                tf.reset_default_graph()
                graph = tf.get_default_graph()
            except AssertionError:
                # `with g.as_default()` (or InteractiveSession(graph=g)) holds the default
                # graph, and TF forbids resetting then: a fresh graph for this cell only.
                graph = tf.Graph()
                scope = graph.as_default()
                note = ("the default graph is held (an open InteractiveSession?), so this "
                        "cell ran in a fresh graph that is the default only inside it; "
                        "use --keep to add to the held graph")
        recorder = RunRecorder(dry_run=args.no_run, optimized=args.optimized)
        error = None
        with scope, recorder:
            try:
                self._execute(cell)
            except Exception as e:  # noqa: BLE001 - shown after the graph, then re-raised
                error = e
        runs = [r for r in recorder.runs if r.graph is graph]
        if not graph.get_operations() and recorder.runs:
            graph = recorder.runs[-1].graph        # the cell ran another graph only
            runs = [r for r in recorder.runs if r.graph is graph]
        notes = [note] if note else []
        if recorder.full:
            notes.append("recording stops after %d runs: later runs of this cell are not "
                         "shown" % recorder.max_runs)
        if len(runs) < len(recorder.runs):
            notes.append("%d runs on another graph are not shown"
                         % (len(recorder.runs) - len(runs)))
        if error is not None:
            notes.append("the cell raised %s: what it built before is shown"
                         % type(error).__name__)
        if args.no_run:
            notes.append("--no-run: sess.run planned each fetch and returned None")
        fetch_problem = self._show(graph, runs, args, "; ".join(notes))
        if error is not None:
            raise error
        if fetch_problem:
            raise UsageError(fetch_problem)

    def _execute(self, cell):
        """Runs the cell's code in the user's namespace; a last expression is displayed
        as IPython would (Out[n]). IPython syntax (`!ls`, `%magic`) is transformed first."""
        __tracebackhide__ = True     # noqa: F841
        shell = self.shell
        code = shell.transform_cell(cell)
        filename = shell.compile.cache(code, shell.execution_count, raw_code=cell)
        tree = ast.parse(code, filename=filename)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        exec(compile(tree, filename, "exec"), shell.user_ns)
        if last is not None:
            value = eval(compile(last, filename, "eval"), shell.user_ns)
            if value is not None:
                shell.displayhook(value)

    # -- the output --------------------------------------------------------------------
    def _show(self, graph, runs, args, note):
        """Exports, displays; returns a message if a --fetch name was bad (else None)."""
        from tfteach.notebook import graph_export, graph_widgets
        from tfteach.notebook.graph_view import GraphView
        from tfteach.notebook.run_recorder import planned_run
        runs, problem = list(runs), None
        if args.fetch:
            try:
                runs.insert(0, planned_run(graph, args.fetch))
            except (ValueError, KeyError, TypeError) as e:
                problem = "--fetch %s: %s" % (",".join(args.fetch), e.args[0] if e.args else e)
        collapse = args.collapse
        if collapse is None and len(graph.get_operations()) > 300:
            collapse = 0
            note = "; ".join(filter(None, [note, "large graph: scopes folded (--collapse)"]))
        selected = 0 if args.fetch and not problem else (len(runs) - 1 if runs else 0)
        export = graph_export.export_graph(graph, runs, collapse=collapse,
                                           selected_run=selected, note=note)
        view = GraphView(export, runs, graph)
        _state["view"] = view
        view.display()
        if getattr(args, "optimized", False) and runs:
            from IPython.display import display
            display(view.optimized)     # below the graph as built: what really ran
        box = graph_widgets.controls(view)
        if box is not None:
            from IPython.display import display
            display(box)
        return problem


def register(ipython):
    ipython.register_magics(TfGraphMagics)


def unregister(ipython):
    # IPython has no unregister for magics classes: drop our entries.
    magics = ipython.magics_manager.magics
    for kind in ("line", "cell"):
        fn = magics[kind].get("tfgraph")
        if fn is not None and isinstance(getattr(fn, "__self__", None), TfGraphMagics):
            del magics[kind]["tfgraph"]
