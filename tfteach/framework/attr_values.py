"""An op's attrs as TensorFlow's `AttrValue` messages, and back.

tfteach keeps attrs as plain Python values (DType, bool, int, float, str, TensorShape,
NumPy array, lists of those); a NodeDef needs the `AttrValue` oneof. The Python type
picks the field, as TensorFlow's `op_def_library` does once the OpDef names the type:
DType -> `type`, bool -> `b`, int -> `i`, float -> `f`, str/bytes -> `s`,
TensorShape -> `shape`, ndarray -> `tensor`, list -> `list`. Attrs whose name starts
with `_` are tfteach's own bookkeeping (a chosen kernel, a loop object) and are not
exported, except `_class` (colocation), which TensorFlow writes too.
"""
import numpy as np

from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.tensor_proto import (make_ndarray, make_tensor_proto, shape_from_proto,
                                            shape_proto)
from tfteach.framework.node_def import EXPORTED_PRIVATE_ATTRS
from tfteach.io.tf_protos import AttrValue

__all__ = ["to_attr_value", "from_attr_value", "EXPORTED_PRIVATE_ATTRS"]


def to_attr_value(value, op_name="", attr_name=""):
    """The AttrValue for one Python attr value (TypeError naming the attr otherwise)."""
    attr = AttrValue()
    if isinstance(value, dtypes.DType):
        attr.type = value.as_datatype_enum
    elif isinstance(value, (bool, np.bool_)):
        attr.b = bool(value)
    elif isinstance(value, (int, np.integer)):
        attr.i = int(value)
    elif isinstance(value, (float, np.floating)):
        attr.f = float(value)
    elif isinstance(value, str):
        attr.s = value.encode("utf-8")
    elif isinstance(value, bytes):
        attr.s = value
    elif isinstance(value, tensor_shape.TensorShape):
        attr.shape.CopyFrom(shape_proto(value))
    elif isinstance(value, np.ndarray):
        attr.tensor.CopyFrom(make_tensor_proto(value))
    elif isinstance(value, (list, tuple)):
        attr.list.SetInParent()          # an empty list is still a list
        for item in value:
            _append_to_list(attr.list, item, op_name, attr_name)
    else:
        raise TypeError("Attr '%s' of op '%s' holds a %s, which has no AttrValue form."
                        % (attr_name, op_name, type(value).__name__))
    return attr


def _append_to_list(list_value, item, op_name, attr_name):
    if isinstance(item, dtypes.DType):
        list_value.type.append(item.as_datatype_enum)
    elif isinstance(item, (bool, np.bool_)):
        list_value.b.append(bool(item))
    elif isinstance(item, (int, np.integer)):
        list_value.i.append(int(item))
    elif isinstance(item, (float, np.floating)):
        list_value.f.append(float(item))
    elif isinstance(item, (str, bytes)):
        list_value.s.append(item.encode("utf-8") if isinstance(item, str) else item)
    elif isinstance(item, tensor_shape.TensorShape):
        list_value.shape.add().CopyFrom(shape_proto(item))
    elif isinstance(item, np.ndarray):
        list_value.tensor.add().CopyFrom(make_tensor_proto(item))
    else:
        raise TypeError("Attr '%s' of op '%s' holds a list with a %s, which has no "
                        "AttrValue form." % (attr_name, op_name, type(item).__name__))


def _text(raw):
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw


def from_attr_value(attr, op_name="", attr_name=""):
    """The Python value tfteach keeps for one AttrValue."""
    kind = attr.WhichOneof("value")
    if kind == "type":
        return dtypes.as_dtype(attr.type)
    if kind == "b":
        return bool(attr.b)
    if kind == "i":
        return int(attr.i)
    if kind == "f":
        return float(attr.f)
    if kind == "s":
        return _text(attr.s)
    if kind == "shape":
        return shape_from_proto(attr.shape)
    if kind == "tensor":
        return make_ndarray(attr.tensor)
    if kind == "list":
        lst = attr.list
        if lst.type:
            return [dtypes.as_dtype(t) for t in lst.type]
        if lst.shape:
            return [shape_from_proto(s) for s in lst.shape]
        if lst.tensor:
            return [make_ndarray(t) for t in lst.tensor]
        if lst.s:
            return [_text(s) for s in lst.s]
        if lst.f:
            return [float(f) for f in lst.f]
        if lst.b:
            return [bool(b) for b in lst.b]
        return [int(i) for i in lst.i]
    if kind is None:
        return None
    raise ValueError("Attr '%s' of node '%s' is a %s (a function or placeholder attr), "
                     "which tfteach cannot import." % (attr_name, op_name, kind))
