"""Placement: explicit and partial device scopes, defaults, soft placement, the error,
colocation, copies between devices, the placement log and partition graphs."""
import re

import numpy as np
import pytest

import tfteach as tf
from device_helpers import CPU, gpu, virtual_gpus  # noqa: F401 (fixture)
from tf_reference import errors_of_both, first_line
from tolerances import assert_close


def towers(tf_module):
    """The course notes' multi-GPU program (000, "Using multiple GPUs")."""
    c = []
    for d in ["/device:GPU:2", "/device:GPU:3"]:
        with tf_module.device(d):
            a = tf_module.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3])
            b = tf_module.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2])
            c.append(tf_module.matmul(a, b))
    with tf_module.device("/cpu:0"):
        total = tf_module.add_n(c)
    return total


def placement_log(out):
    return dict(line.split(": ", 1) for line in out.splitlines()
                if ": (" in line and not line.startswith("/job"))


def test_notes_towers_on_four_virtual_gpus(capsys, virtual_gpus):
    virtual_gpus(4)
    total = towers(tf)
    sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))
    np.testing.assert_array_equal(sess.run(total), [[22 * 2, 56], [98, 128]])
    out = capsys.readouterr().out
    assert out.startswith("Device mapping:\n" + gpu(0) + " -> device: 0, name: tfteach "
                          "virtual GPU")
    assert out.count("virtual GPU") == 4
    log = placement_log(out)
    assert log == {"MatMul": "(MatMul): " + gpu(2), "MatMul_1": "(MatMul): " + gpu(3),
                   "AddN": "(AddN): " + CPU,
                   "Const": "(Const): " + gpu(2), "Const_1": "(Const): " + gpu(2),
                   "Const_2": "(Const): " + gpu(3), "Const_3": "(Const): " + gpu(3)}
    # TF logs the generators (Consts) after the other nodes ("Heuristic A" pass).
    assert list(log)[:3] == ["MatMul", "MatMul_1", "AddN"]
    sess.run(total)
    assert capsys.readouterr().out == ""          # placed once, logged once
    sess.close()


def test_notes_towers_on_two_gpus_need_soft_placement(virtual_gpus):
    virtual_gpus(2)
    total = towers(tf)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(total)
    message = str(info.value)
    assert message.startswith("Cannot assign a device for operation MatMul: node MatMul "
                              "(defined at ")
    assert ("was explicitly assigned to /device:GPU:2 but available devices are [ %s, %s, "
            "%s ]. Make sure the device specification refers to a valid device."
            % (CPU, gpu(0), gpu(1))) in message
    assert "allow_soft_placement=True" in message
    config = tf.ConfigProto(allow_soft_placement=True)
    with tf.Session(config=config) as sess:
        md = tf.RunMetadata()
        result = sess.run(total, options=tf.RunOptions(trace_level=3), run_metadata=md)
    np.testing.assert_array_equal(result, [[44, 56], [98, 128]])
    where = {n.node_name: n.device for n in md.step_stats.all_nodes()}
    # TF's soft placement drops the type and index: the default device, GPU:0.
    assert where["MatMul"] == where["MatMul_1"] == gpu(0)
    assert where["AddN"] == CPU


def test_placement_error_text_matches_tensorflow_on_a_cpu_only_machine(monkeypatch):
    monkeypatch.delenv("TFTEACH_VIRTUAL_GPUS", raising=False)
    from tfteach.runtime import devices
    devices._registry = None
    tf.config.set_virtual_gpus(0)

    def build(tf_module):
        with tf_module.device("/device:GPU:2"):
            a = tf_module.constant([[1.0, 2.0]])
            return tf_module.matmul(a, a, transpose_b=True), None
    theirs, ours = errors_of_both(build)
    devices._registry = None
    assert type(theirs).__name__ == type(ours).__name__ == "InvalidArgumentError"
    their_line = next(line for line in str(theirs).splitlines() if "Cannot assign" in line)
    their_line = re.sub(r"\{\{node (\S+)\}\}", r"node \1", their_line)
    # A TensorFlow build without CUDA adds a remark about its own build; TF 1.15's
    # GPU builds (the notes') print the sentence without it.
    their_line = their_line.replace(
        " The requested device appears to be a GPU, but CUDA is not enabled.", "")
    our_line = re.sub(r"node (\S+) \(defined at [^)]*\) ", r"node \1", first_line(ours))
    assert our_line == their_line


def test_soft_placement_on_a_cpu_only_machine_uses_the_cpu(monkeypatch):
    from tfteach.runtime import devices
    monkeypatch.delenv("TFTEACH_VIRTUAL_GPUS", raising=False)
    devices._registry = None
    tf.config.set_virtual_gpus(0)
    with tf.device("/gpu:0"):
        c = tf.constant([1.0, 2.0]) * 2.0
    md = tf.RunMetadata()
    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
        np.testing.assert_array_equal(
            sess.run(c, options=tf.RunOptions(trace_level=3), run_metadata=md), [2.0, 4.0])
    assert {n.device for n in md.step_stats.all_nodes()} == {CPU}
    devices._registry = None


