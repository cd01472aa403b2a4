"""`tf.Print` and `tf.Assert`: ops that report from inside a running graph.

`tf.Print(x, [a, b], "msg")` returns `x` unchanged and, each time it runs, prints
`msg[a][b]` — to Python's stdout, so it appears in the notebook (TF prints to stderr).
Because the print happens when the op *runs*, it shows what ran: put one in each branch
of a `tf.cond` and only the taken branch prints.
"""
import sys
import threading

import numpy as np

from tfteach.framework import convert, dtypes
from tfteach.framework.errors import InvalidArgumentError
from tfteach.framework.registry import register_op
from tfteach.ops.op_builder import ShapeError, apply_op, same_shape_fn

__all__ = ["Print", "Assert"]


# -- formatting values like TF's Tensor::SummarizeValue -----------------------------------
def format_element(value):
    """One element as TF's PrintOneElement writes it (also tf.print's, print_ops.py)."""
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.floating):
        digits = 9 if value.dtype == np.float32 else 17
        short = "%.*g" % (digits - 3, value)          # 6 / 15 significant digits, as TF
        return short if value.dtype.type(short) == value else "%.*g" % (digits, value)
    return str(value)


def summarize(value, limit):
    """`value` as TF prints it: `1 2 3...` for a vector, `[1 2][3 4]` for a matrix."""
    array = np.asarray(value)
    flat = array.reshape(-1)
    limit = flat.size if limit is None or limit < 0 else min(limit, flat.size)
    if array.ndim == 0:
        return format_element(flat[0]) if limit else ""
    out = []
    index = [0]

    def one_dim(dim):
        # TF's PrintOneDim: nested brackets for all but the last dimension.
        if index[0] >= limit:
            return
        if dim == array.ndim - 1:
            for i in range(array.shape[dim]):
                if index[0] >= limit:
                    if dim != 0:
                        out.append("...")
                    return
                if i > 0:
                    out.append(" ")
                out.append(format_element(flat[index[0]]))
                index[0] += 1
            return
        for _ in range(array.shape[dim]):
            opened = index[0] < limit
            if opened:
                out.append("[")
            one_dim(dim + 1)
            if index[0] < limit or opened:
                out.append("]")

    one_dim(0)
    if flat.size > limit:
        out.append("...")
    return "".join(out)


# -- Print -------------------------------------------------------------------------------
_COUNT_LOCK = threading.Lock()


def _print_kernel(ctx, value, *data):
    first_n = ctx.attrs["first_n"]
    with _COUNT_LOCK:               # two session threads: still first_n lines in all
        count = ctx.state.get("count", 0)
        printing = first_n < 0 or count < first_n
        if printing:
            ctx.state["count"] = count + 1
    if printing:
        message = ctx.attrs["message"] + "".join(
            "[%s]" % summarize(d, ctx.attrs["summarize"]) for d in data)
        print(message, file=sys.stdout, flush=True)
    return value


register_op("Print", same_shape_fn, cpu=_print_kernel, stateful=True)


def Print(input_, data, message=None, first_n=None, summarize=None, name=None):  # noqa: N802
    """Returns `input_`; when it runs, prints `message` and the values of `data`."""
    value = convert.convert_to_tensor(input_)
    data = [convert.convert_to_tensor(d) for d in data]
    attrs = {"T": value.dtype.base_dtype,
             "U": [d.dtype.base_dtype for d in data],
             "message": message or "",
             "first_n": -1 if first_n is None else int(first_n),
             "summarize": 3 if summarize is None else int(summarize)}
    return apply_op("Print", [value] + data, attrs, name or "Print")


# -- Assert ------------------------------------------------------------------------------
def _assert_kernel(ctx, condition, *data):
    if not np.all(condition):
        # TF's AssertOp: "assertion failed: [first] [second]".
        parts = ["[%s]" % summarize(d, ctx.attrs["summarize"]) for d in data]
        raise InvalidArgumentError(None, ctx.op, "assertion failed: " + " ".join(parts))
    return None


def _assert_shape(op):
    condition = op._inputs[0]
    if condition.shape.ndims not in (None, 0):
        raise ShapeError("Shape must be rank 0 but is rank %d" % condition.shape.ndims)
    return []


register_op("Assert", _assert_shape, cpu=_assert_kernel, stateful=True)


def Assert(condition, data, summarize=None, name=None):  # noqa: N802
    """An op that fails the run with InvalidArgumentError when `condition` is false.
    Executing eagerly there is no op: TF 1.15 checks at once and returns None."""
    from tfteach.framework import eager_mode
    if eager_mode.executing_eagerly():
        _assert_now(condition, data, summarize)
        return None
    condition = convert.convert_to_tensor(condition)
    if condition.dtype.base_dtype != dtypes.bool:
        raise TypeError("Input 'condition' of 'Assert' Op has type %s that does not match "
                        "expected type of bool." % condition.dtype.base_dtype.name)
    data = [convert.convert_to_tensor(d) for d in data]
    return apply_op("Assert", [condition] + data,
                    {"T": [d.dtype.base_dtype for d in data],
                     "summarize": 3 if summarize is None else int(summarize)},
                    name or "Assert")


def _assert_now(condition, data, summarize):
    """TF 1.15's eager Assert: "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be
    true. Summarized data: b'message'\n1, 2, 3, ..." (each datum as TF's
    _summarize_eager writes it), or nothing when `condition` holds."""
    if condition:
        return
    lines = [_summarize_eager(convert.convert_to_tensor(d), summarize) for d in data]
    raise InvalidArgumentError(None, None, "Expected '%s' to be true. Summarized data: %s"
                               % (condition, "\n".join(lines)))


def _summarize_eager(tensor, summarize):
    """Tensor::SummarizeValue as TF's eager Assert emulates it: the first `summarize`
    values (3 by default, all when negative) joined by ", ", "..." when some are left
    out; a scalar's value as NumPy prints it (b'...' for a string)."""
    value = tensor.numpy()
    if summarize is None:
        summarize = 3
    elif summarize < 0:
        summarize = np.size(value)
    if np.ndim(value) == 0:
        return str(value) if summarize != 0 else ""
    flat = np.reshape(value, -1)
    shown = [str(v) for v in flat[:summarize]]
    if len(shown) < flat.size:
        shown.append("...")
    return ", ".join(shown)
