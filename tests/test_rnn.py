"""RNN cells, dynamic_rnn and static_rnn against NumPy written here from the equations.

Every NumPy reference uses the cell's own variables, fetched from the session, so the
tests check the computation (gate order i, j, f, o; forget_bias; peepholes; projection)
and not the initial values.
"""
import numpy as np
import pytest

import tfteach as tf
from tolerances import assert_close

RNG = np.random.RandomState(42)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# -- NumPy cells --------------------------------------------------------------------------------
def np_basic_lstm(x, c, h, kernel, bias, forget_bias=1.0):
    z = np.concatenate([x, h], 1) @ kernel + bias
    i, j, f, o = np.split(z, 4, axis=1)
    new_c = c * sigmoid(f + forget_bias) + sigmoid(i) * np.tanh(j)
    return np.tanh(new_c) * sigmoid(o), new_c


def np_lstm(x, c, m, v, forget_bias=1.0, peep=False, cell_clip=None, proj_clip=None):
    z = np.concatenate([x, m], 1) @ v["kernel"] + v["bias"]
    i, j, f, o = np.split(z, 4, axis=1)
    if peep:
        c = sigmoid(f + forget_bias + v["w_f_diag"] * c) * c + \
            sigmoid(i + v["w_i_diag"] * c) * np.tanh(j)
    else:
        c = sigmoid(f + forget_bias) * c + sigmoid(i) * np.tanh(j)
    if cell_clip is not None:
        c = np.clip(c, -cell_clip, cell_clip)
    m = sigmoid(o + (v["w_o_diag"] * c if peep else 0)) * np.tanh(c)
    if "projection/kernel" in v:
        m = m @ v["projection/kernel"]
        if proj_clip is not None:
            m = np.clip(m, -proj_clip, proj_clip)
    return m, c


def np_gru(x, h, v):
    r, u = np.split(sigmoid(np.concatenate([x, h], 1) @ v["gates/kernel"] +
                            v["gates/bias"]), 2, axis=1)
    cand = np.tanh(np.concatenate([x, r * h], 1) @ v["candidate/kernel"] +
                   v["candidate/bias"])
    return u * h + (1 - u) * cand


def np_basic_rnn(x, h, v):
    return np.tanh(np.concatenate([x, h], 1) @ v["kernel"] + v["bias"])


def values_by_suffix(sess, scope=""):
    """{'kernel': array, 'gates/bias': array, ...} of the variables under `scope`."""
    result = {}
    for var in tf.global_variables():
        if var.name.startswith(scope):
            short = var.name[len(scope):].split(":")[0]
            short = "/".join(short.split("/")[1:]) if "/" in short else short
            result[short] = sess.run(var)
    return result


# -- single cells -------------------------------------------------------------------------------
def test_basic_lstm_cell_one_step_gate_order_and_forget_bias():
    x = RNG.randn(3, 4)
    c0, h0 = RNG.randn(3, 5), RNG.randn(3, 5)
    cell = tf.nn.rnn_cell.BasicLSTMCell(5, forget_bias=0.7)
    assert cell.state_size == (5, 5) and cell.output_size == 5
    out, state = cell(tf.constant(x), tf.nn.rnn_cell.LSTMStateTuple(tf.constant(c0),
                                                                       tf.constant(h0)))
    assert isinstance(state, tf.nn.rnn_cell.LSTMStateTuple)
    names = sorted((v.name, v.shape.as_list()) for v in tf.global_variables())
    assert names == [("basic_lstm_cell/bias:0", [20]), ("basic_lstm_cell/kernel:0", [9, 20])]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        kernel, bias = sess.run([cell.trainable_weights[0], cell.trainable_weights[1]])
        assert not bias.any()                                   # bias starts at zeros
        sess.run(cell.trainable_weights[1].assign(RNG.randn(20)))
        bias = sess.run(cell.trainable_weights[1])
        got_out, got_state = sess.run([out, state])
    want_h, want_c = np_basic_lstm(x, c0, h0, kernel, bias, forget_bias=0.7)
    assert_close(got_out, want_h, rtol=1e-10)
    assert_close(got_state.c, want_c, rtol=1e-10)
    assert_close(got_state.h, want_h, rtol=1e-10)


@pytest.mark.parametrize("peep,num_proj,cell_clip,proj_clip", [
    (False, None, None, None), (True, None, 0.5, None), (True, 3, None, 0.1)])