@pytest.mark.parametrize("spec, expected", [
    ("/gpu:1", gpu(1)), ("/device:GPU:*", gpu(0)), ("/device:GPU:1", gpu(1)),
    ("/job:localhost/replica:0/task:0", gpu(0)), ("/cpu:0", CPU), ("", gpu(0)),
    ("/job:localhost/replica:0/task:0/device:CPU:0", CPU)])
def test_partial_specs_and_default_placement(virtual_gpus, spec, expected):
    virtual_gpus(2)
    with tf.device(spec):
        y = tf.constant([1.0]) + tf.constant([2.0])
    with tf.Session() as sess:
        assert sess.run(y) == [3.0]
        assert sess._placer.device_of(y.op).name == expected


def test_other_jobs_do_not_exist_here(virtual_gpus):
    virtual_gpus(1)
    with tf.device("/job:worker/device:GPU:0"):
        y = tf.constant(1.0) + 1.0
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                             match="explicitly assigned to /job:worker"):
        sess.run(y)


def test_the_whole_graph_is_placed_as_in_tensorflow(virtual_gpus):
    virtual_gpus(1)
    ok = tf.constant(1.0) + 1.0
    with tf.device("/gpu:7"):
        tf.constant(2.0, name="elsewhere")
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                             match="operation elsewhere"):
        sess.run(ok)


def test_string_ops_stay_on_the_cpu(virtual_gpus):
    virtual_gpus(1)
    words = tf.constant(["a", "b"])
    n = tf.size(words)
    x = tf.constant([1.0, 2.0]) * 2.0
    with tf.Session() as sess:
        assert sess.run(n) == 2
        assert sess._placer.device_of(words.op).name == CPU
        assert sess._placer.device_of(x.op).name == gpu(0)


def test_generators_follow_their_consumers(virtual_gpus):
    virtual_gpus(1)
    a = tf.constant(2.0, name="a")
    with tf.device("/cpu:0"):
        b = tf.identity(a, name="b")
    with tf.Session() as sess:
        sess.run(b)
        assert sess._placer.device_of(a.op).name == CPU      # TF's Heuristic A


def test_variables_decide_where_their_ops_go(virtual_gpus):
    virtual_gpus(1)
    with tf.device("/cpu:0"):
        v = tf.Variable(np.ones(3, np.float32), name="v")
    w = tf.Variable(np.ones(3, np.float32), name="w")
    assign = tf.assign_add(v, [1.0, 1.0, 1.0])             # built outside the scope
    loss = tf.reduce_sum(v * w)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([assign, train])
        where = {op.name: sess._placer.device_of(op).name
                 for op in tf.get_default_graph().get_operations()}
    for name in ("v", "v/Assign", "v/read", "AssignAdd", "IsVariableInitialized"):
        if name in where:
            assert where[name] == CPU, name
    assert where["w"] == where["w/read"] == where["w/Assign"] == gpu(0)
    apply_v = [n for n in where if n.startswith("GradientDescent/update_v/")]
    apply_w = [n for n in where if n.startswith("GradientDescent/update_w/")]
    assert apply_v and all(where[n] == CPU for n in apply_v
                           if n.endswith("ApplyGradientDescent"))
    assert apply_w and all(where[n] == gpu(0) for n in apply_w
                           if n.endswith("ApplyGradientDescent"))
    assert where["mul"] == gpu(0)


def test_copies_between_devices_in_step_stats(virtual_gpus):
    virtual_gpus(1)
    x = tf.placeholder(tf.float32, [100, 784], name="x")
    w = tf.constant(np.ones((784, 10), np.float32), name="w")
    y = tf.matmul(x, w, name="y")
    with tf.device("/cpu:0"):
        z = tf.reduce_sum(y, name="z")
    md = tf.RunMetadata()
    with tf.Session() as sess:
        got = sess.run([y, z], {x: np.ones((100, 784), np.float32)},
                       options=tf.RunOptions(trace_level=3), run_metadata=md)
    assert got[1] == 784 * 1000
    nodes = {n.node_name: n for n in md.step_stats.all_nodes()}
    copy_in = nodes["x/_copy_to_GPU:0"]
    assert (copy_in.op, copy_in.device, copy_in.output_bytes) == ("MEMCPYHtoD", gpu(0), 313600)
    copy_out = nodes["y/_copy_to_CPU:0"]                  # for z, on the CPU, and the fetch
    assert (copy_out.op, copy_out.device, copy_out.output_bytes) == ("MEMCPYDtoH", CPU, 4000)
    assert nodes["y"].device == gpu(0) and nodes["z"].device == CPU
    assert [n for n in nodes if "_copy_" in n] == ["x/_copy_to_GPU:0", "y/_copy_to_CPU:0"]
    assert got[0].flags.writeable


