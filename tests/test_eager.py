"""Eager execution: EagerTensor, the eager op path, eager Variables, tf.cond/while_loop,
tf.enable_eager_execution, the v2 namespace. Expected values come from NumPy or from the
same program run as a graph in a Session (the graph path is tested against TensorFlow
elsewhere). TensorFlow's own eager texts are compared in test_eager_reference.py."""
import numpy as np
import pytest

import tfteach
from device_helpers import virtual_gpus  # noqa: F401 - fixture
from eager_helpers import eager, tf2  # noqa: F401 - fixtures
from tfteach.framework import eager_mode

R = np.random.RandomState(3)

# (name, program(tf, *inputs), inputs): each run eagerly and as a graph in a Session.
OP_SAMPLE = [
    ("add_broadcast", lambda tf, a, b: a + b, [R.randn(2, 3), R.randn(3)]),
    ("sub_mul_div", lambda tf, a, b: (a - b) * a / (b * b + 1.0), [R.randn(4), R.randn(4)]),
    ("matmul", lambda tf, a, b: tf.matmul(a, b, transpose_b=True), [R.randn(2, 3), R.randn(4, 3)]),
    ("unary", lambda tf, a: tf.exp(tf.tanh(a)) + tf.abs(tf.sin(a)) + tf.sqrt(a * a + 1.0),
     [R.randn(3, 2)]),
    ("reductions", lambda tf, a: [tf.reduce_sum(a, 1), tf.reduce_mean(a), tf.reduce_max(a, 0,
                                                                               keepdims=True),
                                  tf.argmax(a, 1), tf.reduce_logsumexp(a)], [R.randn(3, 4)]),
    ("shapes", lambda tf, a: [tf.reshape(a, [-1]), tf.transpose(a), tf.expand_dims(a, 0),
                              tf.shape(a), tf.size(a), tf.rank(a), tf.squeeze(a[:1])],
     [R.randn(3, 4)]),
    ("concat_stack_slice", lambda tf, a, b: [tf.concat([a, b], 0), tf.stack([a, b], 1),
                                             a[1:, ::2], tf.gather(b, [2, 0]),
                                             tf.tile(a, [2, 1])], [R.randn(3, 2), R.randn(3, 2)]),
    ("nn", lambda tf, a: [tf.nn.relu(a), tf.nn.softmax(a), tf.nn.sigmoid(a),
                          tf.nn.log_softmax(a), tf.nn.l2_normalize(a, 1)], [R.randn(2, 5)]),
    ("xent", lambda tf, a, b: tf.nn.softmax_cross_entropy_with_logits_v2(labels=b, logits=a),
     [R.randn(3, 4), np.eye(4)[[0, 3, 1]]]),
    ("conv_pool", lambda tf, x, w: tf.nn.max_pool(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"),
                                                  [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
     [R.randn(1, 6, 6, 2), R.randn(3, 3, 2, 4)]),
    ("compare_where", lambda tf, a, b: [tf.where(a > b, a, b), tf.equal(a, b),
                                        tf.cast(a > 0, tf.int32)], [R.randn(5), R.randn(5)]),
    ("one_hot_fill", lambda tf, a: [tf.one_hot([0, 2], 3), tf.fill([2, 2], 7.0),
                                    tf.zeros_like(a), tf.ones([2]), tf.range(5)], [R.randn(2)]),
    ("cumsum_clip", lambda tf, a: [tf.cumsum(a), tf.clip_by_value(a, -0.5, 0.5),
                                   tf.clip_by_norm(a, 1.0)], [R.randn(6)]),
]


def _to_float32(values):
    return [np.asarray(v, dtype=np.float32) if np.asarray(v).dtype == np.float64 else v
            for v in values]


def _graph_result(program, inputs):
    with tfteach.Graph().as_default():
        tensors = [tfteach.constant(v) for v in inputs]
        fetches = program(tfteach, *tensors)
        with tfteach.Session() as sess:
            return sess.run(fetches)


@pytest.mark.parametrize("name,program,inputs", OP_SAMPLE, ids=[c[0] for c in OP_SAMPLE])
def test_eager_results_equal_graph_results(eager, name, program, inputs):
    inputs = _to_float32(inputs)
    tf = eager
    result = program(tf, *[tf.constant(v) for v in inputs])
    graph = _graph_result(program, inputs)
    results = result if isinstance(result, list) else [result]
    graphs = graph if isinstance(graph, list) else [graph]
    assert len(results) == len(graphs)
    for r, g in zip(results, graphs):
        assert isinstance(r, tf.Tensor) and r.dtype.np == np.asarray(g).dtype
        np.testing.assert_array_equal(r.numpy(), g)      # the same kernels: same bits
        assert tuple(r.shape.as_list()) == np.shape(g)


def test_tensor_prints_as_tf2(eager):
    tf = eager
    assert str(tf.constant([1, 2])) == "tf.Tensor([1 2], shape=(2,), dtype=int32)"
    assert repr(tf.constant([1, 2])) == ("<tf.Tensor: shape=(2,), dtype=int32, "
                                         "numpy=array([1, 2], dtype=int32)>")
    assert str(tf.constant(0)) == "tf.Tensor(0, shape=(), dtype=int32)"
    assert repr(tf.constant(0.5)) == "<tf.Tensor: shape=(), dtype=float32, numpy=0.5>"
    assert str(tf.constant([[1, 2], [3, 4]])) == (
        "tf.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)")


def test_python_conversions(eager):
    tf = eager
    t = tf.constant([3, 4])
    assert len(t) == 2 and [int(x) for x in t] == [3, 4]
    assert float(tf.constant(2.5)) == 2.5 and bool(tf.constant(True))
    assert np.asarray(t).tolist() == [3, 4] and t.numpy().dtype == np.int32
    assert (np.array([1, 1]) + t).numpy().tolist() == [4, 5]      # NumPy defers to tf
    assert [1, 2][tf.constant(1)] == 2                             # __index__
    with pytest.raises(TypeError, match="Scalar tensor has no `len\\(\\)`"):
        len(tf.constant(1))
    with pytest.raises(ValueError, match="more than one element is ambiguous"):
        bool(t)
    assert tf.constant(5).numpy() == 5 and np.ndim(tf.constant(5).numpy()) == 0
    with pytest.raises(AttributeError, match="Tensor.name is meaningless"):
        t.name  # noqa: B018
    assert t.device.endswith("device:CPU:0")


def test_errors_are_tf_eager_errors(eager):
    tf = eager
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Incompatible shapes: \[2\] vs. \[3\] \[Op:Add\]$"):
        tf.add(tf.constant([1, 2]), tf.constant([1, 2, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[Op:MatMul\]$"):
        tf.matmul(tf.ones([2, 2]), tf.ones([3, 3]))
    with pytest.raises(TypeError):
        tf.constant(1) + 1.5
    with pytest.raises(RuntimeError, match=r"^tf.placeholder\(\) is not compatible with "
                                           "eager execution.$"):
        tf.placeholder(tf.float32)
    # A dtype the op has no kernel for: TF 1.15's eager runtime finds no device for it
    # (TF 2.21 says InvalidArgumentError "Value for attr 'T' ..."; a graph, TypeError).
    for make in (lambda: tf.sqrt(tf.constant(4)), lambda: tf.sqrt(4)):
        with pytest.raises(tf.errors.NotFoundError) as info:
            make()
        text = str(info.value)
        assert text.startswith("Could not find valid device for node.\nNode:{{node Sqrt}}\n"
                               "All kernels registered for op Sqrt :\n")
        assert "  device='CPU'; T in [DT_FLOAT]\n" in text and text.endswith(" [Op:Sqrt]")
        assert "DT_INT32" not in text
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="^Value passed to parameter 'x' has DataType "
                                            "int32 not in list of allowed values"):
            tf.sqrt(tf.constant(4))


def test_eager_variable(eager):
    tf = eager
    v = tf.Variable([1.0, 2.0], name="v")
    assert repr(v) == ("<tf.Variable 'v:0' shape=(2,) dtype=float32, "
                       "numpy=array([1., 2.], dtype=float32)>")
    assert tf.Variable(1.0).name == tf.Variable(2.0).name == "Variable:0"  # TF 2: not unique
    with tf.name_scope("a") as a_scope:                 # names as TF 2 gives them
        with tf.name_scope("b") as b_scope:
            assert tf.Variable(1.0, name="w").name == "a/b/w:0"
        with tf.name_scope("c/") as c_scope:
            assert tf.Variable(1.0).name == "c/Variable:0"
    assert (a_scope, b_scope, c_scope) == ("a/", "a/b/", "c/")
    module = tf.Module(name="mod")
    with module.name_scope:
        assert tf.Variable(1.0, name="w").name == "mod/w:0"
    v.assign([3.0, 4.0])
    v.assign_add([1.0, 1.0])
    v.assign_sub([0.5, 0.5])
    np.testing.assert_array_equal(v.numpy(), [3.5, 4.5])
    np.testing.assert_array_equal((v * 2).numpy(), [7.0, 9.0])
    np.testing.assert_array_equal(v.read_value().numpy(), [3.5, 4.5])
    with pytest.raises(ValueError, match=r"^Shapes \(2,\) and \(3,\) are incompatible$"):
        v.assign([1.0, 2.0, 3.0])           # TF 1.15's ResourceVariable.assign check
    np.testing.assert_array_equal(v.numpy(), [3.5, 4.5])
    with pytest.raises(ValueError, match="not compatible with the explicitly supplied"):
        tf.Variable([1.0, 2.0], shape=[3])


def test_compat_v1_optimizer_on_eager_variables(eager):
    """Note 002's first program: GradientDescentOptimizer.apply_gradients eagerly."""
    tf = eager
    x = np.array([0.0, 0.25, 0.5, 0.75, 1.0], np.float32)
    y = 2.0 * x + 0.5
    a, b = tf.Variable(0.0), tf.Variable(0.0)
    opt = tf.train.GradientDescentOptimizer(0.1)
    for _ in range(3):
        with tf.GradientTape() as tape:
            loss = 0.5 * tf.reduce_sum(tf.square(a * x + b - y))
        grads = tape.gradient(loss, [a, b])
        opt.apply_gradients(zip(grads, [a, b]))
    ea, eb = 0.0, 0.0                                # the same three steps in NumPy
    for _ in range(3):
        r = ea * x + eb - y
        ea, eb = ea - 0.1 * np.sum(r * x), eb - 0.1 * np.sum(r)
    np.testing.assert_allclose([a.numpy(), b.numpy()], [ea, eb], rtol=1e-6)


def test_cond_and_while_loop_run_eagerly(eager):
    tf = eager
    assert int(tf.while_loop(lambda i: i < 10, lambda i: i + 3, [tf.constant(0)])) == 12
    i, s = tf.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i),
                         (tf.constant(0), tf.constant(0)))
    assert (int(i), int(s)) == (4, 6)
    calls = []
    out = tf.cond(tf.constant(False), lambda: calls.append("t") or tf.constant(1),
                  lambda: calls.append("f") or tf.constant(2))
    assert int(out) == 2 and calls == ["f"]       # only the taken branch ran


def test_graph_inside_eager(eager):
    tf = eager
    assert tf.executing_eagerly()
    with tf.Graph().as_default():
        assert not tf.executing_eagerly()
        c = tf.constant(1.0) + 1.0
        assert not isinstance(c, tfteach.eager.tensor.EagerTensor)
        with tf.Session() as sess:
            assert sess.run(c) == 2.0
    assert tf.executing_eagerly()


def test_enable_eager_execution_must_come_first():
    assert not eager_mode.STATE.enabled
    tfteach.constant(1.0)                  # a graph op in the default graph
    with pytest.raises(ValueError, match="^tf.enable_eager_execution must be called at "
                                         "program startup.$"):
        tfteach.enable_eager_execution()
    assert not tfteach.executing_eagerly()


def test_seeded_random_ops_continue_their_stream(eager):
    tf = eager
    a = tf.random.normal([3], seed=5).numpy()
    b = tf.random.normal([3], seed=5).numpy()
    assert not np.array_equal(a, b)
    tf.random.set_seed(1)
    first = [tf.random.uniform([2]).numpy() for _ in range(2)]
    tf.random.set_seed(1)
    again = [tf.random.uniform([2]).numpy() for _ in range(2)]
    np.testing.assert_array_equal(first, again)


def test_v2_namespace(tf2):
    tf = tf2
    assert tf.executing_eagerly()
    for removed in ("Session", "placeholder", "get_variable", "random_normal",
                    "global_variables_initializer"):
        assert not hasattr(tf, removed), removed
    assert tf.compat.v1 is tfteach and tf.compat.v1.placeholder is tfteach.placeholder
    assert tf.compat.v2 is tf
    assert float(tf.math.log(tf.constant(1.0))) == 0.0
    assert tf.random.normal([2, 3]).shape == (2, 3)
    with pytest.raises(AttributeError, match="has no attribute 'Session'"):
        tf.Session  # noqa: B018
    # TF 2's tf.nn signatures: dropout(x, rate), xent(labels, logits) with label gradients
    kept = tf.nn.dropout(tf.ones([1000]), 0.25, seed=1).numpy()
    assert 0.6 < np.mean(kept > 0) < 0.9 and set(np.unique(kept)) <= {0.0, np.float32(1 / 0.75)}
    labels = tf.constant([[0.2, 0.8]])
    with tf.GradientTape() as tape:
        tape.watch(labels)
        loss = tf.nn.softmax_cross_entropy_with_logits(labels, tf.constant([[1.0, 2.0]]))
    assert tape.gradient(loss, labels) is not None


def test_module_tracking(eager):
    tf = eager

    class Dense(tf.Module):
        def __init__(self, n_in, n_out, name=None):
            super().__init__(name=name)
            self.w = tf.Variable(tf.ones([n_in, n_out]), name="w")
            self.b = tf.Variable(tf.zeros([n_out]), trainable=False, name="b")

    class Net(tf.Module):
        def __init__(self):
            super().__init__()
            self.layers = [Dense(3, 4, "first"), Dense(4, 2, "second")]
            self.extra = {"scale": tf.Variable(2.0, name="scale")}
            self.same = self.layers[0].w          # one variable, found once

    net = Net()
    assert net.name == "net"
    assert [m.name for m in net.submodules] == ["first", "second"]
    # TF's walk: the module's own attributes in name order (extra, layers, same), then
    # each submodule's (b before w); the shared variable is found once, via `same`.
    assert [v.name for v in net.variables] == ["scale:0", "w:0", "b:0", "b:0", "w:0"]
    assert [v.name for v in net.trainable_variables] == ["scale:0", "w:0", "w:0"]
    with pytest.raises(ValueError, match="is not a valid module name"):
        tf.Module(name="not valid")


@pytest.mark.parametrize("make_optimizer", [
    lambda tf: tf.train.AdamOptimizer(0.01), lambda tf: tf.train.MomentumOptimizer(0.1, 0.9),
    lambda tf: tf.train.RMSPropOptimizer(0.01)], ids=["adam", "momentum", "rmsprop"])
def test_tf1_optimizers_eagerly_equal_their_graph_steps(eager, make_optimizer):
    """Note 002's MLP/CNN loop: tape gradients, tf.losses, a TF 1 optimizer, eagerly."""
    tf = eager
    r = np.random.RandomState(0)
    w0 = r.randn(4, 3).astype(np.float32)
    x = r.randn(5, 4).astype(np.float32)
    y = np.array([0, 1, 2, 1, 0], np.int32)
    w = tf.Variable(w0)
    opt = make_optimizer(tf)
    for _ in range(3):
        with tf.GradientTape() as tape:
            loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=tf.matmul(x, w))
        opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
    with tfteach.Graph().as_default():
        gw = tfteach.Variable(w0)
        gloss = tfteach.losses.sparse_softmax_cross_entropy(labels=y, logits=tfteach.matmul(x, gw))
        step = make_optimizer(tfteach).minimize(gloss)
        with tfteach.Session() as sess:
            sess.run(tfteach.global_variables_initializer())
            for _ in range(3):
                sess.run(step)
            expected = sess.run(gw)
    np.testing.assert_allclose(w.numpy(), expected, rtol=1e-6, atol=1e-7)


def test_tf_device_on_a_virtual_gpu_accounts_eager_tensors(eager, virtual_gpus):
    from tfteach.runtime.devices import local_devices
    tf = eager
    virtual_gpus(1, memory_limit=256)
    allocator = local_devices()[1].allocator
    with tf.device("/gpu:0"):
        a = tf.ones([128, 128])                        # 64 KiB
        b = tf.matmul(a, a)
    assert a.device == b.device == "/job:localhost/replica:0/task:0/device:GPU:0"
    # (the int32 shape [128, 128] given to ones was a tensor too, freed when it died)
    assert allocator.bytes_in_use == 2 * 128 * 128 * 4
    np.testing.assert_array_equal(b.numpy(), np.full((128, 128), 128.0, np.float32))
    del a
    assert allocator.bytes_in_use == 128 * 128 * 4     # freed with the tensor
    del b
    assert allocator.bytes_in_use == 0
    with tf.device("/cpu:0"):
        assert tf.ones([2]).device.endswith("device:CPU:0")
    with tf.device("/gpu:7"):                          # no such device: the CPU (soft)
        assert tf.ones([2]).device.endswith("device:CPU:0")
    with tf.device("/gpu:0"), pytest.raises(tf.errors.ResourceExhaustedError,
                                            match="OOM when allocating tensor"):
        tf.zeros([256, 256, 1024])                     # 256 MiB on a 256 MiB card


def test_the_global_step_is_found_again_eagerly(eager):  # noqa: F811
    # TF's eager variables join no collection except GLOBAL_STEP, so
    # get_or_create_global_step returns the one it made (tfteach raised "already exists").
    tf = eager
    step = tf.train.get_or_create_global_step()
    assert tf.train.get_or_create_global_step() is step
    assert tf.train.get_global_step() is step
    other = tf.Variable(1, name="other", collections=[tf.GraphKeys.GLOBAL_VARIABLES])
    assert other not in tf.get_default_graph().get_collection(tf.GraphKeys.GLOBAL_VARIABLES)
