"""complex64 / complex128 on tfteach and on TensorFlow (`tf.compat.v1`, graph mode):
constants, dtypes, the complex ops, elementwise math, matmul, conjugate transposes,
gradients (TF's convention: grad_in = grad_out * conj(f'(z))) and the errors of ops that
have no complex kernel. Gradients are also checked against finite differences, so the
convention is tested without TensorFlow too (test_complex.py).
"""
import numpy as np
import pytest

import tfteach
from tf_reference import errors_of_both, run_both, tensorflow_v1

pytest.importorskip("tensorflow")
pytestmark = pytest.mark.reference

R = np.random.RandomState(15)


def crand(*shape, dtype=np.complex128, scale=1.0):
    return ((R.uniform(-scale, scale, shape) + 1j * R.uniform(-scale, scale, shape))
            .astype(dtype))


Z64 = crand(2, 3, dtype=np.complex64)
W64 = crand(2, 3, dtype=np.complex64) + np.complex64(2 + 0.5j)   # away from 0
Z128 = crand(3, 2)
Z234 = crand(2, 3, 4)
Z232 = crand(2, 3, 2)
Z232B = crand(2, 3, 2)
NOTE = [[1 + 1j, 2 + 2j, 3 + 3j], [4 + 4j, 5 + 5j, 6 + 6j]]     # the notes' transpose

UNARY = ["negative", "square", "sign", "reciprocal", "sqrt", "rsqrt", "exp", "expm1",
         "log", "log1p", "sin", "cos", "tan", "tanh", "sigmoid", "abs", "asin", "acos",
         "atan", "real", "imag", "conj", "angle"]

PROGRAMS = {
    "unary_complex64": lambda tf: [getattr(tf, n)(tf.constant(W64)) for n in UNARY],
    "unary_complex128": lambda tf: [getattr(tf, n)(tf.constant(Z128 + 1.5)) for n in UNARY],
    "binary": lambda tf: [tf.add(Z64, W64), tf.subtract(Z64, W64), tf.multiply(Z64, W64),
                          tf.realdiv(Z64, W64), tf.truediv(Z64, W64), tf.div(Z64, W64),
                          tf.pow(W64, Z64), tf.squared_difference(Z64, W64),
                          tf.equal(Z64, Z64[:, :1]), tf.not_equal(Z64, W64)],
    "operators": lambda tf: _operators(tf),
    "python_constants": lambda tf: [tf.constant(1 + 2j), tf.constant([1, 2.5, 3j]),
                                    tf.constant(1 + 2j, dtype=tf.complex64),
                                    tf.constant([1, 2], dtype=tf.complex64),
                                    tf.constant(2.5, dtype=tf.complex128)],
    "complex_of_parts": lambda tf: [tf.complex(1.0, 2.0),
                                    tf.complex(tf.constant([1.0, 2.0], tf.float64),
                                               tf.constant([[3.0], [4.0]], tf.float64))],
    "transpose_conjugate_note": lambda tf: [
        tf.transpose(tf.constant(NOTE), conjugate=True),
        tf.transpose(tf.constant(Z64), conjugate=False),
        tf.transpose(tf.constant(Z234), [1, 0, 2], conjugate=True),
        tf.transpose(tf.constant([[1.0, 2.0]]), conjugate=True)],
    "matmul": lambda tf: [tf.matmul(Z64, W64, transpose_b=True),
                          tf.matmul(Z64, W64, adjoint_b=True),
                          tf.matmul(Z64, W64, adjoint_a=True),
                          tf.matmul(Z128, Z128, transpose_a=True),
                          tf.matmul(Z232, Z128, adjoint_a=True),
                          tf.matmul(Z232, Z232B, transpose_b=True)],
    "reductions_and_casts": lambda tf: [tf.reduce_sum(Z64), tf.reduce_sum(Z128, 0),
                                        tf.reduce_mean(Z64, 1), tf.reduce_prod(Z128, 1),
                                        tf.cast(Z64, tf.float32), tf.cast(Z128, tf.int32),
                                        tf.cast(Z64, tf.complex128),
                                        tf.cast([1.5, -2.0], tf.complex64),
                                        tf.add_n([Z64, W64, Z64]),
                                        tf.cumsum(Z64, 1), tf.cumprod(Z128, 0, reverse=True),
                                        tf.cumprod(Z64, 1, exclusive=True)],
}