def test_lstm_cell_peepholes_projection_clipping(peep, num_proj, cell_clip, proj_clip):
    x, c0 = RNG.randn(2, 4), RNG.randn(2, 6)
    m0 = RNG.randn(2, num_proj or 6)
    cell = tf.nn.rnn_cell.LSTMCell(6, use_peepholes=peep, num_proj=num_proj,
                                   cell_clip=cell_clip, proj_clip=proj_clip,
                                   forget_bias=0.3)
    assert cell.output_size == (num_proj or 6)
    out, state = cell(tf.constant(x), (tf.constant(c0), tf.constant(m0)))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for var in tf.global_variables():      # random values everywhere, bias included
            sess.run(var.assign(RNG.randn(*var.shape.as_list())))
        v = values_by_suffix(sess)
        got_out, got_state = sess.run([out, state])
    want_m, want_c = np_lstm(x, c0, m0, v, forget_bias=0.3, peep=peep, cell_clip=cell_clip,
                             proj_clip=proj_clip)
    np.testing.assert_allclose(got_out, want_m, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_state.c, want_c, rtol=1e-10, atol=1e-12)


def test_gru_and_basic_rnn_cells():
    x, h = RNG.randn(3, 2), RNG.randn(3, 4)
    gru = tf.nn.rnn_cell.GRUCell(4)
    rnn = tf.nn.rnn_cell.BasicRNNCell(4)
    g_out, g_state = gru(tf.constant(x), tf.constant(h))
    r_out, r_state = rnn(tf.constant(x), tf.constant(h))
    names = sorted(v.name for v in tf.global_variables())
    assert names == ["basic_rnn_cell/bias:0", "basic_rnn_cell/kernel:0",
                     "gru_cell/candidate/bias:0", "gru_cell/candidate/kernel:0",
                     "gru_cell/gates/bias:0", "gru_cell/gates/kernel:0"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert (sess.run(tf.global_variables("gru_cell/gates/bias")[0]) == 1.0).all()
        vg = values_by_suffix(sess, "gru_cell")
        vr = values_by_suffix(sess, "basic_rnn_cell")
        got = sess.run([g_out, g_state, r_out, r_state])
    assert_close(got[0], np_gru(x, h, vg), rtol=1e-10)
    assert_close(got[1], got[0])
    assert_close(got[2], np_basic_rnn(x, h, vr), rtol=1e-10)


def test_cell_reuses_its_variables_and_a_second_cell_gets_new_ones():
    x = tf.placeholder(tf.float32, [None, 3])
    cell = tf.nn.rnn_cell.BasicLSTMCell(2)
    state = cell.zero_state(4, tf.float32)
    assert state.c.shape.as_list() == [4, 2]
    _, state = cell(x, state)
    cell(x, state)                                   # same variables
    assert len(tf.global_variables()) == 2
    other = tf.nn.rnn_cell.BasicLSTMCell(2)
    other(x, state)
    assert sorted(v.name for v in tf.global_variables())[-2:] == [
        "basic_lstm_cell_1/bias:0", "basic_lstm_cell_1/kernel:0"]
    with tf.variable_scope("decoder"):
        tf.nn.rnn_cell.GRUCell(2, name="my_gru")(x, state.h)
    assert "decoder/my_gru/gates/kernel:0" in [v.name for v in tf.global_variables()]


def test_cell_errors():
    cell = tf.nn.rnn_cell.BasicLSTMCell(2)
    with pytest.raises(ValueError, match=r"Expected inputs.shape\[-1\] to be known"):
        cell(tf.placeholder(tf.float32, [None, None]), cell.zero_state(1, tf.float32))
    with pytest.raises(ValueError, match="expected ndim=2, found ndim=3"):
        tf.nn.rnn_cell.GRUCell(2)(tf.zeros([1, 2, 3]), tf.zeros([1, 2]))
    with pytest.raises(ValueError, match="RNN cell only supports floating point inputs"):
        tf.nn.rnn_cell.BasicRNNCell(2)(tf.zeros([1, 2], tf.int32), tf.zeros([1, 2], tf.int32))
    with pytest.raises(TypeError, match="is not an RNNCell: 'output_size' property is "
                                        "missing"):
        tf.nn.dynamic_rnn(object(), tf.zeros([1, 2, 3]), dtype=tf.float32)
    with pytest.raises(ValueError, match="Must specify at least one cell"):
        tf.nn.rnn_cell.MultiRNNCell([])


def test_zero_state_with_a_tensor_batch_size_and_nested_cells():
    batch = tf.placeholder(tf.int32, [])
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(3),
                                        tf.nn.rnn_cell.GRUCell(2)])
    assert cell.state_size == ((3, 3), 2)
    state = cell.zero_state(batch, tf.float64)
    assert state[0].c.shape.as_list() == [None, 3] and state[1].dtype == tf.float64
    with tf.Session() as sess:
        value = sess.run(state, {batch: 5})
    assert value[0].h.shape == (5, 3) and value[1].shape == (5, 2) and not value[1].any()


