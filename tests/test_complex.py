"""complex64 / complex128 without TensorFlow: constants, dtypes, values against NumPy,
the gradient convention against finite differences, and TF's errors."""
import numpy as np
import pytest

import tfteach as tf
from tfteach.errors import InvalidArgumentError

R = np.random.RandomState(3)
Z = (R.uniform(-1, 1, (2, 3)) + 1j * R.uniform(-1, 1, (2, 3))).astype(np.complex128)


def run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


def test_python_complex_numbers_make_complex128_constants():
    assert tf.constant(1 + 2j).dtype == tf.complex128
    assert tf.constant([1, 2.5, 3j]).dtype == tf.complex128
    assert tf.constant(1 + 2j, dtype=tf.complex64).dtype == tf.complex64
    assert tf.constant(np.complex64(1j)).dtype == tf.complex64
    assert run(tf.constant([1, 2.5, 3j])).tolist() == [1, 2.5, 3j]
    with pytest.raises(TypeError, match="Expected float32, got \\(1\\+2j\\) of type 'complex'"):
        tf.constant(1 + 2j, dtype=tf.float32)


def test_dtype_properties():
    assert tf.complex64.real_dtype == tf.float32
    assert tf.complex128.real_dtype == tf.float64
    assert tf.complex64.as_numpy_dtype is np.complex64
    assert tf.complex128.is_complex and not tf.complex128.is_floating
    assert not tf.float32.is_complex
    assert tf.complex64._as_ref.real_dtype == tf.float32


NOTE = [[1 + 1j, 2 + 2j, 3 + 3j], [4 + 4j, 5 + 5j, 6 + 6j]]


def test_notes_conjugate_transpose():
    """The notes' example (seed E21): a complex128 constant, conjugated and transposed."""
    y = tf.transpose(tf.constant(NOTE), conjugate=True)
    assert y.op.type == "ConjugateTranspose"
    value = run(y)
    assert value.dtype == np.complex128
    np.testing.assert_array_equal(value, [[1 - 1j, 4 - 4j], [2 - 2j, 5 - 5j], [3 - 3j, 6 - 6j]])


def test_values_against_numpy():
    z = tf.constant(Z)
    got = run([tf.exp(z), tf.log(z), tf.sqrt(z), tf.abs(z), tf.angle(z), tf.real(z),
               tf.imag(z), tf.conj(z), tf.matmul(z, z, adjoint_b=True), z * z / (z + 2),
               tf.complex(tf.real(z), tf.imag(z))])
    expected = [np.exp(Z), np.log(Z), np.sqrt(Z), np.abs(Z), np.angle(Z), Z.real, Z.imag,
                np.conj(Z), Z @ np.conj(Z).T, Z * Z / (Z + 2), Z]
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)


def test_real_tensors_pass_through_like_tf_1_15():
    x = tf.constant([1.5, -2.0])
    assert tf.real(x) is x and tf.conj(x) is x
    np.testing.assert_array_equal(run(tf.imag(x)), [0.0, 0.0])
    np.testing.assert_array_equal(run(tf.angle(x)), [0.0, 0.0])   # TF 1.15: zeros_like
    with pytest.raises(TypeError, match="Expected numeric or variant tensor"):
        tf.conj(tf.constant(["a"]))


def test_real_graphs_have_no_conj_ops():
    """The conjugations of the gradients are no ops for real dtypes."""
    a = tf.placeholder(tf.float32, [2, 2])
    tf.gradients(tf.reduce_sum(tf.matmul(a, a, adjoint_b=True) * tf.exp(a)), a)
    assert "Conj" not in {op.type for op in tf.get_default_graph().get_operations()}


def _finite_difference_gradient(loss_of, z, eps=1e-6):
    """dL/dRe(z) + i dL/dIm(z): what TF's convention returns for a real loss L."""
    grad = np.zeros_like(z)
    for index in np.ndindex(z.shape):
        for unit in (1, 1j):
            step = np.zeros_like(z)
            step[index] = unit * eps
            slope = (loss_of(z + step) - loss_of(z - step)) / (2 * eps)
            grad[index] += unit * slope
    return grad


@pytest.mark.parametrize("build, numpy_loss", [
    (lambda t: tf.reduce_sum(tf.real(tf.exp(t) * tf.conj(t))),
     lambda v: np.sum(np.real(np.exp(v) * np.conj(v)))),
    (lambda t: tf.reduce_sum(tf.abs(tf.sin(t) / (t + 2.0))),
     lambda v: np.sum(np.abs(np.sin(v) / (v + 2.0)))),
    (lambda t: tf.reduce_sum(tf.imag(tf.matmul(t, t, adjoint_b=True) * tf.sqrt(t[:, :2]))),
     lambda v: np.sum(np.imag((v @ np.conj(v).T) * np.sqrt(v[:, :2])))),
    (lambda t: tf.reduce_sum(tf.angle(tf.transpose(t, conjugate=True) ** 2)),
     lambda v: np.sum(np.angle(np.conj(v).T ** 2))),
    # TF's own Cumprod gradient is not conjugated; tfteach's is (docs/complex.md).
    (lambda t: tf.reduce_sum(tf.real(tf.cumprod(t, 1) * (1 + 2j))),
     lambda v: np.sum(np.real(np.cumprod(v, 1) * (1 + 2j)))),
    (lambda t: tf.reduce_sum(tf.imag(tf.cumprod(t * [[1, 0, 1], [1, 1, 1]], 1))),
     lambda v: np.sum(np.imag(np.cumprod(v * np.array([[1, 0, 1], [1, 1, 1]]), 1)))),
    (lambda t: tf.reduce_sum(tf.abs(tf.reduce_prod(t, 0))),
     lambda v: np.sum(np.abs(np.prod(v, 0)))),
])
def test_gradients_follow_tfs_convention(build, numpy_loss):
    z = tf.placeholder(tf.complex128, Z.shape)
    grad = run(tf.gradients(build(z), z)[0], {z: Z})
    np.testing.assert_allclose(grad, _finite_difference_gradient(numpy_loss, Z),
                               rtol=1e-6, atol=1e-8)


def test_op_without_complex_kernel_raises_tfs_error():
    # tf.floormod checks its dtypes when the graph is built (TypeError); an op built
    # with a complex T anyway meets TF's kernel-lookup error at run time, never NumPy's.
    from tfteach.ops.op_builder import apply_op
    z = tf.constant(Z)
    op = apply_op("FloorMod", [z, z], {"T": z.dtype}, "FloorMod")
    with pytest.raises(InvalidArgumentError, match="No OpKernel was registered to support "
                                                   "Op 'FloorMod'.*T=DT_COMPLEX128"):
        run(op)


def test_complex_of_mismatched_parts_is_tfs_type_error():
    with pytest.raises(TypeError, match="real and imag have incorrect types: float32 float64"):
        tf.complex(tf.constant(1.0), tf.constant(1.0, tf.float64))
