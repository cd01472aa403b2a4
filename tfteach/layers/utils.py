"""Argument checks and shape arithmetic shared by the conv and pooling layers
(Keras' conv_utils, as TF 1.15 uses them)."""

__all__ = []


def normalize_data_format(value):
    """'channels_last' / 'channels_first' (any case); None means channels_last."""
    if value is None:
        return "channels_last"
    data_format = value.lower()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError("The `data_format` argument must be one of \"channels_first\", "
                         "\"channels_last\". Received: " + str(value))
    return data_format


def convert_data_format(data_format, ndim=4):
    """'channels_last' -> 'NHWC', 'channels_first' -> 'NCHW' (the tf.nn spelling)."""
    if ndim != 4:
        raise ValueError("Only 4-D inputs are supported, got %d" % ndim)
    return "NHWC" if data_format == "channels_last" else "NCHW"


def normalize_padding(value):
    """'valid' or 'same', whatever the case ('SAME' works too)."""
    padding = value.lower()
    if padding not in {"valid", "same"}:
        raise ValueError("The `padding` argument must be one of \"valid\", \"same\". "
                         "Received: " + str(value))
    return padding


def normalize_tuple(value, n, name):
    """3 -> (3, 3); (3, 2) stays; anything else is Keras' ValueError."""
    if isinstance(value, int):
        return (value,) * n
    try:
        value_tuple = tuple(value)
    except TypeError:
        raise ValueError("The `%s` argument must be a tuple of %d integers. Received: %s"
                         % (name, n, value)) from None
    if len(value_tuple) != n:
        raise ValueError("The `%s` argument must be a tuple of %d integers. Received: %s"
                         % (name, n, value))
    for single in value_tuple:
        try:
            int(single)
        except (ValueError, TypeError):
            raise ValueError("The `%s` argument must be a tuple of %d integers. Received: "
                             "%s including element %s of type %s"
                             % (name, n, value, single, type(single))) from None
    return tuple(int(v) for v in value_tuple)


def conv_output_length(input_length, filter_size, padding, stride, dilation=1):
    """Output length of a convolution or pooling along one dimension (None stays None)."""
    if input_length is None:
        return None
    dilated = filter_size + (filter_size - 1) * (dilation - 1)
    if padding == "same":
        output_length = input_length
    else:  # valid: only windows that fit entirely
        output_length = input_length - dilated + 1
    return (output_length + stride - 1) // stride


def deconv_output_length(input_length, filter_size, padding, stride):
    """Output length of a transposed convolution (the inverse of conv_output_length).

    Works on ints and on scalar tensors (the dynamic batch of a placeholder)."""
    if input_length is None:
        return None
    if padding == "valid":
        return input_length * stride + max(filter_size - stride, 0)
    return input_length * stride


_ACTIVATIONS = ("relu", "relu6", "elu", "selu", "sigmoid", "tanh", "softmax", "softplus",
                "softsign")


def get_activation(activation):
    """A callable, or Keras' names: 'relu' -> tf.nn.relu, 'linear' / None -> None."""
    if activation is None or callable(activation):
        return activation
    if activation == "linear":
        return None
    import tfteach as tf
    if activation in _ACTIVATIONS:
        return getattr(tf.nn, activation) if hasattr(tf.nn, activation) else getattr(
            tf, activation)
    raise ValueError("Unknown activation function:%s" % activation)
