"""TF 2's functions whose arguments differ from TF 1's (`import tfteach.v2 as tf`).

TensorFlow 1.15's `tf.compat.v2` (and TF 2) kept most TF 1 functions, but gave some a new
argument order, new defaults or new behaviour (the `*_v2` functions of TF's source):
`tf.argmax(x, 1, tf.int32)` asks for int32 indices in TF 2 and names the op "int32" in
TF 1; `tf.where(c, 1.0, x)` broadcasts in TF 2; `tf.math.in_top_k(targets, predictions,
k)` swaps TF 1's first two arguments; `tf.random_normal_initializer()` draws with
stddev 0.05. Each function here is TF 2's signature calling the TF 1 function with the
same ops, so its graph and numbers are tfteach's TF 1 ones; namespaces.py puts them in
the v2 namespace (top level, tf.math, tf.nn, tf.io, tf.debugging).
"""
from tfteach.framework import dtypes

__all__ = ["TOP_LEVEL", "MATH", "NN", "IO", "ASSERTS", "assert_function"]


def _tf():
    import tfteach
    return tfteach


# -- top level -------------------------------------------------------------------------------
def argmax(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002 - TF's name
    return _tf().argmax(input, axis=axis, name=name, output_type=output_type)


def argmin(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
    return _tf().argmin(input, axis=axis, name=name, output_type=output_type)


def where(condition, x=None, y=None, name=None):
    """TF 2's where: SelectV2, which broadcasts condition, x and y."""
    return _tf().where_v2(condition, x, y, name=name)


def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    return _tf().boolean_mask(tensor, mask, name=name, axis=axis)


def cond(pred, true_fn=None, false_fn=None, name=None):
    """TF 2's cond is TF 1's with strict=True: a branch's one-element list stays a list."""
    return _tf().cond(pred, true_fn=true_fn, false_fn=false_fn, strict=True, name=name)


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    return _tf().convert_to_tensor(value, dtype=dtype, name=name, dtype_hint=dtype_hint)


def expand_dims(input, axis, name=None):  # noqa: A002
    return _tf().expand_dims(input, axis=axis, name=name)


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    return _tf().gather(params, indices, validate_indices=validate_indices, name=name,
                        axis=axis, batch_dims=batch_dims)


def gather_nd(params, indices, batch_dims=0, name=None):
    return _tf().gather_nd(params, indices, name=name, batch_dims=batch_dims)


def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False,
              aggregation_method=None, stop_gradients=None, unconnected_gradients="none"):
    return _tf().gradients(ys, xs, grad_ys=grad_ys, name=name, gate_gradients=gate_gradients,
                           aggregation_method=aggregation_method,
                           stop_gradients=stop_gradients,
                           unconnected_gradients=unconnected_gradients)


def hessians(ys, xs, gate_gradients=False, aggregation_method=None, name="hessians"):
    return _tf().hessians(ys, xs, name=name, gate_gradients=gate_gradients,
                          aggregation_method=aggregation_method)


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    return _tf().pad(tensor, paddings, mode=mode, name=name, constant_values=constant_values)


def transpose(a, perm=None, conjugate=False, name="transpose"):
    return _tf().transpose(a, perm=perm, name=name, conjugate=conjugate)


def shape(input, out_type=dtypes.int32, name=None):  # noqa: A002
    return _tf().shape(input, name=name, out_type=out_type)


def size(input, out_type=dtypes.int32, name=None):  # noqa: A002
    return _tf().size(input, name=name, out_type=out_type)


def ones_like(input, dtype=None, name=None):  # noqa: A002
    return _tf().ones_like(input, dtype=dtype, name=name)


def zeros_like(input, dtype=None, name=None):  # noqa: A002
    return _tf().zeros_like(input, dtype=dtype, name=name)


def random_normal_initializer(mean=0.0, stddev=0.05, seed=None):
    """TF 2's RandomNormal: stddev 0.05 (TF 1's was 1.0); the dtype comes with the call."""
    return _tf().random_normal_initializer(mean=mean, stddev=stddev, seed=seed)


def random_uniform_initializer(minval=-0.05, maxval=0.05, seed=None):
    """TF 2's RandomUniform: [-0.05, 0.05) (TF 1's was [0, 1))."""
    return _tf().random_uniform_initializer(minval=minval, maxval=maxval, seed=seed)


def constant_initializer(value=0):
    return _tf().constant_initializer(value)


def zeros_initializer():
    return _tf().zeros_initializer()


def ones_initializer():
    return _tf().ones_initializer()


TOP_LEVEL = {f.__name__: f for f in (
    argmax, argmin, where, boolean_mask, cond, convert_to_tensor, expand_dims, gather,
    gather_nd, gradients, hessians, pad, transpose, shape, size, ones_like, zeros_like,
    random_normal_initializer, random_uniform_initializer, constant_initializer,
    zeros_initializer, ones_initializer)}


# -- tf.math ---------------------------------------------------------------------------------
def in_top_k(targets, predictions, k, name=None):
    """TF 2's order: targets first (TF 1's in_top_k takes predictions first)."""
    return _tf().nn.in_top_k(predictions, targets, k, name=name)


def confusion_matrix(labels, predictions, num_classes=None, weights=None,
                     dtype=dtypes.int32, name=None):
    return _tf().confusion_matrix(labels, predictions, num_classes=num_classes, dtype=dtype,
                                  name=name, weights=weights)


MATH = {"argmax": argmax, "argmin": argmin, "in_top_k": in_top_k,
        "confusion_matrix": confusion_matrix}


# -- tf.nn -----------------------------------------------------------------------------------
def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """No `_sentinel` in TF 2: labels and logits may be given by position."""
    return _tf().nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                             name=name)


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    return _tf().nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits,
                                                      name=name)


