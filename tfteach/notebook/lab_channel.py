"""The JupyterLab extension's channel into the kernel (docs/labextension.md).

The "Devices & memory" panel asks the kernel for its figures with a *silent* execute
request whose `user_expressions` call one of the two functions below:

    user_expressions = {"tfteach": "__import__('tfteach.notebook.lab_channel',
                                     fromlist=['_']).snapshot()"}

Why user_expressions and not a Comm: a silent request runs no cell hooks (IPython fires
pre/post_run_cell only for non-silent cells), adds nothing to the history or the
execution count, needs nothing registered in the kernel beforehand (any kernel where
tfteach imports answers; any other answers with an error the panel shows), and its
reply comes back on the shell channel paired with the request, so no message routing is
needed. The value is returned as `application/json` (`_repr_json_`), so the front end
reads a JSON object, never a Python repr.

Shape (version 1): {"version": 1, "extension_loaded": bool,
  "devices": [{"name": "GPU:0", "type": "GPU", "virtual": true, "total": int,
               "limit": int, "reserved": int, "in_use": int, "peak": int}],   # CPU: no figures
  "cells": [the last cells' records (memory_report's format, holders as [name, bytes];
             "by": "release button" on the records the panel's release made)],
  "released": null or [records]}     # release(): what the soft release did
"""
from tfteach.notebook import cell_memory
from tfteach.runtime import devices as devices_lib

__all__ = ["snapshot", "release", "snapshot_data", "release_data", "JSONValue"]

VERSION = 1
LAST_CELLS = 8          # how many cell records the panel lists


class JSONValue:
    """A value IPython formats as application/json (and text/plain, never blank)."""

    def __init__(self, data):
        self.data = data

    def _repr_json_(self):
        return self.data

    def __repr__(self):
        return "JSONValue(%r)" % (self.data,)


def _device_row(d):
    row = {"name": d.short_name.replace("/device:", ""), "type": d.device_type,
           "virtual": bool(d.is_virtual)}
    a = d.allocator
    if a is not None:                  # the CPU's memory is the host's: not accounted
        row.update(total=a.total_memory, limit=a.bytes_limit, reserved=a.bytes_reserved,
                   in_use=a.bytes_in_use, peak=a.peak_bytes_in_use)
    return row


def _record(r):
    out = {k: r[k] for k in ("cell", "device", "virtual", "in_use_before", "in_use_after",
                             "reserved_before", "reserved_after", "peak", "released",
                             "skipped", "by") if k in r}
    out["holders"] = [[name, n] for name, n in r.get("holders", ())]
    out["closed"] = list(r.get("closed", ()))
    return out


def snapshot_data(last_cells=LAST_CELLS):
    """The panel's figures as plain JSON data."""
    monitor = cell_memory.current_monitor()
    history = list(monitor.history)[-last_cells:] if monitor is not None else []
    return {"version": VERSION, "extension_loaded": monitor is not None,
            "devices": [_device_row(d) for d in devices_lib.local_devices()],
            "cells": [_record(r) for r in history], "released": None}


def release_data():
    """The panel's "Release GPU memory" button: %tfrelease's soft release (closes only
    sessions nothing but the history holds, gives idle reservations back; a session a
    variable holds keeps its memory), then the new figures."""
    monitor = cell_memory.current_monitor()
    records = monitor.release_now() if monitor is not None else []
    for r in records:
        # release_now numbers its records with the *next* cell's count; say who made them
        r["by"] = "release button"
    data = snapshot_data()
    data["released"] = [_record(r) for r in records]
    return data


def snapshot():
    return JSONValue(snapshot_data())


def release():
    return JSONValue(release_data())
