"""`tf.decode_raw` and `tf.decode_csv`: strings to numbers, in the graph (TF 1.15's
DecodeRaw and DecodeCSV ops, TensorFlow's errors).

    pixels = tf.decode_raw(features["image_raw"], tf.uint8)     # bytes -> [..., n]
    a, b, c = tf.decode_csv(line, record_defaults=[[0], [0.0], [""]])

DecodeRaw reinterprets each string's bytes as `out_type` values (little-endian unless
little_endian=False); every string must have the same length, a multiple of the type's
size. DecodeCSV splits each record at `field_delim`, honours RFC 4180 quotes
(use_quote_delim) and fills empty or `na_value` fields from `record_defaults` (an empty
default makes the column required).
"""
import numpy as np

from tfteach.framework import dtypes
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.errors import InvalidArgumentError
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.kernels.cpu.shape_kernels import list_outputs
from tfteach.ops.op_builder import ShapeError, apply_op
from tfteach.runtime.placement import register_cpu_only

__all__ = ["decode_raw", "decode_csv"]

_RAW_TYPES = ("float16", "float32", "float64", "int32", "uint16", "uint8", "int16", "int8",
              "int64", "complex64", "complex128")
_CSV_TYPES = ("float32", "float64", "int32", "int64", "string")
# The C++ type names TF's messages use.
_TYPE_WORD = {"float16": "Eigen::half", "float32": "float", "float64": "double",
              "int32": "int32", "int64": "int64", "uint8": "uint8", "uint16": "uint16",
              "int8": "int8", "int16": "int16", "complex64": "complex64",
              "complex128": "complex128"}


def _error(ctx, message):
    return InvalidArgumentError(None, ctx.op, message)


def _check_type(dtype, allowed, parameter):
    if dtype.name not in allowed:
        raise TypeError("Value passed to parameter '%s' has DataType %s not in list of "
                        "allowed values: %s" % (parameter, dtype.name, ", ".join(allowed)))


def _string_input(value, op_type, parameter, name):
    tensor = convert_to_tensor(value, name=name)
    if tensor.dtype.base_dtype != dtypes.string:
        raise TypeError("Input '%s' of '%s' Op has type %s that does not match expected type "
                        "of string." % (parameter, op_type, tensor.dtype.base_dtype.name))
    return tensor


# -- DecodeRaw ---------------------------------------------------------------------------------
def _decode_raw_shape(op):
    return [(op._attrs["out_type"], op._inputs[0].shape.concatenate([None]))]


