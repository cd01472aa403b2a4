"""Checks `tf.gradients` numerically: against finite differences, and against TensorFlow.

Usage (any op family; float64 inputs make the finite differences precise):

    from gradient_check import check_gradients, check_gradients_match_tensorflow

    def build(tf, x, w):                 # `tf` is tfteach (or tensorflow.compat.v1)
        return tf.reduce_sum(tf.tanh(tf.matmul(x, w)), axis=1)

    x = np.random.RandomState(0).randn(3, 4)
    w = np.random.RandomState(1).randn(4, 2)
    check_gradients(build, [x, w])                       # tfteach vs central differences
    check_gradients(build, [x, w], shapes=[[None, 4], None])   # placeholder x: [?, 4]
    check_gradients_match_tensorflow(build, [x, w])      # tfteach vs TensorFlow's values

How it works:
- Each input becomes a placeholder of its array's dtype named `x0`, `x1`, ...;
  `build(tf, *placeholders)` returns y or a list of ys. `shapes` gives the
  placeholders' static shapes, one entry per input: a list such as `[None, 4]`, None
  (the array's own shape) or "?" (unknown rank).
- The loss is L = sum_k sum(w_k * y_k) with fixed random weights w_k (passed to
  `tf.gradients` as `grad_ys`, so every entry of the Jacobian counts), or with w_k = 1
  (the default seed of `tf.gradients`) when `grad_ys="ones"`.
- Gradients are taken with respect to the float inputs (or the indices in `wrt`);
  integer inputs (indices, axes) are fed but not differentiated.
- Numeric: dL/dx[i] = (L(x + h e_i) - L(x - h e_i)) / 2h, each L a forward run of the
  same tfteach graph. Keep inputs away from kinks (|x| near 0 for abs/relu, ties for
  max) or the two sides disagree.
- A None gradient counts as zeros (`none_ok=False` makes None an error).
`check_gradients` returns tfteach's gradients (NumPy arrays, None where tfteach gave
None); `check_gradients_match_tensorflow` returns (TensorFlow's, tfteach's);
`gradient_op_names(tf, build, inputs)` gives {name: type} of the ops under
`gradients/`, to compare graph structure with TensorFlow's.
`with recording_gradients() as called:` collects the op types whose registered gradient
function ran inside the block (to prove a test exercises the gradient it claims to).
"""
import contextlib

import numpy as np

import tfteach

from tf_reference import run_program, tensorflow_v1

__all__ = ["check_gradients", "check_gradients_match_tensorflow", "gradient_op_names",
           "recording_gradients"]


@contextlib.contextmanager
def recording_gradients():
    """Yields a set that collects the type of every op whose gradient function runs."""
    from tfteach.framework import registry
    called = set()
    originals = {}

    def recording(op_type, fn):
        def wrapper(op, *grads):
            called.add(op_type)
            return fn(op, *grads)
        return wrapper
    for op_type in registry.registered_op_types():
        op_def = registry.get_op_def(op_type)
        if op_def.gradient is not None:
            originals[op_type] = op_def.gradient
            op_def.gradient = recording(op_type, op_def.gradient)
    try:
        yield called
    finally:
        for op_type, fn in originals.items():
            registry.get_op_def(op_type).gradient = fn


def _float_input_indices(inputs):
    return [i for i, v in enumerate(inputs) if np.asarray(v).dtype.kind == "f"]


def _placeholders(tf, inputs, shapes):
    result = []
    for i, value in enumerate(inputs):
        value = np.asarray(value)
        shape = value.shape
        if shapes is not None and shapes[i] is not None:
            shape = None if isinstance(shapes[i], str) and shapes[i] == "?" else shapes[i]
        result.append(tf.placeholder(tf.as_dtype(value.dtype), shape, name="x%d" % i))
    return result


def _as_list(ys):
    return list(ys) if isinstance(ys, (list, tuple)) else [ys]


def _weights(y_values, grad_ys, seed):
    rng = np.random.RandomState(seed)
    if grad_ys == "ones":
        return None
    return [rng.uniform(0.5, 1.5, np.shape(v)).astype(np.asarray(v).dtype) for v in y_values]


def _build_gradients(tf, build, inputs, shapes, wrt, grad_ys, seed, forward_values=None):
    """(placeholders, ys, grads, feed, weights) in the current default graph of `tf`."""
    xs = _placeholders(tf, inputs, shapes)
    ys = _as_list(build(tf, *xs))
    feed = {x: np.asarray(v) for x, v in zip(xs, inputs)}
    weights = _weights(forward_values, grad_ys, seed) if forward_values is not None else None
    grad_ys_arg = None if weights is None else [tf.constant(w) for w in weights]
    grads = tf.gradients(ys, [xs[i] for i in wrt], grad_ys=grad_ys_arg)
    return xs, ys, grads, feed, weights


def _loss(y_values, weights):
    if weights is None:
        return sum(float(np.sum(y)) for y in y_values)
    return sum(float(np.sum(w * y)) for w, y in zip(weights, y_values))


