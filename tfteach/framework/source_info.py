"""Where in the student's code an op was created: the first frame outside tfteach.

Errors quote it (TensorFlow's `defined at FILE:LINE`), so a student sees their own
line, not the engine's.
"""
import linecache
import os
import sys

__all__ = ["SourceLocation", "caller_location"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class SourceLocation:
    __slots__ = ("filename", "lineno")

    def __init__(self, filename, lineno):
        self.filename = filename
        self.lineno = lineno

    @property
    def line(self):
        """The source text of that line (read lazily: building ops stays cheap)."""
        return linecache.getline(self.filename, self.lineno).strip()

    def __str__(self):
        return "%s:%d" % (self.filename, self.lineno)

    def __repr__(self):
        return "SourceLocation(%r, %d)" % (self.filename, self.lineno)


def caller_location():
    """The innermost stack frame that is not tfteach's own code (or None)."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_PACKAGE_DIR) and "contextlib" not in filename:
            return SourceLocation(filename, frame.f_lineno)
        frame = frame.f_back
    return None
