"""GradientTape: its gradients (and the eager forward values) equal tfteach's graph
`tf.gradients` (itself checked against finite differences and TensorFlow in
test_gradient_coverage.py) for every op type of gradient_cases.py; persistent/non-persistent rules, watching, nesting,
stop_recording, reset, None results, jacobian and batch_jacobian (against NumPy)."""
import numpy as np
import pytest

import tfteach
from eager_helpers import eager  # noqa: F401 - fixture
from gradient_cases import CASES
from tolerances import assert_close

class _TapeGradients:
    """The namespace a case's program gets eagerly: its `tf.gradients(ys, xs, grad_ys)`
    (the second-derivative cases, gradient_cases.second) is an inner persistent tape's
    gradient, recorded by the outer tape: the nested-tape second derivative."""

    def __init__(self, tf, watched):
        self._tf = tf
        self._tape = tf.GradientTape(persistent=True)
        self._tape.__enter__()
        self._tape.watch(watched)

    def __getattr__(self, name):
        return getattr(self._tf, name)

    def gradients(self, ys, xs, grad_ys=None):
        single = not isinstance(xs, (list, tuple))
        grads = self._tape.gradient(ys, [xs] if single else list(xs),
                                    output_gradients=grad_ys)
        return list(grads)

    def close(self):
        self._tape.__exit__(None, None, None)


def _float_indices(inputs, wrt):
    if wrt is not None:
        return list(wrt)
    return [i for i, v in enumerate(inputs) if np.asarray(v).dtype.kind == "f"]


def _graph_gradients(build, inputs, wrt):
    with tfteach.Graph().as_default():
        xs = [tfteach.constant(v) for v in inputs]
        ys = build(tfteach, *xs)
        ys = ys if isinstance(ys, (list, tuple)) else [ys]
        ys = [y for y in ys if y.dtype.is_floating]
        grads = tfteach.gradients(ys, [xs[i] for i in wrt])
        with tfteach.Session() as sess:
            fetch = [g for g in grads if g is not None]
            values = iter(sess.run(fetch))
            return [None if g is None else next(values) for g in grads], sess.run(ys)


def _tape_gradients(tf, build, inputs, wrt):
    xs = [tf.constant(v) for v in inputs]
    with tf.GradientTape() as tape:
        tape.watch([xs[i] for i in wrt])
        inner = _TapeGradients(tf, xs)
        ys = build(inner, *xs)
        inner.close()
        ys = ys if isinstance(ys, (list, tuple)) else [ys]
        ys = [y for y in ys if y.dtype.is_floating]
    grads = tape.gradient(ys, [xs[i] for i in wrt])
    return [None if g is None else g.numpy() for g in grads], [y.numpy() for y in ys]


# TensorArray ops exist in tfteach only to run graphs TensorFlow wrote (imported while
# loops, ops/tensor_array_ops.py): there is no tf.TensorArray class, and an eager
# TensorArray in TF 2 is a Python list, not these ops. Their cases build handles by name.
_GRAPH_ONLY = {"TensorArrayGatherV3", "TensorArrayReadV3", "TensorArrayScatterV3",
               "TensorArrayWriteV3"}


@pytest.mark.parametrize("op_type", sorted(set(CASES) - _GRAPH_ONLY))
def test_tape_gradient_equals_tf_gradients(eager, op_type):
    case = CASES[op_type]
    wrt = _float_indices(case.inputs, case.wrt)
    tape, eager_ys = _tape_gradients(eager, case.build, case.inputs, wrt)
    graph, graph_ys = _graph_gradients(case.build, case.inputs, wrt)
    for e, g in zip(eager_ys, graph_ys):     # the forward values: the same kernels
        assert_close(e, g, rtol=1e-12, err_msg="value of %s" % op_type)
    for i, (t, g) in enumerate(zip(tape, graph)):
        assert (t is None) == (g is None), "input %d: tape %r, tf.gradients %r" % (i, t, g)
        if g is not None:
            assert np.shape(t) == np.shape(g)
            assert_close(t, g, rtol=1e-12, err_msg="gradient %d of %s" % (i, op_type))


def test_tf_gradients_refuses_eager_tensors(eager):
    x = eager.constant(1.0)
    with pytest.raises(RuntimeError, match="^tf.gradients is not supported when eager "
                                           "execution is enabled. Use tf.GradientTape"):
        eager.gradients(x * x, x)