def _forward_values(build, inputs, shapes):
    with tfteach.Graph().as_default():
        xs = _placeholders(tfteach, inputs, shapes)
        ys = _as_list(build(tfteach, *xs))
        with tfteach.Session() as sess:
            return sess.run(ys, {x: np.asarray(v) for x, v in zip(xs, inputs)})


def check_gradients(build, inputs, shapes=None, wrt=None, grad_ys="random", delta=1e-6,
                    rtol=1e-6, atol=1e-7, seed=0, none_ok=True):
    """Asserts tfteach's `tf.gradients` equals central finite differences; returns them.

    `build(tf, *xs) -> y | [ys]`; `inputs`: NumPy arrays (use float64); `shapes`: static
    placeholder shapes (None entries keep the array's shape); `wrt`: input indices to
    differentiate (default: every float input); `grad_ys`: "random" or "ones".
    """
    inputs = [np.asarray(v) for v in inputs]
    wrt = _float_input_indices(inputs) if wrt is None else list(wrt)
    forward = _forward_values(build, inputs, shapes)
    with tfteach.Graph().as_default():
        xs, ys, grads, feed, weights = _build_gradients(
            tfteach, build, inputs, shapes, wrt, grad_ys, seed, forward)
        with tfteach.Session() as sess:
            fetch = [g for g in grads if g is not None]
            values = iter(sess.run(fetch, feed)) if fetch else iter(())
            analytic = [None if g is None else next(values) for g in grads]
            for k, i in enumerate(wrt):
                numeric = _numeric_gradient(sess, ys, feed, xs[i], inputs[i], weights, delta)
                got = analytic[k]
                if got is None:
                    assert none_ok, "gradient with respect to input %d is None" % i
                    got = np.zeros_like(numeric)
                assert np.shape(got) == np.shape(inputs[i]), (
                    "gradient %d has shape %s, input has %s" % (i, np.shape(got),
                                                                 np.shape(inputs[i])))
                np.testing.assert_allclose(got, numeric, rtol=rtol, atol=atol, err_msg=(
                    "gradient with respect to input %d differs from finite differences" % i))
    return analytic


def _numeric_gradient(sess, ys, feed, x, value, weights, delta):
    result = np.zeros(value.shape, dtype=np.float64)
    flat = result.reshape(-1)
    for j in range(value.size):
        losses = []
        for sign in (1, -1):
            shifted = value.copy().reshape(-1)
            shifted[j] += sign * delta
            run_feed = dict(feed)
            run_feed[x] = shifted.reshape(value.shape)
            losses.append(_loss(sess.run(ys, run_feed), weights))
        flat[j] = (losses[0] - losses[1]) / (2 * delta)
    return result


def check_gradients_match_tensorflow(build, inputs, shapes=None, wrt=None, grad_ys="random",
                                     rtol=1e-6, atol=1e-9, seed=0):
    """Asserts tfteach's gradient values (and which are None) equal TensorFlow's.

    Same arguments as `check_gradients`; skips the test when TensorFlow is missing.
    Returns (tensorflow_gradients, tfteach_gradients).
    """
    inputs = [np.asarray(v) for v in inputs]
    wrt = _float_input_indices(inputs) if wrt is None else list(wrt)
    forward = _forward_values(build, inputs, shapes)
    results = []
    for tf in (tensorflow_v1(), tfteach):
        nones = []

        def program(tf):
            _, _, grads, feed, _ = _build_gradients(tf, build, inputs, shapes, wrt, grad_ys,
                                                    seed, forward)
            nones[:] = [g is None for g in grads]
            return [g for g in grads if g is not None], feed

        values = iter(run_program(tf, program))
        results.append([None if none else next(values) for none in nones])
    expected, got = results
    for k, i in enumerate(wrt):
        assert (expected[k] is None) == (got[k] is None), (
            "input %d: TensorFlow's gradient is %s, tfteach's is %s"
            % (i, "None" if expected[k] is None else "a tensor",
               "None" if got[k] is None else "a tensor"))
        if expected[k] is not None:
            assert np.shape(expected[k]) == np.shape(got[k])
            np.testing.assert_allclose(got[k], expected[k], rtol=rtol, atol=atol, err_msg=(
                "gradient with respect to input %d differs from TensorFlow's" % i))
    return expected, got


def gradient_op_names(tf, build, inputs, shapes=None, wrt=None, grad_ys="ones"):
    """{op name: op type} of the ops `tf.gradients` added (names under `gradients/`)."""
    inputs = [np.asarray(v) for v in inputs]
    wrt = _float_input_indices(inputs) if wrt is None else list(wrt)
    graph = tf.Graph()
    with graph.as_default():
        xs = _placeholders(tf, inputs, shapes)
        ys = _as_list(build(tf, *xs))
        tf.gradients(ys, [xs[i] for i in wrt])
        return {op.name: op.type for op in graph.get_operations()
                if op.name.startswith("gradients/")}
