"""Optimizers: updates against the published formulas, slots, global_step, errors.

The reference updates below are written from the papers' / TF docs' formulas in plain
NumPy (float64), independently of tfteach's kernels; tfteach runs in float32 and float64
over several steps with a different gradient fed each step.
"""
import inspect

import numpy as np
import pytest

import tfteach as tf

STEPS = 5
SHAPE = (2, 3)


def _gradients(seed=0):
    rng = np.random.RandomState(seed)
    return [rng.randn(*SHAPE) for _ in range(STEPS)]


INITIAL = np.array([[1.0, -2.0, 0.5], [3.0, 0.0, -1.5]])


# -- reference formulas (float64 NumPy) ------------------------------------------------
def ref_sgd(w, grads, lr):
    for g in grads:
        w = w - lr * g
    return w, {}


def ref_momentum(w, grads, lr, momentum, use_nesterov=False):
    a = np.zeros_like(w)
    for g in grads:
        a = momentum * a + g
        w = w - lr * (g + momentum * a) if use_nesterov else w - lr * a
    return w, {"momentum": a}


def ref_adagrad(w, grads, lr, initial_accumulator_value=0.1):
    acc = np.full_like(w, initial_accumulator_value)
    for g in grads:
        acc = acc + g ** 2
        w = w - lr * g / np.sqrt(acc)
    return w, {"accumulator": acc}


def ref_rmsprop(w, grads, lr, decay=0.9, momentum=0.0, epsilon=1e-10, centered=False):
    ms, mom, mg = np.ones_like(w), np.zeros_like(w), np.zeros_like(w)
    for g in grads:
        ms = decay * ms + (1 - decay) * g ** 2
        if centered:
            mg = decay * mg + (1 - decay) * g
            denom = ms - mg ** 2 + epsilon
        else:
            denom = ms + epsilon
        mom = momentum * mom + lr * g / np.sqrt(denom)
        w = w - mom
    slots = {"rms": ms, "momentum": mom}
    if centered:
        slots["mg"] = mg
    return w, slots


def ref_adam(w, grads, lr=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8):
    m, v = np.zeros_like(w), np.zeros_like(w)
    # beta^t: TF keeps these in float32 variables (beta1_power, beta2_power), whatever
    # the variable's dtype, so 1 - beta2^t carries float32 rounding into float64 updates.
    beta1_power, beta2_power = np.float32(beta1), np.float32(beta2)
    for g in grads:
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g ** 2
        lr_t = lr * np.sqrt(1 - float(beta2_power)) / (1 - float(beta1_power))
        beta1_power, beta2_power = beta1_power * np.float32(beta1), beta2_power * np.float32(beta2)
        w = w - lr_t * m / (np.sqrt(v) + epsilon)
    return w, {"m": m, "v": v}


def ref_adadelta(w, grads, lr=0.001, rho=0.95, epsilon=1e-8):
    acc, acc_upd = np.zeros_like(w), np.zeros_like(w)
    for g in grads:
        acc = rho * acc + (1 - rho) * g ** 2
        upd = np.sqrt(acc_upd + epsilon) / np.sqrt(acc + epsilon) * g
        w = w - lr * upd
        acc_upd = rho * acc_upd + (1 - rho) * upd ** 2
    return w, {"accum": acc, "accum_update": acc_upd}


