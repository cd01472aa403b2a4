"""Records the `Session.run` calls of one `%%tfgraph` cell (through runtime/run_observers).

A `RunRecorder` is a run observer: while it is registered, every run is traced
(FULL_TRACE) and reported to it; it keeps each one as a `RecordedRun` — what
graph_export needs (executed steps in order, devices, copies, bytes, times) plus the
output values of each step for the step-through view. A training loop in a cell would
record thousands of runs, so only the first `max_runs` are kept: then the recorder
stops observing, and the rest of the loop runs untraced, at full speed.
"""
from tfteach.runtime import run_observers

__all__ = ["RunRecorder", "RecordedRun", "planned_run"]

_COPY_OPS = ("MEMCPYHtoD", "MEMCPYDtoH", "MEMCPYDtoD", "MEMCPYHtoH")
_CLIENT = "/job:localhost/replica:0/task:0/device:CPU:0"


class RecordedRun:
    """One run as the views need it (plain Python values; no engine objects)."""

    def __init__(self, kind, fetches, feeds, targets, executed, steps, placement,
                 error=None, graph=None, optimized=None):
        self.kind = kind                # "run", "dry_run" (--no-run) or "fetch" (--fetch)
        self.fetches = list(fetches)
        self.feeds = list(feeds)
        self.targets = list(targets)
        self.executed = list(executed)  # node names in execution order (copies too)
        self.steps = steps              # dicts: index, name, op, device, time_us, ...
        self.placement = placement      # op name -> full device name
        self.error = error              # "InvalidArgumentError: ..." or None
        self.graph = graph
        self.optimized = optimized or []   # the optimizer's rewrites (--optimized)

    @property
    def label(self):
        fetched = self.fetches + self.targets
        text = fetched[0] if len(fetched) == 1 else "[%s]" % ", ".join(fetched)
        if self.feeds:
            text += ", feed_dict={%s}" % ", ".join(self.feeds)
        prefix = {"run": "sess.run", "dry_run": "sess.run (not run)",
                  "fetch": "would run"}[self.kind]
        return "%s(%s)" % (prefix, text)

    def values_of(self, step_name):
        """The output values of one executed step (a tuple), or None."""
        for s in self.steps:
            if s["name"] == step_name:
                return s["values"]
        return None


def _steps(record, keep_values):
    outputs = record.node_outputs if keep_values else None
    steps = []
    for stats in record.run_metadata.step_stats.all_nodes():
        step = {"index": stats.execution_index, "name": stats.node_name, "op": stats.op,
                "device": stats.device, "time_us": stats.op_end_rel_micros,
                "output_bytes": stats.output_bytes, "is_copy": stats.op in _COPY_OPS,
                "tensor": None, "from_device": None,
                "values": outputs.get(stats.node_name) if outputs is not None else None}
        if step["is_copy"]:
            # Copy steps are named "<tensor label>/_copy_to_GPU:0" (device_run.copy_step).
            label = stats.node_name.rsplit("/_copy_to_", 1)[0]
            tensor = label if ":" in label else label + ":0"
            step["tensor"] = tensor
            producer = tensor.rsplit(":", 1)[0]
            step["from_device"] = (_CLIENT if tensor in record.feeds
                                   else record.placement.get(producer, ""))
        steps.append(step)
    return steps


def _error_text(error):
    if error is None:
        return None
    first = str(error).strip().splitlines()
    return "%s: %s" % (type(error).__name__, first[0] if first else "")


class RunRecorder:
    """A run observer that keeps the runs of one cell (`with recorder:` registers it)."""

    def __init__(self, dry_run=False, max_runs=20, optimized=False):
        self.dry_run = dry_run
        self.optimized = optimized      # also keep what the optimizer did to each plan
        self.max_runs = max_runs
        self.runs = []
        self._records = []              # (run, record) pairs whose `optimized` __exit__ fills

    @property
    def full(self):
        """True once max_runs runs are kept: later runs of the cell are not recorded."""
        return len(self.runs) >= self.max_runs

    def on_run(self, record):
        if self.full:
            return
        if len(self.runs) + 1 == self.max_runs:
            # The last one we keep: stop observing, so the rest of a training loop runs
            # untraced, with no values copied, at full speed.
            run_observers.remove_observer(self)
        if record.dry_run:
            steps, executed = [], record.planned
        else:
            steps = _steps(record, True)
            executed = [s["name"] for s in steps]
        self.runs.append(RecordedRun("dry_run" if record.dry_run else "run", record.fetches,
                                     record.feeds, record.targets, executed, steps,
                                     record.placement, _error_text(record.error),
                                     record.graph, [] if self.optimized else None))
        if self.optimized:
            self._records.append((self.runs[-1], record))

    def __enter__(self):
        run_observers.add_observer(self)
        return self

    def __exit__(self, *exc):
        run_observers.remove_observer(self)
        # What the optimizer did, asked once the cell has finished: the untraced runs
        # after the recorded ones are what specialise a plan for its fed shapes and run
        # its loops' hoisting, so asking at each recorded (traced) run would show the
        # plan before any of that.
        from tfteach.notebook.optimized_view import rewrites_of_record
        for run, record in self._records:
            run.optimized = rewrites_of_record(record)
        self._records = []
        return False


def planned_run(graph, fetch_names, feed_names=()):
    """The RecordedRun `--fetch` shows: what a run of `fetch_names` would execute, by the
    engine's own pruning (nothing runs, nothing is placed)."""
    fetches = [graph.as_graph_element(n, allow_tensor=True, allow_operation=True)
               for n in fetch_names]
    executed = run_observers.would_run(graph, fetches, feed_names)
    tensors = [f.name for f in fetches if hasattr(f, "value_index")]
    targets = [f.name for f in fetches if not hasattr(f, "value_index")]
    return RecordedRun("fetch", tensors, list(feed_names), targets, executed, [], {},
                       graph=graph)
