"""Run observers: a public hook that lets a tool see every `Session.run`.

The notebook's `%%tfgraph` (tfteach/notebook/run_recorder.py) registers an observer for
the duration of one cell; tfdbg-like tools could do the same. While at least one
observer is registered, `Session.run` (and `Tensor.eval`, `Operation.run`, which go
through it) runs with `RunOptions(trace_level=FULL_TRACE)` and, after the run, calls
`observer.on_run(record)` with a `RunRecord`: the fetches, the fed tensors, the
`RunMetadata` (step stats: executed nodes in order, devices, copies, bytes), each
executed node's output values (copies, taken as the node ran) and the placement.

When no observer is registered the only cost is one truth test of a list in
`Session.run` (`if _observers:`): the executor's loops are unchanged.

An observer is any object with
- `on_run(record)`: called after each run (also after a run that raised: then
  `record.error` is the exception, and the step stats hold what ran before it);
- `capture_values` (bool attribute, optional, default True): copy each node's outputs;
- `dry_run` (bool attribute, optional, default False): plan the run (prune and place)
  but execute nothing; `sess.run` then returns None for every fetch. `%%tfgraph --no-run`.

    with run_observers.observing(my_observer):
        sess.run(y)                 # my_observer.on_run(record) is called
"""
import contextlib

import threading

import numpy as np

from tfteach.framework.dead import DEAD
from tfteach.framework.tensor import Tensor
from tfteach.framework.operation import Operation
from tfteach.runtime import config as config_lib
from tfteach.runtime import executor, fetches as fetches_lib
from tfteach.runtime.run_metadata import RunMetadata

__all__ = ["RunRecord", "add_observer", "remove_observer", "observing", "would_run",
           "snapshot"]

# Session.run tests this list; it is mutated in place (never rebound) so the
# session module can hold a reference to it.
_observers = []


# The RunOptions of the observed run this thread is making: Session.run does not
# observe the inner call again (RunOptions is a protobuf message: no subclass to mark).
_inner = threading.local()


def is_inner_run(options):
    """Whether `options` are those of this thread's observed run, now being made."""
    return options is not None and options is getattr(_inner, "options", None)


def _run_as_inner(session, fetches, feed_dict, options, run_metadata):
    """session.run with `options` marked as an observed run's own (not observed again)."""
    outer = getattr(_inner, "options", None)
    _inner.options = options
    try:
        return session.run(fetches, feed_dict, options, run_metadata)
    finally:
        _inner.options = outer


class RunRecord:
    """What one observed `Session.run` did."""

    def __init__(self, session, fetch_names, feed_names, target_names, run_metadata,
                 node_outputs, placement, dry_run, planned=()):
        self.session = session
        self.graph = session.graph
        self.fetches = fetch_names          # tensor names fetched ("add:0")
        self.feeds = feed_names             # tensor names fed (the cut points)
        self.targets = target_names         # operation names run as targets
        self.run_metadata = run_metadata    # step_stats in execution order
        self.node_outputs = node_outputs    # step name -> tuple of output values, or None
        self.placement = placement          # op name -> assigned device (full name)
        self.dry_run = dry_run              # planned only (nothing executed)
        self.planned = list(planned)        # the engine's pruned op names, in run order
        self.error = None                   # the exception, if the run raised

    def executed_nodes(self):
        """Names of the executed steps in order (copies included); the planned ops
        for a dry run."""
        if self.dry_run:
            return list(self.planned)
        return self.run_metadata.executed_nodes()


def add_observer(observer):
    if observer not in _observers:
        _observers.append(observer)


def remove_observer(observer):
    if observer in _observers:
        _observers.remove(observer)


@contextlib.contextmanager
def observing(observer):
    """Registers `observer` for the duration of a `with` block."""
    add_observer(observer)
    try:
        yield observer
    finally:
        remove_observer(observer)


