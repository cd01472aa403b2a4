"""TF-Slim's layer functions (`tf.contrib.layers.conv2d`, `slim.fully_connected`, ...).

They wrap the tf.layers classes, with slim's habits:
    - a variable scope per call: 'Conv', 'Conv_1', 'fully_connected', 'BatchNorm', ...
      (or `scope=`), so variables are 'Conv/weights' and 'Conv/biases' (tf.layers says
      kernel / bias), also in the MODEL_VARIABLES collection;
    - ReLU by default (activation_fn=relu; pass None for a linear layer);
    - conv2d pads 'SAME' by default; max_pool2d / avg_pool2d stride 2, 'VALID';
    - dropout takes keep_prob and is_training=True by default;
    - normalizer_fn (e.g. slim.batch_norm) replaces the bias;
    - every function is @add_arg_scope, so slim.arg_scope can set its defaults.
"""
import tfteach as tf
from tfteach.contrib.layers.arg_scope import add_arg_scope
from tfteach.contrib.layers.initializers import xavier_initializer
from tfteach.framework import dtypes
from tfteach.framework.graph import GraphKeys
from tfteach.framework.graph_functions import name_scope
from tfteach.layers import convolutional as conv_layers
from tfteach.layers import core as core_layers
from tfteach.layers import normalization as norm_layers
from tfteach.nn.activations import relu
from tfteach.ops import variable_scope as vs
from tfteach.ops.init_ops import zeros_initializer

__all__ = ["conv2d", "convolution2d", "conv2d_transpose", "convolution2d_transpose",
           "fully_connected", "flatten", "max_pool2d", "avg_pool2d", "dropout",
           "batch_norm"]   # variable / model_variable: slim's (TF's contrib.framework)


# -- variables -----------------------------------------------------------------------------
@add_arg_scope
def variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
             trainable=True, collections=None, caching_device=None, device=None,
             partitioner=None, custom_getter=None, use_resource=None, **kwargs):
    """`tf.get_variable` that arg_scope can configure (collections default GLOBAL)."""
    collections = list(dict.fromkeys(collections if collections is not None
                                     else [GraphKeys.GLOBAL_VARIABLES]))
    getter = vs.get_variable if custom_getter is None else custom_getter
    with tf.device(device or ""):
        return getter(name, shape=shape, dtype=dtype, initializer=initializer,
                      regularizer=regularizer, trainable=trainable, collections=collections,
                      caching_device=caching_device, **kwargs)


@add_arg_scope
def model_variable(name, shape=None, dtype=dtypes.float32, initializer=None, regularizer=None,
                   trainable=True, collections=None, caching_device=None, device=None,
                   partitioner=None, custom_getter=None, use_resource=None, **kwargs):
    """A variable that is part of the model: GLOBAL_VARIABLES and MODEL_VARIABLES."""
    collections = list(collections or []) + [GraphKeys.GLOBAL_VARIABLES,
                                             GraphKeys.MODEL_VARIABLES]
    return variable(name, shape=shape, dtype=dtype, initializer=initializer,
                    regularizer=regularizer, trainable=trainable, collections=collections,
                    caching_device=caching_device, device=device,
                    custom_getter=custom_getter, **kwargs)


def _slim_getter(getter, name, collections=None, **kwargs):
    """Layer weights as slim names them: kernel -> weights, bias -> biases."""
    name = {"kernel": "weights", "bias": "biases"}.get(name, name)
    kwargs.pop("constraint", None)
    return model_variable(name, collections=collections, custom_getter=getter, **kwargs)


def _add_variable_to_collections(var, variables_collections, name):
    """`variables_collections`: a list of names, or a dict {'weights': [...], ...}."""
    if isinstance(variables_collections, dict):
        variables_collections = variables_collections.get(name)
    if isinstance(variables_collections, str):
        variables_collections = [variables_collections]
    for collection in variables_collections or ():
        if var not in tf.get_collection(collection):
            tf.add_to_collection(collection, var)


def _collect_named_outputs(outputs_collections, alias, outputs):
    if outputs_collections:
        outputs.alias = alias
        tf.add_to_collections(outputs_collections, outputs)
    return outputs


def _finish(layer, outputs, sc, activation_fn, normalizer_fn, normalizer_params,
            variables_collections, outputs_collections):
    _add_variable_to_collections(layer.kernel, variables_collections, "weights")
    if layer.use_bias:
        _add_variable_to_collections(layer.bias, variables_collections, "biases")
    if normalizer_fn is not None:
        outputs = normalizer_fn(outputs, **(normalizer_params or {}))
    if activation_fn is not None:
        outputs = activation_fn(outputs)
    return _collect_named_outputs(outputs_collections, sc.name, outputs)


def _data_format(data_format):
    if data_format not in (None, "NHWC", "NCHW"):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    return "channels_first" if data_format == "NCHW" else "channels_last"


