"""`tf.print`: TF 1.15's print_v2, an op that prints when it runs, NumPy-style.

`tf.print("x =", x)` builds two ops, as TensorFlow does: `StringFormat` turns the
tensors into text inside a template made of the other arguments (Python values are
written as `pprint` writes them), and `PrintV2` writes that text to a stream. Executing
eagerly it prints at once; in a graph it prints each time the op runs (fetch it, or put it
in `tf.control_dependencies`); inside a `tf.function` it prints on every call, where a
Python `print` runs only while tracing.

A tensor is written as TF's `Tensor::SummarizeValue(summarize, print_v2=true)` writes it:
nested brackets like NumPy (`[[1 2]\n [3 4]]`), at most `summarize` elements at each end
of every dimension with `...` between (default 3, -1 for all), floats with 6 significant
digits unless that does not give the value back (then 9, or 17 for float64), bools as
1 and 0, strings quoted and C-escaped, complex numbers as `?`. A single string scalar
is printed as it is.

The stream is TF's choice too (default `sys.stderr`; `sys.stdout`, `tf.logging.info`,
`.warning`, `.error`, or `"file://path"` to append to a file), but written by Python:
TensorFlow's C++ writes to the process's own stderr, which a Jupyter notebook does not
show; here the text appears in the notebook.
"""
import os
import pprint
import sys

import numpy as np

from tfteach.framework import convert, dtypes, tensor_shape
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.ops import nest
from tfteach.ops.logging_ops import format_element
from tfteach.ops.op_builder import apply_op

__all__ = ["print_v2", "string_format"]

# -- formatting a tensor -----------------------------------------------------------------
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\"": "\\\"", "'": "\\'", "\\": "\\\\"}


def _c_escaped(data):
    """absl's Utf8SafeCEscape: C escapes for quotes, backslashes and control bytes
    (octal); the bytes of UTF-8 sequences are kept, so text in any language prints."""
    out, raw = [], bytearray()
    for byte in data:
        if byte >= 0x80:
            raw.append(byte)
            continue
        if raw:
            out.append(raw.decode("utf-8", "replace"))
            raw = bytearray()
        char = chr(byte)
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif byte < 0x20 or byte == 0x7f:
            out.append("\\%03o" % byte)
        else:
            out.append(char)
    if raw:
        out.append(raw.decode("utf-8", "replace"))
    return "".join(out)


def _element(value):
    if isinstance(value, bytes):
        return "\"%s\"" % _c_escaped(value)
    if isinstance(value, np.complexfloating):
        return "?"                       # TF's SummarizeValue has no case for complex
    if isinstance(value, np.float16):
        value = np.float32(value)        # TF prints a half as the float it converts to
    return format_element(value)


def _spacing(dim, ndim, out):
    """TF's PrintDimSpacing: a space inside the last dimension, else newlines (one per
    dimension left) and an indent of the depth."""
    if dim == ndim - 1:
        out.append(" ")
        return
    out.append("\n" * (ndim - dim - 1) + " " * (dim + 1))


def _one_dim(array, dim, at_ends, index, out):
    """TF's PrintOneDimV2: `array[index]`'s sub-array at depth `dim`, in brackets."""
    if dim == array.ndim:
        out.append(_element(array[tuple(index)]))
        return
    out.append("[")
    count = array.shape[dim]
    start_of_end = max(at_ends, count - at_ends)
    for i in range(min(at_ends, count)):
        if i > 0:
            _spacing(dim, array.ndim, out)
        _one_dim(array, dim + 1, at_ends, index + [i], out)
    if count > 2 * at_ends:
        _spacing(dim, array.ndim, out)
        out.append("...")
    for i in range(start_of_end, count):
        _spacing(dim, array.ndim, out)
        _one_dim(array, dim + 1, at_ends, index + [i], out)
    out.append("]")


def summarize_v2(value, summarize):
    """`value` as TF's SummarizeValue(summarize, print_v2=true) writes it."""
    array = np.asarray(value)
    limit = array.size if summarize < 0 else min(summarize, array.size)
    if array.ndim == 0:
        return _element(array[()]) if limit else ""
    out = []
    _one_dim(array, 0, limit, [], out)
    return "".join(out)


# -- StringFormat ---------------------------------------------------------------------------
def _string_format_shape(op):
    return [(dtypes.string, tensor_shape.TensorShape([]))]


def _string_format_kernel(ctx, *tensors):
    pieces = ctx.attrs["template"].split(ctx.attrs["placeholder"])
    if len(pieces) - 1 != len(tensors):
        from tfteach.framework.errors import InvalidArgumentError
        raise InvalidArgumentError(
            None, ctx.op, "num placeholders in template and num inputs must match: %d vs. %d"
            % (len(pieces) - 1, len(tensors)))
    text = [pieces[0]]
    for tensor, piece in zip(tensors, pieces[1:]):
        text += [summarize_v2(tensor, ctx.attrs["summarize"]), piece]
    return np.asarray("".join(text).encode("utf-8"), dtype=object)


