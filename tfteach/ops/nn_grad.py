"""Gradients of the `tf.nn` ops (activations, softmax, cross entropies, l2_loss) and of
`DivNoNan` (tf.losses' safe mean), as TF 1.15's `nn_grad.py` / `math_grad.py` build them.

The fused cross entropies show why fusing pays: `SoftmaxCrossEntropyWithLogits`
already returns d loss / d logits = softmax(logits) - labels as its second output, so
the gradient is that output times the incoming gradient of each row's loss: no exp,
sum or log is differentiated.
"""
from tfteach.framework.registry import gradient, register_op
from tfteach.ops.broadcast_grad import BroadcastGradients
from tfteach.ops.fill_ops import zeros_like
from tfteach.ops.linalg_ops import matmul
from tfteach.ops.op_builder import apply_op, constant_value, same_shape_fn
from tfteach.ops.reduction_ops import reduce_sum
from tfteach.ops.shape_ops import expand_dims, squeeze
from tfteach.ops.unary_ops import abs as abs_, exp, sign
from tfteach.ops.where_ops import where
from tfteach.nn.activations import activation_grad
from tfteach.nn.softmax_ops import log_softmax, softmax
from tfteach.losses.safe_div import div_no_nan

__all__ = []


# -- activations -------------------------------------------------------------------------------
@gradient("Relu")
def _relu_grad(op, grad):
    return [activation_grad("ReluGrad", grad, op.outputs[0])]


@gradient("ReluGrad")
def _relu_grad_grad(op, grad):
    x = op.inputs[1]
    return [activation_grad("ReluGrad", grad, x), zeros_like(x)]


@gradient("Relu6")
def _relu6_grad(op, grad):
    return [activation_grad("Relu6Grad", grad, op.outputs[0])]


@gradient("Relu6Grad")
def _relu6_grad_grad(op, grad):
    x = op.inputs[1]
    return [activation_grad("Relu6Grad", grad, x), zeros_like(x)]


@gradient("Elu")
def _elu_grad(op, grad):
    return [activation_grad("EluGrad", grad, op.outputs[0])]


@gradient("EluGrad")
def _elu_grad_grad(op, grad):
    elu_x = op.inputs[1]
    return [activation_grad("EluGrad", grad, elu_x),
            where(elu_x < 0, grad * op.inputs[0], zeros_like(elu_x))]


@gradient("Selu")
def _selu_grad(op, grad):
    return [activation_grad("SeluGrad", grad, op.outputs[0])]


@gradient("SeluGrad")
def _selu_grad_grad(op, grad):
    selu_x = op.inputs[1]
    return [activation_grad("SeluGrad", grad, selu_x),
            where(selu_x < 0.0, grad * op.inputs[0], zeros_like(selu_x))]


@gradient("Softplus")
def _softplus_grad(op, grad):
    return [activation_grad("SoftplusGrad", grad, op.inputs[0])]


@gradient("SoftplusGrad")
def _softplus_grad_grad(op, grad):
    # SoftplusGrad(dy, x) = dy * sigmoid(x): linear in dy; d sigmoid / dx written as
    # 1 / (e^-x + 2 + e^x), TF's formula (no cancellation for large |x|).
    dy, x = op.inputs
    return [activation_grad("SoftplusGrad", grad, x),
            grad * dy / (exp(-x) + 2.0 + exp(x))]


@gradient("Softsign")
def _softsign_grad(op, grad):
    return [activation_grad("SoftsignGrad", grad, op.inputs[0])]


@gradient("SoftsignGrad")
def _softsign_grad_grad(op, grad):
    # SoftsignGrad(dy, x) = dy / (1 + |x|)^2, so d/dx = -2 dy sign(x) / (1 + |x|)^3.
    # (TF 1.15 has no gradient here; tf.hessians of softsign needs it.)
    dy, x = op.inputs
    denom = 1.0 + abs_(x)
    return [activation_grad("SoftsignGrad", grad, x),
            grad * dy * -2.0 * sign(x) / (denom * denom * denom)]


@gradient("LeakyRelu")
def _leaky_relu_grad(op, grad):
    return [activation_grad("LeakyReluGrad", grad, op.inputs[0],
                            {"alpha": op.get_attr("alpha")})]


