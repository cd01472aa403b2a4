"""The linear-regression step's fast paths (issue 20): they must change nothing but time.

- `ApplyGradientDescent` updates a small float variable held by its Session alone in
  place without the general path's bookkeeping (training_kernels.descend_small_in_place):
  every value bit for bit the general path's, every bad input TensorFlow's error.
- The session fast path takes an ndarray of the placeholder's dtype as it is and skips
  the shape check of a batch shape it checked before (runtime/fed_runs.py): the same
  values as a list fed through the general conversion, TF's errors for the rest.
- A reduction's constant axis is checked once per op and rank (reduction_kernels.py):
  a fed axis, a new rank or a bad axis is judged on every run.
- Two sessions (or two threads of one session) running the step at once.

TensorFlow (tf.compat.v1, ref variables) is the reference where it is installed.
"""
import threading

import numpy as np
import pytest

import tfteach
from device_helpers import virtual_gpus  # noqa: F401 (a fixture)
from tf_reference import tensorflow_v1
from tfteach.kernels.cpu import training_kernels


@pytest.fixture
def general_updates_only(monkeypatch):
    """The update fast path switched off: every ApplyGradientDescent takes the general
    path (the kernel looks the fast path up when it runs)."""
    monkeypatch.setattr(training_kernels, "descend_small_in_place", lambda *args: False)


@pytest.fixture
def count_fast_updates(monkeypatch):
    """[fast, general] counts of the update fast path's answers."""
    counts = [0, 0]
    fast = training_kernels.descend_small_in_place

    def counting(*args):
        taken = fast(*args)
        counts[0 if taken else 1] += 1
        return taken
    monkeypatch.setattr(training_kernels, "descend_small_in_place", counting)
    return counts


def _points(n=100, seed=0, dtype=np.float32):
    rng = np.random.RandomState(seed)
    xs = rng.rand(n, 1).astype(dtype)
    return xs, (3 * xs + 2 + 0.1 * rng.randn(n, 1)).astype(dtype)


def _linreg(tf, dtype="float32", lr=0.1):
    """bench/session_overhead.py's step, as students write it."""
    dt = getattr(tf, dtype)
    x = tf.placeholder(dt, [None, 1], name="x")
    y = tf.placeholder(dt, [None, 1], name="y")
    w = tf.Variable(tf.zeros([1, 1], dt), name="w")
    b = tf.Variable(tf.zeros([1], dt), name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    train = tf.train.GradientDescentOptimizer(lr).minimize(loss)
    return x, y, w, b, loss, train


def _train_linreg(tf, steps=30, dtype="float32", feed_as=np.asarray):
    """Losses and final (w, b) of `steps` steps, fetched as `[train, loss]`."""
    np_dtype = np.dtype(dtype)
    with tf.Graph().as_default():
        x, y, w, b, loss, train = _linreg(tf, dtype)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            losses = []
            for step in range(steps):
                xs, ys = _points(50 + 25 * (step % 3), seed=step, dtype=np_dtype)
                _, value = sess.run([train, loss], {x: feed_as(xs), y: feed_as(ys)})
                losses.append(value)
            return np.array(losses), sess.run(w), sess.run(b)


def _same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


# -- ApplyGradientDescent: the in-place path gives the general path's bits -------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linreg_step_is_bit_identical_with_and_without_the_update_fast_path(
        dtype, monkeypatch, count_fast_updates):
    fast = _train_linreg(tfteach, dtype=dtype)
    assert count_fast_updates[0] >= 2 * 25          # the fast path did the updates
    monkeypatch.setattr(training_kernels, "descend_small_in_place", lambda *args: False)
    general = _train_linreg(tfteach, dtype=dtype)
    for ours, theirs in zip(fast, general):
        _same_bits(ours, theirs)


@pytest.mark.parametrize("shape", [[], [1], [1, 1], [7], [3, 4], [2, 3, 4]])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_updates_of_every_shape_are_bit_identical_to_the_general_path(shape, dtype,
                                                                      monkeypatch):
    def train(fast):
        if not fast:
            monkeypatch.setattr(training_kernels, "descend_small_in_place",
                                lambda *args: False)
        rng = np.random.RandomState(3)
        tf = tfteach
        with tf.Graph().as_default():
            v = tf.Variable(np.asarray(rng.randn(*shape), dtype), name="v")
            g = tf.placeholder(dtype, shape)
            lr = tf.placeholder(dtype, [])            # a fed step size: a 0-d array
            step = tf.train.GradientDescentOptimizer(lr).apply_gradients([(g, v)])
            const_step = tf.train.GradientDescentOptimizer(0.37).apply_gradients([(g, v)])
            with tf.Session() as sess:
                sess.run(v.initializer)
                for i in range(6):
                    grad = np.asarray(rng.randn(*shape) * 10.0 ** (i - 3), dtype)
                    sess.run(step, {g: grad, lr: np.asarray(0.013 * (i + 1), dtype)})
                    sess.run(const_step, {g: grad})
                return sess.run(v)
    fast, general = train(True), train(False)
    _same_bits(fast, general)
    assert not np.array_equal(fast, np.asarray(np.random.RandomState(3).randn(*shape), dtype))