# -- dynamic_rnn against a NumPy loop and static_rnn ---------------------------------------------
def np_lstm_sequence(x, lengths, kernel, bias, units):
    """x: [batch, time, depth] -> outputs [batch, time, units], (c, h) at each length."""
    batch, steps, _ = x.shape
    c, h = np.zeros((batch, units)), np.zeros((batch, units))
    outputs = np.zeros((batch, steps, units))
    for t in range(steps):
        new_h, new_c = np_basic_lstm(x[:, t], c, h, kernel, bias)
        alive = (t < lengths)[:, None]
        outputs[:, t] = np.where(alive, new_h, 0.0)
        c, h = np.where(alive, new_c, c), np.where(alive, new_h, h)
    return outputs, c, h


@pytest.mark.parametrize("time_major", [False, True])
def test_dynamic_rnn_vs_numpy_and_static_rnn(time_major):
    x = RNG.randn(4, 6, 3)
    lengths = np.array([6, 3, 1, 0])
    xs = tf.placeholder(tf.float64, [6, None, 3] if time_major else [None, 6, 3])
    seq = tf.placeholder(tf.int64, [None])
    cell = tf.nn.rnn_cell.BasicLSTMCell(5)
    outputs, state = tf.nn.dynamic_rnn(cell, xs, sequence_length=seq, dtype=tf.float64,
                                       time_major=time_major)
    assert outputs.shape.as_list() == ([6, None, 5] if time_major else [None, 6, 5])
    assert outputs.name.startswith("rnn/")
    steps = tf.unstack(xs, axis=0 if time_major else 1)
    static_outputs, static_state = tf.nn.static_rnn(cell, steps, dtype=tf.float64,
                                                    sequence_length=seq, scope="rnn")
    assert len(tf.global_variables()) == 2        # static_rnn reused the cell's weights
    feed = {xs: x.transpose(1, 0, 2) if time_major else x, seq: lengths}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        kernel, bias = sess.run(cell.trainable_weights)
        got, got_state, st_out, st_state = sess.run(
            [outputs, state, static_outputs, static_state], feed)
    want, want_c, want_h = np_lstm_sequence(x, lengths, kernel, bias, 5)
    if time_major:
        got = got.transpose(1, 0, 2)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(got_state.c, want_c, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(got_state.h, want_h, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(np.stack(st_out, 1), want, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(st_state.c, want_c, rtol=1e-10, atol=1e-14)


def test_dynamic_rnn_unknown_time_and_batch():
    x = tf.placeholder(tf.float32, [None, None, 2])
    cell = tf.nn.rnn_cell.GRUCell(3)
    outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    assert outputs.shape.as_list() == [None, None, 3]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for steps in (1, 7):
            o, s = sess.run([outputs, state], {x: np.ones((2, steps, 2))})
            assert o.shape == (2, steps, 3)
            assert_close(o[:, -1], s, rtol=1e-6)


def test_dynamic_rnn_builds_a_while_loop_with_the_cell_inside():
    x = tf.placeholder(tf.float32, [None, 5, 2])
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(3) for _ in range(2)])
    tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    ops = {op.name: op.type for op in tf.get_default_graph().get_operations()}
    assert ops["rnn/while"] == "While"
    assert ops["rnn/while/rnn/multi_rnn_cell/cell_0/basic_lstm_cell/MatMul"] == "MatMul"
    assert ops["rnn/while/rnn/multi_rnn_cell/cell_1/basic_lstm_cell/MatMul"] == "MatMul"
    # One matmul per cell per step: the body holds the cell once, not 5 times.
    assert sum(1 for name, t in ops.items() if t == "MatMul") == 2


def test_dynamic_rnn_errors():
    cell = tf.nn.rnn_cell.BasicRNNCell(2)
    x = tf.placeholder(tf.float32, [None, 4, 3])
    with pytest.raises(ValueError, match="^If there is no initial_state, you must give a "
                                         "dtype.$"):
        tf.nn.dynamic_rnn(cell, x)
    with pytest.raises(ValueError, match="^If no initial_state is provided, dtype must be "
                                         "specified$"):
        tf.nn.static_rnn(cell, tf.unstack(x, axis=1))
    with pytest.raises(ValueError, match="must have rank at least 3|to have rank at least 2"):
        tf.nn.dynamic_rnn(cell, tf.placeholder(tf.float32, [None, 3]), dtype=tf.float32)
    with pytest.raises(ValueError, match="Input size \\(depth of inputs\\) must be "
                                         "accessible via shape inference"):
        tf.nn.dynamic_rnn(cell, tf.placeholder(tf.float32, [None, 4, None]),
                          dtype=tf.float32)
    with pytest.raises(ValueError, match="sequence_length must be a vector"):
        tf.nn.dynamic_rnn(cell, x, sequence_length=[[1]], dtype=tf.float32)
    with pytest.raises(TypeError, match="inputs must be a sequence"):
        tf.nn.static_rnn(cell, x, dtype=tf.float32)


def test_wrong_sequence_length_count_fails_at_run_time():
    x = tf.placeholder(tf.float32, [None, 4, 3])
    seq = tf.placeholder(tf.int32, [None])
    out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicRNNCell(2), x, sequence_length=seq,
                               dtype=tf.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError, match="Expected shape for Tensor"):
            sess.run(out, {x: np.zeros((2, 4, 3)), seq: [1, 2, 3]})


