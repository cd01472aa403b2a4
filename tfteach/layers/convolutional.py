"""`tf.layers.conv2d`, `conv2d_transpose` and their classes (TF 1.15's 2-D convolutions).

    conv2d(x, filters, kernel_size)
        kernel [kh, kw, in_channels, filters], bias [filters];
        ops Conv2D, BiasAdd, activation
    conv2d_transpose(x, filters, kernel_size, strides)
        kernel [kh, kw, filters, in_channels]  (in and out swapped: it is the gradient
        of a conv2d), bias [filters]; ops Conv2DBackpropInput ('conv2d_transpose'),
        BiasAdd, activation. 'same' padding multiplies height and width by the stride.

`padding` is 'valid' (only windows that fit) or 'same' (zero-pad so that the output
is ceil(input / stride)); `data_format` 'channels_last' is NHWC, 'channels_first' NCHW.
"""
import tfteach as tf
from tfteach.framework import tensor_shape
from tfteach.layers import base, utils

__all__ = ["Conv2D", "conv2d", "Convolution2D", "convolution2d", "Conv2DTranspose",
           "conv2d_transpose", "Convolution2DTranspose", "convolution2d_transpose"]


class Conv2D(base.Layer):
    """A 2-D convolution with `filters` output channels."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format="channels_last", dilation_rate=(1, 1), activation=None,
                 use_bias=True, kernel_initializer=None, bias_initializer=None,
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(trainable=trainable, name=name,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.filters = int(filters)
        self.kernel_size = utils.normalize_tuple(kernel_size, 2, "kernel_size")
        self.strides = utils.normalize_tuple(strides, 2, "strides")
        self.padding = utils.normalize_padding(padding)
        self.data_format = utils.normalize_data_format(data_format)
        self.dilation_rate = utils.normalize_tuple(dilation_rate, 2, "dilation_rate")
        self.activation = utils.get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer or tf.zeros_initializer()
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.input_spec = base.InputSpec(ndim=4)

    def _channel_axis(self):
        return 1 if self.data_format == "channels_first" else -1

    def _kernel_shape(self, input_dim):
        return self.kernel_size + (input_dim, self.filters)

    def build(self, input_shape):
        input_shape = tensor_shape.as_shape(input_shape)
        if input_shape.ndims != 4:
            raise ValueError("Input 0 of layer %s is incompatible with the layer: expected "
                             "ndim=4, found ndim=%s. Full shape received: %s"
                             % (self.name, input_shape.ndims, input_shape))
        input_dim = input_shape[self._channel_axis()].value
        if input_dim is None:
            raise ValueError("The channel dimension of the inputs should be defined. "
                             "Found `None`.")
        if any(s > 1 for s in self.strides) and any(d > 1 for d in self.dilation_rate):
            # TF 1.15's layer builds nn_ops.Convolution here, which refuses this pair
            raise ValueError("strides > 1 not supported in conjunction with dilation_rate > 1")
        self.kernel = self.add_weight("kernel", shape=self._kernel_shape(input_dim),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, dtype=self.dtype)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=(self.filters,),
                                        initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint, dtype=self.dtype)
        self.input_spec = base.InputSpec(ndim=4, axes={self._channel_axis(): input_dim})
        self.built = True

    def _nn_format(self):
        return utils.convert_data_format(self.data_format, 4)

    def _four(self, pair):
        """(h, w) -> the 4-long list tf.nn wants for this data format."""
        if self.data_format == "channels_first":
            return [1, 1] + list(pair)
        return [1] + list(pair) + [1]

    def _convolve(self, inputs):
        return tf.nn.conv2d(inputs, self.kernel, strides=self._four(self.strides),
                            padding=self.padding.upper(), data_format=self._nn_format(),
                            dilations=self._four(self.dilation_rate))

    def call(self, inputs):
        outputs = self._convolve(inputs)
        if self.use_bias:
            outputs = tf.nn.bias_add(outputs, self.bias, data_format=self._nn_format())
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape):
        shape = tensor_shape.as_shape(input_shape).as_list()
        space = shape[2:] if self.data_format == "channels_first" else shape[1:3]
        new_space = [utils.conv_output_length(space[i], self.kernel_size[i], self.padding,
                                              self.strides[i], self.dilation_rate[i])
                     for i in range(2)]
        if self.data_format == "channels_first":
            return tensor_shape.TensorShape([shape[0], self.filters] + new_space)
        return tensor_shape.TensorShape([shape[0]] + new_space + [self.filters])


def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
           data_format="channels_last", dilation_rate=(1, 1), activation=None,
           use_bias=True, kernel_initializer=None, bias_initializer=None,
           kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
           kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
           reuse=None):
    """A 2-D convolution layer; note padding defaults to 'valid' (tf.nn has no default)."""
    layer = Conv2D(filters=filters, kernel_size=kernel_size, strides=strides,
                   padding=padding, data_format=data_format, dilation_rate=dilation_rate,
                   activation=activation, use_bias=use_bias,
                   kernel_initializer=kernel_initializer,
                   bias_initializer=bias_initializer or tf.zeros_initializer(),
                   kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                   activity_regularizer=activity_regularizer,
                   kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                   trainable=trainable, name=name, _reuse=reuse, _scope=name)
    return layer.apply(inputs)


class Conv2DTranspose(Conv2D):
    """The transpose (gradient) of a convolution: upsamples by `strides`."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format="channels_last", activation=None, use_bias=True,
                 kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, activation=activation,
                         use_bias=use_bias, kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint,
                         bias_constraint=bias_constraint, trainable=trainable, name=name,
                         **kwargs)

    def _kernel_shape(self, input_dim):
        # Output channels come before input channels: this kernel is used backwards.
        return self.kernel_size + (self.filters, input_dim)

    def _convolve(self, inputs):
        # The output's height and width depend on the input's; the batch may be
        # unknown until run time, so the output shape is a tensor (as in TF).
        dynamic = tf.shape(inputs)
        h_axis, w_axis = (2, 3) if self.data_format == "channels_first" else (1, 2)
        out_h = utils.deconv_output_length(dynamic[h_axis], self.kernel_size[0],
                                           self.padding, self.strides[0])
        out_w = utils.deconv_output_length(dynamic[w_axis], self.kernel_size[1],
                                           self.padding, self.strides[1])
        if self.data_format == "channels_first":
            output_shape = (dynamic[0], self.filters, out_h, out_w)
        else:
            output_shape = (dynamic[0], out_h, out_w, self.filters)
        outputs = tf.nn.conv2d_transpose(inputs, self.kernel, tf.stack(output_shape),
                                         strides=self._four(self.strides),
                                         padding=self.padding.upper(),
                                         data_format=self._nn_format())
        outputs.set_shape(self.compute_output_shape(inputs.get_shape()))
        return outputs

    def compute_output_shape(self, input_shape):
        shape = tensor_shape.as_shape(input_shape).as_list()
        space = shape[2:] if self.data_format == "channels_first" else shape[1:3]
        new_space = [utils.deconv_output_length(space[i], self.kernel_size[i],
                                                self.padding, self.strides[i])
                     for i in range(2)]
        if self.data_format == "channels_first":
            return tensor_shape.TensorShape([shape[0], self.filters] + new_space)
        return tensor_shape.TensorShape([shape[0]] + new_space + [self.filters])


def conv2d_transpose(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
                     data_format="channels_last", activation=None, use_bias=True,
                     kernel_initializer=None, bias_initializer=None,
                     kernel_regularizer=None, bias_regularizer=None,
                     activity_regularizer=None, kernel_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """A transposed 2-D convolution ("deconvolution") layer."""
    layer = Conv2DTranspose(filters=filters, kernel_size=kernel_size, strides=strides,
                            padding=padding, data_format=data_format,
                            activation=activation, use_bias=use_bias,
                            kernel_initializer=kernel_initializer,
                            bias_initializer=bias_initializer or tf.zeros_initializer(),
                            kernel_regularizer=kernel_regularizer,
                            bias_regularizer=bias_regularizer,
                            activity_regularizer=activity_regularizer,
                            kernel_constraint=kernel_constraint,
                            bias_constraint=bias_constraint, trainable=trainable,
                            name=name, _reuse=reuse, _scope=name)
    return layer.apply(inputs)


# TF 1.15's aliases.
Convolution2D = Conv2D
convolution2d = conv2d
Convolution2DTranspose = Deconvolution2D = Conv2DTranspose
convolution2d_transpose = deconvolution2d = conv2d_transpose
