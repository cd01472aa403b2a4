"""Gradients of `FusedBatchNormV3` and `LRN`, as TF 1.15's `nn_grad.py` builds them.

FusedBatchNormV3's gradient is one op, `FusedBatchNormGradV3(dy, x, scale, r1, r2, r3)`,
returning d x, d scale and d offset (the formulas are in
kernels/cpu/normalization_kernels.py). In training mode r1 / r2 are the batch mean and
biased variance the forward op saved; in inference mode they are the given mean and
variance. As in TensorFlow, the gradients arriving at the op's batch_mean / batch_var
outputs are ignored (they feed the moving averages, which are not trained), and the
`mean` and `variance` inputs get None.

FusedBatchNormGradV3's own gradient (a second derivative, TF's
`_FusedBatchNormGradGrad`) rebuilds the batch-norm gradient from small ops
(`_batch_norm_grad`) and lets `tf.gradients` differentiate that.
"""
from tfteach.framework.registry import gradient
from tfteach.ops import binary_ops, reduction_ops, shape_ops, unary_ops
from tfteach.ops.constant_op import identity
from tfteach.ops.op_builder import apply_op
from tfteach.framework.eager_mode import executing_eagerly

__all__ = []


@gradient("FusedBatchNormV3")
def _fused_batch_norm_grad(op, grad_y, *unused_grads):
    x, scale = op.inputs[0], op.inputs[1]
    if op.get_attr("is_training"):
        saved = [op.outputs[3], op.outputs[4]]
    else:
        saved = [op.inputs[3], op.inputs[4]]
    attrs = {k: op.get_attr(k) for k in ("T", "U", "epsilon", "data_format", "is_training")}
    dx, dscale, doffset, _, _ = apply_op(
        "FusedBatchNormGradV3", [grad_y, x, scale] + saved + [op.outputs[5]], attrs,
        "FusedBatchNormGradV3")
    return [dx, dscale, doffset, None, None]


def _batch_norm_grad(dy, x, scale, mean, variance, epsilon, data_format, is_training):
    """(dx, dscale, doffset) of batch normalization, from differentiable ops (TF's
    `nn_grad._BatchNormGrad`): in training mode the mean and variance are x's own."""
    axes = [0, 1, 2] if data_format == "NHWC" else [0, 2, 3]
    if data_format != "NHWC":
        shape = [1, shape_ops.size(scale), 1, 1]
        scale = shape_ops.reshape(scale, shape)
        mean = shape_ops.reshape(mean, shape)
        variance = shape_ops.reshape(variance, shape)
    keep = data_format != "NHWC"
    reduce_mean, reduce_sum = reduction_ops.reduce_mean, reduction_ops.reduce_sum
    if is_training:
        mean_x = reduce_mean(x, axes, keepdims=keep)
        # (TF stops the gradient at mean_x here: harmless for this second derivative,
        # as d var / d mean = 0, but it makes the next one wrong.)
        var_x = reduce_mean(binary_ops.squared_difference(x, mean_x), axes, keepdims=keep)
        x_offset = x - mean_x
        centered_dy = dy - reduce_mean(dy, axes, keepdims=keep)
        mean_dy_x = reduce_mean(dy * x_offset, axes, keepdims=keep)
        rstd = unary_ops.rsqrt(var_x + epsilon)
        dx = scale * rstd * (centered_dy - unary_ops.reciprocal(var_x + epsilon) *
                             mean_dy_x * x_offset)
        dscale = rstd * reduce_sum(dy * x_offset, axes, keepdims=keep)
        if keep:
            dscale = shape_ops.squeeze(dscale)
    else:
        rstd = unary_ops.rsqrt(variance + epsilon)
        dscale = reduce_sum(dy * (x - mean) * rstd, axes)
        dx = dy * scale * rstd
    return dx, dscale, reduce_sum(dy, axes)


@gradient("FusedBatchNormGradV3")
def _fused_batch_norm_grad_grad(op, grad_dx, grad_dscale, grad_doffset, *unused_grads):
    from tfteach.ops.gradients_impl import gradients   # (gradients_impl imports the ops)
    # Fresh copies of the inputs: dy itself depends on x (it is the gradient of what came
    # after the batch norm), and the inner tf.gradients must not walk back through it.
    dy, x, scale = [identity(t) for t in op.inputs[:3]]
    mean, variance = op.inputs[3:5]
    if executing_eagerly():
        # Eagerly (a GradientTape differentiating this op) a tape does tf.gradients' job.
        from tfteach.eager.tape import GradientTape
        with GradientTape(persistent=True) as tape:
            tape.watch([dy, x, scale])
            grads = _batch_norm_grad(dy, x, scale, mean, variance, op.get_attr("epsilon"),
                                     op.get_attr("data_format"), op.get_attr("is_training"))
        ddy, dx, dscale = tape.gradient(list(grads), [dy, x, scale],
                                        output_gradients=[grad_dx, grad_dscale, grad_doffset])
        return [ddy, dx, dscale, None, None, None]
    grads = _batch_norm_grad(dy, x, scale, mean, variance, op.get_attr("epsilon"),
                             op.get_attr("data_format"), op.get_attr("is_training"))
    ddy, dx, dscale = gradients(list(grads), [dy, x, scale],
                                grad_ys=[grad_dx, grad_dscale, grad_doffset])
    return [ddy, dx, dscale, None, None, None]


@gradient("LRN")
def _lrn_grad(op, grad):
    attrs = {k: op.get_attr(k) for k in ("T", "depth_radius", "bias", "alpha", "beta")}
    return [apply_op("LRNGrad", [grad, op.inputs[0], op.outputs[0]], attrs, "LRNGrad")]
