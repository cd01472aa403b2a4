"""Gradients of `FusedBatchNormV3` and `LRN`, as TF 1.15's `nn_grad.py` builds them.

FusedBatchNormV3's gradient is one op, `FusedBatchNormGradV3(dy, x, scale, r1, r2, r3)`,
returning d x, d scale and d offset (the formulas are in
kernels/cpu/normalization_kernels.py). In training mode r1 / r2 are the batch mean and
biased variance the forward op saved; in inference mode they are the given mean and
variance. As in TensorFlow, the gradients arriving at the op's batch_mean / batch_var
outputs are ignored (they feed the moving averages, which are not trained), and the
`mean` and `variance` inputs get None.
"""
from tfteach.framework.registry import gradient
from tfteach.ops.op_builder import apply_op

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


@gradient("LRN")
def _lrn_grad(op, grad):
    attrs = {k: op.get_attr(k) for k in ("T", "depth_radius", "bias", "alpha", "beta")}
    return [apply_op("LRNGrad", [grad, op.inputs[0], op.outputs[0]], attrs, "LRNGrad")]
