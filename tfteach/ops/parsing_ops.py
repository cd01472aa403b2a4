"""Parsing tf.train.Example protos in the graph: `tf.parse_example`,
`tf.parse_single_example`, `tf.parse_single_sequence_example` (TF 1.15's ops).

    features = tf.parse_single_example(serialized, {
        "image_raw": tf.FixedLenFeature([], tf.string),
        "label": tf.FixedLenFeature([], tf.int64)})

Three ops, as TF 1.15 writes them in a GraphDef (so graphs move to TensorFlow):
  - ParseExample(serialized [B], names, sparse_keys..., dense_keys..., dense_defaults...)
      -> sparse (indices [N,2], values [N], shape [2]) per VarLenFeature, then dense
         [B] + shape per FixedLen(Sequence)Feature;
  - ParseSingleExample(serialized [], dense_defaults...) with the keys as attrs
      -> sparse (indices [N,1], values, shape [1]) ..., dense shape ...;
  - ParseSingleSequenceExample(...) -> the context outputs, then the feature lists'.
A VarLenFeature comes back as a SparseTensor built from its three outputs. The kernels
read the bytes with example_decoding.py, whose errors are TensorFlow's.
"""
import re

import numpy as np

from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.framework.sparse_tensor import SparseTensor
from tfteach.ops import example_decoding as decoding
from tfteach.ops.constant_op import constant
from tfteach.ops.op_builder import apply_op
from tfteach.ops.parsing_config import (FixedLenFeature, FixedLenSequenceFeature,
                                        VarLenFeature, features_to_raw_params,
                                        prepend_none_dimension)
from tfteach.ops.shape_ops import reshape
from tfteach.kernels.cpu.shape_kernels import list_outputs
from tfteach.runtime.placement import register_cpu_only

__all__ = ["parse_example", "parse_single_example", "parse_single_sequence_example"]

# -- ParseExample ------------------------------------------------------------------------------
def _parse_example_shape(op):
    a = op._attrs
    batch = decoding.check_rank(op, 0, 1)
    batch = batch.dims[0].value if batch.ndims else None
    outs = [(dtypes.int64, tensor_shape.TensorShape([None, 2]))] * a["Nsparse"]
    outs += [(t, tensor_shape.TensorShape([None])) for t in a["sparse_types"]]
    outs += [(dtypes.int64, tensor_shape.TensorShape([2]))] * a["Nsparse"]
    outs += [(t, tensor_shape.TensorShape([batch]).concatenate(s))
             for t, s in zip(a["Tdense"], a["dense_shapes"])]
    return outs


def _batch_sparse(examples, names, key, dtype):
    rows, values = [], []
    for i, example in enumerate(examples):
        feature = decoding.feature_of(example.features, key)
        if feature is None:
            rows.append(0)
            continue
        found = decoding.kind_dtype(feature)
        if found != dtype:
            raise decoding.error("Name: %s, Key: %s, Index: %d.  Data types don't match. "
                                  "Expected type: %s, Actual type: %s"
                                  % (names[i], key, i, decoding.TYPE_NAME[dtype], decoding.TYPE_NAME[found]))
        v = decoding.values_of(feature, dtype)
        rows.append(len(v))
        values.append(v)
    indices, values, shape = decoding.sparse_rows(rows, values, dtype)
    return indices, values.astype(values.dtype if dtype == dtypes.string else dtype.np), shape


