"""One finite-difference case per op type with a registered gradient (test_gradient_coverage).

CASES[op_type] = Case(build, inputs, ...): `build(tf, *xs)` is a program that uses an op
of that type between its float inputs and its result (the test checks that the op's
gradient function really ran), written against the TF1 API so that it also runs on
TensorFlow (`tf_ref=False` where it uses a tfteach-only op). Inputs are float64 and
away from kinks; the detailed tests of each family stay in test_*_grad.py and friends.

The gradient ops themselves (`TanhGrad`, `ReluGrad`, `MaxPoolGrad`, ...) are reached as
second derivatives: `second(f)` builds d/dx (u . f(x)) = FGrad(u, x), differentiated
with respect to both u and x.
"""
import numpy as np

R = np.random.RandomState(7)


def rand(*shape, low=-1.0, high=1.0):
    return R.uniform(low, high, shape)


def away(*shape, low=0.3, high=1.5):
    """Values with |v| in [low, high], random signs: away from kinks at 0."""
    return R.uniform(low, high, shape) * np.where(R.rand(*shape) < 0.5, -1.0, 1.0)


def pos(*shape):
    return R.uniform(0.5, 2.0, shape)


class Case:
    def __init__(self, build, inputs, shapes=None, wrt=None, tf_ref=True, delta=1e-6,
                 rtol=1e-6, atol=1e-7, tf_float32=False):
        self.build, self.inputs, self.shapes, self.wrt = build, inputs, shapes, wrt
        self.tf_float32 = tf_float32      # TF's kernel has no float64: compare in float32
        self.tf_ref, self.delta, self.rtol, self.atol = tf_ref, delta, rtol, atol


def second(f):
    """build(tf, x, u) = the gradient of sum(u * f(x)) with respect to x."""
    return lambda tf, x, u: tf.gradients(f(tf, x), x, grad_ys=u)[0]


def _hand_built(op_type, *extra_inputs):
    """A control-flow op built by hand, outside a loop (its kernel forwards its input)."""
    def build(tf, x):
        from tfteach.ops.op_builder import apply_op
        return apply_op(op_type, [x * x], {"T": x.dtype}) * 3.0
    return build


def _array(size, element_shape):
    """(handle, flow) of a new float64 TensorArray (TensorArrayV3), built by hand."""
    import tfteach as tf
    from tfteach.ops.op_builder import apply_op
    return apply_op("TensorArrayV3", [tf.constant(size)], {
        "dtype": tf.float64, "element_shape": tf.TensorShape(element_shape),
        "dynamic_size": False, "clear_after_read": True})


def _array_scatter_read(x):
    """x's rows scattered into an array, two of them read back and combined."""
    import tfteach as tf
    from tfteach.ops.op_builder import apply_op
    handle, flow = _array(3, [2])
    flow = apply_op("TensorArrayScatterV3", [handle, tf.constant([2, 0, 1]), x, flow],
                    {"T": tf.float64})
    first = apply_op("TensorArrayReadV3", [handle, tf.constant(0), flow],
                     {"dtype": tf.float64})
    last = apply_op("TensorArrayReadV3", [handle, tf.constant(2), flow],
                    {"dtype": tf.float64})
    return first * last + tf.sin(first)


def _array_write_gather(x):
    """Two functions of x written into an array, gathered back in the other order."""
    import tfteach as tf
    from tfteach.ops.op_builder import apply_op
    handle, flow = _array(2, [2])
    flow = apply_op("TensorArrayWriteV3", [handle, tf.constant(0), x * x, flow],
                    {"T": tf.float64})
    flow = apply_op("TensorArrayWriteV3", [handle, tf.constant(1), tf.sin(x), flow],
                    {"T": tf.float64})
    return apply_op("TensorArrayGatherV3", [handle, tf.constant([1, 0]), flow],
                    {"dtype": tf.float64, "element_shape": tf.TensorShape([2])})


def _scale_shift(op_type):
    # The random op's final affine step on fixed "random" values: d/d(scale, shift).
    def build(tf, values, a, b):
        from tfteach.ops.op_builder import apply_op
        return apply_op(op_type, [values, a, b], {"T": values.dtype})
    return build


def _normalized(*shape):
    p = pos(*shape)
    return p / p.sum(-1, keepdims=True)