def test_nested_inputs_and_outputs():
    class PairCell(tf.nn.rnn_cell.RNNCell):
        """A student's cell: two inputs, two outputs, get_variable inside call."""
        state_size = 2
        output_size = (2, 1)

        def call(self, inputs, state):
            a, b = inputs
            w = tf.get_variable("w", [3, 2], dtype=a.dtype,
                                initializer=tf.constant_initializer(0.5))
            new = tf.tanh(tf.matmul(tf.concat([a, b], 1), w) + state)
            return (new, tf.reduce_sum(new, 1, keepdims=True)), new

    a = tf.constant(RNG.randn(2, 4, 2))
    b = tf.constant(RNG.randn(2, 4, 1))
    (o1, o2), state = tf.nn.dynamic_rnn(PairCell(), (a, b), dtype=tf.float64)
    assert [v.name for v in tf.global_variables()] == ["rnn/pair_cell/w:0"]
    assert o1.shape.as_list() == [2, 4, 2] and o2.shape.as_list() == [2, 4, 1]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        v1, v2, s, av, bv = sess.run([o1, o2, state, a, b])
    h = np.zeros((2, 2))
    for t in range(4):
        h = np.tanh(np.concatenate([av[:, t], bv[:, t]], 1) @ np.full((3, 2), 0.5) + h)
        assert_close(v1[:, t], h, rtol=1e-12)
    assert_close(v2[..., 0], v1.sum(-1), rtol=1e-12)
    assert_close(s, h, rtol=1e-12)


# -- gradients ------------------------------------------------------------------------------------
def _finite_difference(sess, loss, variable, feed, h=1e-6):
    value = sess.run(variable)
    numeric = np.zeros_like(value)
    for idx in np.ndindex(*value.shape):
        for sign in (1, -1):
            shifted = value.copy()
            shifted[idx] += sign * h
            variable.load(shifted, sess)
            numeric[idx] += sign * sess.run(loss, feed) / (2 * h)
    variable.load(value, sess)
    return numeric


def test_gradients_through_dynamic_rnn_match_finite_differences():
    x = tf.Variable(RNG.randn(2, 4, 3), name="x")
    seq = tf.constant([4, 2])
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(3, use_peepholes=True),
                                        tf.nn.rnn_cell.GRUCell(2)])
    outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=seq, dtype=tf.float64)
    weights = tf.constant(RNG.randn(2, 4, 2))
    loss = tf.reduce_sum(outputs * weights) + tf.reduce_sum(state[0].c ** 2)
    variables = tf.global_variables()
    grads = tf.gradients(loss, variables)
    assert all(g is not None for g in grads)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for var in variables:       # nonzero biases: every path of the cells counts
            if "bias" in var.name:
                var.load(RNG.randn(*var.shape.as_list()) * 0.5, sess)
        analytic = sess.run(grads)
        for var, got in zip(variables, analytic):
            numeric = _finite_difference(sess, loss, var, {})
            np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-8,
                                       err_msg=var.name)


