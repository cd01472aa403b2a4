"""Per-cell device memory in a notebook: sample, release, report (docs/notebook_memory.md).

The course notes: "no way to release GPU memory automatically in a notebook". With
`%load_ext tfteach` (or the "Python 3 (tfteach)" kernel), around every cell:
- before: each GPU's figures are sampled and its peak is restarted for the cell;
- after, when the cell touched a GPU (its figures or the sessions' references changed):
  if some open session is no longer a user variable's value, `gc.collect()` frees
  dropped Sessions caught in reference cycles (their finalizers give their memory back)
  and Sessions that only IPython's history holds (`Out[3]`, `_`, the last error's
  traceback) are closed (`session_refs.py`); then every GPU's idle
  reservation — TensorFlow's greedy default one included — goes back to the driver
  (`Allocator.release`, which never frees a live buffer). A one-line summary per GPU
  names the sessions still holding memory by their variable names.
- a cell that touched no GPU costs a few comparisons (bench/cell_memory_overhead.py).
`%tfrelease [--close-sessions]`, `%tfdevices`, `%tfmemory` are the line magics;
`skip_release_for_this_cell()` is for `%%tfgraph --no-release`. The teaching form of
tfteach's errors is installed here too (`error_display.py`).
"""
import collections
import gc
import sys
import weakref

from tfteach.notebook import error_display, memory_report, session_refs
from tfteach.runtime import devices as devices_lib
from tfteach.runtime import session as session_lib

__all__ = ["register", "unregister", "skip_release_for_this_cell", "current_monitor"]

_monitor = None


def current_monitor():
    """The CellMemory registered on the running shell, or None."""
    return _monitor


def skip_release_for_this_cell():
    """Keep this cell's sessions and reservations as they are at its end (no collection,
    no closing, no release); the summary is still shown, and the next cell releases
    even if it touches no GPU. `%%tfgraph --no-release` calls it. Does nothing without
    the extension loaded."""
    if _monitor is not None:
        _monitor.skip_release = True


def _gpus():
    return [d for d in devices_lib.known_devices() if d.allocator is not None]


def _figures(alloc):
    return (alloc.bytes_in_use, alloc.bytes_reserved, alloc.num_allocs, alloc.configured)


def _session_refcounts():
    # Measured the same way before and after a cell, so equal counts mean no reference
    # to an open session was made or dropped (`del sess` of a session in a cycle).
    return {id(s): sys.getrefcount(s) for s in session_lib.live_sessions()}


def _worth_showing(record):
    # A cell that only made or dropped a reference (e.g. showed `sess`) changed nothing.
    return (record["released"] or record["closed"] or record["skipped"]
            or record["peak"] > record["in_use_before"]
            or record["in_use_after"] != record["in_use_before"]
            or record["reserved_after"] != record["reserved_before"])