register_op("StringFormat", _string_format_shape, cpu=_string_format_kernel)
not_differentiable("StringFormat")             # text: nothing to differentiate


def string_format(template, inputs, placeholder="{}", summarize=3, name=None):
    """`tf.strings.format`: `template` with each `placeholder` replaced by a tensor."""
    tensors = [convert.convert_to_tensor(t) for t in nest.flatten(inputs)]
    return apply_op("StringFormat", tensors,
                    {"T": [t.dtype.base_dtype for t in tensors], "template": template,
                     "placeholder": placeholder, "summarize": int(summarize)},
                    name or "StringFormat")


# -- PrintV2 -------------------------------------------------------------------------------
def _write(stream, text):
    if stream in ("stdout", "stderr"):
        # The other stream first: a notebook shows each stream's text as it arrives, so
        # a Python print before a tf.print must reach it first.
        first, then = ((sys.stderr, sys.stdout) if stream == "stdout"
                       else (sys.stdout, sys.stderr))
        first.flush()
        then.write(text)
        then.flush()
    elif stream.startswith("log("):
        from tfteach import logging
        log = getattr(logging, stream[len("log("):-1])       # info, warning, error
        log("%s", text[:-1] if text.endswith("\n") else text)
    else:                                   # "file://path": appended, as TF's kernel does
        with open(stream[len("file://"):], "a", encoding="utf-8") as f:
            f.write(text)


def _print_kernel(ctx, text):
    value = np.asarray(text).reshape(-1)[0]
    value = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    _write(ctx.attrs["output_stream"], value + ctx.attrs["end"])


register_op("PrintV2", lambda op: [], cpu=_print_kernel, stateful=True)
not_differentiable("PrintV2")


def _stream_name(output_stream):
    from tfteach import logging
    if isinstance(output_stream, str) and output_stream.startswith("file://"):
        return output_stream
    known = [(sys.stdout, "stdout"), (sys.stderr, "stderr"), (logging.INFO, "log(info)"),
             (logging.info, "log(info)"), (logging.WARN, "log(warning)"),
             (logging.warning, "log(warning)"), (logging.warn, "log(warning)"),
             (logging.ERROR, "log(error)"), (logging.error, "log(error)")]
    for stream, name in known:
        if output_stream is stream or (isinstance(stream, int) and output_stream == stream
                                       and not isinstance(output_stream, bool)):
            return name
    raise ValueError("Unsupported output stream or logging level " + str(output_stream)
                     + ". Supported streams are sys.stdout, sys.stderr, tf.logging.info, "
                     "tf.logging.warning, tf.logging.error. File needs to be in the form of "
                     "'file://<filepath>'.")


def _placeholder_for(template):
    """A placeholder that the arguments' own text does not contain (TF's rule)."""
    placeholder = "{}"
    while placeholder in template:
        placeholder = "{" + placeholder + "}"
    return placeholder


def print_v2(*inputs, **kwargs):
    """`tf.print(*inputs, output_stream=sys.stderr, summarize=3, sep=" ", end="\\n",
    name=None)`: prints the inputs when the op runs (executing eagerly: now)."""
    output_stream = kwargs.pop("output_stream", sys.stderr)
    name = kwargs.pop("name", None)
    summarize = kwargs.pop("summarize", 3)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", os.linesep)
    if kwargs:
        raise ValueError("Unrecognized keyword arguments for tf.print: %s" % kwargs)
    stream = _stream_name(output_stream)
    if (len(inputs) == 1 and convert.is_tensor(inputs[0])
            and convert.convert_to_tensor(inputs[0]).shape.ndims == 0
            and convert.convert_to_tensor(inputs[0]).dtype == dtypes.string):
        text = convert.convert_to_tensor(inputs[0])       # a string scalar: as it is
    else:
        free = nest.map_structure(lambda x: "" if convert.is_tensor(x) else x, list(inputs))
        placeholder = _placeholder_for(" ".join(pprint.pformat(x) for x in free))
        templates, tensors = [], []
        for item in inputs:
            if isinstance(item, str):
                templates.append(item)
                continue
            leaves = []
            for leaf in nest.flatten(item):
                if convert.is_tensor(leaf):
                    tensors.append(leaf)
                    leaves.append(placeholder)
                else:
                    leaves.append(leaf)
            templates.append(pprint.pformat(nest.pack_sequence_as(item, leaves)))
        template = sep.join(templates).replace("'%s'" % placeholder, placeholder)
        text = string_format(template, tensors, placeholder, summarize,
                             name=name + "_format" if name else None)
    return apply_op("PrintV2", [text], {"output_stream": stream, "end": end},
                    name or "PrintV2")