def _operators(tf):
    z, w = tf.constant(Z64), tf.constant(W64)
    return [z + w, z - w, z * w, z / w, -z, abs(z), z ** 2, 2 * z,
            z @ tf.transpose(w, conjugate=True)]


def _same_value(expected, actual, rtol):
    expected, actual = np.asarray(expected), np.asarray(actual)
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=1e-6)
    else:
        np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_values_and_dtypes_match_tensorflow(name):
    expected, actual = run_both(lambda tf: (PROGRAMS[name](tf), None))
    assert len(expected) == len(actual)
    for e, a in zip(expected, actual):
        _same_value(e, a, rtol=1e-5)


def _names_and_types(tf, build):
    with tf.Graph().as_default():
        fetches = build(tf)
        return [(t.op.name, t.op.type, t.dtype.name, t.shape.as_list()) for t in fetches]


def test_op_names_types_and_static_shapes_match_tensorflow():
    def build(tf):
        z = tf.placeholder(tf.complex64, [None, 3])
        return [tf.abs(z), tf.real(z), tf.imag(z), tf.conj(z), tf.angle(z),
                tf.transpose(z, conjugate=True), tf.complex(1.0, 2.0), tf.exp(z),
                tf.matmul(z, z, adjoint_b=True)]
    assert (_names_and_types(tfteach, build) == _names_and_types(tensorflow_v1(), build))


# -- gradients ---------------------------------------------------------------------------------
def _loss_of(tf, z):
    """A real loss of a complex tensor, as a student would write one."""
    return tf.reduce_sum(tf.square(tf.abs(z))) + tf.reduce_sum(tf.real(z) * tf.imag(z))


GRADIENT_PROGRAMS = {
    "holomorphic_unary": lambda tf, z: [f(z) for f in (
        tf.exp, tf.log, tf.sqrt, tf.rsqrt, tf.square, tf.reciprocal, tf.sin, tf.cos,
        tf.tan, tf.tanh, tf.sigmoid, tf.expm1, tf.log1p, tf.negative)],
    "inverse_trig": lambda tf, z: [tf.asin(z * 0.3), tf.acos(z * 0.3), tf.atan(z * 0.3)],
    "parts_and_modulus": lambda tf, z: [tf.complex(tf.real(z) * 2.0, tf.imag(z) ** 2),
                                        tf.cast(tf.abs(z), tf.complex64) * z,
                                        tf.cast(tf.angle(z), tf.complex64), tf.conj(z) * z],
    "reductions": lambda tf, z: [tf.reduce_prod(z, 1), tf.reduce_prod(z),
                                 tf.reduce_mean(z * z, 0), tf.cumsum(z, 1, reverse=True)],
    "binary": lambda tf, z: [z * tf.conj(z + 1.0), z / (z + 2.0), tf.pow(z, z),
                             tf.squared_difference(z, 1.0 + 0.5j) * z,
                             (z - 3.0) * tf.constant([[1j], [2.0]], tf.complex64)],
    "matmul_and_transpose": lambda tf, z: [
        tf.matmul(z, z, adjoint_b=True), tf.matmul(z, z, transpose_a=True),
        tf.matmul(z, tf.transpose(z, conjugate=True)),
        tf.matmul(tf.reshape(z, [1, 2, 3]), tf.reshape(z, [1, 3, 2]), adjoint_a=True,
                  adjoint_b=True),
        tf.matmul(tf.reshape(z, [1, 2, 3]), tf.reshape(z, [1, 2, 3]), transpose_b=True)],
}