def _decode_raw_kernel(ctx, data):
    out_type = ctx.attrs["out_type"]
    dtype = np.dtype(out_type.np).newbyteorder("<" if ctx.attrs["little_endian"] else ">")
    data = np.asarray(data, dtype=object)
    flat = [bytes(s) for s in data.reshape(-1)]
    width = len(flat[0]) if flat else 0
    if width % dtype.itemsize:
        raise _error(ctx, "Input to DecodeRaw has length %d that is not a multiple of %d, the "
                          "size of %s" % (width, dtype.itemsize, _TYPE_WORD[out_type.name]))
    for i, s in enumerate(flat):
        if len(s) != width:
            raise _error(ctx, "DecodeRaw requires input strings to all be the same size, but "
                              "element %d has size %d != %d" % (i, width, len(s)))
    values = np.frombuffer(b"".join(flat), dtype=dtype).astype(out_type.np)
    return values.reshape(data.shape + (width // dtype.itemsize,))


register_op("DecodeRaw", _decode_raw_shape, cpu=_decode_raw_kernel)


def decode_raw(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None):  # noqa: A002,E501 - TF's names
    """`tf.decode_raw(input_bytes, out_type, little_endian=True)`: each string's bytes as
    a vector of `out_type` numbers (shape: the input's shape + [length / item size])."""
    if bytes is not None:
        if input_bytes is not None:
            raise ValueError("Cannot specify both 'input_bytes' and 'bytes'")
        input_bytes = bytes
    out_type = dtypes.as_dtype(out_type)
    _check_type(out_type, _RAW_TYPES, "out_type")
    with name_scope(name, "DecodeRaw", [input_bytes]) as scope:
        data = _string_input(input_bytes, "DecodeRaw", "bytes", "bytes")
        return apply_op("DecodeRaw", [data], {"out_type": out_type,
                                             "little_endian": bool(little_endian)}, scope)


# -- DecodeCSV ---------------------------------------------------------------------------------
def _decode_csv_shape(op):
    for default in op._inputs[1:]:
        if default.shape.ndims is not None and default.shape.ndims > 1:
            raise ShapeError("Shape must be at most rank 1 but is rank %d"
                             % default.shape.ndims)
        if default.shape.num_elements() not in (None, 0, 1):
            raise ShapeError("Shape must be at most rank 1 and at most 1 element but is %s"
                             % default.shape)
    records = op._inputs[0].shape
    return [(t, records) for t in op._attrs["OUT_TYPE"]]


def _split_record(ctx, line, delim, quotes, select_cols):
    """TF's DecodeCSVOp::ExtractFields: the (selected) fields of one record."""
    fields, i, parsed, chosen = [], 0, 0, 0
    n = len(line)
    while i < n:
        include = not select_cols or select_cols[chosen] == parsed
        field = bytearray()
        if quotes and line[i:i + 1] == b'"':
            i += 1
            while i < n - 1 and not (line[i:i + 1] == b'"' and line[i + 1:i + 2] == delim):
                if line[i:i + 1] != b'"':
                    field += line[i:i + 1]
                    i += 1
                elif line[i + 1:i + 2] == b'"':
                    field += b'"'
                    i += 2
                else:
                    raise _error(ctx, "Quote inside a string has to be escaped by another "
                                      "quote")
            if not (i < n and line[i:i + 1] == b'"'
                    and (i == n - 1 or line[i + 1:i + 2] == delim)):
                raise _error(ctx, "Quoted field has to end with quote followed by delim or "
                                  "end")
            i += 2
        else:
            while i < n and line[i:i + 1] != delim:
                ch = line[i:i + 1]
                if (quotes and ch == b'"') or ch in (b"\n", b"\r"):
                    raise _error(ctx, "Unquoted fields cannot have quotes/CRLFs inside")
                field += ch
                i += 1
            i += 1
        parsed += 1
        if include:
            fields.append(bytes(field))
            chosen += 1
            if select_cols and chosen == len(select_cols):
                return fields
    if n and line[n - 1:] == delim and (not select_cols or select_cols[chosen] == parsed):
        fields.append(b"")                          # a last field left empty
    return fields



def _number(text, dtype):
    """TF's safe_strto32/64 and strtof/strtod: None if `text` is not one."""
    s = text.decode("utf-8", errors="replace")
    if "_" in s:
        return None
    try:
        if dtype.is_integer:
            value = int(s)
            info = np.iinfo(dtype.np)
            return value if info.min <= value <= info.max else None
        body = s.strip().lstrip("+-").lower()
        if body.startswith("0x"):
            return float.fromhex(s.strip())
        return float(s)
    except ValueError:
        return None


def _decode_csv_kernel(ctx, records, *defaults):
    a = ctx.attrs
    delim = a["field_delim"].encode("utf-8") if isinstance(a["field_delim"], str) \
        else a["field_delim"]
    if len(delim) != 1:
        raise _error(ctx, "field_delim should be only 1 char")
    na_value = a["na_value"].encode("utf-8") if isinstance(a["na_value"], str) \
        else a["na_value"]
    types = a["OUT_TYPE"]
    defaults = [np.asarray(d).reshape(-1) for d in defaults]
    for f, d in enumerate(defaults):
        if d.size > 1:
            raise _error(ctx, "There should only be 1 default per field but field %d has %d"
                         % (f, d.size))
    records = np.asarray(records, dtype=object)
    columns = [[] for _ in types]
    for r, line in enumerate(records.reshape(-1)):
        fields = _split_record(ctx, bytes(line), delim, a["use_quote_delim"],
                               list(a["select_cols"]))
        if len(fields) != len(types):
            raise _error(ctx, "Expect %d fields but have %d in record %d"
                         % (len(types), len(fields), r))
        for f, (text, dtype) in enumerate(zip(fields, types)):
            if not text or text == na_value:
                if defaults[f].size != 1:
                    raise _error(ctx, "Field %d is required but missing in record %d!"
                                 % (f, r))
                columns[f].append(defaults[f][0])
            elif dtype == dtypes.string:
                columns[f].append(text)
            else:
                value = _number(text, dtype)
                if value is None:
                    raise _error(ctx, "Field %d in record %d is not a valid %s: %s"
                                 % (f, r, _TYPE_WORD[dtype.name],
                                    text.decode("utf-8", errors="replace")))
                columns[f].append(value)
    outputs = []
    for column, dtype in zip(columns, types):
        if dtype == dtypes.string:
            out = np.empty(len(column), dtype=object)
            out[:] = [bytes(v) if not isinstance(v, str) else v.encode() for v in column]
        else:
            with np.errstate(over="ignore"):           # 3.5e40 as a float is inf, as in TF
                out = np.array(column, dtype=np.float64 if dtype.is_floating else object)
                out = out.astype(dtype.np)
        outputs.append(out.reshape(records.shape))
    return list_outputs(outputs)


register_op("DecodeCSV", _decode_csv_shape, cpu=_decode_csv_kernel)

for _op_type in ("DecodeRaw", "DecodeCSV"):
    not_differentiable(_op_type)
    register_cpu_only(_op_type)


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None,
               na_value="", select_cols=None):
    """`tf.decode_csv`: one tensor per column, each of the records' shape and of its
    record_default's dtype."""
    if select_cols is not None:
        if any(select_cols[i] >= select_cols[i + 1] for i in range(len(select_cols) - 1)):
            raise ValueError("select_cols is not strictly increasing.")
        if select_cols and select_cols[0] < 0:
            raise ValueError("select_cols contains negative values.")
        if len(select_cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    with name_scope(name, "DecodeCSV", [records]) as scope:
        records = _string_input(records, "DecodeCSV", "records", "records")
        defaults = []
        for i, default in enumerate(record_defaults):
            tensor = convert_to_tensor(default, name="record_defaults_%d" % i)
            _check_type(tensor.dtype.base_dtype, _CSV_TYPES, "record_defaults")
            defaults.append(tensor)
        outputs = apply_op("DecodeCSV", [records] + defaults,
                           {"OUT_TYPE": [d.dtype.base_dtype for d in defaults],
                            "field_delim": field_delim,
                            "use_quote_delim": bool(use_quote_delim), "na_value": na_value,
                            "select_cols": list(select_cols or [])}, scope)
    return outputs if isinstance(outputs, list) else [outputs]
