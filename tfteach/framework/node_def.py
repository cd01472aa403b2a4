"""A NodeDef-like record of an op, printed in TensorFlow's protobuf text format.

`str(op)` in TensorFlow prints the node's NodeDef; students see it in error reports
(`e.node_def`) and the notes print it, so the same text form is kept.
"""
import numpy as np

__all__ = ["NodeDef", "format_attr_value", "EXPORTED_PRIVATE_ATTRS"]

# Private attrs TensorFlow itself writes and reads (colocation groups: ["loc:@w"]); here,
# where printing an op needs it without importing the protobuf modules.
EXPORTED_PRIVATE_ATTRS = frozenset({"_class"})


class NodeDef:
    __slots__ = ("name", "op", "input", "device", "attr")

    def __init__(self, name, op, inputs, device, attr):
        self.name = name
        self.op = op
        self.input = inputs
        self.device = device
        self.attr = attr

    def __str__(self):
        lines = ['name: "%s"' % self.name, 'op: "%s"' % self.op]
        lines += ['input: "%s"' % i for i in self.input]
        if self.device:
            lines.append('device: "%s"' % self.device)
        for key in sorted(self.attr):
            lines.append("attr {")
            lines.append('  key: "%s"' % key)
            lines.append("  value {")
            lines += ["    " + line for line in format_attr_value(self.attr[key])]
            lines.append("  }")
            lines.append("}")
        return "\n".join(lines) + "\n"

    __repr__ = __str__


def format_attr_value(value):
    """The lines of an AttrValue's text form for the Python values ops keep as attrs."""
    from tfteach.framework import dtypes, tensor_shape
    if isinstance(value, dtypes.DType):
        return ["type: DT_%s" % _dt_enum_name(value)]
    if isinstance(value, type(True)):
        return ["b: %s" % ("true" if value else "false")]
    if isinstance(value, (int, np.integer)):
        return ["i: %d" % value]
    if isinstance(value, (float, np.floating)):
        return ["f: %r" % float(value)]
    if isinstance(value, str):
        return ['s: "%s"' % value]
    if isinstance(value, tensor_shape.TensorShape):
        if value.ndims is None:
            return ["shape {", "  unknown_rank: true", "}"]
        out = ["shape {"]
        for d in value.as_list():
            out += ["  dim {", "    size: %d" % (-1 if d is None else d), "  }"]
        return out + ["}"]
    if isinstance(value, np.ndarray):
        out = ["tensor {", "  dtype: DT_%s" % _dt_enum_name(dtypes.as_dtype(value.dtype)),
               "  tensor_shape {"]
        for d in value.shape:
            out += ["    dim {", "      size: %d" % d, "    }"]
        out.append("  }")
        preview = value.ravel()[:10].tolist()
        out.append("  # values: %s%s" % (preview, " ..." if value.size > 10 else ""))
        return out + ["}"]
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, (int, np.integer)) for v in value):
            return ["list {"] + ["  i: %d" % v for v in value] + ["}"]
        return ["list {"] + ["  " + line for v in value for line in format_attr_value(v)] + ["}"]
    return ['s: "%s"' % (value,)]


def _dt_enum_name(dtype):
    names = {"float32": "FLOAT", "float64": "DOUBLE", "float16": "HALF"}
    base = dtype.base_dtype.name
    return names.get(base, base.upper()) + ("_REF" if dtype.is_ref_dtype else "")
