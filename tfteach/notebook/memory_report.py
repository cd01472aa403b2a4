"""How the notebook shows memory: sizes, the per-cell summary line, tables.

Pure functions on plain data (dicts and tuples), so they are tested without a kernel.
Every view has a text/plain form and an HTML form; every name that reaches HTML is
escaped (a variable or device name is the user's text).

A cell record (`cell_memory.py` builds it) is a dict per device:
    {"cell": 7, "device": "GPU:0", "virtual": True,
     "in_use_before": ..., "in_use_after": ..., "reserved_before": ...,
     "reserved_after": ..., "peak": ..., "released": ...,
     "holders": [("sess", 67108864), ...],       # open sessions and the bytes they hold
     "closed": ["Out[3]"],                       # sessions closed for the user
     "skipped": False}                           # %%tfgraph --no-release
"""
import html

__all__ = ["format_bytes", "summary_lines", "Display", "table_text", "table_html",
           "history_table", "devices_table"]

_UNITS = ("KiB", "MiB", "GiB", "TiB")


def format_bytes(n):
    """'0 B', '256 B', '1 KiB', '1.5 MiB', '812 MiB', '1.61 GiB' (binary units, at most
    three significant digits; exact values without decimals)."""
    n = int(n)
    if abs(n) < 1024:
        return "%d B" % n
    value = float(n)
    for unit in _UNITS:
        value /= 1024
        if abs(value) < 1024 or unit == _UNITS[-1]:
            break
    if value == int(value) or abs(value) >= 100:
        return "%d %s" % (round(value), unit)
    text = ("%.1f" if abs(value) >= 10 else "%.2f") % value
    return "%s %s" % (text.rstrip("0").rstrip("."), unit)


def _quoted(names):
    return ", ".join("'%s'" % n for n in names)


def holders_text(holders):
    """'64 MiB held by open session 'sess'' / '... by open sessions 'a' (48 MiB), 'b'
    (16 MiB)' / 'nothing held'. Unnamed sessions are 'an open session with no name'."""
    holders = [(name, n) for name, n in holders if n > 0]
    if not holders:
        return "nothing held"
    total = sum(n for _, n in holders)
    if len(holders) == 1:
        name = holders[0][0]
        who = "open session '%s'" % name if name else "an open session with no name"
        return "%s held by %s" % (format_bytes(total), who)
    parts = ["'%s' (%s)" % (name, format_bytes(n)) if name else
             "one with no name (%s)" % format_bytes(n) for name, n in holders]
    return "%s held by open sessions %s" % (format_bytes(total), ", ".join(parts))


def device_label(record):
    return record["device"] + (" (virtual)" if record.get("virtual") else "")


def summary_line(record):
    """`GPU:0 (virtual): peak 812 MiB; released 748 MiB idle; 64 MiB held by open
    session 'sess'` — one device after one cell."""
    parts = ["peak %s" % format_bytes(record["peak"])]
    if record.get("skipped"):
        parts.append("release skipped for this cell (%s reserved)"
                     % format_bytes(record["reserved_after"]))
    else:
        parts.append("released %s idle" % format_bytes(record["released"]))
    parts.append(holders_text(record["holders"]))
    held = sum(n for _, n in record["holders"])
    other = record["in_use_after"] - held
    if other > 0:
        parts.append("%s in use by other buffers" % format_bytes(other))
    return "%s: %s" % (device_label(record), "; ".join(parts))


def summary_lines(records):
    lines = [summary_line(r) for r in records]
    closed = sorted({name for r in records for name in r.get("closed", ())})
    if closed:
        lines.append("closed %d session%s nothing else used: %s" % (
            len(closed), "" if len(closed) == 1 else "s", ", ".join(closed)))
    return lines


class Display:
    """An object IPython shows as text/plain and text/html (never blank)."""

    def __init__(self, text, html_text):
        self.text = text
        self.html = html_text

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/plain": self.text, "text/html": self.html}

    def __repr__(self):
        return self.text


def summary_display(records):
    lines = summary_lines(records)
    body = "<br>".join(html.escape(line) for line in lines)
    return Display("\n".join(lines), '<div class="tfteach-memory" style="font-size:85%%;'
                   'color:#555;font-family:monospace">%s</div>' % body)


def table_text(headers, rows):
    """A fixed-width text table (columns padded to their widest cell)."""
    cells = [list(map(str, headers))] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    out = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(out)


def table_html(headers, rows, caption=None):
    head = "".join("<th>%s</th>" % html.escape(str(h)) for h in headers)
    body = "".join("<tr>%s</tr>" % "".join("<td>%s</td>" % html.escape(str(c)) for c in row)
                   for row in rows)
    cap = "<caption>%s</caption>" % html.escape(caption) if caption else ""
    return ('<table class="tfteach-table">%s<thead><tr>%s</tr></thead><tbody>%s</tbody>'
            '</table>' % (cap, head, body))


def _table(headers, rows, caption, empty):
    if not rows:
        return Display(empty, "<p>%s</p>" % html.escape(empty))
    text = table_text(headers, rows)
    return Display("%s\n%s" % (caption, text) if caption else text,
                   table_html(headers, rows, caption))


HISTORY_HEADERS = ("cell", "device", "in use before", "in use after", "reserved before",
                   "reserved after", "peak", "released", "held by", "closed")


def history_table(records):
    """%tfmemory: one row per (cell, device) that touched a GPU."""
    rows = []
    for r in records:
        held = ", ".join("%s %s" % (name or "(no name)", format_bytes(n))
                         for name, n in r["holders"] if n > 0)
        rows.append(("In [%s]" % r["cell"], device_label(r),
                     format_bytes(r["in_use_before"]), format_bytes(r["in_use_after"]),
                     format_bytes(r["reserved_before"]), format_bytes(r["reserved_after"]),
                     format_bytes(r["peak"]),
                     "skipped" if r.get("skipped") else format_bytes(r["released"]),
                     held or "-", ", ".join(r.get("closed", ())) or "-"))
    return _table(HISTORY_HEADERS, rows, "Device memory per cell (cells that touched a GPU)",
                  "No cell has touched a GPU's memory yet.")


DEVICE_HEADERS = ("device", "kind", "memory", "limit", "reserved", "in use", "peak",
                  "options", "held by")


def devices_table(rows):
    """%tfdevices: `rows` are tuples in DEVICE_HEADERS order, already formatted."""
    return _table(DEVICE_HEADERS, rows, "Devices of this kernel",
                  "No devices listed.")