def test_the_fast_path_steps_aside_for_what_it_does_not_handle(count_fast_updates):
    tf = tfteach
    v = tf.Variable(np.ones((4, 3), np.float32), name="v")
    g = tf.placeholder(tf.float32, [4, 3])
    train = tf.train.GradientDescentOptimizer(0.5).apply_gradients([(g, v)])
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(train, {g: np.ones((4, 3), np.float32)})      # copies the shared initial
        counts_before = list(count_fast_updates)
        held = sess.variable_values["v"]        # a student's handle on the stored array
        expected = held.copy()
        sess.run(train, {g: np.ones((4, 3), np.float32)})
        assert count_fast_updates[1] == counts_before[1] + 1    # not in place: general
        np.testing.assert_array_equal(held, expected)           # and untouched
        del held
        strided = np.ones((4, 6), np.float32)[:, ::2]           # not contiguous
        sess.run(train, {g: strided})
        assert count_fast_updates[1] == counts_before[1] + 2
        sess.run(train, {g: np.ones((4, 3), np.float32)})
        assert count_fast_updates[0] == counts_before[0] + 1
        np.testing.assert_array_equal(sess.run(v), np.full((4, 3), 1.0 - 4 * 0.5))
        assert not sess.variable_values["v"].flags.writeable


def test_linreg_step_matches_tensorflow():
    tf1 = tensorflow_v1()
    tf1.disable_resource_variables()
    ours, theirs = _train_linreg(tfteach), _train_linreg(tf1)
    for a, b in zip(ours, theirs):
        # TF's Eigen sums the mean in another order: agreement to float32 rounding.
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# -- bad input on a warm step: TensorFlow's error class and words ------------------------
def _errors_after_warm_runs(bad_run):
    """For TF and tfteach: the exception `bad_run(tf, sess, names)` raises after three
    good steps (the fast paths warm), then whether a good step still runs after it."""
    tf1 = tensorflow_v1()
    tf1.disable_resource_variables()
    out = []
    for tf in (tf1, tfteach):
        with tf.Graph().as_default():
            x, y, w, b, loss, train = _linreg(tf)
            names = {"x": x, "y": y, "w": w, "b": b, "loss": loss, "train": train}
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                xs, ys = _points()
                for _ in range(3):
                    sess.run([train, loss], {x: xs, y: ys})
                with pytest.raises(Exception) as info:
                    bad_run(tf, sess, names)
                sess.run([train, loss], {x: xs, y: ys})
                out.append(info.value)
    return out


def _tf_words(error):
    """The first line of TensorFlow's own message (TF 2's session wraps it in a header
    and the node's traceback)."""
    for line in str(error).splitlines():
        if line.strip() and line != "Graph execution error:" and not line.startswith(
                ("Detected at node", "  File", "    ", "Node: ")):
            return line.strip()
    return ""


def _assert_same_error(theirs, ours):
    assert type(ours).__name__ == type(theirs).__name__
    assert _tf_words(theirs) in str(ours), (str(theirs), str(ours))


BAD_X = {
    "wrong_width": lambda: np.zeros((100, 2), np.float32),
    "wrong_rank": lambda: np.zeros(100, np.float32),
    "ragged": lambda: [[1.0], [2.0, 3.0]],
    "strings": lambda: np.array([["a"]] * 100),
}


@pytest.mark.parametrize("bad", sorted(BAD_X))
def test_bad_feeds_on_a_warm_step_are_refused_as_on_a_cold_one(bad):
    # TF 2.21 words its feed errors as TF 2 does ("which has shape (None, 1)"); tfteach
    # keeps 1.15's ("'(?, 1)'"): the class is compared with TF, the words with the
    # first run of the signature (the general path).
    xs, ys = _points()

    def run(tf, sess, t):
        sess.run([t["train"], t["loss"]], {t["x"]: BAD_X[bad](), t["y"]: ys})
    theirs, ours = _errors_after_warm_runs(run)
    assert type(ours).__name__ == type(theirs).__name__
    tf = tfteach
    with tf.Graph().as_default():
        x, y, w, b, loss, train = _linreg(tf)
        with tf.Session() as cold:
            cold.run(tf.global_variables_initializer())
            with pytest.raises(Exception) as info:
                cold.run([train, loss], {x: BAD_X[bad](), y: ys})
    assert type(info.value) is type(ours) and str(info.value) == str(ours)