def test_output_partition_graphs(virtual_gpus):
    virtual_gpus(1)
    with tf.device("/cpu:0"):
        a = tf.placeholder(tf.float32, [2, 3], name="a")
    b = tf.constant(np.ones((3, 2), np.float32), name="b")
    c = tf.matmul(a, b, name="c")
    md = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(c, {a: np.ones((2, 3))},
                 options=tf.RunOptions(output_partition_graphs=True), run_metadata=md)
    assert [p.device for p in md.partition_graphs] == [CPU, gpu(0)]   # device-set order
    cpu_part, gpu_part = md.partition_graphs
    assert {n.name: n.op for n in gpu_part.node} == {
        "a/_copy_to_GPU:0": "MEMCPYHtoD", "b": "Const", "c": "MatMul"}
    assert all(n.device == gpu(0) for n in gpu_part.node)
    matmul = [n for n in gpu_part.node if n.name == "c"][0]
    assert matmul.input == ["a/_copy_to_GPU:0", "b"]
    assert [n.name for n in cpu_part.node] == ["c/_copy_to_CPU:0"]
    text = str(md.partition_graphs[1])
    assert text.startswith("node {\n  name: ")
    assert '  device: "%s"' % gpu(0) in text and text.endswith("versions {\n  producer: 134\n}\n")


def test_cpu_only_partition_graph_and_log(capsys, monkeypatch):
    from tfteach.runtime import devices
    monkeypatch.delenv("TFTEACH_VIRTUAL_GPUS", raising=False)
    devices._registry = None
    tf.config.set_virtual_gpus(0)
    with tf.device("/cpu:0"):
        a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3], name="a")
        b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2], name="b")
    c = tf.matmul(a, b)
    sess = tf.Session(config=tf.ConfigProto(log_device_placement=True))
    md = tf.RunMetadata()
    np.testing.assert_array_equal(
        sess.run(c, options=tf.RunOptions(output_partition_graphs=True), run_metadata=md),
        [[22, 28], [49, 64]])
    sess.close()
    assert capsys.readouterr().out == (
        "Device mapping: no known devices.\n"
        "MatMul: (MatMul): %s\na: (Const): %s\nb: (Const): %s\n" % (CPU, CPU, CPU))
    assert len(md.partition_graphs) == 1
    assert {n.name for n in md.partition_graphs[0].node} == {"a", "b", "MatMul"}
    devices._registry = None


def test_device_functions_place_ops(virtual_gpus):
    virtual_gpus(2)
    with tf.device(lambda op: "/gpu:1" if op.type == "MatMul" else "/cpu:0"):
        a = tf.constant(np.eye(2, dtype=np.float32))
        m = tf.matmul(a, a)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(m), np.eye(2))
        assert sess._placer.device_of(m.op).name == gpu(1)
        assert sess._placer.device_of(a.op).name == CPU


def test_training_on_a_virtual_gpu_matches_the_cpu(virtual_gpus):
    def train(device):
        g = tf.Graph()
        with g.as_default(), tf.device(device):
            x = tf.placeholder(tf.float32, [None, 3])
            w = tf.Variable(np.full((3, 1), 0.5, np.float32))
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
            step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
            with tf.Session(graph=g) as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(5):
                    sess.run(step, {x: np.arange(6, dtype=np.float32).reshape(2, 3) / 6})
                return sess.run(w)
    virtual_gpus(1)
    assert_close(train("/gpu:0"), train("/cpu:0"), rtol=1e-6)


def test_control_flow_on_a_virtual_gpu_matches_the_cpu(virtual_gpus):
    def program(device):
        g = tf.Graph()
        with g.as_default(), tf.device(device):
            x = tf.placeholder(tf.float32, [3])
            p = tf.placeholder(tf.bool, [])
            _, doubled = tf.while_loop(lambda i, v: i < 5, lambda i, v: (i + 1, v * 2.0),
                                       [tf.constant(0), x])
            c = tf.cond(p, lambda: x * 3.0, lambda: x - 1.0)
            with tf.device("/cpu:0"):
                d = tf.cond(p, lambda: c + 1.0, lambda: c * 0.0)
            grad = tf.gradients(tf.reduce_sum(tf.square(doubled)), x)[0]
            with tf.Session(graph=g) as sess:
                feed = {x: np.arange(3, dtype=np.float32)}
                return [sess.run([doubled, c, d, grad], {**feed, p: flag})
                        for flag in (True, False)]
    virtual_gpus(1)
    on_gpu, on_cpu = program("/gpu:0"), program("/cpu:0")
    for got, want in zip(on_gpu, on_cpu):
        for a, b in zip(got, want):
            assert_close(a, b)
    assert tf.config.memory_stats()["bytes_in_use"] == 0
