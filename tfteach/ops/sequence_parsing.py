"""`tf.parse_single_sequence_example`: a SequenceExample -> (context, feature lists).

    context, sequence = tf.parse_single_sequence_example(serialized,
        context_features={"length": tf.FixedLenFeature([], tf.int64)},
        sequence_features={"tokens": tf.FixedLenSequenceFeature([], tf.int64)})

The context is parsed like one Example (FixedLenFeature, VarLenFeature); each feature
list holds one Feature per step: a FixedLenSequenceFeature becomes [steps] + shape (every
step must have the shape's number of values), a VarLenFeature a SparseTensor
[steps, max values]. A missing feature list is an error unless its feature has
allow_missing=True (then it has 0 steps). TF 1.15's op ParseSingleSequenceExample; the
errors are TensorFlow's words (for a missing required context feature TF 2.x reports an
"Inconsistent max number of elements"; tfteach says what TF 1.15's parser said).
"""
import numpy as np

from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.ops import example_decoding as decoding
from tfteach.ops import parsing_ops as single
from tfteach.ops.op_builder import apply_op
from tfteach.ops.parsing_config import (FixedLenFeature, FixedLenSequenceFeature,
                                        VarLenFeature, features_to_raw_params)
from tfteach.kernels.cpu.shape_kernels import list_outputs
from tfteach.runtime.placement import register_cpu_only

__all__ = ["parse_single_sequence_example"]

_COUNTS = ("Ncontext_sparse", "Ncontext_dense", "Nfeature_list_sparse", "Nfeature_list_dense")


def _shape(op):
    a = op._attrs
    decoding.check_rank(op, 0, 0)
    outs = []
    cs, fs = a["Ncontext_sparse"], a["Nfeature_list_sparse"]
    outs += [(dtypes.int64, tensor_shape.TensorShape([None, 1]))] * cs
    outs += [(t, tensor_shape.TensorShape([None])) for t in a["context_sparse_types"]]
    outs += [(dtypes.int64, tensor_shape.TensorShape([1]))] * cs
    outs += [(t, s) for t, s in zip(a["Tcontext_dense"], a["context_dense_shapes"])]
    outs += [(dtypes.int64, tensor_shape.TensorShape([None, 2]))] * fs
    outs += [(t, tensor_shape.TensorShape([None])) for t in a["feature_list_sparse_types"]]
    outs += [(dtypes.int64, tensor_shape.TensorShape([2]))] * fs
    outs += [(t, tensor_shape.TensorShape([None]).concatenate(s))
             for t, s in zip(a["feature_list_dense_types"], a["feature_list_dense_shapes"])]
    return outs


def _context_dense(features, key, dtype, shape, default, name):
    dims = decoding.dims_of(shape)
    feature = decoding.feature_of(features, key)
    if feature is None:
        if default.size == 0:
            raise decoding.error("Name: %s, Context feature '%s' is required but could not "
                                  "be found." % (name, key))
        return default.reshape(dims)
    if decoding.kind_dtype(feature) != dtype:
        raise decoding.error("Name: %s, Context feature: %s.  Data types don't match. "
                              "Expected type: %s" % (name, key, decoding.TYPE_NAME[dtype]))
    values = decoding.values_of(feature, dtype)
    if len(values) != decoding.stride_of(shape):
        raise decoding.error("Name: %s, Key: %s, Index: 0.  Number of values != expected.  "
                              "values size: %d but output shape: %s"
                              % (name, key, len(values), decoding.shape_debug_string(dims)))
    return values.reshape(dims)


def _steps(lists, key):
    return list(lists.feature_list[key].feature) if key in lists.feature_list else None


def _list_dense(lists, key, dtype, shape, assumed_empty, name):
    dims = decoding.dims_of(shape)
    stride = decoding.stride_of(shape)
    steps = _steps(lists, key)
    if steps is None:
        if key not in assumed_empty:
            raise decoding.error(
                "Name: %s, Feature list '%s' is required but could not be found.  Did you "
                "mean to include it in feature_list_dense_missing_assumed_empty or "
                "feature_list_dense_defaults?" % (name, key))
        return decoding.empty(dtype, [0] + dims)
    rows = []
    for t, feature in enumerate(steps):
        found = decoding.kind_dtype(feature)
        if found is not None and found != dtype:
            raise decoding.error("Name: %s, Feature list: %s, Index: %d.  Data types don't "
                                  "match. Expected type: %s"
                                  % (name, key, t, decoding.TYPE_NAME[dtype]))
        rows.append(decoding.values_of(feature, dtype) if found else
                    decoding.empty(dtype, (0,)))
    total = sum(len(r) for r in rows)
    if stride and total % stride:
        raise decoding.error("Feature list '%s' has an unexpected number of values.  Total "
                              "values size: %d is not consistent with output shape: %s"
                              % (key, total, decoding.shape_debug_string([-1] + dims)))
    for t, r in enumerate(rows):
        if len(r) != stride:
            raise decoding.error("Name: %s, Key: %s, Index: %d.  Number of values != "
                                  "expected.  values size: %d but output shape: %s"
                                  % (name, key, t, len(r), decoding.shape_debug_string(dims)))
    out = decoding.empty(dtype, [len(rows)] + dims)
    for t, r in enumerate(rows):
        out[t, ...] = r.reshape(dims)
    return out