def test_a_new_batch_size_and_other_dtypes_on_a_warm_step_give_the_general_paths_values():
    tf = tfteach
    x, y, w, b, loss, train = _linreg(tf)
    runs = [(100, np.float32), (37, np.float32), (100, np.float64), (100, list),
            (37, np.float32), (100, np.float32)]

    def losses(feed_lists):
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = []
            for n, kind in runs:
                xs, ys = _points(n, seed=n)
                if feed_lists or kind is list:
                    xs, ys = xs.tolist(), ys.tolist()       # the general conversion
                elif kind is np.float64:
                    xs, ys = xs.astype(np.float64), ys.astype(np.float64)
                out.append(sess.run([train, loss], {x: xs, y: ys})[1])
            return np.array(out), sess.run(w)
    fast, general = losses(False), losses(True)
    for a, c in zip(fast, general):
        _same_bits(a, c)


def test_an_uninitialized_variable_is_tensorflows_error_after_warm_steps():
    def run(tf, sess, t):
        with tf.variable_scope("late"):
            v = tf.Variable(tf.zeros([1]), name="v")
        step = tf.train.GradientDescentOptimizer(0.1).apply_gradients(
            [(tf.ones([1]), v)])
        sess.run(step)
    theirs, ours = _errors_after_warm_runs(run)
    _assert_same_error(theirs, ours)
    assert "Attempting to use uninitialized value late/v" in str(ours)


@pytest.mark.parametrize("case", ["delta_shape", "alpha_not_scalar"])
def test_bad_update_inputs_after_fast_updates_are_tensorflows_errors(case):
    tf1 = tensorflow_v1()
    tf1.disable_resource_variables()
    out = []
    for tf in (tf1, tfteach):
        with tf.Graph().as_default():
            v = tf.Variable(np.ones(2, np.float32), name="v")
            g = tf.placeholder(tf.float32)
            lr = tf.placeholder(tf.float32)
            step = tf.train.GradientDescentOptimizer(lr).apply_gradients([(g, v)])
            with tf.Session() as sess:
                sess.run(v.initializer)
                for _ in range(3):
                    sess.run(step, {g: np.ones(2, np.float32), lr: np.float32(0.5)})
                bad = ({g: np.ones(3, np.float32), lr: np.float32(0.5)}
                       if case == "delta_shape" else
                       {g: np.ones(2, np.float32), lr: np.ones(2, np.float32)})
                with pytest.raises(Exception) as info:
                    sess.run(step, bad)
                out.append(info.value)
                np.testing.assert_array_equal(sess.run(v), [-0.5, -0.5])   # unchanged
    _assert_same_error(*out)
    assert type(out[1]) is tfteach.errors.InvalidArgumentError


# -- reductions: a constant axis checked once, everything else every run --------------------
def test_reduction_axes_follow_a_fed_axis_and_a_new_rank():
    tf1 = tensorflow_v1()

    def program(tf):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32)                  # rank known only when fed
            axis = tf.placeholder(tf.int32)
            by_fed_axis = tf.reduce_sum(x, axis)
            by_last = tf.reduce_mean(x, -1)
            a = np.arange(6, dtype=np.float32).reshape(2, 3)
            fed = np.array([0], np.int32)
            out = []
            with tf.Session() as sess:
                out.append(sess.run(by_fed_axis, {x: a, axis: fed}))
                fed[0] = 1                          # the same array object, new contents
                out.append(sess.run(by_fed_axis, {x: a, axis: fed}))
                out.append(sess.run(by_last, {x: a}))
                out.append(sess.run(by_last, {x: a.reshape(1, 2, 3)}))
                out.append(sess.run(by_last, {x: a[0]}))
                try:
                    sess.run(by_last, {x: np.float32(2.0)})        # rank 0: axis -1 bad
                except Exception as e:  # noqa: BLE001 - the error is what we compare
                    out.append((type(e).__name__, _tf_words(e)))
                out.append(sess.run(by_last, {x: a}))
            return out
    ours, theirs = program(tfteach), program(tf1)
    assert len(ours) == len(theirs) == 7
    for a, b in zip(ours, theirs):
        if isinstance(b, tuple):
            assert a[0] == b[0] and b[1] in a[1]
        else:
            np.testing.assert_array_equal(a, b)