class CellMemory:
    """The per-cell hooks of one IPython shell, and the history %tfmemory shows."""

    def __init__(self, shell, history_size=1000):
        self.shell = shell
        self.history = collections.deque(maxlen=history_size)   # cell records
        self.skip_release = False
        self.last_closed = []        # labels of the sessions the last release closed
        self._pending = False        # the last cell skipped its release
        self._session_names = set()  # user names that held sessions: checked first
        self._before = None          # {alloc: figures}, session refcounts, devices
        self._lifetime_peak = {}     # alloc -> the process peak before this cell

    # -- the hooks ----------------------------------------------------------------------------
    def pre_run_cell(self, info=None):
        self.skip_release = False
        gpus = _gpus()
        self._before = ({d.allocator: _figures(d.allocator) for d in gpus},
                        _session_refcounts(), devices_lib.known_devices())
        # The cell's peak: restart the allocator's peak now and put the process-wide
        # peak back after the cell (allocate() stays untouched: no cost per tensor).
        self._lifetime_peak = {d.allocator: d.allocator.peak_bytes_in_use for d in gpus}
        for d in gpus:
            d.allocator.peak_bytes_in_use = d.allocator.bytes_in_use

    def post_run_cell(self, result=None):
        try:
            self._after_cell(result)
        except Exception as exc:  # noqa: BLE001 - a hook must never break the kernel
            sys.stderr.write("tfteach: cell memory report failed: %s: %s\n"
                             % (type(exc).__name__, exc))

    def _after_cell(self, result):
        if self._before is None:
            return
        figures, refcounts, registry = self._before
        self._before = None
        gpus = _gpus()
        peaks = self._restore_peaks()
        touched = (self._pending or registry is not devices_lib.known_devices()
                   or any(figures.get(d.allocator) != _figures(d.allocator) for d in gpus)
                   or refcounts != _session_refcounts())
        if not touched:
            return
        cell = getattr(result, "execution_count", None) or self.shell.execution_count
        records = self.collect_and_release(cell, figures, peaks, skip=self.skip_release)
        self._pending = self.skip_release      # a skipped release is done next cell
        if any(_worth_showing(r) for r in records):
            self.history.extend(records)
            self._show(memory_report.summary_display(records))

    def _restore_peaks(self):
        peaks = {}
        for alloc, lifetime in self._lifetime_peak.items():
            peaks[alloc] = alloc.peak_bytes_in_use
            alloc.peak_bytes_in_use = max(lifetime, alloc.peak_bytes_in_use)
        self._lifetime_peak = {}
        return peaks

    # -- the work -------------------------------------------------------------------------------
    def collect_and_release(self, cell, figures_before, peaks, skip=False,
                            close_all=False, force_collect=False):
        """Close what nobody uses, give idle reservations back, and return one record
        per GPU (memory_report's format). `close_all`: %tfrelease --close-sessions."""
        closed = []
        if close_all:
            closed += self._close(lambda ref: True, "closed")
        if not skip and (close_all or force_collect or self._unnamed_sessions()):
            # A full collection costs ~0.1 s once Numba is imported (its ~80k objects),
            # so it runs only when some open session lost its name (one in a dropped
            # cycle, or one only the history holds), and after a young-generation
            # collection (~1 ms) has not already freed it.
            gc.collect(1)
            if force_collect or self._unnamed_sessions():
                gc.collect()
            unnamed = self._unnamed_sessions()
            closed += self._close(lambda ref: id(ref()) in unnamed and
                                  session_refs.only_history_holds(ref, self.shell),
                                  "history")
        self.last_closed = closed
        records = []
        holders = self._holders()
        for d in _gpus():
            alloc = d.allocator
            before = figures_before.get(alloc, (0, 0, 0, False))
            released = 0 if skip else alloc.release()
            records.append({
                "cell": cell, "device": d.short_name.replace("/device:", ""),
                "virtual": d.is_virtual,
                "in_use_before": before[0], "in_use_after": alloc.bytes_in_use,
                "reserved_before": before[1], "reserved_after": alloc.bytes_reserved,
                "peak": peaks.get(alloc, alloc.peak_bytes_in_use), "released": released,
                "holders": holders.get(alloc, []), "closed": closed, "skipped": skip})
        return records

    def _unnamed_sessions(self):
        """The ids of the open sessions that are neither a user variable's value nor
        on the default-session stack (an InteractiveSession): only those can be
        garbage or held by the history alone. (One set lookup per name: a long
        notebook has thousands of `_iN` names.)"""
        unnamed = {id(s) for s in session_lib.live_sessions()}
        unnamed.difference_update(
            id(s) for s in getattr(session_lib._default_sessions, "stack", ()))
        ns = self.shell.user_ns
        for k in self._session_names:            # usually `sess` is still `sess`
            unnamed.discard(id(ns.get(k)))
        if not unnamed:
            return unnamed
        for k, v in list(ns.items()):
            if id(v) in unnamed and not (isinstance(k, str)
                                         and session_refs.HISTORY_NAME.match(k)):
                unnamed.discard(id(v))
                self._session_names.add(k)
        return unnamed

    def _close(self, should_close, why):
        """Closes the open sessions `should_close(weakref)` picks; returns their labels."""
        labels = []
        for ref in [weakref.ref(s) for s in session_lib.live_sessions()]:
            if not should_close(ref):
                continue
            session = ref()
            if session is None:
                continue
            labels.append(self._label(session, why))
            session.close()
            session = None
        return labels

    def _label(self, session, why):
        names = session_refs.user_names(session, self.shell)
        if names:
            return names[0]
        out = self.shell.user_ns.get("_oh") or {}
        cells = sorted(k for k, v in list(out.items()) if v is session)
        if cells:
            return "Out[%d]" % cells[-1]
        if why == "history":
            return "a session held by the last error's traceback"
        return "a session with no name"

    def _holders(self):
        """{allocator: [(name, bytes)]} for the open sessions holding GPU memory."""
        out = {}
        for ref in [weakref.ref(s) for s in session_lib.live_sessions()]:
            session = ref()
            if session is None:
                continue
            held = session.held_device_memory()
            if not any(held.values()):
                continue
            ns = self.shell.user_ns
            names = [k for k in sorted(self._session_names) if ns.get(k) is session] \
                or session_refs.user_names(session, self.shell, limit=1)
            name = names[0] if names else ("default InteractiveSession" if isinstance(
                session, session_lib.InteractiveSession) else "")
            for alloc, n in held.items():
                out.setdefault(alloc, []).append((name, n))
            session = None
        return out

    def release_now(self, close_sessions=False):
        """%tfrelease: the end-of-cell release, now; returns the records."""
        gpus = _gpus()
        figures = {d.allocator: _figures(d.allocator) for d in gpus}
        peaks = {d.allocator: d.allocator.peak_bytes_in_use for d in gpus}
        records = self.collect_and_release(self.shell.execution_count, figures, peaks,
                                           close_all=close_sessions, force_collect=True)
        self.history.extend(records)
        if self._before is not None:
            # This cell's own end-of-cell report would repeat what was just shown.
            self._before = ({d.allocator: _figures(d.allocator) for d in _gpus()},
                            _session_refcounts(), devices_lib.known_devices())
        return records

    def _show(self, obj):
        from IPython.display import display
        display(obj)


