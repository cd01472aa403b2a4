"""The teaching form of runtime errors.

TensorFlow's message comes first, unchanged; then TF's `[[node NAME (defined at
FILE:LINE) ]]` line, pointing at the student's code that built the op, the text of that
line, and a short hint when the course notes discuss the mistake.
"""
from tfteach.framework import errors
from tfteach.framework.hints import HINTS  # noqa: F401 - re-exported for the runtime

__all__ = ["op_error_from", "located_message", "HINTS"]

def located_message(message, op, hint=None):
    """`message` plus the node line, the student's source line and the hint."""
    lines = [message]
    if op is not None:
        location = op.traceback_location
        if location is not None:
            lines.append("\t [[node %s (defined at %s) ]]" % (op.name, location))
            source = location.line
            if source:
                lines.append("\t  %s" % source)
        else:
            lines.append("\t [[node %s ]]" % op.name)
    if hint:
        lines.append(hint)
    return "\n".join(lines)


# Kernels check their inputs with TensorFlow's words (an OpError). A Python exception that
# reaches the executor instead is an input a kernel does not check as TF does: it keeps
# the class TF gives bad input, but says plainly that the words are Python's.
_BAD_INPUT = (ValueError, IndexError, TypeError, ZeroDivisionError, OverflowError,
              FloatingPointError)
UNCHECKED_HINT = ("tfteach: the words above are Python's, not TensorFlow's: this op's "
                  "kernel met an input it does not check the way TensorFlow does "
                  "(please report it).")


def op_error_from(exc, op):
    """An OpError for a kernel failure at `op`, in the teaching form. `err.unchecked` is
    True when the failure was a stray Python exception (tests/test_bad_input_fuzz_
    reference.py asserts that no bad input it feeds ends there)."""
    unchecked = not isinstance(exc, (errors.OpError, MemoryError))
    if isinstance(exc, errors.OpError):
        if getattr(exc, "_located", False):
            return exc
        cls = type(exc)
        failing_op = exc.op or op
        message = exc.message
        hint = exc.hint
    elif isinstance(exc, _BAD_INPUT):
        cls, failing_op, message, hint = (errors.InvalidArgumentError, op, str(exc),
                                          UNCHECKED_HINT)
    elif isinstance(exc, MemoryError):
        cls, failing_op, message, hint = errors.ResourceExhaustedError, op, (
            "OOM when allocating tensor for %s on /job:localhost/replica:0/task:0/device:CPU:0"
            % op.name), None
    else:
        cls, failing_op, message, hint = errors.InternalError, op, "%s: %s" % (
            type(exc).__name__, exc), UNCHECKED_HINT
    err = cls(failing_op.node_def if failing_op is not None else None, failing_op,
              located_message(message, failing_op, hint))
    err.hint = hint
    err.unchecked = unchecked
    err._located = True
    return err