def _gradient_program(build, value):
    def program(tf):
        z = tf.placeholder(tf.complex64, value.shape)
        outputs = build(tf, z)
        loss = tf.add_n([_loss_of(tf, y) for y in outputs])
        return tf.gradients(loss, z), {z: value}
    return program


@pytest.mark.parametrize("name", sorted(GRADIENT_PROGRAMS))
def test_gradients_match_tensorflow(name):
    value = W64 * np.complex64(0.6)
    expected, actual = run_both(_gradient_program(GRADIENT_PROGRAMS[name], value))
    _same_value(expected[0], actual[0], rtol=2e-4)


def test_gradients_of_real_inputs_through_complex_ops_match_tensorflow():
    x = R.uniform(0.5, 1.5, (2, 3)).astype(np.float32)
    y = R.uniform(-1.0, 1.0, (3,)).astype(np.float32)

    def program(tf):
        a = tf.placeholder(tf.float32, [2, 3])
        b = tf.placeholder(tf.float32, [3])
        z = tf.complex(a, b)                  # b broadcast: its gradient is summed
        loss = _loss_of(tf, tf.exp(z) * z) + tf.reduce_sum(tf.angle(z) * a)
        return tf.gradients(loss, [a, b]), {a: x, b: y}
    expected, actual = run_both(program)
    for e, a in zip(expected, actual):
        _same_value(e, a, rtol=2e-4)


# -- errors ------------------------------------------------------------------------------------
def test_ops_without_a_complex_kernel_raise_tensorflows_error():
    def floordiv(tf):
        return tf.floordiv(tf.constant(Z64), tf.constant(W64)), None

    tf_error, our_error = errors_of_both(floordiv)
    assert type(our_error).__name__ == type(tf_error).__name__ == "InvalidArgumentError"
    for error in (tf_error, our_error):
        assert ("No OpKernel was registered to support Op 'FloorDiv'" in str(error)
                and "T=DT_COMPLEX64" in str(error))


@pytest.mark.parametrize("build", [
    lambda tf: tf.maximum(tf.constant(Z64), tf.constant(W64)),
    lambda tf: tf.floor(tf.constant(Z64)),
    lambda tf: tf.reduce_max(tf.constant(Z64)),
    lambda tf: tf.less(tf.constant(Z64), tf.constant(W64)),
    lambda tf: tf.complex(tf.constant(1.0), tf.constant(1.0, tf.float64)),
    lambda tf: tf.complex(1, 2),
    lambda tf: tf.constant(1 + 2j, dtype=tf.float32),
    lambda tf: tf.constant(Z64) + tf.constant(Z128[:2, :1]),
], ids=["maximum", "floor", "reduce_max", "less", "complex_mixed", "complex_ints",
        "complex_to_float32", "mixed_widths"])
def test_type_errors_match_tensorflow(build):
    tf_error, our_error = errors_of_both(lambda tf: (build(tf), None))
    assert isinstance(tf_error, TypeError)
    assert isinstance(our_error, TypeError)


def test_dtype_attributes_match_tensorflow():
    tf = tensorflow_v1()
    for name in ("complex64", "complex128"):
        ours, theirs = getattr(tfteach, name), getattr(tf, name)
        assert ours.real_dtype.name == theirs.real_dtype.name
        assert ours.as_numpy_dtype is theirs.as_numpy_dtype
        assert (ours.is_complex, ours.is_floating, ours.is_integer) == (
            theirs.is_complex, theirs.is_floating, theirs.is_integer)
        assert ours.as_datatype_enum == theirs.as_datatype_enum
        assert ours.size == theirs.size
        assert (str(ours), repr(ours)) == (str(theirs), repr(theirs))
        assert tfteach.as_dtype(theirs.as_numpy_dtype) is ours
        assert tfteach.as_dtype(name) is ours
        assert tfteach.dtypes.as_dtype(name) is getattr(tfteach.dtypes, name) is ours
        with pytest.raises(TypeError):
            ours.min
    assert tfteach.float32.real_dtype is tfteach.float32
    assert tfteach.complex64.base_dtype is tfteach.complex64