def test_persistent_and_non_persistent(eager):
    tf = eager
    x = tf.constant([2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [4.0])
    with pytest.raises(RuntimeError, match="^A non-persistent GradientTape can only be used "
                                           r"to compute one set of gradients \(or jacobians\)$"):
        tape.gradient(y, x)
    v = tf.Variable(x)                       # note 002: a variable is watched by default
    with tf.GradientTape(persistent=True) as tape:
        y = v * v
        z = y * v
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [4.0])
    np.testing.assert_array_equal(tape.gradient(z, v).numpy(), [12.0])


def test_watching_rules(eager):
    tf = eager
    v = tf.Variable(3.0)
    frozen = tf.Variable(5.0, trainable=False)
    c = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        y = v * c * frozen
    assert tape.gradient(y, c) is None                # a constant is not watched
    assert tape.gradient(y, frozen) is None           # nor a non-trainable variable
    assert float(tape.gradient(y, v)) == 10.0
    assert tape.watched_variables() == (v,)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(frozen)
        y = v * frozen
    assert tape.gradient(y, [v, frozen])[0] is None
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(v)
        y = v * frozen
    assert float(tape.gradient(y, v)) == 5.0


def test_none_zero_and_integer_sources(eager):
    tf = eager
    x, z = tf.constant(1.0), tf.constant([1.0, 2.0])
    i = tf.constant(3)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, z, i])
        y = x * 2.0
        k = i * 2
    assert tape.gradient(y, z) is None
    np.testing.assert_array_equal(
        tape.gradient(y, z, unconnected_gradients="zero").numpy(), [0.0, 0.0])
    assert tape.gradient(k, i) is None                # integer sources: None, as TF
    grads = tape.gradient(y, {"a": x, "b": [z]})      # nests come back as nests
    assert float(grads["a"]) == 2.0 and grads["b"][0] is None
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients"):
        tape.gradient(y, x, unconnected_gradients="maybe")


def test_stop_recording_and_reset(eager):
    tf = eager
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        with tape.stop_recording():
            hidden = x * x                            # not recorded
        z = y + hidden
    assert float(tape.gradient(z, x)) == 6.0          # only through y
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        tape.reset()
        tape.watch(x)
        y = x * 5.0
    assert float(tape.gradient(y, x)) == 5.0


def test_nested_tapes_second_derivative(eager):
    tf = eager
    x = tf.constant(3.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        dy = inner.gradient(y, x)
    assert float(dy) == 27.0 and float(outer.gradient(dy, x)) == 18.0


def test_jacobians_against_numpy(eager):
    tf = eager
    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    x = tf.constant(a)
    w = tf.constant([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.matmul(x, w) ** 2
    jac = tape.jacobian(y, x).numpy()
    assert jac.shape == (2, 3, 2, 2)
    p = a @ w.numpy()
    expected = np.zeros((2, 3, 2, 2), np.float32)
    for i in range(2):
        for j in range(3):
            expected[i, j, i, :] = 2 * p[i, j] * w.numpy()[:, j]
    assert_close(jac, expected, rtol=1e-6)
    bj = tape.batch_jacobian(y, x).numpy()
    assert bj.shape == (2, 3, 2)
    assert_close(bj, expected[np.arange(2), :, np.arange(2), :], rtol=1e-6)


def test_a_tape_records_its_own_thread_only(eager):
    import threading
    tf = eager
    x = tf.constant(2.0)
    other = {}
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x

        def elsewhere():
            other["z"] = x * 10.0          # another thread's op: not on this tape
        thread = threading.Thread(target=elsewhere)
        thread.start()
        thread.join()
    assert float(tape.gradient(y, x)) == 4.0
    assert tape.gradient(other["z"], x) is None


def test_entering_a_recording_tape_again_is_tf_1_15s_value_error(eager):
    """TF 1.15's _push_tape: "Tape is already recording." (TF 2.2 and later word it "Tape
    is still recording, This can happen if you try to re-enter an already-active tape.")."""
    tf = tfteach
    tape = tf.GradientTape()
    with tape:
        with pytest.raises(ValueError) as info:
            with tape:
                pass
    assert str(info.value) == "Tape is already recording."
