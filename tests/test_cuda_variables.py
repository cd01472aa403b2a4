"""Variables on a real GPU (kernels/cuda/variables.py, training.py), on Numba's simulator.

With a 'cuda' device (the simulated_cuda_gpu fixture of test_cuda_runtime.py), a
variable lives in device memory as TensorFlow keeps it: VariableV2, its Assign, its
`read` and the optimizers' updates are placed on GPU:0, its value is a device array
accounted on GPU_0_bfc while the session lives, and every figure equals a CPU-only run.
"""
import io
import re
import sys

import numpy as np
import pytest

import tfteach as tf
from test_cuda_runtime import (GPU0, launch, simulated_cuda_gpu,  # noqa: F401 (fixtures)
                               virtual_gpus_and_cuda_kernels)

OPTIMIZERS = {
    "GradientDescent": lambda: tf.train.GradientDescentOptimizer(0.1),
    "Momentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9),
    "NesterovMomentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    "Adam": lambda: tf.train.AdamOptimizer(0.05),
    "Adagrad": lambda: tf.train.AdagradOptimizer(0.1),      # the host fallback
}


def _mlp(make_optimizer):
    rng = np.random.RandomState(0)
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    y = tf.placeholder(tf.float32, [None, 3], name="y")
    w1 = tf.Variable(rng.randn(4, 5).astype(np.float32), name="w1")
    b1 = tf.Variable(np.zeros(5, np.float32), name="b1")
    w2 = tf.Variable(rng.randn(5, 3).astype(np.float32), name="w2")
    logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    train = make_optimizer().minimize(loss)
    feed = {x: rng.randn(6, 4).astype(np.float32),
            y: np.eye(3, dtype=np.float32)[rng.randint(0, 3, 6)]}
    return loss, train, [w1, b1, w2], feed


def _train(config, make_optimizer, steps=3):
    tf.reset_default_graph()
    loss, train, variables, feed = _mlp(make_optimizer)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        losses = [sess.run([loss, train], feed)[0] for _ in range(steps)]
        stored = dict(sess.variable_values)
        return losses, sess.run(variables), stored, [v.op.name for v in variables]


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_training_an_mlp_on_the_gpu_equals_the_cpu(simulated_cuda_gpu, name):
    cpu_losses, cpu_values, _, _ = _train(tf.ConfigProto(device_count={"GPU": 0}),
                                          OPTIMIZERS[name])
    losses, values, stored, names = _train(None, OPTIMIZERS[name])
    np.testing.assert_allclose(losses, cpu_losses, rtol=1e-5, atol=1e-6)
    assert cpu_losses[-1] < cpu_losses[0]                       # it did train
    for got, expected in zip(values, cpu_values):
        assert type(got) is np.ndarray                          # fetched back to the host
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    for op_name in names:
        assert launch.is_device_array(stored[op_name]), op_name   # lived on the device
    assert simulated_cuda_gpu.allocator.bytes_in_use == 0       # freed at close


def _placements(capsys):
    """{op name: device} from the placement log the session printed."""
    return dict(re.findall(r"^(\S+): \(\w+\): (\S+)$", capsys.readouterr().out, re.M))


def test_the_placement_log_puts_variables_and_updates_on_gpu0(simulated_cuda_gpu, capsys):
    loss, train, _, feed = _mlp(OPTIMIZERS["Adam"])
    with tf.Session(config=tf.ConfigProto(log_device_placement=True)) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, feed)
    placed = _placements(capsys)
    for name in ["w1", "w1/Assign", "w1/read", "b1", "w2/read",
                 "Adam/update_w1/ApplyAdam", "Adam/update_b1/ApplyAdam",
                 "w1/Adam", "w1/Adam_1", "beta1_power", "Adam/Assign"]:
        assert placed[name] == GPU0, name


def test_gpu_variables_are_accounted_while_the_session_lives(simulated_cuda_gpu):
    v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="v")
    w = tf.Variable(np.ones(100, np.float64), name="w")
    sess = tf.Session()
    sess.run(tf.variables_initializer([v, w]))
    stats = tf.config.memory_stats("/gpu:0")
    assert stats["allocator"] == "GPU_0_bfc"
    live = {b["op"]: (tuple(b["shape"]), b["bytes"]) for b in stats["live_buffers"]}
    # BFC's 256-byte rounding. Each initial value (a Const placed with its only consumer,
    # the Assign) stays on the card too while the session lives, as TF's Const kernel
    # keeps its tensor (and as on a virtual GPU: test_memory.py).
    assert live == {"v": ((2, 3), 256), "w": ((100,), 1024),
                    "v/initial_value": ((2, 3), 256), "w/initial_value": ((100,), 1024)}
    assert stats["bytes_in_use"] == 2 * (256 + 1024)
    sess.close()
    assert tf.config.memory_stats("/gpu:0")["bytes_in_use"] == 0