def test_gradients_with_dropout_use_the_forward_masks():
    # With fixed seeds, every new Session draws the same dropout masks in its first run:
    # finite differences over fresh sessions see one fixed mask, as the gradient must.
    tf.set_random_seed(7)
    x = tf.constant(RNG.randn(2, 4, 2))
    cell = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.BasicRNNCell(3),
                                         input_keep_prob=0.6, output_keep_prob=0.7,
                                         seed=3)
    outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float64)
    kernel = tf.trainable_variables()[0]
    assert kernel.name == "rnn/basic_rnn_cell/kernel:0"
    loss = tf.reduce_sum(outputs * outputs) + tf.reduce_sum(state)
    grad = tf.gradients(loss, kernel)[0]
    init = tf.global_variables_initializer()
    kernel_value = RNG.randn(5, 3) * 0.5

    def run(value, fetch):
        with tf.Session() as sess:
            sess.run(init)
            kernel.load(value, sess)
            return sess.run(fetch)

    got, out = run(kernel_value, [grad, outputs])
    assert (out == 0).any()                     # dropout happened
    numeric = np.zeros_like(kernel_value)
    h = 1e-6
    for idx in np.ndindex(*kernel_value.shape):
        plus, minus = kernel_value.copy(), kernel_value.copy()
        plus[idx] += h
        minus[idx] -= h
        numeric[idx] = (run(plus, loss) - run(minus, loss)) / (2 * h)
    np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-8)


def test_gradient_of_the_final_state_alone():
    x = tf.placeholder(tf.float64, [2, 3, 2])
    outputs, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), x, dtype=tf.float64)
    wrt = tf.trainable_variables() + [x]
    from_state = tf.gradients(tf.reduce_sum(state), wrt)
    from_outputs = tf.gradients(tf.reduce_sum(outputs[:, -1]), wrt)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {x: RNG.randn(2, 3, 2)}
        for a, b in zip(sess.run(from_state, feed), sess.run(from_outputs, feed)):
            assert_close(a, b, rtol=1e-12)
            assert np.abs(a).sum() > 0


def test_dropout_keep_prob_placeholder():
    keep_prob = tf.placeholder(tf.float32, [])
    cell = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.BasicLSTMCell(50),
                                         output_keep_prob=keep_prob)
    x = tf.ones([4, 3, 2])
    outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    plain, _ = tf.nn.dynamic_rnn(cell.cell, x, dtype=tf.float32)     # same weights
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        kept, base = sess.run([outputs, plain], {keep_prob: 1.0})
        assert_close(kept, base, rtol=1e-6)
        dropped = sess.run(outputs, {keep_prob: 0.5})
    assert 0.3 < (dropped != 0).mean() < 0.7


def test_dropout_wrapper_keeps_c_and_scales_h():
    cell = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.BasicLSTMCell(200),
                                         state_keep_prob=0.5, seed=1)
    x = tf.ones([2, 3])
    out, state = cell(x, cell.zero_state(2, tf.float32))
    plain_out, plain_state = cell.cell(x, cell.zero_state(2, tf.float32))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o, s, po, ps = sess.run([out, state, plain_out, plain_state])
    assert_close(o, po)                 # no output dropout asked
    assert_close(s.c, ps.c)             # c is never dropped
    kept = s.h != 0
    assert 0.3 < kept.mean() < 0.7
    assert_close(s.h[kept], 2 * ps.h[kept], rtol=1e-6)


def test_contrib_rnn_is_the_same_api():
    assert tf.contrib.rnn.BasicLSTMCell is tf.nn.rnn_cell.BasicLSTMCell
    assert tf.contrib.rnn.LSTMStateTuple is tf.nn.rnn_cell.LSTMStateTuple
    assert tf.contrib.rnn.static_rnn is tf.nn.static_rnn
    assert tf.contrib.rnn.MultiRNNCell is tf.nn.rnn_cell.MultiRNNCell
