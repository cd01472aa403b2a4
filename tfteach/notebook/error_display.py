"""The teaching form of tfteach's errors in a notebook (docs/errors.md).

An `OpError` raised in a cell already carries TensorFlow's message, the
`[[node x (defined at FILE:LINE) ]]` line, the text of that line and a hint. IPython
would print it under a long traceback through the engine (Session.run -> executor ->
kernel). With the extension loaded, tfteach's error classes — and only those, through
IPython's `set_custom_exc` — are shown as: the message, with FILE:LINE of a notebook
cell written as IPython writes cells (`Cell In[3], line 2`), the cell's line text, the
hint, then the student's own frames that led to the error, and a pointer to `%tb` for
the full traceback. Errors raised while a graph is *built* are Python's ValueError and
TypeError, as in TensorFlow (a matmul of misfit shapes, mixed dtypes, a variable that
already exists): when one comes out of tfteach's code it gets the same form, with a
hint for the errors the notes discuss (`framework/hints.BUILD_HINTS`). Any other
exception keeps IPython's normal traceback.
"""
import linecache
import os
import re
import traceback

from tfteach.framework import errors, hints

__all__ = ["register", "unregister", "teaching_traceback", "cell_location"]

_RED, _GREEN, _CYAN, _DIM, _RESET = ("\x1b[0;31m", "\x1b[0;32m", "\x1b[0;36m", "\x1b[2m",
                                     "\x1b[0m")
_DEFINED_AT = re.compile(r"\(defined at (.+?):(\d+)\)")
# tfteach's own code: the package's folder, exactly (a checkout or a venv can itself sit
# in a folder named tfteach, so the name alone would also hide the student's files)
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))).replace("\\", "/") + "/"
_NOTEBOOK_LAYER = _PACKAGE + "notebook/"


def cell_location(shell, filename, lineno):
    """'Cell In[3], line 2' for a notebook cell's code, else 'FILE:LINE'."""
    named = None
    compiler = getattr(shell, "compile", None)
    if compiler is not None and hasattr(compiler, "format_code_name"):
        named = compiler.format_code_name(filename)
    if named:
        return "%s %s, line %d" % (named[0], named[1], lineno)
    return "%s:%d" % (filename, lineno)


def _rewrite_message(shell, message):
    """The message with each `(defined at FILE:LINE)` of a cell in IPython's words, and
    the line's text added under the node line when the engine could not read it."""
    out = []
    lines = message.split("\n")
    for i, line in enumerate(lines):
        match = _DEFINED_AT.search(line)
        if match is None:
            out.append(line)
            continue
        filename, lineno = match.group(1), int(match.group(2))
        where = cell_location(shell, filename, lineno)
        out.append(line[:match.start()] + "(defined at %s)" % where + line[match.end():])
        has_text = i + 1 < len(lines) and lines[i + 1].startswith("\t  ")
        text = linecache.getline(filename, lineno).strip()
        # A placement error names the node in its first line and quotes the line under
        # its `[[node]]` line further down: quote it once.
        if not has_text and text and "\t  " + text not in lines:
            out.append("\t  " + text)
    return out


def _student_frames(shell, tb):
    """The frames of the traceback outside tfteach and IPython: the student's calls."""
    frames = []
    for frame in traceback.extract_tb(tb):
        name = frame.filename.replace("\\", "/")
        if name.startswith(_PACKAGE) or "/IPython/" in name or "/ipykernel/" in name:
            continue
        frames.append(frame)
    return frames


def raised_by_tfteach(tb):
    """Whether the traceback passes through tfteach's own code (a build-time error from
    tf.matmul, tf.get_variable, ...), rather than being the student's or a library's."""
    return any(frame.filename.replace("\\", "/").startswith(_PACKAGE) and
               not frame.filename.replace("\\", "/").startswith(_NOTEBOOK_LAYER)
               for frame in traceback.extract_tb(tb))


def teaching_traceback(shell, etype, value, tb):
    """The structured traceback (list of strings) IPython shows for an OpError, or for
    a ValueError/TypeError raised while building a graph."""
    message_lines = _rewrite_message(shell, str(value))
    first = "%s%s%s: %s" % (_RED, etype.__name__, _RESET, message_lines[0])
    stb = [first] + message_lines[1:]
    if not isinstance(value, errors.OpError):
        hint = hints.hint_for(str(value))
        if hint:
            stb.append(hint)
    frames = _student_frames(shell, tb)
    if frames:
        stb.append("%sRaised from:%s" % (_DIM, _RESET))
        for frame in frames[-4:]:
            where = cell_location(shell, frame.filename, frame.lineno)
            inside = "" if frame.name == "<module>" else ", in %s()" % frame.name
            stb.append("  %s%s%s%s: %s" % (_GREEN, where, inside, _RESET,
                                          (frame.line or "").strip()))
    stb.append("%s(tfteach's engine frames are hidden; %%tb shows the full traceback)%s"
               % (_DIM, _RESET))
    return ["\n".join(stb)]


def _handler(shell, etype, value, tb, tb_offset=None):
    # IPython's run_code ignores a custom handler's return value: show it ourselves, and
    # store the error where %tb and %debug look for it (sys.last_*).
    if not issubclass(etype, errors.OpError) and not raised_by_tfteach(tb):
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)   # not ours
        return None
    shell._get_exc_info((etype, value, tb))
    stb = teaching_traceback(shell, etype, value, tb)
    shell._showtraceback(etype, value, stb)
    if getattr(shell, "call_pdb", False):
        shell.debugger(force=True)
    return None


_HANDLED = (errors.OpError, ValueError, TypeError)


def register(ipython):
    ipython.set_custom_exc(_HANDLED, _handler)


def unregister(ipython):
    if getattr(ipython, "custom_exceptions", ()) == _HANDLED:
        ipython.set_custom_exc((), None)