# -- layers ----------------------------------------------------------------------------------
@add_arg_scope
def conv2d(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None,
           rate=1, activation_fn=relu, normalizer_fn=None, normalizer_params=None,
           weights_initializer=xavier_initializer(), weights_regularizer=None,
           biases_initializer=zeros_initializer(), biases_regularizer=None, reuse=None,
           variables_collections=None, outputs_collections=None, trainable=True,
           scope=None):
    """A 2-D convolution in scope 'Conv': weights [kh, kw, in, num_outputs], biases."""
    with vs.variable_scope(scope, "Conv", [inputs], reuse=reuse) as sc:
        inputs = tf.convert_to_tensor(inputs)
        layer = conv_layers.Conv2D(
            filters=num_outputs, kernel_size=kernel_size, strides=stride, padding=padding,
            data_format=_data_format(data_format), dilation_rate=rate, activation=None,
            use_bias=not normalizer_fn and biases_initializer is not None,
            kernel_initializer=weights_initializer, bias_initializer=biases_initializer,
            kernel_regularizer=weights_regularizer, bias_regularizer=biases_regularizer,
            trainable=trainable, name=sc.name, dtype=inputs.dtype.base_dtype, _scope=sc,
            _reuse=reuse, _custom_getter=_slim_getter)
        outputs = layer.apply(inputs)
        return _finish(layer, outputs, sc, activation_fn, normalizer_fn, normalizer_params,
                       variables_collections, outputs_collections)


convolution2d = conv2d


@add_arg_scope
def conv2d_transpose(inputs, num_outputs, kernel_size, stride=1, padding="SAME",
                     data_format="NHWC", activation_fn=relu, normalizer_fn=None,
                     normalizer_params=None, weights_initializer=xavier_initializer(),
                     weights_regularizer=None, biases_initializer=zeros_initializer(),
                     biases_regularizer=None, reuse=None, variables_collections=None,
                     outputs_collections=None, trainable=True, scope=None):
    """A transposed convolution in scope 'Conv2d_transpose': weights [kh, kw, out, in]."""
    with vs.variable_scope(scope, "Conv2d_transpose", [inputs], reuse=reuse) as sc:
        inputs = tf.convert_to_tensor(inputs)
        layer = conv_layers.Conv2DTranspose(
            filters=num_outputs, kernel_size=kernel_size, strides=stride, padding=padding,
            data_format=_data_format(data_format), activation=None,
            use_bias=not normalizer_fn and biases_initializer is not None,
            kernel_initializer=weights_initializer, bias_initializer=biases_initializer,
            kernel_regularizer=weights_regularizer, bias_regularizer=biases_regularizer,
            trainable=trainable, name=sc.name, dtype=inputs.dtype.base_dtype, _scope=sc,
            _reuse=reuse, _custom_getter=_slim_getter)
        outputs = layer.apply(inputs)
        return _finish(layer, outputs, sc, activation_fn, normalizer_fn, normalizer_params,
                       variables_collections, outputs_collections)


convolution2d_transpose = conv2d_transpose


@add_arg_scope
def fully_connected(inputs, num_outputs, activation_fn=relu, normalizer_fn=None,
                    normalizer_params=None, weights_initializer=xavier_initializer(),
                    weights_regularizer=None, biases_initializer=zeros_initializer(),
                    biases_regularizer=None, reuse=None, variables_collections=None,
                    outputs_collections=None, trainable=True, scope=None):
    """`activation_fn(inputs @ weights + biases)` in scope 'fully_connected'."""
    if not isinstance(num_outputs, int) or isinstance(num_outputs, bool):
        raise ValueError("num_outputs type should be one of [<class 'int'>], got %s."
                         % type(num_outputs))
    with vs.variable_scope(scope, "fully_connected", [inputs], reuse=reuse) as sc:
        inputs = tf.convert_to_tensor(inputs)
        layer = core_layers.Dense(
            units=num_outputs, activation=None,
            use_bias=not normalizer_fn and biases_initializer is not None,
            kernel_initializer=weights_initializer, bias_initializer=biases_initializer,
            kernel_regularizer=weights_regularizer, bias_regularizer=biases_regularizer,
            trainable=trainable, name=sc.name, dtype=inputs.dtype.base_dtype, _scope=sc,
            _reuse=reuse, _custom_getter=_slim_getter)
        outputs = layer.apply(inputs)
        return _finish(layer, outputs, sc, activation_fn, normalizer_fn, normalizer_params,
                       variables_collections, outputs_collections)


@add_arg_scope
def flatten(inputs, outputs_collections=None, scope=None):
    """[batch, ...] -> [batch, k] in name scope 'Flatten'."""
    with name_scope(scope, "Flatten", [inputs]) as sc:
        outputs = core_layers.flatten(tf.convert_to_tensor(inputs))
        return _collect_named_outputs(outputs_collections, sc, outputs)


def _pool(pool_fn, default_scope, inputs, kernel_size, stride, padding, data_format,
          outputs_collections, scope):
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    with name_scope(scope, default_scope, [inputs]) as sc:
        layer = pool_fn(pool_size=kernel_size, strides=stride, padding=padding,
                        data_format=_data_format(data_format), _scope=sc)
        outputs = layer.apply(tf.convert_to_tensor(inputs))
        return _collect_named_outputs(outputs_collections, sc, outputs)