@gradient("LeakyReluGrad")
def _leaky_relu_grad_grad(op, grad):
    x = op.inputs[1]
    return [activation_grad("LeakyReluGrad", grad, x, {"alpha": op.get_attr("alpha")}),
            zeros_like(x)]


# -- softmax -------------------------------------------------------------------------------------
@gradient("Softmax")
def _softmax_grad(op, grad_softmax):
    # d softmax_i / d x_j = s_i (delta_ij - s_j), so the gradient is (g - sum(g * s)) * s.
    s = op.outputs[0]
    sum_channels = reduce_sum(grad_softmax * s, -1, keepdims=True)
    return [(grad_softmax - sum_channels) * s]


@gradient("LogSoftmax")
def _log_softmax_grad(op, grad):
    # d log_softmax_i / d x_j = delta_ij - s_j.
    s = exp(op.outputs[0])
    return [grad - reduce_sum(grad, -1, keepdims=True) * s]


# -- cross entropies ---------------------------------------------------------------------------
def _broadcast_mul(vec, mat):
    """Multiplies row i of `mat` by vec[i]."""
    return expand_dims(vec, -1) * mat


def _is_zero(g):
    """TF's test for an output gradient that is known to be zero (unused output)."""
    if g.op.type in ("ZerosLike", "Zeros"):
        return True
    value = constant_value(g)
    return value is not None and (value == 0).all()


@gradient("SoftmaxCrossEntropyWithLogits")
def _softmax_xent_grad(op, grad_loss, grad_grad):
    # grad_loss: the gradient of each row's loss; the op's backprop output is the
    # derivative of the loss with respect to the logits.
    softmax_grad = op.outputs[1]
    grad = _broadcast_mul(grad_loss, softmax_grad)
    logits = op.inputs[0]
    # d loss / d labels = -log_softmax(logits).
    labels_grad = _broadcast_mul(grad_loss, -log_softmax(logits))
    if grad_grad is not None and not _is_zero(grad_grad):
        # Someone differentiated the backprop output itself (a second derivative):
        # backprop = softmax(logits) - labels, whose derivative is softmax's for the
        # logits and -1 for the labels. TF 1.15 forgets the labels' part (TF issue
        # #26495: hypergradients through soft labels are wrong there); tfteach adds it.
        s = softmax(logits)
        grad += ((grad_grad - squeeze(matmul(expand_dims(grad_grad, 1), expand_dims(s, 2)),
                                      axis=1)) * s)
        labels_grad = labels_grad - grad_grad
    return [grad, labels_grad]


_SPARSE_XENT_SECOND_DERIVATIVE = (
    "Currently there is no way to take the second derivative of "
    "sparse_softmax_cross_entropy_with_logits due to the fused implementation's "
    "interaction with tf.gradients()")

register_op("PreventGradient", same_shape_fn, cpu=lambda ctx, x: x)


@gradient("PreventGradient")
def _prevent_gradient_grad(op, _):
    raise LookupError("Gradient explicitly disabled. Reason: %s" % op.get_attr("message"))


def _prevent_gradient(x, message):
    return apply_op("PreventGradient", [x], {"T": x.dtype.base_dtype, "message": message},
                    name="PreventGradient")


@gradient("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_softmax_xent_grad(op, grad_loss, _):
    # The backprop output already is softmax - onehot(labels); the integer labels get none.
    backprop = _prevent_gradient(op.outputs[1], _SPARSE_XENT_SECOND_DERIVATIVE)
    return [_broadcast_mul(grad_loss, backprop), None]


# -- l2_loss, div_no_nan -----------------------------------------------------------------------
@gradient("L2Loss")
def _l2_loss_grad(op, grad):
    # d/dt sum(t ** 2) / 2 = t.
    return [op.inputs[0] * grad]


@gradient("DivNoNan")
def _div_no_nan_grad(op, grad):
    from tfteach.ops.complex_ops import conj
    x, y = op.inputs
    bcast = BroadcastGradients(x, y)
    x, y = conj(x), conj(y)          # complex: TF's conjugate convention (no op if real)
    return [bcast.for_x(div_no_nan(grad, y)),
            bcast.for_y(grad * div_no_nan(div_no_nan(-x, y), y))]