# -- magics ---------------------------------------------------------------------------------------
def _options_text(alloc):
    if not alloc.configured:
        return "not configured (next session decides)"
    if alloc.allow_growth:
        return "allow_growth"
    if alloc.bytes_limit != alloc.default_limit():
        return "fraction %.2f" % (alloc.bytes_limit / float(alloc.total_memory))
    return "default (reserve all)"


def devices_rows(monitor):
    fb = memory_report.format_bytes
    holders = monitor._holders() if monitor is not None else {}
    rows = []
    for d in devices_lib.local_devices():
        name = d.short_name.replace("/device:", "")
        if d.allocator is None:
            rows.append((name, "CPU", "host", "-", "-", "not accounted", "-", "-", "-"))
            continue
        a = d.allocator
        kind = "virtual GPU" if d.is_virtual else "GPU"
        held = ", ".join("%s %s" % (n or "(no name)", fb(b))
                         for n, b in holders.get(a, []) if b > 0) or "-"
        rows.append((name, kind, fb(a.total_memory), fb(a.bytes_limit), fb(a.bytes_reserved),
                     fb(a.bytes_in_use), fb(a.peak_bytes_in_use), _options_text(a), held))
    return rows


def _tfdevices(line=""):
    """%tfdevices: this kernel's devices with their memory (virtual GPUs labelled)."""
    _display(memory_report.devices_table(devices_rows(_monitor)))


def _tfmemory(line=""):
    """%tfmemory: the memory history of the cells that touched a GPU."""
    records = list(_monitor.history) if _monitor is not None else []
    _display(memory_report.history_table(records))


def _tfrelease(line=""):
    """%tfrelease [--close-sessions]: close sessions nothing uses, give every GPU's idle
    reservation back now; --close-sessions closes every open session first."""
    args = line.split()
    unknown = [a for a in args if a != "--close-sessions"]
    if unknown:
        from IPython.core.error import UsageError
        raise UsageError("%%tfrelease: unknown argument %s (usage: %%tfrelease "
                         "[--close-sessions])" % " ".join(unknown))
    records = _monitor.release_now(close_sessions="--close-sessions" in args)
    if records:
        _display(memory_report.summary_display(records))
    else:
        closed = _monitor.last_closed
        print("No GPU: nothing to release." + (" Closed: %s." % ", ".join(closed)
                                                if closed else ""))


def _display(obj):
    from IPython.display import display
    display(obj)


_MAGICS = {"tfdevices": _tfdevices, "tfmemory": _tfmemory, "tfrelease": _tfrelease}


def register(ipython):
    """Installs the hooks, the magics and the error display on `ipython` (idempotent)."""
    global _monitor
    if _monitor is not None:
        unregister(_monitor.shell)
    _monitor = CellMemory(ipython)
    ipython.events.register("pre_run_cell", _monitor.pre_run_cell)
    ipython.events.register("post_run_cell", _monitor.post_run_cell)
    for name, func in _MAGICS.items():
        ipython.register_magic_function(func, "line", name)
    error_display.register(ipython)


def unregister(ipython):
    global _monitor
    if _monitor is None:
        return
    for event, hook in (("pre_run_cell", _monitor.pre_run_cell),
                        ("post_run_cell", _monitor.post_run_cell)):
        try:
            ipython.events.unregister(event, hook)
        except ValueError:
            pass
    line_magics = ipython.magics_manager.magics["line"]
    for name, func in _MAGICS.items():
        if line_magics.get(name) is func:
            del line_magics[name]
    error_display.unregister(ipython)
    _monitor._restore_peaks()
    _monitor = None