def _list_sparse(lists, key, dtype, name):
    steps = _steps(lists, key) or []
    rows, values = [], []
    for t, feature in enumerate(steps):
        found = decoding.kind_dtype(feature)
        if found is None:
            rows.append(0)
            continue
        if found != dtype:
            raise decoding.error("Name: %s, Feature list: %s, Index: %d.  Data types don't "
                                  "match. Expected type: %s"
                                  % (name, key, t, decoding.TYPE_NAME[dtype]))
        v = decoding.values_of(feature, dtype)
        rows.append(len(v))
        values.append(v)
    return decoding.sparse_rows(rows, values, dtype)


def _kernel(ctx, serialized, assumed_empty, *rest):
    a = ctx.attrs
    cs, cd, fs, fd = (a[k] for k in _COUNTS)
    keys = [decoding.text_of(k) for k in rest[:cs + cd + fs + fd]]
    c_sparse, c_dense = keys[:cs], keys[cs:cs + cd]
    f_sparse, f_dense = keys[cs + cd:cs + cd + fs], keys[cs + cd + fs:]
    defaults = [np.asarray(d) for d in rest[cs + cd + fs + fd:-1]]
    name = decoding.text_of(rest[-1]) or "<unknown>"
    assumed_empty = {decoding.text_of(k) for k in np.asarray(assumed_empty, object).reshape(-1)}
    message = decoding.parse_serialized(np.asarray(serialized, object).item(), sequence=True,
                                        example_name=name)
    context = [single.single_sparse(message.context, k, t, "Name: %s, Context feature: %s"
                                     % (name, k))
               for k, t in zip(c_sparse, a["context_sparse_types"])]
    dense = [_context_dense(message.context, k, t, s, d, name) for k, t, s, d in
             zip(c_dense, a["Tcontext_dense"], a["context_dense_shapes"], defaults)]
    lists = message.feature_lists
    sparse = [_list_sparse(lists, k, t, name)
              for k, t in zip(f_sparse, a["feature_list_sparse_types"])]
    dense_lists = [_list_dense(lists, k, t, s, assumed_empty, name) for k, t, s in
                   zip(f_dense, a["feature_list_dense_types"], a["feature_list_dense_shapes"])]
    return list_outputs([c[0] for c in context] + [c[1] for c in context] + [c[2] for c in context]
                 + dense + [s[0] for s in sparse] + [s[1] for s in sparse]
                 + [s[2] for s in sparse] + dense_lists)


register_op("ParseSingleSequenceExample", _shape, cpu=_kernel)
not_differentiable("ParseSingleSequenceExample")
register_cpu_only("ParseSingleSequenceExample")


def _string_consts(keys, name):
    return [convert_to_tensor(k, dtype=dtypes.string, name=name) for k in keys]


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None,
                                  example_name=None, name=None):
    """`tf.parse_single_sequence_example` -> (context dict, feature-list dict)."""
    context = features_to_raw_params(context_features or {}, [VarLenFeature, FixedLenFeature])
    lists = features_to_raw_params(sequence_features or {},
                                   [VarLenFeature, FixedLenSequenceFeature])
    if not (context.sparse_keys or context.dense_keys or lists.sparse_keys
            or lists.dense_keys):
        raise ValueError("Must provide at least one sparse key or dense key")
    assumed_empty = []
    for key, value in lists.dense_defaults.items():
        if value is not None:
            raise ValueError("Value feature_list_dense_defaults[%s] must be None" % key)
        assumed_empty.append(key)
    with name_scope(name, "ParseSingleSequenceExample", [serialized]):
        serialized = convert_to_tensor(serialized, name="serialized")
        debug_name = convert_to_tensor("" if example_name is None else example_name,
                                       dtype=dtypes.string, name="debug_name")
        inputs = ([serialized, convert_to_tensor(assumed_empty, dtype=dtypes.string,
                                                 name="feature_list_dense_missing_assumed_empty")]
                  + _string_consts(context.sparse_keys, "context_sparse_keys")
                  + _string_consts(context.dense_keys, "context_dense_keys")
                  + _string_consts(lists.sparse_keys, "feature_list_sparse_keys")
                  + _string_consts(lists.dense_keys, "feature_list_dense_keys")
                  + single.dense_defaults_vector(context) + [debug_name])
        attrs = {"Ncontext_sparse": len(context.sparse_keys),
                 "Ncontext_dense": len(context.dense_keys),
                 "Nfeature_list_sparse": len(lists.sparse_keys),
                 "Nfeature_list_dense": len(lists.dense_keys),
                 "context_sparse_types": list(context.sparse_types),
                 "Tcontext_dense": list(context.dense_types),
                 "feature_list_dense_types": list(lists.dense_types),
                 "context_dense_shapes": single.attr_shapes(context.dense_shapes),
                 "feature_list_sparse_types": list(lists.sparse_types),
                 "feature_list_dense_shapes": single.attr_shapes(lists.dense_shapes)}
        outputs = single.outputs_list(apply_op("ParseSingleSequenceExample", inputs, attrs,
                                           name or "ParseSingleSequenceExample"))
    n_context = 3 * len(context.sparse_keys) + len(context.dense_keys)
    return (single.sparse_and_dense(context, outputs[:n_context]),
            single.sparse_and_dense(lists, outputs[n_context:]))