def test_an_uninitialized_gpu_variable_fails_as_in_tensorflow(simulated_cuda_gpu):
    v = tf.Variable(np.ones(3, np.float32), name="v")
    doubled = v * 2.0
    with tf.Session() as sess:
        assert not sess.run(tf.is_variable_initialized(v))
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match="Attempting to use uninitialized value v"):
            sess.run(doubled)
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match="Attempting to use uninitialized value v"):
            sess.run(v)
        sess.run(v.initializer)
        assert sess.run(tf.is_variable_initialized(v))
        np.testing.assert_array_equal(sess.run(doubled), [2.0, 2.0, 2.0])
    assert simulated_cuda_gpu.allocator.bytes_in_use == 0


def test_fetches_of_a_gpu_variable_are_copies(simulated_cuda_gpu):
    v = tf.Variable(np.zeros(3, np.float32), name="v")
    bump = tf.assign_add(v, np.ones(3, np.float32))
    down = tf.assign_sub(v, np.full(3, 0.5, np.float32))
    with tf.Session() as sess:
        sess.run(v.initializer)
        first = sess.run(v)
        first[0] = 99.0                                   # the student's own array
        np.testing.assert_array_equal(sess.run(v), [0.0, 0.0, 0.0])
        np.testing.assert_array_equal(sess.run(bump), [1.0, 1.0, 1.0])
        np.testing.assert_array_equal(sess.run(down), [0.5, 0.5, 0.5])
        v.load(np.array([4.0, 5.0, 6.0], np.float32), sess)
        np.testing.assert_array_equal(sess.run(v), [4.0, 5.0, 6.0])
        assert launch.is_device_array(sess.variable_values["v"])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Assign requires shapes of both tensors to match"):
            wrong = tf.placeholder(tf.float32, [None])
            sess.run(tf.assign(v, wrong), {wrong: np.ones(2, np.float32)})
        np.testing.assert_array_equal(sess.run(v), [4.0, 5.0, 6.0])    # unchanged


def test_an_update_never_changes_a_value_the_same_run_still_reads(simulated_cuda_gpu):
    v = tf.Variable(np.ones(4, np.float32), name="v")
    read = tf.identity(v.read_value() if hasattr(v, "read_value") else v._snapshot)
    with tf.control_dependencies([read]):
        step = tf.train.GradientDescentOptimizer(1.0).apply_gradients(
            [(tf.constant(np.full(4, 0.25, np.float32)), v)])
    with tf.Session() as sess:
        sess.run(v.initializer)
        before, _ = sess.run([read, step])
        np.testing.assert_array_equal(before, [1.0] * 4)          # read before the update
        np.testing.assert_array_equal(sess.run(v), [0.75] * 4)
        stored = sess.variable_values["v"]
        sess.run(step)                       # nobody else holds it: updated in place
        assert sess.variable_values["v"] is stored
        np.testing.assert_array_equal(sess.run(v), [0.5] * 4)


def test_an_ema_of_a_gpu_variable_matches_numpy(simulated_cuda_gpu):
    v = tf.Variable(np.array([1.0, 2.0], np.float32), name="v")
    ema = tf.train.ExponentialMovingAverage(0.5)
    update = ema.apply([v])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(v, [3.0, 4.0]))
        sess.run(update)
        # shadow = 0.5 * shadow + 0.5 * v, from shadow = v's initial value
        np.testing.assert_allclose(sess.run(ema.average(v)), [2.0, 3.0])
        assert launch.is_device_array(sess.variable_values[ema.average(v).op.name])


