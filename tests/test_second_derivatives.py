"""Second derivatives: the gradient of every case of gradient_cases.py is differentiated
again (the ops a gradient builds must have correct gradients themselves, which
tf.hessians and gradient penalties need). Checked against central finite differences
of the first gradient's values, and against TensorFlow's second derivatives."""
import numpy as np
import pytest

import tfteach as tf
from gradient_cases import CASES
from gradient_check import check_gradients, check_gradients_match_tensorflow

# Op types whose second derivative raises LookupError, with the op it stops at.
REFUSED = {
    # TF 1.15 refuses too (PreventGradient, with this message)
    "SparseSoftmaxCrossEntropyWithLogits": "Gradient explicitly disabled",
    # no gradient for LRNGrad in TF 1.15 either
    "LRN": "op type: LRNGrad",
    # a loop's gradient is one WhileGrad op, not differentiable again (docs/gradients.md)
    "While": "Second-order gradient for while loops not supported",
    "Exit": "Second-order gradient for while loops not supported",
    # gradient TensorArrays add up their writes (ops/tensor_array_grad.py)
    "TensorArrayScatterV3": "Second-order gradient through a TensorArray",
    "TensorArrayReadV3": "Second-order gradient through a TensorArray",
    "TensorArrayWriteV3": "Second-order gradient through a TensorArray",
    "TensorArrayGatherV3": "Second-order gradient through a TensorArray",
    # TF 1.15's image_grad.py registers no gradient for the resize/crop gradient ops
    # (TF 2 later added one for ResizeBilinearGrad only)
    "ResizeBilinear": "op type: ResizeBilinearGrad",
    "ResizeBicubic": "op type: ResizeBicubicGrad",
    "ResizeNearestNeighbor": "op type: ResizeNearestNeighborGrad",
    "CropAndResize": "op type: CropAndResizeGrad",
}
# Where tfteach's second derivative deliberately differs from TensorFlow's.
DIFFERS_FROM_TF = {
    # TF forgets d(backprop)/d(labels) = -1 (tensorflow/tensorflow#26495)
    "SoftmaxCrossEntropyWithLogits",
    # TF 1.15 has no gradient for SoftsignGrad
    "Softsign",
    # (a third derivative of batch norm) TF's second-derivative graph computes the
    # variance around stop_gradient(mean): right for the second, wrong for the third
    "FusedBatchNormGradV3",
}


def second_order(case):
    """build(tf, *xs) = d/dxs sum(sin(y)) for the case's y: sin makes the second
    derivative of every op count, also for ops linear in x."""
    floats = [i for i, v in enumerate(case.inputs) if np.asarray(v).dtype.kind == "f"]
    wrt = case.wrt if case.wrt is not None else floats

    def build(tf, *xs):
        ys = case.build(tf, *xs)
        ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
        grads = tf.gradients([tf.sin(y) for y in ys], [xs[i] for i in wrt])
        return [g for g in grads if g is not None]
    return build, wrt


@pytest.mark.parametrize("op_type", sorted(set(CASES) - set(REFUSED)))
def test_second_derivative_matches_finite_differences(op_type):
    case = CASES[op_type]
    build, wrt = second_order(case)
    # (Cast goes through float32: its finite differences need a larger step.)
    rtol = 1e-5 if case.delta < 1e-3 else 1e-3
    check_gradients(build, case.inputs, shapes=case.shapes, wrt=wrt,
                    delta=max(case.delta, 1e-5), rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("op_type", sorted(t for t in CASES if CASES[t].tf_ref and
                                           t not in REFUSED and t not in DIFFERS_FROM_TF))
def test_second_derivative_matches_tensorflow(op_type):
    case = CASES[op_type]
    build, wrt = second_order(case)
    inputs, rtol, atol = case.inputs, 1e-6, 1e-9
    if case.tf_float32:
        inputs = [v.astype(np.float32) if v.dtype == np.float64 else v for v in inputs]
        rtol, atol = 2e-4, 2e-5
    check_gradients_match_tensorflow(build, inputs, shapes=case.shapes, wrt=wrt,
                                     rtol=rtol, atol=atol)


@pytest.mark.parametrize("op_type", sorted(REFUSED))
def test_refused_second_derivatives_raise(op_type):
    case = CASES[op_type]
    build, wrt = second_order(case)
    with pytest.raises(LookupError, match=REFUSED[op_type]):
        check_gradients(build, case.inputs, shapes=case.shapes, wrt=wrt)


def test_soft_label_hypergradient_is_exact_unlike_tensorflows():
    # d/dlabels of d loss / d logits: finite differences agree with tfteach, and
    # TensorFlow's value differs (it leaves out -grad_grad), as tensorflow#26495 reports.
    case = CASES["SoftmaxCrossEntropyWithLogits"]
    build, wrt = second_order(case)
    ours = check_gradients(build, case.inputs, wrt=wrt, rtol=1e-5, atol=1e-6)
    with pytest.raises(AssertionError, match="input 0 differs from TensorFlow"):
        check_gradients_match_tensorflow(build, case.inputs, wrt=wrt)
    assert ours[0] is not None


@pytest.mark.parametrize("is_training", [True, False])
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_fused_batch_norm_second_derivatives(is_training, data_format):
    def build(tf, x, scale, offset):
        mean = None if is_training else tf.constant([0.1, -0.2, 0.3], x.dtype)
        variance = None if is_training else tf.constant([1.5, 0.7, 1.1], x.dtype)
        y = tf.nn.fused_batch_norm(x, scale, offset, mean=mean, variance=variance,
                                   is_training=is_training, data_format=data_format)[0]
        return tf.gradients(tf.reduce_sum(tf.sin(y)), [x, scale, offset])
    rng = np.random.RandomState(5)
    shape = (2, 2, 2, 3) if data_format == "NHWC" else (2, 3, 2, 2)
    inputs = [rng.uniform(-1, 1, shape), rng.uniform(0.5, 2.0, 3), rng.uniform(-1, 1, 3)]
    check_gradients(build, inputs, rtol=1e-5, atol=1e-6)
    if data_format == "NHWC":     # (TF's CPU kernels: float32 only)
        check_gradients_match_tensorflow(build, [v.astype(np.float32) for v in inputs],
                                         rtol=2e-4, atol=2e-5)
