"""`concat([so_far, rows], 0)` inside a loop, without copying `so_far` again each time.

tfteach's `dynamic_rnn` (which has no TensorArrays) keeps the outputs so far as a loop
variable and appends each time step's output to it: `concat([so_far, expand_dims(out,
0)], 0)` (docs/rnn.md). Copied whole every time, that is 1 + 2 + ... + T rows for T
steps, written into fresh memory: in bench/nn_steps.py's LSTM 22-38 us a call by the
20th step, 0.5-0.8 ms a training step.

So a loop's concat along axis 0 writes its result into a buffer with room for more rows
(twice the rows it has) and returns the view of the rows filled so far. That view is the
buffer's *tail*: the next concat whose first input is that very array writes its new
rows after it, into the room, and returns the longer view as the new tail. A row is
written once, before any view that shows it is handed out, so every earlier view keeps
its values: the iterations a loop's gradient replays see what they saw. The tail mark
moves on at each append, so anything else (an older view appended to a second time, a
view of a different buffer, a loop that grows past the room) copies as before, into a
new buffer with room. The rows are those np.concatenate would make (a copy is a copy),
and the result's shape and dtype the same; it is a view of a larger buffer (its `.base`
is set), which the variables' Assign copies rather than takes (state_kernels).

Outside loops (a graph concat runs once a step) nothing changes: no room is made, so no
result is bigger than np.concatenate's.
"""
import weakref

import numpy as np

__all__ = ["in_loop", "append_rows"]

# id(tail view) -> weak reference to it. Popped (atomically) by the append that takes
# the tail over, so two appends to one tail can never both write after it.
_TAILS = {}


def in_loop(op):
    """True when `op` was built inside a while loop's body (or a cond inside one). By the
    context's class name: kernels do not import the op layer (DESIGN.md)."""
    context = getattr(op, "_control_flow_context", None)     # eager ops have none
    while context is not None:
        if type(context).__name__ == "WhileContext":
            return True
        context = context.outer_context
    return False


def _forget(ref, key):
    # The tail died: drop its entry, unless the id already names a newer tail.
    if _TAILS.get(key) is ref:
        _TAILS.pop(key, None)


def _as_tail(buffer, rows):
    tail = buffer[:rows]
    key = id(tail)
    _TAILS[key] = weakref.ref(tail, lambda ref: _forget(ref, key))
    return tail


def append_rows(first, second):
    """np.concatenate([first, second], axis=0) for two arrays of one dtype whose shapes
    agree but on axis 0 (the caller checked), as a view of a buffer with room to grow."""
    ref = _TAILS.pop(id(first), None)
    rows = first.shape[0]
    total = rows + second.shape[0]
    if ref is not None and ref() is first:
        buffer = first.base
        if total <= buffer.shape[0]:
            buffer[rows:total] = second
            return _as_tail(buffer, total)
    buffer = np.empty((2 * total,) + first.shape[1:], first.dtype)
    buffer[:rows] = first
    buffer[rows:total] = second
    return _as_tail(buffer, total)