def _conv_input():
    return rand(2, 5, 5, 3)


IMG = rand(1, 4, 4, 2)
U_POOL = rand(1, 2, 2, 2)

CASES = {
    # -- unary math ---------------------------------------------------------------------
    "Abs": Case(lambda tf, x: tf.abs(x), [away(2, 3)]),
    "Acos": Case(lambda tf, x: tf.acos(x), [rand(5, low=-0.9, high=0.9)]),
    "Asin": Case(lambda tf, x: tf.asin(x), [rand(5, low=-0.9, high=0.9)]),
    "Atan": Case(lambda tf, x: tf.atan(x), [rand(5)]),
    "Cos": Case(lambda tf, x: tf.cos(x), [rand(5)]),
    "Sin": Case(lambda tf, x: tf.sin(x), [rand(5)]),
    "Tan": Case(lambda tf, x: tf.tan(x), [rand(5)]),
    "Exp": Case(lambda tf, x: tf.exp(x), [rand(5)]),
    "Expm1": Case(lambda tf, x: tf.expm1(x), [rand(5)]),
    "Log": Case(lambda tf, x: tf.log(x), [pos(5)]),
    "Log1p": Case(lambda tf, x: tf.log1p(x), [rand(5, low=-0.5, high=2.0)]),
    "Neg": Case(lambda tf, x: -x, [rand(5)]),
    "Reciprocal": Case(lambda tf, x: tf.reciprocal(x), [away(5)]),
    "Rsqrt": Case(lambda tf, x: tf.rsqrt(x), [pos(5)]),
    "Sqrt": Case(lambda tf, x: tf.sqrt(x), [pos(5)]),
    "Square": Case(lambda tf, x: tf.square(x), [rand(5)]),
    "Sign": Case(lambda tf, x: tf.sign(x) * x, [away(5)]),
    "Sigmoid": Case(lambda tf, x: tf.sigmoid(x), [rand(5)]),
    "Tanh": Case(lambda tf, x: tf.tanh(x), [rand(5)]),
    "Softplus": Case(lambda tf, x: tf.nn.softplus(x), [rand(5)]),
    "Softsign": Case(lambda tf, x: tf.nn.softsign(x), [away(5)]),
    "Relu": Case(lambda tf, x: tf.nn.relu(x), [away(6)]),
    "Relu6": Case(lambda tf, x: tf.nn.relu6(x * 5.0), [away(8)]),
    "Elu": Case(lambda tf, x: tf.nn.elu(x), [away(6)]),
    "Selu": Case(lambda tf, x: tf.nn.selu(x), [away(6)]),
    "LeakyRelu": Case(lambda tf, x: tf.nn.leaky_relu(x, 0.3), [away(6)]),
    # -- complex numbers, between real inputs and a real result (TF's convention) -----------
    "Complex": Case(lambda tf, x, y: tf.abs(tf.complex(x, y) * tf.complex(y, x)),
                    [away(2, 3), away(3)]),
    "Real": Case(lambda tf, x, y: tf.real(tf.exp(tf.complex(x, y))), [rand(4), rand(4)]),
    "Imag": Case(lambda tf, x, y: tf.imag(tf.exp(tf.complex(x, y))), [rand(4), rand(4)]),
    "Conj": Case(lambda tf, x, y: tf.imag(tf.conj(tf.complex(x, y)) * tf.complex(y, y)),
                 [rand(4), rand(4)]),
    "Angle": Case(lambda tf, x, y: tf.angle(tf.complex(x, y)), [away(4), away(4)]),
    "ComplexAbs": Case(lambda tf, x, y: tf.abs(tf.complex(x, y)), [away(4), rand(4)]),
    "ConjugateTranspose": Case(lambda tf, x, y: tf.imag(tf.matmul(
        tf.transpose(tf.complex(x, y), conjugate=True), tf.complex(x, x))),
        [rand(2, 3), rand(2, 3)]),
    "Diag": Case(lambda tf, x: tf.diag(x) * tf.diag(x * x + 1.0)[0:1], [rand(2, 3)]),
    "DiagPart": Case(lambda tf, x: tf.diag_part(x) ** 2, [rand(2, 3, 2, 3)]),
    # -- their gradient ops, as second derivatives -----------------------------------------
    "TanhGrad": Case(second(lambda tf, x: tf.tanh(x)), [rand(4), rand(4)]),
    "SigmoidGrad": Case(second(lambda tf, x: tf.sigmoid(x)), [rand(4), rand(4)]),
    "SqrtGrad": Case(second(lambda tf, x: tf.sqrt(x)), [pos(4), rand(4)]),
    "RsqrtGrad": Case(second(lambda tf, x: tf.rsqrt(x)), [pos(4), rand(4)]),
    "ReciprocalGrad": Case(second(lambda tf, x: tf.reciprocal(x)), [away(4), rand(4)]),
    "ReluGrad": Case(second(lambda tf, x: tf.nn.relu(x)), [away(6), rand(6)]),
    "Relu6Grad": Case(second(lambda tf, x: tf.nn.relu6(x)), [away(8) * 5.0, rand(8)]),
    "EluGrad": Case(second(lambda tf, x: tf.nn.elu(x)), [away(6), rand(6)]),
    "SeluGrad": Case(second(lambda tf, x: tf.nn.selu(x)), [away(6), rand(6)]),
    "LeakyReluGrad": Case(second(lambda tf, x: tf.nn.leaky_relu(x, 0.3)), [away(6), rand(6)]),
    "SoftplusGrad": Case(second(lambda tf, x: tf.nn.softplus(x)), [rand(6) * 3.0, rand(6)]),
    # TF 1.15 has no gradient for SoftsignGrad (it raises LookupError): tfteach only
    "SoftsignGrad": Case(second(lambda tf, x: tf.nn.softsign(x)), [away(6), rand(6)],
                         tf_ref=False),
    # -- binary math -------------------------------------------------------------------
    "Add": Case(lambda tf, x, y: tf.add(x, y), [rand(2, 3), rand(3)]),
    "AddV2": Case(lambda tf, x, y: x + y, [rand(2, 3), rand(2, 1)]),
    "Sub": Case(lambda tf, x, y: x - y, [rand(2, 3), rand(3)]),
    "Mul": Case(lambda tf, x, y: x * y, [rand(2, 3), rand(3)]),
    "RealDiv": Case(lambda tf, x, y: x / y, [rand(2, 3), away(3)]),
    # m zeroes one denominator whatever y is: x / 0 gives 0 there, and so do both gradients
    "DivNoNan": Case(lambda tf, x, y, m: tf.div_no_nan(x, y * m),
                     [rand(2, 3), away(3), np.array([1.0, 0.0, 1.0])], wrt=[0, 1]),
    "Pow": Case(lambda tf, x, y: tf.pow(x, y), [pos(2, 3), rand(3)]),
    "Maximum": Case(lambda tf, x, y: tf.maximum(x, y), [rand(2, 3), rand(3) + 0.01]),
    "Minimum": Case(lambda tf, x, y: tf.minimum(x, y), [rand(2, 3), rand(3) + 0.01]),
    "SquaredDifference": Case(lambda tf, x, y: tf.squared_difference(x, y),
                              [rand(2, 3), rand(3)]),
    "FloorMod": Case(lambda tf, x, y: tf.floormod(x, y),
                     [rand(2, 3, low=3.1, high=3.9), rand(3, low=1.0, high=1.01)]),
    # integer-valued: None gradients, which the finite differences see as zeros
    "FloorDiv": Case(lambda tf, x, y: tf.floordiv(x, y) * x,
                     [rand(2, 3, low=3.1, high=3.9), rand(3, low=1.0, high=1.01)]),
    "TruncateDiv": Case(lambda tf, x, y: tf.truncatediv(x, y) * x,
                        [rand(2, 3, low=3.1, high=3.9), rand(3, low=1.0, high=1.01)]),
    "Select": Case(lambda tf, c, x, y: tf.where(c > 0.0, x, y),
                   [away(2, 3), rand(2, 3), rand(2, 3)], wrt=[1, 2]),
    "SelectV2": Case(lambda tf, c, x, y: tf.where_v2(c > 0.0, x, y),
                     [away(2, 3), rand(3), rand(2, 1)], wrt=[1, 2]),
    "Cast": Case(lambda tf, x: tf.cast(tf.cast(x, tf.float32) * 2.0, tf.float64),
                 [rand(4)], delta=1e-2, rtol=1e-5, atol=1e-5),
    # -- matmul, sums of tensors, pass-through ops ---------------------------------------------
    "MatMul": Case(lambda tf, a, b: tf.matmul(a, b, transpose_b=True), [rand(2, 3), rand(4, 3)]),
    "BatchMatMulV2": Case(lambda tf, a, b: tf.matmul(a, b), [rand(2, 2, 3), rand(3, 4)]),
    "AddN": Case(lambda tf, a, b: tf.add_n([a, b, a * b]), [rand(3), rand(3)]),
    "AccumulateNV2": Case(lambda tf, a, b: tf.accumulate_n([a, b, a * b]), [rand(3), rand(3)]),
    "Identity": Case(lambda tf, x: tf.identity(x) * x, [rand(3)]),
    "CheckNumerics": Case(lambda tf, x: tf.check_numerics(x * x, "checked") * x, [rand(3)]),
    "PlaceholderWithDefault": Case(
        lambda tf, x: tf.placeholder_with_default(x * x, [3]), [rand(3)]),
    "Print": Case(lambda tf, x: tf.Print(x * x, [x], "x: "), [rand(3)]),
    # -- reductions and scans ----------------------------------------------------------
    "Sum": Case(lambda tf, x: tf.reduce_sum(x, 1), [rand(2, 3)]),
    "Mean": Case(lambda tf, x: tf.reduce_mean(x, 0, keepdims=True), [rand(2, 3)]),
    "Max": Case(lambda tf, x: tf.reduce_max(x, 1), [rand(2, 3)]),
    "Min": Case(lambda tf, x: tf.reduce_min(x, 0), [rand(2, 3)]),
    "Prod": Case(lambda tf, x: tf.reduce_prod(x, 1), [away(2, 3)]),
    "ReduceLogSumExp": Case(lambda tf, x: tf.reduce_logsumexp(x, 1), [rand(2, 3)]),
    "Cumsum": Case(lambda tf, x: tf.cumsum(x, 1, exclusive=True), [rand(2, 3)]),
    "Cumprod": Case(lambda tf, x: tf.cumprod(x, 1, reverse=True), [away(2, 3)]),
    "L2Loss": Case(lambda tf, x: tf.nn.l2_loss(x), [rand(2, 3)]),
    # -- shapes and layout -------------------------------------------------------------
    "Reshape": Case(lambda tf, x: tf.reshape(x, [3, 2]), [rand(2, 3)]),
    "ExpandDims": Case(lambda tf, x: tf.expand_dims(x, 1), [rand(2, 3)]),
    "Squeeze": Case(lambda tf, x: tf.squeeze(x, [1]), [rand(2, 1, 3)]),
    "Transpose": Case(lambda tf, x: tf.transpose(x, [2, 0, 1]), [rand(2, 3, 2)]),
    "Tile": Case(lambda tf, x: tf.tile(x, [2, 3]), [rand(2, 3)]),
    "Pad": Case(lambda tf, x: tf.pad(x, [[1, 0], [0, 2]]), [rand(2, 3)]),
    "PadV2": Case(lambda tf, x: tf.pad(x, [[1, 0], [0, 2]], constant_values=1.5), [rand(2, 3)]),
    "MirrorPad": Case(lambda tf, x: tf.pad(x, [[1, 1], [0, 2]], "REFLECT"), [rand(3, 4)]),
    "MirrorPadGrad": Case(second(lambda tf, x: tf.pad(x, [[1, 1], [2, 0]], "SYMMETRIC")),
                          [rand(3, 4), rand(5, 6)]),
    "ReverseV2": Case(lambda tf, x: tf.reverse(x, [1]), [rand(2, 3)]),
    "ConcatV2": Case(lambda tf, x, y: tf.concat([x, y, x], 1), [rand(2, 3), rand(2, 1)]),
    "Pack": Case(lambda tf, x, y: tf.stack([x, y], 1), [rand(2, 3), rand(2, 3)]),
    "Unpack": Case(lambda tf, x: tf.unstack(x, axis=1)[1:], [rand(2, 3)]),
    "Split": Case(lambda tf, x: tf.split(x, 3, axis=1)[0::2], [rand(2, 6)]),
    "SplitV": Case(lambda tf, x: tf.split(x, [1, 3, 2], axis=1)[1:], [rand(2, 6)]),
    "Slice": Case(lambda tf, x: tf.slice(x, [0, 1], [2, 2]), [rand(3, 4)]),
    "StridedSlice": Case(lambda tf, x: x[1:, ::-2, None], [rand(3, 4)]),
    "StridedSliceGrad": Case(second(lambda tf, x: x[::2, 1:3]), [rand(3, 4), rand(2, 2)]),
    "GatherV2": Case(lambda tf, x, i: tf.gather(x, i, axis=1),
                     [rand(2, 3), np.array([2, 0, 2], np.int32)]),
    "GatherNd": Case(lambda tf, x, i: tf.gather_nd(x, i),
                     [rand(3, 4), np.array([[0, 1], [2, 3], [0, 1]], np.int32)]),
    "ScatterNd": Case(lambda tf, x, u, i: tf.gradients(tf.gather_nd(x, i), x, grad_ys=u)[0],
                      [rand(3, 4), rand(3, 4), np.array([[1], [0], [1]], np.int32)],
                      # TF 2.21's compat.v1 tf.gradients recurses without end on this
                      # gradient of a gradient; GatherNd's case compares the values.
                      tf_ref=False),
    "UnsortedSegmentSum": Case(lambda tf, d, s: tf.unsorted_segment_sum(d, s, 3),
                               [rand(4, 2), np.array([2, -1, 2, 0], np.int32)]),
    "Fill": Case(lambda tf, v: tf.fill([2, 3], v), [np.array(0.5)]),
    "MatrixDiag": Case(lambda tf, d: tf.matrix_diag(d), [rand(2, 3)]),
    "MatrixDiagPart": Case(lambda tf, d, u: tf.gradients(tf.matrix_diag(d), d, grad_ys=u)[0],
                           [rand(2, 3), rand(2, 3, 3)]),
    "MatrixSetDiag": Case(lambda tf, x, d: tf.matrix_set_diag(x, d), [rand(2, 3, 4), rand(2, 3)]),
    "TopKV2": Case(lambda tf, x: tf.nn.top_k(x, 2).values, [rand(2, 5)]),
    # -- neural-network ops --------------------------------------------------------------
    "Softmax": Case(lambda tf, x: tf.nn.softmax(x), [rand(2, 4)]),
    "LogSoftmax": Case(lambda tf, x: tf.nn.log_softmax(x), [rand(2, 4)]),
    "SoftmaxCrossEntropyWithLogits": Case(
        lambda tf, labels, logits: tf.nn.softmax_cross_entropy_with_logits_v2(
            labels=labels, logits=logits),
        # TF's gradient (softmax - labels) assumes each row of labels sums to 1
        [_normalized(2, 4), rand(2, 4)]),
    "SparseSoftmaxCrossEntropyWithLogits": Case(
        lambda tf, labels, logits: tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits), [np.array([3, 0], np.int32), rand(2, 4)]),
    "BiasAdd": Case(lambda tf, x, b: tf.nn.bias_add(x, b), [rand(2, 3), rand(3)]),
    "BiasAddGrad": Case(lambda tf, x, b, u: tf.gradients(tf.nn.bias_add(x, b), b,
                                                         grad_ys=u)[0],
                        [rand(2, 3), rand(3), rand(2, 3)], wrt=[2]),
    "Conv2D": Case(lambda tf, x, w: tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME"),
                   [_conv_input(), rand(3, 3, 3, 2)]),
    "Conv2DBackpropInput": Case(
        lambda tf, w, u: tf.nn.conv2d_backprop_input([2, 5, 5, 3], w, u, [1, 2, 2, 1], "SAME"),
        [rand(3, 3, 3, 2), rand(2, 3, 3, 2)]),
    "Conv2DBackpropFilter": Case(
        lambda tf, x, u: tf.nn.conv2d_backprop_filter(x, [3, 3, 3, 2], u, [1, 1, 1, 1],
                                                      "VALID"),
        [_conv_input(), rand(2, 3, 3, 2)]),
    "DepthwiseConv2dNative": Case(
        lambda tf, x, w: tf.nn.depthwise_conv2d_native(x, w, [1, 1, 1, 1], "SAME"),
        [rand(1, 4, 4, 2), rand(2, 2, 2, 2)]),
    "DepthwiseConv2dNativeBackpropInput": Case(
        lambda tf, w, u: tf.nn.depthwise_conv2d_native_backprop_input(
            [1, 4, 4, 2], w, u, [1, 1, 1, 1], "VALID"),
        [rand(2, 2, 2, 2), rand(1, 3, 3, 4)]),
    "DepthwiseConv2dNativeBackpropFilter": Case(
        lambda tf, x, u: tf.nn.depthwise_conv2d_native_backprop_filter(
            x, [2, 2, 2, 2], u, [1, 1, 1, 1], "VALID"),
        [rand(1, 4, 4, 2), rand(1, 3, 3, 4)]),
    "AvgPool": Case(lambda tf, x: tf.nn.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"), [IMG]),
    "AvgPoolGrad": Case(second(lambda tf, x: tf.nn.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1],
                                                            "VALID")), [IMG, U_POOL], wrt=[1]),
    "MaxPool": Case(lambda tf, x: tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"), [IMG]),
    "MaxPoolGrad": Case(second(lambda tf, x: tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1],
                                                            "VALID")), [IMG, U_POOL]),
    "MaxPoolGradGrad": Case(
        lambda tf, x, u, v: tf.gradients(tf.gradients(tf.nn.max_pool(
            x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"), x, grad_ys=u)[0], u, grad_ys=v)[0],
        [IMG, U_POOL, rand(*IMG.shape)], wrt=[2]),
    "FusedBatchNormV3": Case(
        lambda tf, x, scale, offset: tf.nn.fused_batch_norm(x, scale, offset)[0],
        [rand(2, 2, 2, 3), pos(3), rand(3)], rtol=1e-5, atol=1e-6, tf_float32=True),
    "FusedBatchNormGradV3": Case(
        lambda tf, x, scale, offset: tf.gradients(tf.reduce_sum(tf.sin(
            tf.nn.fused_batch_norm(x, scale, offset, data_format="NCHW")[0])), [x, scale]),
        [rand(2, 3, 2, 2), pos(3), rand(3)], rtol=1e-5, atol=1e-6, tf_float32=True),
    "LRN": Case(lambda tf, x: tf.nn.lrn(x, 2, 1.0, 0.5, 0.75), [rand(1, 2, 2, 5)],
                rtol=1e-5, atol=1e-6, tf_float32=True),
    # -- random ops' affine steps (tfteach ops: TF uses mul and add) -------------------------
    "ScaleShift": Case(_scale_shift("ScaleShift"), [rand(4), np.array(1.5), np.array(-0.5)],
                       wrt=[1, 2], tf_ref=False),
    "UniformRange": Case(_scale_shift("UniformRange"),
                         [rand(4, low=0.0, high=1.0), np.array(-1.0), np.array(2.0)],
                         wrt=[1, 2], tf_ref=False),
    # -- control flow --------------------------------------------------------------------
    "Switch": Case(lambda tf, p, x: tf.cond(p, lambda: x * x, lambda: tf.sin(x)),
                   [np.array(True), rand(3)]),
    "Merge": Case(lambda tf, p, x: tf.cond(p, lambda: x * x, lambda: tf.sin(x)),
                  [np.array(False), rand(3)]),
    "While": Case(lambda tf, x: tf.while_loop(lambda i, y: i < 3,
                                              lambda i, y: (i + 1, tf.sin(y) * x), [0, x])[1],
                  [rand(3)]),
    "Exit": Case(lambda tf, x: tf.while_loop(lambda i, y: i < 2,
                                             lambda i, y: (i + 1, y * x), [0, x])[1],
                 [rand(3)]),
    # A body's NextIteration is never walked by tf.gradients (the While gradient starts
    # at its input); built by hand, it is the identity TF's gradient treats it as.
    "NextIteration": Case(_hand_built("NextIteration"), [rand(3)], tf_ref=False),
    # fixed inputs: drawing from R here would change the cases after it
    "SparseToDense": Case(lambda tf, v, d: tf.sparse_to_dense([[0, 1], [1, 2]], [2, 3], v, d),
                          [np.array([0.3, -0.7]), np.array(0.2)]),
    "ReverseSequence": Case(lambda tf, x: tf.reverse_sequence(x, [3, 0, 1], seq_axis=1,
                                                              batch_axis=0),
                            [np.arange(24.0).reshape(3, 4, 2) / 10 - 1]),
    "DynamicPartition": Case(lambda tf, x: tf.dynamic_partition(x, [1, 0, 1], 2)[1] * [[1.0],
                                                                                     [2.0]],
                             [np.arange(6.0).reshape(3, 2) / 5 - 0.4]),
    "DynamicStitch": Case(lambda tf, a, b: tf.dynamic_stitch([[0, 2], [1]], [a, b]),
                          [np.array([[0.3, -0.2], [0.5, 0.1]]), np.array([[-0.6, 0.7]])]),
    # tf.image's resizes compute in float32 (TF's kernels too): the resize is linear, so a
    # large step is exact but for that rounding
    "ResizeBilinear": Case(lambda tf, x: tf.image.resize_bilinear(x, [5, 3]),
                           [np.arange(24.0).reshape(1, 3, 4, 2) / 10 - 1], delta=1e-2,
                           rtol=1e-4, atol=1e-4),
    "ResizeNearestNeighbor": Case(lambda tf, x: tf.image.resize_nearest_neighbor(x, [5, 7]),
                                  [np.arange(24.0).reshape(1, 3, 4, 2) / 10 - 1], delta=1e-3),
    "ResizeBicubic": Case(lambda tf, x: tf.image.resize_bicubic(x, [5, 7]),
                          [np.arange(24.0).reshape(1, 3, 4, 2) / 10 - 1], delta=1e-2,
                          rtol=1e-4, atol=1e-4),
    # with respect to the image and to the boxes (kept away from pixel edges, where the
    # bilinear weights have kinks); float32 inside, as TF's kernels
    "CropAndResize": Case(lambda tf, x, b: tf.image.crop_and_resize(x, b, [0, 0], [3, 4]),
                          [np.sin(np.arange(40.0)).reshape(1, 4, 5, 2),
                           np.array([[0.11, 0.07, 0.83, 0.9], [0.52, 0.31, 0.13, 0.62]],
                                    np.float32)],
                          delta=1e-3, rtol=2e-3, atol=2e-3),
    # TensorArrays (graphs TensorFlow wrote, ops/tensor_array_ops.py): built by hand.
    "TensorArrayScatterV3": Case(lambda tf, x: _array_scatter_read(x),
                                 [np.array([[0.3, -0.2], [0.5, 0.1], [-0.6, 0.7]])],
                                 tf_ref=False),
    "TensorArrayReadV3": Case(lambda tf, x: _array_scatter_read(x),
                              [np.array([[0.4, 0.2], [-0.5, 0.3], [0.6, -0.1]])],
                              tf_ref=False),
    "TensorArrayWriteV3": Case(lambda tf, x: _array_write_gather(x),
                               [np.array([0.3, -0.7])], tf_ref=False),
    "TensorArrayGatherV3": Case(lambda tf, x: _array_write_gather(x),
                                [np.array([-0.4, 0.9])], tf_ref=False),
}

# Op types whose registered "gradient" refuses on purpose, as TensorFlow's does; the
# coverage test checks that it raises this LookupError.
REFUSING = {
    "WhileGrad": (lambda tf, x: tf.gradients(tf.gradients(
        tf.while_loop(lambda i, y: i < 2, lambda i, y: (i + 1, y * x), [0, x])[1], x)[0], x),
        "Second-order gradient for while loops not supported: "
        "'gradients/while_grad/WhileGrad' .* tf.while_loop 'while'"),
    "PreventGradient": (lambda tf, x: tf.gradients(tf.gradients(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1, 0], logits=x), x)[0], x),
        "Gradient explicitly disabled"),
}

# Stochastic ops: central differences in one Session see new draws on every run, so each
# of these gradients is checked by finite differences across Sessions (a new Session
# replays a seeded op's stream) in the test named here.
CHECKED_ELSEWHERE = {
    "RandomGamma": "test_random_gamma_reference.py::"
                   "test_the_gradient_is_what_moving_alpha_does_to_each_sample",
}
