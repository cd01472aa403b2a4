"""`tf.gradients` against TensorFlow (`tf.compat.v1`, graph mode): values, which
gradients are None, the names of the gradient ops, and error texts.

TensorFlow 2.x's `compat.v1` differs from TF 1.15 in one name tested here: its seed is
`gradients/grad_ys_0` (a Fill), where TF 1.15 (and tfteach) build `gradients/Fill`
from a constant `gradients/grad_ys_0`.
"""
import numpy as np
import pytest

from gradient_check import check_gradients_match_tensorflow, gradient_op_names
from tf_reference import errors_of_both, first_line, tensorflow_v1
import tfteach
from tolerances import assert_close

R = np.random.RandomState(7)


def rand(*shape, low=-2.0, high=2.0):
    return R.uniform(low, high, shape)


PROGRAMS = {
    "mlp": (lambda tf, x, w, b: tf.reduce_mean(tf.sigmoid(tf.matmul(x, w) + b)),
            lambda: [rand(4, 3), rand(3, 2), rand(2)], [[None, 3], None, None]),
    "broadcast_arith": (lambda tf, x, y: (x * y - x / (y * y + 1.0)) ** 2 + tf.maximum(x, y),
                        lambda: [rand(2, 3), rand(3) + 0.01], None),
    "unary_chain": (lambda tf, x: tf.log1p(tf.exp(tf.tanh(x)) + tf.abs(tf.sin(x)))
                    + tf.sqrt(tf.square(x) + 1.0) + tf.atan(x) * tf.rsqrt(x * x + 2.0),
                    lambda: [rand(3, 2)], None),
    "reductions": (lambda tf, x: tf.reduce_sum(tf.reduce_max(x, 1) * tf.reduce_mean(x, 1))
                   + tf.reduce_prod(x, 0) + tf.reduce_logsumexp(x, [0, 1]),
                   lambda: [R.permutation(12).reshape(3, 4) / 5.0 + 0.3], None),
    "reductions_unknown_batch": (lambda tf, x: tf.reduce_mean(x) + tf.reduce_min(x, 0),
                                 lambda: [R.permutation(12).reshape(4, 3) / 5.0 + 0.3],
                                 [[None, 3]]),
    "batch_matmul": (lambda tf, a, b: tf.matmul(a, b, adjoint_b=True),
                     lambda: [rand(2, 3, 4), rand(5, 4)], None),
    "cumulative": (lambda tf, x: tf.cumsum(x, 1, reverse=True) * tf.cumprod(x, 0, exclusive=True),
                   lambda: [rand(3, 4, low=0.5, high=1.5)], None),
    "select_pow": (lambda tf, x, y: tf.where(x > 0.0, tf.pow(tf.abs(x) + 0.5, y), x * y),
                   lambda: [rand(2, 3), rand(2, 3)], None),
    "squared_difference_floormod": (
        lambda tf, x, y: tf.squared_difference(x, y) + tf.floormod(x, y + 3.0),
        lambda: [rand(3, 1), rand(1, 4)], None),
    "several_ys": (lambda tf, x, y: [x * y, tf.reduce_sum(x) * y],
                   lambda: [rand(3), rand(3)], None),
    "cast_and_integer_paths": (lambda tf, x, y: tf.cast(x, tf.float32) * 2.0
                               + tf.cast(tf.cast(y, tf.int32), tf.float32),
                               lambda: [rand(3), rand(3)], None),
    "unconnected": (lambda tf, x, y: x * 3.0, lambda: [rand(3), rand(3)], None),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_gradient_values_match_tensorflow(name):
    build, make_inputs, shapes = PROGRAMS[name]
    check_gradients_match_tensorflow(build, make_inputs(), shapes=shapes, rtol=1e-5,
                                     atol=1e-6)


def test_none_gradients_match_tensorflow():
    build, make_inputs, _ = PROGRAMS["cast_and_integer_paths"]
    expected, got = check_gradients_match_tensorflow(build, make_inputs())
    assert expected[1] is None and got[1] is None
    expected, got = check_gradients_match_tensorflow(*PROGRAMS["unconnected"][:1],
                                                     PROGRAMS["unconnected"][1]())
    assert got[1] is None


def _names(build, inputs, shapes=None):
    return (gradient_op_names(tensorflow_v1(), build, inputs, shapes),
            gradient_op_names(tfteach, build, inputs, shapes))


def test_gradient_op_names_match_tensorflow():
    def build(tf, x, w):
        h = tf.tanh(tf.matmul(x, w))
        return tf.reduce_sum(h * h + tf.sigmoid(h))
    theirs, ours = _names(build, [rand(2, 3), rand(3, 4)])
    for name in ["gradients/MatMul_grad/MatMul", "gradients/MatMul_grad/MatMul_1",
                 "gradients/Tanh_grad/TanhGrad", "gradients/Sigmoid_grad/SigmoidGrad",
                 "gradients/mul_grad/Mul", "gradients/mul_grad/Mul_1", "gradients/AddN",
                 "gradients/Shape"]:
        assert theirs.get(name) == ours.get(name), name
    # A sum of everything: TF reshapes and tiles the scalar; tfteach fills in one op.
    assert theirs["gradients/Sum_grad/Tile"] == "Tile"
    assert ours["gradients/Sum_grad/Fill"] == "Fill"


def test_broadcast_gradient_names_match_tensorflow():
    def build(tf, x, b):
        return tf.exp(x + b)
    theirs, ours = _names(build, [rand(2, 3), rand(2, 1)])
    for name in ["gradients/Exp_grad/mul", "gradients/add_grad/Sum",
                 "gradients/add_grad/Reshape", "gradients/add_grad/Sum_1",
                 "gradients/add_grad/Reshape_1"]:
        assert theirs.get(name) == ours.get(name), name


def test_runtime_broadcast_names_match_tensorflow():
    def build(tf, x, y):
        return x * y
    theirs, ours = _names(build, [rand(3), rand(3)], shapes=[[None], [None]])
    for name in ["gradients/mul_grad/Shape", "gradients/mul_grad/Shape_1",
                 "gradients/mul_grad/BroadcastGradientArgs", "gradients/mul_grad/Mul",
                 "gradients/mul_grad/Sum", "gradients/mul_grad/Reshape",
                 "gradients/mul_grad/Mul_1", "gradients/mul_grad/Sum_1",
                 "gradients/mul_grad/Reshape_1"]:
        assert theirs.get(name) == ours.get(name), name


def test_error_texts_match_tensorflow():
    def wrong_count(tf):
        x = tf.constant([1.0, 2.0])
        tf.gradients(x * x, x, grad_ys=[x, x])
        return [], None

    def bool_seed(tf):
        x = tf.constant([1.0, 2.0])
        tf.gradients(x * x, x, grad_ys=tf.constant([True, False]))
        return [], None

    # (An invalid aggregation_method: TF 2.x reworded TF 1.15's text, which tfteach
    # keeps: "Invalid aggregation_method specified 9.")
    for program in (wrong_count, bool_seed):
        theirs, ours = errors_of_both(program)
        assert type(theirs) is type(ours)
        # Tensor reprs differ ("Tensor(...)"); compare the start of the sentence. TF 2.x
        # added "Length mismatch. " in front of TF 1.15's text.
        theirs_text = first_line(theirs).replace("Length mismatch. ", "")
        assert first_line(ours).split(" tensor")[0] == theirs_text.split(" tensor")[0]


def test_clip_values_and_names_match_tensorflow():
    a, b = rand(2, 3), rand(4)

    def program(tf):
        ta, tb = tf.constant(a), tf.constant(b)
        clipped = tf.clip_by_norm(ta, 1.5)
        clipped_axes = tf.clip_by_norm(ta, 0.5, axes=[1])
        norm = tf.global_norm([ta, None, tb])
        (ca, cnone, cb), used = tf.clip_by_global_norm([ta, None, tb], 2.0)
        assert cnone is None
        names = [clipped.name, norm.name, ca.name, cb.name, used.name]
        program.names.append(names)
        return [clipped, clipped_axes, norm, ca, cb, used], None
    program.names = []
    from tf_reference import run_both
    theirs, ours = run_both(program)
    for t, o in zip(theirs, ours):
        assert_close(o, t, rtol=1e-12)
    assert program.names[0] == program.names[1]
