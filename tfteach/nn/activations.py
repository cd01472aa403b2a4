"""Activation functions of `tf.nn`: relu, relu6, leaky_relu, elu, selu, softplus, softsign.

Each is one elementwise op, as in TensorFlow (`Relu`, `Elu`, ...), with a matching
gradient op (`ReluGrad(gradients, features)`, ...) that `tfteach/ops/nn_grad.py` uses.
`tf.nn.sigmoid` and `tf.nn.tanh` are the math ops `tf.sigmoid` / `tf.tanh`.
Kernels: `kernels/cpu/nn_kernels.py`.
"""
import numpy as np

from tfteach.framework import convert, dtypes
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import register_op
from tfteach.kernels.cpu import nn_kernels
from tfteach.ops.cast_ops import cast
from tfteach.ops.join_ops import concat
from tfteach.ops.op_builder import apply_op, same_shape_fn
from tfteach.ops.unary_ops import sigmoid, tanh
from tfteach.nn.nn_dtypes import FLOATS, REAL_NUMBERS, RELU_TYPES, check_dtype, convert_checked

__all__ = ["relu", "relu6", "leaky_relu", "elu", "selu", "softplus", "softsign", "crelu",
           "sigmoid", "tanh"]


# -- ops -------------------------------------------------------------------------------------
register_op("Relu", same_shape_fn, cpu=lambda ctx, x: nn_kernels.relu(x))
register_op("Relu6", same_shape_fn, cpu=lambda ctx, x: nn_kernels.relu6(x))
register_op("Elu", same_shape_fn, cpu=lambda ctx, x: nn_kernels.elu(x))
register_op("Selu", same_shape_fn, cpu=lambda ctx, x: nn_kernels.selu(x))
register_op("Softplus", same_shape_fn, cpu=lambda ctx, x: nn_kernels.softplus(x))
register_op("Softsign", same_shape_fn, cpu=lambda ctx, x: nn_kernels.softsign(x))
register_op("LeakyRelu", same_shape_fn,
            cpu=lambda ctx, x: nn_kernels.leaky_relu(x, ctx.attrs["alpha"]))

# The gradient ops take (gradients, features-or-outputs) of one shape.
register_op("ReluGrad", same_shape_fn, cpu=lambda ctx, g, x: nn_kernels.relu_grad(g, x))
register_op("Relu6Grad", same_shape_fn, cpu=lambda ctx, g, x: nn_kernels.relu6_grad(g, x))
register_op("EluGrad", same_shape_fn, cpu=lambda ctx, g, y: nn_kernels.elu_grad(g, y))
register_op("SeluGrad", same_shape_fn, cpu=lambda ctx, g, y: nn_kernels.selu_grad(g, y))
register_op("SoftplusGrad", same_shape_fn,
            cpu=lambda ctx, g, x: nn_kernels.softplus_grad(g, x))
register_op("SoftsignGrad", same_shape_fn,
            cpu=lambda ctx, g, x: nn_kernels.softsign_grad(g, x))
register_op("LeakyReluGrad", same_shape_fn,
            cpu=lambda ctx, g, x: nn_kernels.leaky_relu_grad(g, x, ctx.attrs["alpha"]))


def _activation(op_type, features, name, allowed, attrs=None):
    """Builds `op_type(features)` as TF's generated op wrappers do (`Relu/features`)."""
    with name_scope(name, op_type, [features]) as scope:
        x = convert_checked(features, "features", allowed)
        all_attrs = {"T": x.dtype.base_dtype}
        all_attrs.update(attrs or {})
        return apply_op(op_type, [x], all_attrs, scope)


def activation_grad(op_type, gradients, features, attrs=None, name=None):
    """`op_type(gradients, features)`: the backprop ops used by the gradient functions."""
    all_attrs = {"T": features.dtype.base_dtype}
    all_attrs.update(attrs or {})
    return apply_op(op_type, [gradients, features], all_attrs, name or op_type)


# -- tf.nn functions ---------------------------------------------------------------------------
def relu(features, name=None):
    """max(features, 0) (`Relu`)."""
    return _activation("Relu", features, name, RELU_TYPES)


def relu6(features, name=None):
    """min(max(features, 0), 6) (`Relu6`)."""
    with name_scope(name, "Relu6", [features]) as scope:
        # TF's Python wrapper converts first: None is convert_to_tensor's own ValueError
        features = convert.convert_to_tensor(features, name="features")
        return _activation("Relu6", features, scope, REAL_NUMBERS)


def elu(features, name=None):
    """features if > 0 else exp(features) - 1 (`Elu`)."""
    return _activation("Elu", features, name, FLOATS)


def selu(features, name=None):
    """scale * (features if > 0 else alpha * (exp(features) - 1)) (`Selu`)."""
    return _activation("Selu", features, name, FLOATS)


def softplus(features, name=None):
    """log(exp(features) + 1), computed without overflow (`Softplus`)."""
    return _activation("Softplus", features, name, FLOATS)


def softsign(features, name=None):
    """features / (abs(features) + 1) (`Softsign`)."""
    return _activation("Softsign", features, name, FLOATS)


def leaky_relu(features, alpha=0.2, name=None):
    """features if > 0 else alpha * features (`LeakyRelu`); integers become float32."""
    with name_scope(name, "LeakyRelu", [features, alpha]) as scope:
        x = convert.convert_to_tensor(features, name="features")
        if x.dtype.is_integer:
            x = cast(x, dtypes.float32)
        check_dtype(x.dtype, FLOATS, "features")
        if isinstance(alpha, np.ndarray):
            alpha = alpha.item()
        if convert.is_tensor(alpha):
            # alpha is an attribute: it cannot come from a tensor (TF's op-definition check)
            raise TypeError("Expected float for argument 'alpha' not %r." % (alpha,))
        # (alpha is a 32-bit float attribute in TF: 0.2 is float32(0.2) even for float64)
        return apply_op("LeakyRelu", [x], {"T": x.dtype.base_dtype,
                                           "alpha": float(np.float32(alpha))},
                        scope)


def crelu(features, name=None, axis=-1):
    """relu of `features` concatenated with relu of `-features` along `axis` (`CRelu`)."""
    with name_scope(name, "CRelu", [features]) as scope:
        x = convert.convert_to_tensor(features, name="features")
        c = concat([x, -x], axis, name=scope)
        return relu(c)
