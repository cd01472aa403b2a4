"""Keras' Conv2D and Conv2DTranspose (channels_last, as the notes use)."""
import tfteach as tf
from tfteach.keras import activations, backend
from tfteach.keras.engine.base_layer import InputSpec, Layer
from tfteach.keras.layers.weight_options import set_weight_options, weight_options_config

__all__ = ["Conv2D", "Conv2DTranspose"]


def _pair(value):
    return (int(value),) * 2 if isinstance(value, int) else tuple(int(v) for v in value)


def conv_output_length(length, kernel, padding, stride, dilation=1):
    if length is None:
        return None
    kernel = kernel + (kernel - 1) * (dilation - 1)
    length = length - kernel + 1 if padding == "valid" else length
    return (length + stride - 1) // stride


def deconv_output_length(length, kernel, padding, stride):
    if length is None:
        return None
    if padding == "valid":
        return length * stride + max(kernel - stride, 0)
    return length * stride


class _Conv(Layer):
    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format=None, dilation_rate=(1, 1), activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.filters = int(filters)
        self.kernel_size = _pair(kernel_size)
        self.strides = _pair(strides)
        self.padding = padding.lower()
        if self.padding not in ("valid", "same"):
            raise ValueError("The `padding` argument must be one of \"valid\", \"same\". "
                             "Received: " + str(padding))
        self.data_format = data_format or backend.image_data_format()
        if self.data_format != "channels_last":
            raise NotImplementedError("tfteach's Keras convolutions use channels_last")
        self.dilation_rate = _pair(dilation_rate)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        set_weight_options(self, ("kernel", "bias"), locals())
        self.input_spec = InputSpec(ndim=4)

    def _kernel_shape(self, channels):
        return self.kernel_size + (channels, self.filters)

    def build(self, input_shape):
        channels = tf.TensorShape(input_shape).as_list()[-1]
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. "
                             "Found `None`.")
        self.kernel = self.add_weight("kernel", self._kernel_shape(channels),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = (self.add_weight("bias", (self.filters,),
                                     initializer=self.bias_initializer,
                                     regularizer=self.bias_regularizer,
                                     constraint=self.bias_constraint)
                     if self.use_bias else None)
        self.built = True

    def _finish(self, outputs):
        if self.use_bias:
            outputs = tf.nn.bias_add(outputs, self.bias)
        return self.activation(outputs)

    def get_config(self):
        config = super().get_config()
        config.update({
            "filters": self.filters, "kernel_size": tuple(self.kernel_size),
            "strides": tuple(self.strides), "padding": self.padding,
            "data_format": self.data_format, "dilation_rate": tuple(self.dilation_rate),
            "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias})
        config.update(weight_options_config(self))
        return config


class Conv2D(_Conv):
    """2-D convolution: kernel [kh, kw, in_channels, filters]."""

    def call(self, inputs):
        outputs = tf.nn.conv2d(inputs, self.kernel, strides=(1,) + self.strides + (1,),
                               padding=self.padding.upper(),
                               dilations=(1,) + self.dilation_rate + (1,))
        return self._finish(outputs)

    def compute_output_shape(self, input_shape):
        n, h, w, _ = tf.TensorShape(input_shape).as_list()
        return (n, conv_output_length(h, self.kernel_size[0], self.padding,
                                      self.strides[0], self.dilation_rate[0]),
                conv_output_length(w, self.kernel_size[1], self.padding, self.strides[1],
                                   self.dilation_rate[1]), self.filters)


class Conv2DTranspose(_Conv):
    """The gradient of a convolution: kernel [kh, kw, filters, in_channels]."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 output_padding=None, data_format=None, **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, **kwargs)
        if output_padding is not None:
            raise NotImplementedError("Conv2DTranspose(output_padding=...) is not built")
        self.output_padding = None

    def _kernel_shape(self, channels):
        return self.kernel_size + (self.filters, channels)

    def call(self, inputs):
        _, h, w, _ = self.compute_output_shape(inputs.get_shape())
        batch = tf.shape(inputs)[0]
        out_shape = tf.stack([batch, h, w, self.filters])
        outputs = tf.nn.conv2d_transpose(inputs, self.kernel, out_shape,
                                         strides=(1,) + self.strides + (1,),
                                         padding=self.padding.upper())
        outputs.set_shape((None, h, w, self.filters))
        return self._finish(outputs)

    def compute_output_shape(self, input_shape):
        n, h, w, _ = tf.TensorShape(input_shape).as_list()
        return (n, deconv_output_length(h, self.kernel_size[0], self.padding,
                                        self.strides[0]),
                deconv_output_length(w, self.kernel_size[1], self.padding,
                                     self.strides[1]), self.filters)

    def get_config(self):
        config = super().get_config()
        config["output_padding"] = None
        return config


Convolution2D, Convolution2DTranspose = Conv2D, Conv2DTranspose