@add_arg_scope
def max_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format="NHWC",
               outputs_collections=None, scope=None):
    """Max pooling in name scope 'MaxPool2D' (stride 2 and 'VALID' by default)."""
    return _pool(tf.layers.MaxPooling2D, "MaxPool2D", inputs, kernel_size, stride, padding,
                 data_format, outputs_collections, scope)


@add_arg_scope
def avg_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format="NHWC",
               outputs_collections=None, scope=None):
    """Average pooling in name scope 'AvgPool2D' (stride 2 and 'VALID' by default)."""
    return _pool(tf.layers.AveragePooling2D, "AvgPool2D", inputs, kernel_size, stride,
                 padding, data_format, outputs_collections, scope)


@add_arg_scope
def dropout(inputs, keep_prob=0.5, noise_shape=None, is_training=True,
            outputs_collections=None, scope=None, seed=None):
    """Keep each value with probability keep_prob — while is_training (default True!)."""
    with vs.variable_scope(scope, "Dropout", [inputs]) as sc:
        layer = core_layers.Dropout(rate=1 - keep_prob, noise_shape=noise_shape, seed=seed,
                                    name=sc.name, _scope=sc)
        outputs = layer.apply(tf.convert_to_tensor(inputs), training=is_training)
        return _collect_named_outputs(outputs_collections, sc.name, outputs)


@add_arg_scope
def batch_norm(inputs, decay=0.999, center=True, scale=False, epsilon=0.001,
               activation_fn=None, param_initializers=None, param_regularizers=None,
               updates_collections=GraphKeys.UPDATE_OPS, is_training=True, reuse=None,
               variables_collections=None, outputs_collections=None, trainable=True,
               batch_weights=None, fused=None, data_format="NHWC",
               zero_debias_moving_mean=False, scope=None, renorm=False,
               renorm_clipping=None, renorm_decay=0.99, adjustment=None):
    """Batch normalization in scope 'BatchNorm'. Note slim's defaults: no gamma
    (scale=False), decay 0.999, is_training=True; updates go to UPDATE_OPS (or, with
    updates_collections=None, run with every use of the output)."""
    if batch_weights is not None or zero_debias_moving_mean:
        raise NotImplementedError("tfteach's slim.batch_norm has no batch_weights or "
                                  "zero_debias_moving_mean")
    params_init = param_initializers or {}
    params_reg = param_regularizers or {}
    with vs.variable_scope(scope, "BatchNorm", [inputs], reuse=reuse) as sc:
        inputs = tf.convert_to_tensor(inputs)
        rank = inputs.get_shape().ndims
        # Slim normalizes a [batch, C] input with the fused kernel as [batch, 1, 1, C];
        # so does tfteach (the moving variance then tracks the unbiased variance).
        flat = rank == 2 and fused is not False
        if flat:
            shape = tf.shape(inputs)
            inputs = tf.reshape(inputs, [-1, 1, 1, inputs.get_shape()[1].value])
        layer = norm_layers.BatchNormalization(
            axis=1 if data_format == "NCHW" and not flat else -1, momentum=decay,
            epsilon=epsilon, center=center, scale=scale,
            beta_initializer=params_init.get("beta"),
            gamma_initializer=params_init.get("gamma"),
            moving_mean_initializer=params_init.get("moving_mean"),
            moving_variance_initializer=params_init.get("moving_variance"),
            beta_regularizer=params_reg.get("beta"), gamma_regularizer=params_reg.get("gamma"),
            trainable=trainable, renorm=renorm, fused=fused, adjustment=adjustment,
            name=sc.name, _scope=sc, _reuse=reuse, _custom_getter=_slim_getter)
        outputs = layer.apply(inputs, training=is_training)
        outputs = _route_updates(layer, outputs, updates_collections)
        if flat:
            outputs = tf.reshape(outputs, shape)
        for var, key in ((layer.moving_mean, "moving_mean"),
                         (layer.moving_variance, "moving_variance"),
                         (layer.beta, "beta"), (layer.gamma, "gamma")):
            if var is not None:
                _add_variable_to_collections(var, variables_collections, key)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return _collect_named_outputs(outputs_collections, sc.name, outputs)


def _route_updates(layer, outputs, updates_collections):
    """UPDATE_OPS (the layer's default), another collection, or None: run in place."""
    if updates_collections == GraphKeys.UPDATE_OPS or not layer.updates:
        return outputs
    update_ops = tf.get_collection_ref(GraphKeys.UPDATE_OPS)
    update_ops[:] = [u for u in update_ops if not any(u is n for n in layer.updates)]
    if updates_collections is None:
        with tf.control_dependencies(layer.updates):
            return tf.identity(outputs)
    tf.add_to_collections(updates_collections, layer.updates)
    return outputs