CASES = {
    "sgd": (lambda: tf.train.GradientDescentOptimizer(0.1), ref_sgd, dict(lr=0.1)),
    "momentum": (lambda: tf.train.MomentumOptimizer(0.05, 0.9), ref_momentum,
                 dict(lr=0.05, momentum=0.9)),
    "nesterov": (lambda: tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True),
                 ref_momentum, dict(lr=0.05, momentum=0.9, use_nesterov=True)),
    "adagrad": (lambda: tf.train.AdagradOptimizer(0.3), ref_adagrad, dict(lr=0.3)),
    "adagrad_init": (lambda: tf.train.AdagradOptimizer(0.3, initial_accumulator_value=2.0),
                     ref_adagrad, dict(lr=0.3, initial_accumulator_value=2.0)),
    "rmsprop": (lambda: tf.train.RMSPropOptimizer(0.01), ref_rmsprop, dict(lr=0.01)),
    "rmsprop_momentum": (lambda: tf.train.RMSPropOptimizer(0.01, decay=0.8, momentum=0.5,
                                                           epsilon=1e-3),
                         ref_rmsprop, dict(lr=0.01, decay=0.8, momentum=0.5, epsilon=1e-3)),
    "rmsprop_centered": (lambda: tf.train.RMSPropOptimizer(0.01, momentum=0.3,
                                                           centered=True),
                         ref_rmsprop, dict(lr=0.01, momentum=0.3, centered=True)),
    "adam": (lambda: tf.train.AdamOptimizer(0.1), ref_adam, dict(lr=0.1)),
    "adam_options": (lambda: tf.train.AdamOptimizer(0.05, beta1=0.5, beta2=0.9, epsilon=0.1),
                     ref_adam, dict(lr=0.05, beta1=0.5, beta2=0.9, epsilon=0.1)),
    "adadelta": (lambda: tf.train.AdadeltaOptimizer(), ref_adadelta, {}),
    "adadelta_options": (lambda: tf.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6),
                         ref_adadelta, dict(lr=1.0, rho=0.9, epsilon=1e-6)),
}


def run_optimizer(make_optimizer, dtype, grads, initial=INITIAL):
    """(final variable, {slot name: value}, global step) after one fed gradient a step."""
    w = tf.Variable(initial.astype(dtype), name="W")
    g = tf.placeholder(w.dtype.base_dtype, w.shape)
    step = tf.train.get_or_create_global_step()
    opt = make_optimizer()
    train = opt.apply_gradients([(g, w)], global_step=step)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for grad in grads:
            sess.run(train, {g: grad.astype(dtype)})
        slots = {name: sess.run(opt.get_slot(w, name)) for name in opt.get_slot_names()}
        return sess.run(w), slots, sess.run(step)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", sorted(CASES))
def test_update_matches_published_formula(case, dtype):
    make_optimizer, reference, kwargs = CASES[case]
    grads = _gradients()
    w, slots, step = run_optimizer(make_optimizer, dtype, grads)
    # As in TF, Python hyper-parameters become float32 tensors, cast to the variable's
    # dtype: a float64 variable sees learning_rate=0.001 as float32(0.001).
    defaults = {name: p.default for name, p in inspect.signature(reference).parameters.items()
                if p.default is not inspect.Parameter.empty}
    kwargs = {k: float(np.float32(v)) if isinstance(v, float) and k != "initial_accumulator_value"
              else v for k, v in dict(defaults, **kwargs).items()}
    want_w, want_slots = reference(INITIAL, [g.astype(dtype).astype(np.float64)
                                             for g in grads], **kwargs)
    rtol, atol = (2e-5, 1e-6) if dtype == np.float32 else (1e-10, 1e-12)
    assert w.dtype == dtype
    np.testing.assert_allclose(w, want_w, rtol=rtol, atol=atol)
    assert sorted(slots) == sorted(want_slots)
    for name, value in slots.items():
        assert value.dtype == dtype
        np.testing.assert_allclose(value, want_slots[name], rtol=rtol, atol=atol)
    assert step == STEPS


def test_float16_variables_update_in_half_precision():
    w, slots, _ = run_optimizer(lambda: tf.train.AdamOptimizer(0.1), np.float16,
                                _gradients()[:2])
    want, _ = ref_adam(INITIAL, [g.astype(np.float16).astype(np.float64)
                                 for g in _gradients()[:2]], lr=0.1)
    assert w.dtype == np.float16
    np.testing.assert_allclose(w, want, rtol=5e-3, atol=5e-3)