# -- threads -----------------------------------------------------------------------------------
STEPS_PER_THREAD = 40


def test_two_sessions_stepping_at_once_reach_the_serial_weights(one_blas_thread):
    tf = tfteach
    x, y, w, b, loss, train = _linreg(tf)
    batches = [_points(64, seed=s) for s in range(STEPS_PER_THREAD)]

    def training(sess, out, barrier=None):
        sess.run(tf.global_variables_initializer())
        if barrier is not None:
            barrier.wait()
        losses = [sess.run([train, loss], {x: xs, y: ys})[1] for xs, ys in batches]
        out.append((np.array(losses), sess.run(w), sess.run(b)))

    serial = []
    with tf.Session() as sess:
        training(sess, serial)
    sessions = [tf.Session(), tf.Session()]
    results = [[], []]
    barrier = threading.Barrier(2)
    threads = [threading.Thread(target=training, args=(s, r, barrier))
               for s, r in zip(sessions, results)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s in sessions:
        s.close()
    for result in results:
        assert len(result) == 1
        for ours, theirs in zip(result[0], serial[0]):
            _same_bits(ours, theirs)


def test_two_threads_stepping_one_session_apply_their_updates():
    # A constant gradient (loss = sum(c * v)): each update subtracts lr * c. Without
    # use_locking, TensorFlow lets concurrent updates of one variable race (an update
    # may be lost); the last writer's own updates are always there.
    tf = tfteach
    c = np.array([1.0, 2.0, 4.0], np.float32)
    v = tf.Variable(np.zeros(3, np.float32), name="v")
    train = tf.train.GradientDescentOptimizer(0.125).minimize(tf.reduce_sum(c * v))
    errors = []
    with tf.Session() as sess:
        sess.run(v.initializer)

        def steps():
            try:
                for _ in range(STEPS_PER_THREAD):
                    sess.run(train)
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)
        threads = [threading.Thread(target=steps) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        final = sess.run(v)
        assert not sess.variable_values["v"].flags.writeable
    assert errors == []
    updates = -final / (0.125 * c)          # exact: multiples of a power of two
    assert np.all(updates == np.round(updates))
    assert np.all((STEPS_PER_THREAD <= updates) & (updates <= 2 * STEPS_PER_THREAD))


# -- on the course kernel's virtual GPU --------------------------------------------------
def test_on_a_virtual_gpu_the_update_fast_path_keeps_the_bits_and_the_memory_figures(
        virtual_gpus, monkeypatch, count_fast_updates):
    # The variable's Buffer holds its array too (session_memory.DeviceVariableStore): the
    # update in place keeps that Buffer, as the general path's in-place update does, so
    # peak, num_allocs and what stays in use are the general path's.
    from device_helpers import on_a_fresh_gpu
    counts = count_fast_updates
    counting = training_kernels.descend_small_in_place     # the fixture's

    def train():
        assert tfteach.test.is_gpu_available()
        return _train_linreg(tfteach, steps=12)
    with_fast, figures = on_a_fresh_gpu(virtual_gpus, monkeypatch, train)
    assert counts[0] >= 2 * 10 and figures["num_allocs"] > 0
    monkeypatch.setattr(training_kernels, "descend_small_in_place", lambda *args: False)
    general, general_figures = on_a_fresh_gpu(virtual_gpus, monkeypatch, train)
    for ours, theirs in zip(with_fast, general):
        _same_bits(ours, theirs)
    assert figures == general_figures
    # a student's handle on the stored array is a holder: no update in place then
    counts[:] = [0, 0]
    monkeypatch.setattr(training_kernels, "descend_small_in_place", counting)

    def holding():
        x, y, w, b, loss, train_op = _linreg(tfteach)
        with tfteach.Session() as sess:
            sess.run(tfteach.global_variables_initializer())
            xs, ys = _points(20)
            sess.run(train_op, {x: xs, y: ys})
            held = sess.variable_values[w.op.name]
            before = held.copy()
            general_before = counts[1]
            sess.run(train_op, {x: xs, y: ys})
            assert counts[1] == general_before + 1       # w's update: the general path
            np.testing.assert_array_equal(held, before)  # which left the held array alone
            assert not np.array_equal(sess.run(w), before)
    on_a_fresh_gpu(virtual_gpus, monkeypatch, holding)