def test_constants_under_an_explicit_gpu_scope_are_placed_on_the_gpu(simulated_cuda_gpu):
    # The notes' first device program: constants and a matmul inside tf.device('/gpu:0').
    tf.reset_default_graph()
    with tf.device("/gpu:0"):
        a = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], name="a")
        b = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], name="b")
        c = tf.matmul(a, b, name="c")
    out = io.StringIO()
    saved, sys.stdout = sys.stdout, out
    try:
        with tf.Session(config=tf.ConfigProto(log_device_placement=True)) as sess:
            got = sess.run(c)
            meta = tf.RunMetadata()
            traced = sess.run(c, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                              run_metadata=meta)
    finally:
        sys.stdout = saved
    expected = np.array([[22.0, 28.0], [49.0, 64.0]], np.float32)
    np.testing.assert_allclose(got, expected)
    np.testing.assert_allclose(traced, expected)
    log = out.getvalue()
    for name, op in (("a", "Const"), ("b", "Const"), ("c", "MatMul")):
        assert "%s: (%s): %s" % (name, op, GPU0) in log
    ran = {n.node_name: n.device for n in meta.step_stats.all_nodes()}
    assert ran["a"] == ran["b"] == ran["c"] == GPU0


def _epochs_pipeline():
    """The notes' file-name queue with num_epochs: an int64 epoch counter (a local
    variable) read by CountUpTo, which TF has no GPU kernel for."""
    names = tf.train.string_input_producer(["a", "b"], num_epochs=2, shuffle=False)
    return names.dequeue()


def _read_all(sess, name):
    """Every file name the pipeline gives, its queue runners started and joined."""
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess, coord)
    got = []
    while True:
        try:
            got.append(sess.run(name))
        except tf.errors.OutOfRangeError:
            coord.request_stop()
            coord.join(threads)
            return got


def test_a_variable_read_by_an_op_without_a_gpu_kernel_stays_on_the_cpu_with_it(
        simulated_cuda_gpu, capsys):
    # TF places a colocation group on a device every member has a kernel for
    name = _epochs_pipeline()
    w = tf.Variable(np.ones(3, np.float32), name="w")       # an ordinary one: GPU
    config = tf.ConfigProto(log_device_placement=True)
    with tf.Session(config=config) as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        got = _read_all(sess, name)
        np.testing.assert_array_equal(sess.run(w), np.ones(3, np.float32))
    assert got == [b"a", b"b", b"a", b"b"]
    placed = _placements(capsys)
    epochs = [n for n in placed if n.endswith("limit_epochs/epochs")]
    assert epochs, sorted(placed)
    scope = epochs[0].rsplit("/", 1)[0]
    for name in [epochs[0], epochs[0] + "/Assign", scope + "/CountUpTo"]:
        assert placed[name].endswith("CPU:0"), (name, placed[name])
    assert placed["w"] == GPU0 and placed["w/Assign"] == GPU0


def test_the_epoch_counter_stays_on_the_cpu_beside_a_virtual_gpu_too(
        virtual_gpus_and_cuda_kernels, capsys):
    name = _epochs_pipeline()
    config = tf.ConfigProto(log_device_placement=True)
    with tf.Session(config=config) as sess:
        sess.run(tf.local_variables_initializer())
        assert _read_all(sess, name) == [b"a", b"b", b"a", b"b"]
    placed = _placements(capsys)
    counters = [n for n in placed if n.endswith("limit_epochs/CountUpTo")]
    assert counters and placed[counters[0]].endswith("CPU:0")
    assert placed[counters[0].rsplit("/", 1)[0] + "/epochs"].endswith("CPU:0")


def test_a_member_added_after_its_variable_was_placed_on_the_gpu_fails_as_in_tensorflow(
        simulated_cuda_gpu):
    # the variable keeps the device an earlier run gave it; a CountUpTo added later cannot
    # run there: TF's placer says so (InvalidArgumentError), at every later run of that
    # session (its graph cannot be placed), not as a missing kernel at run time
    v = tf.Variable(tf.zeros([], tf.int64), name="counter")
    with tf.Session() as sess:
        sess.run(v.initializer)
        step = tf.count_up_to(v, 3, name="next")
        for fetch in (step, v):
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Cannot assign a device for operation next: Could not "
                               r"satisfy explicit device specification '' because the node "
                               r"next was colocated with a group of nodes that required "
                               r"incompatible device '/job:localhost/replica:0/task:0/"
                               r"device:GPU:0'"):
                sess.run(fetch)
    with tf.Session() as sess:                 # a new session places the graph afresh
        sess.run(v.initializer)
        assert [sess.run(step) for _ in range(3)] == [0, 1, 2]
        with pytest.raises(tf.errors.OutOfRangeError, match="Reached limit of 3"):
            sess.run(step)