def test_scalar_variable_and_python_learning_rate_tensor():
    x = tf.Variable(2.0)
    lr = tf.constant(0.5)
    train = tf.train.GradientDescentOptimizer(lr).apply_gradients([(tf.constant(1.0), x)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        assert sess.run(x) == 1.5


def test_callable_hyper_parameters():
    x = tf.Variable([1.0])
    opt = tf.train.MomentumOptimizer(lambda: 0.5, lambda: 0.0)
    train = opt.apply_gradients([(tf.constant([2.0]), x)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        assert sess.run(x).tolist() == [0.0]


# -- the graph minimize/apply_gradients builds -----------------------------------------
def test_slot_variables_names_and_lookup():
    W = tf.Variable(tf.zeros([2, 2]), name="W")
    b = tf.Variable(tf.zeros([2]), name="b")
    pairs = [(tf.ones([2, 2]), W), (tf.ones([2]), b)]
    adam = tf.train.AdamOptimizer()
    adam.apply_gradients(pairs)
    assert adam.get_slot(W, "m").op.name == "W/Adam"
    assert adam.get_slot(W, "v").op.name == "W/Adam_1"
    assert adam.get_slot(b, "m").op.name == "b/Adam"
    assert adam.get_slot_names() == ["m", "v"]
    assert adam.get_slot(W, "momentum") is None
    assert [v.op.name for v in adam.variables()] == [
        "W/Adam", "W/Adam_1", "b/Adam", "b/Adam_1", "beta1_power", "beta2_power"]
    momentum = tf.train.MomentumOptimizer(0.1, 0.9)
    momentum.apply_gradients(pairs)
    assert momentum.get_slot(W, "momentum").name == "W/Momentum:0"
    assert momentum.get_slot_names() == ["momentum"]
    rms = tf.train.RMSPropOptimizer(0.1, centered=True)
    rms.apply_gradients(pairs)
    assert [rms.get_slot(W, s).op.name for s in ("rms", "mg", "momentum")] == [
        "W/RMSProp", "W/RMSProp_1", "W/RMSProp_2"]
    assert tf.train.GradientDescentOptimizer(0.1).get_slot_names() == []
    # Slots are global, non-trainable variables shaped like their variable.
    slot = momentum.get_slot(W, "momentum")
    assert slot in tf.global_variables() and slot not in tf.trainable_variables()
    assert slot.shape.as_list() == [2, 2] and slot.dtype.name == "float32_ref"


def test_update_ops_names_and_train_op_collection():
    W = tf.Variable([1.0, 2.0], name="W")
    train = tf.train.MomentumOptimizer(0.1, 0.9).apply_gradients([(tf.ones([2]), W)])
    graph = tf.get_default_graph()
    assert train.name == "Momentum" and train.type == "NoOp"
    update = graph.get_operation_by_name("Momentum/update_W/ApplyMomentum")
    assert [t.name for t in update.inputs] == [
        "W:0", "W/Momentum:0", "Momentum/learning_rate:0", "ones:0", "Momentum/momentum:0"]
    assert update.get_attr("use_nesterov") is False
    assert update.outputs[0].dtype.name == "float32_ref"
    assert tf.get_collection(tf.GraphKeys.TRAIN_OP) == [train]


def test_global_step_incremented_after_updates():
    W = tf.Variable([1.0], name="W")
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(1.0).apply_gradients(
        [(tf.constant([1.0]), W)], global_step=step, name="train")
    assert train.name == "train" and train.type == "AssignAdd"
    # The increment waits for the updates (through its `train/value` input, as in TF).
    increment = train.inputs[1].op
    assert [c.name for c in increment.control_inputs] == ["train/update"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(1, 4):
            sess.run(train)
            assert tf.train.global_step(sess, step) == i
        assert sess.run(W).tolist() == [-2.0]


def test_adam_beta_powers_advance_once_per_step():
    W = tf.Variable([1.0, 2.0], name="W")
    b = tf.Variable([1.0], name="b")
    opt = tf.train.AdamOptimizer(beta1=0.5, beta2=0.25)
    train = opt.apply_gradients([(tf.ones([2]), W), (tf.ones([1]), b)])
    beta1_power, beta2_power = opt._get_beta_accumulators()
    assert (beta1_power.op.name, beta2_power.op.name) == ("beta1_power", "beta2_power")
    assert not beta1_power.trainable
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        sess.run(train)
        assert sess.run([beta1_power, beta2_power]) == [0.125, 0.25 ** 3]


def test_slots_made_outside_control_dependencies():
    W = tf.Variable([1.0], name="W")
    gate = tf.no_op(name="gate")
    with tf.control_dependencies([gate]):
        tf.train.MomentumOptimizer(0.1, 0.9).apply_gradients([(tf.ones([1]), W)])
    slot_init = tf.get_default_graph().get_operation_by_name("W/Momentum/Assign")
    assert slot_init.control_inputs == []


# -- errors, with TensorFlow's texts ------------------------------------------------
def test_no_variables_to_optimize():
    loss = tf.constant(1.0)
    with pytest.raises(ValueError, match=r"^No variables to optimize\.$"):
        tf.train.GradientDescentOptimizer(0.1).minimize(loss)


def test_apply_gradients_errors():
    W = tf.Variable([1.0], name="W")
    opt = tf.train.GradientDescentOptimizer(0.1)
    with pytest.raises(ValueError, match=r"^No variables provided\.$"):
        opt.apply_gradients([])
    with pytest.raises(ValueError) as e:
        opt.apply_gradients([(None, W)])
    assert str(e.value) == ("No gradients provided for any variable: "
                            "[\"<tf.Variable 'W:0' shape=(1,) dtype=float32_ref>\"].")
    with pytest.raises(NotImplementedError):
        opt.apply_gradients([(tf.ones([1]), tf.ones([1]))])


def test_invalid_loss_dtype_and_bad_arguments():
    tf.Variable([1.0])
    with pytest.raises(ValueError, match=r"^Invalid type tf.int32 for Const:0, expected: "
                                         r"\[tf.float32, tf.float64, tf.float16, "
                                         r"tf.bfloat16\]\.$"):
        tf.train.GradientDescentOptimizer(0.1).compute_gradients(tf.constant(1))
    with pytest.raises(ValueError, match="gate_gradients must be one of"):
        tf.train.GradientDescentOptimizer(0.1).compute_gradients(tf.constant(1.0),
                                                                  gate_gradients=5)
    with pytest.raises(ValueError, match="^initial_accumulator_value must be positive: 0.0$"):
        tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)
    with pytest.raises(ValueError, match="^Must specify the optimizer name$"):
        tf.train.GradientDescentOptimizer(0.1, name="")


def test_gradient_dtype_and_shape_checked_when_building():
    W = tf.Variable([1.0, 2.0], name="W")
    opt = tf.train.GradientDescentOptimizer(0.1)
    with pytest.raises(TypeError, match="^Input 'delta' of 'ApplyGradientDescent' Op has type "
                                        "float64 that does not match type float32 of "
                                        "argument 'var'.$"):
        opt.apply_gradients([(tf.constant([1.0, 2.0], tf.float64), W)])
    with pytest.raises(ValueError, match=r"^Dimension 0 in both shapes must be equal, but are "
                                         r"2 and 3\. Shapes are \[2\] and \[3\]\. for "
                                         r"'GradientDescent_1/update_W/ApplyGradientDescent'"):
        opt.apply_gradients([(tf.constant([1.0, 2.0, 3.0]), W)])


def test_runtime_errors_fed_shape_and_uninitialized_slot():
    W = tf.Variable([1.0, 2.0], name="W")
    g = tf.placeholder(tf.float32)
    train = tf.train.MomentumOptimizer(0.1, 0.9).apply_gradients([(g, W)])
    with tf.Session() as sess:
        sess.run(W.initializer)
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match="^Attempting to use uninitialized value W/Momentum"):
            sess.run(train, {g: [1.0, 1.0]})
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^var and grad do not have the same shape\[2\] \[3\]"):
            sess.run(train, {g: [1.0, 1.0, 1.0]})


def test_stored_values_stay_read_only_and_fetches_are_copies():
    W = tf.Variable([1.0, 2.0], name="W")
    train = tf.train.AdamOptimizer(0.1).apply_gradients([(tf.ones([2]), W)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        stored = sess.variable_values["W"]
        assert not stored.flags.writeable
        fetched = sess.run(W)
        fetched[0] = 100.0
        assert sess.run(W)[0] != 100.0


@pytest.mark.parametrize("make_optimizer", [
    lambda: tf.train.GradientDescentOptimizer(0.1),
    lambda: tf.train.MomentumOptimizer(0.1, 0.9),
    lambda: tf.train.AdamOptimizer(0.1),
    lambda: tf.train.RMSPropOptimizer(0.1, momentum=0.5, centered=True),
])
def test_update_in_place_never_changes_what_a_student_holds(make_optimizer):
    # Updates may write into the stored array (a training-step speed-up), but only when
    # nothing else holds it: a fetched read, a NumPy view of it, or an earlier value.
    W = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="W")
    read = tf.identity(W.value())          # a fetch of this returns the stored array
    part = W.value()[0]                    # a slice: may be a view of the stored array
    train = make_optimizer().apply_gradients([(tf.ones([2, 3]), W)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        held_read, held_part = sess.run([read, part])
        expected_read, expected_part = held_read.copy(), held_part.copy()
        for _ in range(3):
            sess.run(train)
        np.testing.assert_array_equal(held_read, expected_read)
        np.testing.assert_array_equal(held_part, expected_part)
        assert not np.array_equal(sess.run(read), expected_read)
        del held_read, held_part
        # In one run, values computed before the update keep the old numbers: the
        # executor still holds them in its slots when the update runs. A fetched read
        # (Identity of the variable) is the variable's buffer in TensorFlow: it shows the
        # value at the end of the run (docs/variables.md; TF 1.15 gives the same).
        old = sess.run(read)
        read_in_step, part_in_step, _ = sess.run([read, part, train])
        np.testing.assert_array_equal(read_in_step, sess.run(read))
        assert not np.array_equal(read_in_step, old)
        np.testing.assert_array_equal(part_in_step, old[0])
        # Once nobody else holds it, the stored array is updated where it is.
        sess.run(train)
        before = sess.variable_values["W"]
        before_values = before.copy()
        del before
        sess.run(train)
        sess.run(train)
        after = sess.variable_values["W"]
        assert not after.flags.writeable
        assert not np.array_equal(after, before_values)


def test_update_in_place_reuses_the_variables_buffer():
    W = tf.Variable(np.ones((4, 5), np.float32), name="W")
    train = tf.train.GradientDescentOptimizer(0.5).apply_gradients([(tf.ones([4, 5]), W)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)                  # the first update copies the shared initial value
        address = sess.variable_values["W"].__array_interface__["data"][0]
        for _ in range(3):
            sess.run(train)
        stored = sess.variable_values["W"]
        assert stored.__array_interface__["data"][0] == address
        np.testing.assert_allclose(stored, np.full((4, 5), 1.0 - 4 * 0.5, np.float32))


# -- minimize, once tf.gradients exists ---------------------------------------------------
def _has_gradients():
    return callable(getattr(tf, "gradients", None))


@pytest.mark.skipif(not _has_gradients(), reason="tf.gradients not available yet")
def test_minimize_linear_regression_converges():
    rng = np.random.RandomState(0)
    x_data = rng.rand(100).astype(np.float32)
    y_data = 3 * x_data + 2
    W = tf.Variable(tf.random_uniform([1], -1.0, 1.0, seed=1), name="W")
    b = tf.Variable(tf.zeros([1]), name="b")
    loss = tf.reduce_mean(tf.square(W * x_data + b - y_data))
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=step)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(400):
            sess.run(train)
        w_value, b_value = sess.run([W, b])
        assert tf.train.global_step(sess, step) == 400
    np.testing.assert_allclose(w_value, [3.0], atol=1e-3)
    np.testing.assert_allclose(b_value, [2.0], atol=1e-3)


@pytest.mark.skipif(not _has_gradients(), reason="tf.gradients not available yet")
def test_compute_gradients_pairs_and_no_gradient_error():
    W = tf.Variable([1.0, 2.0], name="W")
    unused = tf.Variable(1.0, name="unused")
    loss = tf.reduce_sum(W * W)
    pairs = tf.train.GradientDescentOptimizer(0.1).compute_gradients(loss)
    assert [v for _, v in pairs] == [W, unused]
    assert pairs[1][0] is None
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(pairs[0][0]).tolist() == [2.0, 4.0]
    with pytest.raises(ValueError) as e:
        tf.train.GradientDescentOptimizer(0.1).minimize(loss, var_list=[unused])
    assert str(e.value) == (
        "No gradients provided for any variable, check your graph for ops that do not "
        "support gradients, between variables [\"<tf.Variable 'unused:0' shape=() "
        "dtype=float32_ref>\"] and loss %s." % loss)