def would_run(graph, fetches, feeds=()):
    """Names of the ops `sess.run(fetches, feed_dict={feeds...})` would execute, in the
    executor's order: the engine's own pruning (executor.prune), without a session.
    `fetches` and `feeds` are tensors, operations or their names."""
    _, tensors, targets = _fetched(graph, fetches)
    fed = [graph.as_graph_element(f, allow_tensor=True, allow_operation=False)
           for f in feeds]
    return [op.name for op in executor.prune(tensors, fed, targets)]


def _fetched(graph, fetches):
    """(FetchStructure, fetched tensors, target operations) of `fetches` in `graph`."""
    structure = fetches_lib.FetchStructure(graph, fetches)
    return (structure, [e for e in structure.elements if isinstance(e, Tensor)],
            [e for e in structure.elements if isinstance(e, Operation)])


def snapshot(value):
    """A copy of one output value, as it was when its node ran (later in-place updates
    of a variable must not change what a viewer shows for an earlier step)."""
    if value is DEAD or value is None:
        return None
    try:
        value = executor.deref(value)           # a variable's ref: its current value
    except Exception:  # noqa: BLE001 - e.g. an uninitialized variable
        return None
    if isinstance(value, np.ndarray):
        return value.copy()
    if hasattr(value, "copy_to_host"):          # a real GPU's device array (a variable)
        return value.copy_to_host()
    return value


def _unobserved_options(options):
    """A copy of `options` (a fresh RunOptions for None) for a run observers do not see."""
    plain = config_lib.RunOptions()
    if options is not None:
        plain.CopyFrom(options)
    return plain


def observed_run(session, fetches, feed_dict, options, run_metadata):
    """Session.run with every registered observer notified (called by Session.run)."""
    if threading.current_thread().name.startswith("QueueRunnerThread-"):
        # A queue runner's thread (train/queue_runner.py) enqueues again and again in
        # the background: %%tfgraph records the cell's own runs, not those.
        return _run_as_inner(session, fetches, feed_dict, _unobserved_options(options),
                             run_metadata)
    observers = list(_observers)
    dry = any(getattr(o, "dry_run", False) for o in observers)
    capture = any(getattr(o, "capture_values", True) for o in observers)
    graph = session.graph
    structure, tensors, targets = _fetched(graph, fetches)
    feed_tensors = []
    if feed_dict and isinstance(feed_dict, dict):
        feed_tensors, _ = fetches_lib.process_feeds(graph, feed_dict)
    names = ([t.name for t in tensors], [t.name for t in feed_tensors],
             [op.name for op in targets])
    if dry:
        session._check_open()
        ops = executor.prune(tensors, feed_tensors, targets)
        placement = _placement(session)
        record = RunRecord(session, *names, RunMetadata(), None, placement, True,
                           [op.name for op in ops])
        _notify(observers, record)
        return structure.build([None] * len(structure.elements))
    traced = config_lib.RunOptions(trace_level=config_lib.RunOptions.FULL_TRACE)
    if options is not None:
        traced.output_partition_graphs = options.output_partition_graphs
        traced.report_tensor_allocations_upon_oom = options.report_tensor_allocations_upon_oom
        traced.timeout_in_ms = options.timeout_in_ms      # queue waits keep their bound
    metadata = run_metadata if run_metadata is not None else RunMetadata()
    outputs = {} if capture else None
    metadata.step_stats.node_outputs = outputs
    try:
        result = _run_as_inner(session, fetches, feed_dict, traced, metadata)
    except Exception as e:
        record = RunRecord(session, *names, metadata, outputs, _placement(session), False)
        record.error = e
        _notify(observers, record)
        raise
    finally:
        metadata.step_stats.node_outputs = None
    _notify(observers, RunRecord(session, *names, metadata, outputs, _placement(session),
                                 False))
    return result


def _placement(session):
    """op name -> assigned device name, for every op the session has placed."""
    placer = session._placer
    try:
        placer.place_new_ops()
    except Exception:  # noqa: BLE001 - a placement error is the run's own error
        pass
    return {op.name: device.name for op, device in placer.assigned.items()}


def _notify(observers, record):
    for observer in observers:
        observer.on_run(record)