def moments(x, axes, shift=None, keepdims=False, name=None):
    return _tf().nn.moments(x, axes, shift=shift, name=name, keepdims=keepdims)


def embedding_lookup(params, ids, max_norm=None, name=None):
    """TF 2's partition strategy is "div" (a list of shards is split in contiguous runs)."""
    return _tf().nn.embedding_lookup(params, ids, partition_strategy="div", name=name,
                                     max_norm=max_norm)


def crelu(features, axis=-1, name=None):
    return _tf().nn.crelu(features, name=name, axis=axis)


def convolution(input, filters, strides=None, padding="VALID", data_format=None,  # noqa: A002
                dilations=None, name=None):
    return _tf().nn.convolution(input, filters, padding, strides=strides, name=name,
                                data_format=data_format, dilations=dilations)


def depthwise_conv2d(input, filter, strides, padding, data_format=None,  # noqa: A002
                     dilations=None, name=None):
    return _tf().nn.depthwise_conv2d(input, filter, strides, padding, name=name,
                                     data_format=data_format, dilations=dilations)


NN = {"in_top_k": in_top_k, "moments": moments, "embedding_lookup": embedding_lookup,
      "crelu": crelu, "convolution": convolution, "depthwise_conv2d": depthwise_conv2d,
      "sparse_softmax_cross_entropy_with_logits": sparse_softmax_cross_entropy_with_logits,
      "sigmoid_cross_entropy_with_logits": sigmoid_cross_entropy_with_logits}


# -- tf.io -----------------------------------------------------------------------------------
def parse_example(serialized, features, example_names=None, name=None):
    return _tf().io.parse_example(serialized, features, name=name,
                                  example_names=example_names)


def parse_single_example(serialized, features, example_names=None, name=None):
    return _tf().io.parse_single_example(serialized, features, name=name,
                                         example_names=example_names)


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, na_value="",
               select_cols=None, name=None):
    return _tf().io.decode_csv(records, record_defaults, field_delim=field_delim,
                               use_quote_delim=use_quote_delim, name=name,
                               na_value=na_value, select_cols=select_cols)


IO = {"parse_example": parse_example, "parse_single_example": parse_single_example,
      "decode_csv": decode_csv}


# -- tf.debugging ----------------------------------------------------------------------------
def _comparison(v1_name):
    def assert_fn(x, y, message=None, summarize=None, name=None):
        return getattr(_tf().debugging, v1_name)(x, y, summarize=summarize, message=message,
                                                 name=name)
    assert_fn.__name__ = v1_name
    assert_fn.__doc__ = "TF 2's %s: no `data` argument (the message is third)." % v1_name
    return assert_fn


def _sign_check(v1_name):
    def assert_fn(x, message=None, summarize=None, name=None):
        return getattr(_tf().debugging, v1_name)(x, summarize=summarize, message=message,
                                                 name=name)
    assert_fn.__name__ = v1_name
    assert_fn.__doc__ = "TF 2's %s: no `data` argument (the message is second)." % v1_name
    return assert_fn


ASSERTS = ("assert_equal", "assert_none_equal", "assert_less", "assert_less_equal",
           "assert_greater", "assert_greater_equal", "assert_negative", "assert_positive",
           "assert_non_negative", "assert_non_positive")


def _none_equal():
    def assert_none_equal(x, y, summarize=None, message=None, name=None):
        return _tf().debugging.assert_none_equal(x, y, summarize=summarize, message=message,
                                                 name=name)
    assert_none_equal.__doc__ = "TF 2's assert_none_equal: summarize third (sic, in TF)."
    return assert_none_equal


def assert_function(v1_name):
    """TF 2's tf.debugging.<v1_name> (and top-level tf.<v1_name>): no `data` argument."""
    if v1_name in ("assert_negative", "assert_positive", "assert_non_negative",
                   "assert_non_positive"):
        return _sign_check(v1_name)
    if v1_name == "assert_none_equal":
        return _none_equal()
    return _comparison(v1_name)