def _batch_dense(examples, names, key, dtype, shape, default):
    dims = decoding.dims_of(shape)
    stride = decoding.stride_of(shape)
    variable = decoding.is_variable(shape)
    per_example = []
    for i, example in enumerate(examples):
        feature = decoding.feature_of(example.features, key)
        if feature is None:
            if not variable and default.size == 0:
                raise decoding.error("Name: %s, Feature: %s (data type: %s) is required but "
                                      "could not be found." % (names[i], key, decoding.TYPE_NAME[dtype]))
            per_example.append(None)
            continue
        found = decoding.kind_dtype(feature)
        if found != dtype:
            raise decoding.error("Name: %s, Key: %s, Index: %d.  Data types don't match. Data "
                                  "type: %s but expected type: %s"
                                  % (names[i], key, i, decoding.TYPE_NAME[found], decoding.TYPE_NAME[dtype]))
        v = decoding.values_of(feature, dtype)
        if variable and (stride == 0 or len(v) % stride):
            raise decoding.error("Name: %s, Key: %s, Index: %d.  Number of %s values is not a "
                                  "multiple of stride length. Saw %d values but output shape "
                                  "is: %s" % (names[i], key, i, decoding.LIST_NAME[dtype], len(v),
                                              decoding.shape_debug_string(dims)))
        if not variable and len(v) != stride:
            raise decoding.error("Name: %s, Key: %s, Index: %d.  Number of %s values != "
                                  "expected.  Values size: %d but output shape: %s"
                                  % (names[i], key, i, decoding.LIST_NAME[dtype], len(v),
                                     decoding.shape_debug_string(dims)))
        per_example.append(v)
    if not variable:
        out = decoding.empty(dtype, [len(examples)] + dims)
        for i, v in enumerate(per_example):
            out[i, ...] = (default if v is None else v).reshape(dims)
        return out
    rows = max((len(v) // stride for v in per_example if v is not None), default=0)
    out = decoding.empty(dtype, [len(examples), rows * stride])
    out[...] = default.reshape(())            # the padding value
    for i, v in enumerate(per_example):
        if v is not None:
            out[i, :len(v)] = v
    return out.reshape([len(examples), rows] + dims[1:])


def _parse_example_kernel(ctx, serialized, names, *rest):
    a = ctx.attrs
    n_sparse, n_dense = a["Nsparse"], a["Ndense"]
    sparse_keys = [decoding.text_of(k) for k in rest[:n_sparse]]
    dense_keys = [decoding.text_of(k) for k in rest[n_sparse:n_sparse + n_dense]]
    defaults = [np.asarray(d) for d in rest[n_sparse + n_dense:]]
    serialized = np.asarray(serialized, dtype=object).reshape(-1)
    names = [decoding.text_of(n) for n in np.asarray(names, dtype=object).reshape(-1)]
    if names and len(names) != len(serialized):
        raise decoding.error("Expected len(names) == len(serialized), but got: %d vs. %d"
                              % (len(names), len(serialized)))
    names = names or ["<unknown>"] * len(serialized)
    examples = [decoding.parse_serialized(s) for s in serialized]
    sparse = [_batch_sparse(examples, names, k, t) for k, t in zip(sparse_keys,
                                                                     a["sparse_types"])]
    dense = [_batch_dense(examples, names, k, t, s, d) for k, t, s, d in
             zip(dense_keys, a["Tdense"], a["dense_shapes"], defaults)]
    return list_outputs([s[0] for s in sparse] + [s[1] for s in sparse] + [s[2] for s in sparse]
                 + dense)


register_op("ParseExample", _parse_example_shape, cpu=_parse_example_kernel)


# -- ParseSingleExample ------------------------------------------------------------------------
def _parse_single_example_shape(op):
    a = op._attrs
    decoding.check_rank(op, 0, 0)
    n = a["num_sparse"]
    outs = [(dtypes.int64, tensor_shape.TensorShape([None, 1]))] * n
    outs += [(t, tensor_shape.TensorShape([None])) for t in a["sparse_types"]]
    outs += [(dtypes.int64, tensor_shape.TensorShape([1]))] * n
    outs += [(t, s) for t, s in zip(a["Tdense"], a["dense_shapes"])]
    return outs


def single_sparse(features, key, dtype, where):
    feature = decoding.feature_of(features, key)
    if feature is None:
        values = decoding.empty(dtype, (0,))
    else:
        found = decoding.kind_dtype(feature)
        if found != dtype:
            raise decoding.error("%s.  Data types don't match. Expected type: %s, Actual "
                                  "type: %s" % (where, decoding.TYPE_NAME[dtype], decoding.TYPE_NAME[found]))
        values = decoding.values_of(feature, dtype)
    n = len(values)
    return np.arange(n, dtype=np.int64).reshape(n, 1), values, np.array([n], np.int64)


def _single_dense(features, key, dtype, shape, default):
    dims = decoding.dims_of(shape)
    feature = decoding.feature_of(features, key)
    variable = decoding.is_variable(shape)
    if feature is None:
        if variable:
            return decoding.empty(dtype, [0] + dims[1:])
        if default.size == 0:
            raise decoding.error("Feature: %s (data type: %s) is required but could not be "
                                  "found." % (key, decoding.TYPE_NAME[dtype]))
        return default.reshape(dims)
    found = decoding.kind_dtype(feature)
    if found != dtype:
        raise decoding.error("Key: %s.  Data types don't match. Data type: %s but expected "
                              "type: %s" % (key, decoding.TYPE_NAME[found], decoding.TYPE_NAME[dtype]))
    values = decoding.values_of(feature, dtype)
    stride = decoding.stride_of(shape)
    if variable:
        if stride == 0 or len(values) % stride:
            raise decoding.error("Error while parsing feature with key %s: number of "
                                  "elements should be divisible by %d, found %d instead"
                                  % (key, stride, len(values)))
        return values.reshape([len(values) // stride] + dims[1:])
    if len(values) != stride:
        raise decoding.error("Key: %s.  Can't parse serialized Example: Some %s_list slice "
                              "was not parsed." % (key, decoding.LIST_NAME[dtype]))
    return values.reshape(dims)


def _parse_single_example_kernel(ctx, serialized, *defaults):
    a = ctx.attrs
    example = decoding.parse_serialized(np.asarray(serialized, dtype=object).item())
    sparse = [single_sparse(example.features, k, t, "Key: %s" % k)
              for k, t in zip(a["sparse_keys"], a["sparse_types"])]
    dense = [_single_dense(example.features, k, t, s, np.asarray(d))
             for k, t, s, d in zip(a["dense_keys"], a["Tdense"], a["dense_shapes"], defaults)]
    return list_outputs([s[0] for s in sparse] + [s[1] for s in sparse] + [s[2] for s in sparse]
                 + dense)


register_op("ParseSingleExample", _parse_single_example_shape,
            cpu=_parse_single_example_kernel)

for _op_type in ("ParseExample", "ParseSingleExample"):
    not_differentiable(_op_type)
    register_cpu_only(_op_type)


# -- the Python API ------------------------------------------------------------------------------
def _key_name(key):
    return "key_" + re.sub(r"[^A-Za-z0-9_.\-/]", "_", key)


def dense_defaults_vector(params):
    """TF's `_process_raw_parameters` for dense defaults: a tensor per dense key (an empty
    one means "required"; a scalar the padding of a variable-length feature)."""
    vector = []
    for key, dtype, shape in zip(params.dense_keys, params.dense_types, params.dense_shapes):
        default = params.dense_defaults.get(key)
        if decoding.is_variable(shape):
            if default is None:
                default = convert_to_tensor("" if dtype == dtypes.string else 0, dtype=dtype)
            else:
                default = convert_to_tensor(default, dtype=dtype,
                                            name="padding_" + _key_name(key)[4:])
                default = reshape(default, [])
        elif default is None:
            default = constant([], dtype=dtype)
        elif not hasattr(default, "op"):
            default = convert_to_tensor(default, dtype=dtype, name=_key_name(key))
            default = reshape(default, decoding.dims_of(shape))
        vector.append(default)
    return vector


def sparse_and_dense(params, outputs):
    n = len(params.sparse_keys)
    sparse = [SparseTensor(ix, v, sh) for ix, v, sh in
              zip(outputs[:n], outputs[n:2 * n], outputs[2 * n:3 * n])]
    return dict(zip(params.sparse_keys + params.dense_keys, sparse + list(outputs[3 * n:])))


def outputs_list(result):
    return result if isinstance(result, list) else [result]


def attr_shapes(shapes):
    return [tensor_shape.as_shape(s) for s in shapes]


def parse_example(serialized, features, name=None, example_names=None):
    """`tf.parse_example`: a batch (a 1-D string tensor) of serialized Examples -> a dict
    of key -> dense tensor [batch] + shape, or SparseTensor [batch, max values]."""
    if not features:
        raise ValueError("Missing: features was %s." % features)
    features = prepend_none_dimension(features)
    params = features_to_raw_params(features, [VarLenFeature, FixedLenFeature,
                                               FixedLenSequenceFeature])
    with name_scope(name, "ParseExample", [serialized, example_names]):
        serialized = convert_to_tensor(serialized, name="serialized")
        names = convert_to_tensor([] if example_names is None else example_names,
                                  dtype=dtypes.string, name="names")
        sparse_keys = [convert_to_tensor(k, dtype=dtypes.string, name="sparse_keys")
                       for k in params.sparse_keys]
        dense_keys = [convert_to_tensor(k, dtype=dtypes.string, name="dense_keys")
                      for k in params.dense_keys]
        defaults = dense_defaults_vector(params)
        outputs = apply_op("ParseExample", [serialized, names] + sparse_keys + dense_keys
                           + defaults,
                           {"Nsparse": len(sparse_keys), "Ndense": len(dense_keys),
                            "sparse_types": list(params.sparse_types),
                            "Tdense": list(params.dense_types),
                            "dense_shapes": attr_shapes(params.dense_shapes)},
                           name or "ParseExample")
    return sparse_and_dense(params, outputs_list(outputs))


def parse_single_example(serialized, features, name=None, example_names=None):
    """`tf.parse_single_example`: one serialized Example (a scalar string) -> a dict of
    key -> dense tensor of the feature's shape, or a 1-D SparseTensor.

    (`example_names` is accepted for TF's signature; the one example has no name in the
    errors, as in TF's ParseSingleExample op.)"""
    if not features:
        raise ValueError("Missing: features was %s." % features)
    features = prepend_none_dimension(features)
    params = features_to_raw_params(features, [VarLenFeature, FixedLenFeature,
                                               FixedLenSequenceFeature])
    with name_scope(name, "ParseSingleExample", [serialized]):
        serialized = convert_to_tensor(serialized, name="serialized")
        defaults = dense_defaults_vector(params)
        outputs = apply_op("ParseSingleExample", [serialized] + defaults,
                           {"num_sparse": len(params.sparse_keys),
                            "sparse_keys": list(params.sparse_keys),
                            "dense_keys": list(params.dense_keys),
                            "sparse_types": list(params.sparse_types),
                            "Tdense": list(params.dense_types),
                            "dense_shapes": attr_shapes(params.dense_shapes)},
                           name or "ParseSingleExample")
    return sparse_and_dense(params, outputs_list(outputs))


from tfteach.ops.sequence_parsing import parse_single_sequence_example  # noqa: E402,F401
from tfteach.ops import parsing_v2_import as _parsing_v2_import  # noqa: E402

_parsing_v2_import.register()        # TF 2's ParseExampleV2 in GraphDefs it writes
