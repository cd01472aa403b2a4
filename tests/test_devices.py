"""Devices: names, the registry (CPU, virtual GPUs), tf.test and device_lib answers."""
import numpy as np
import pytest

import tfteach as tf
from device_helpers import CPU, gpu, virtual_gpus  # noqa: F401 (fixture)
from tf_reference import tensorflow_v1
from tfteach.framework.device_spec import DeviceSpec, canonical_name
from tfteach.python.client import device_lib
from tfteach.runtime import devices

NAMES = ["/cpu:0", "/gpu:1", "GPU:0", "/device:GPU:*", "/device:gpu:3", "CPU:0",
         "/job:localhost/replica:0/task:0/device:CPU:0", "/job:localhost/replica:0/task:0",
         "/job:worker/task:3/device:GPU:1", "/replica:1"]


@pytest.mark.parametrize("name", NAMES)
def test_device_names_print_as_tensorflow_prints_them(name):
    tf1 = tensorflow_v1()
    assert canonical_name(name) == tf1.DeviceSpec.from_string(name).to_string()


def test_device_spec_fields():
    spec = DeviceSpec.from_string("/job:localhost/replica:0/task:0/device:GPU:2")
    assert (spec.job, spec.replica, spec.task, spec.device_type, spec.device_index) == (
        "localhost", 0, 0, "GPU", 2)
    assert DeviceSpec.from_string("/device:GPU:*").device_index is None
    with pytest.raises(ValueError, match="Unknown attribute"):
        DeviceSpec.from_string("/gpu:zero")


def _scoped_devices(tf_module):
    g = tf_module.Graph()
    out = []
    with g.as_default():
        with tf_module.device("/job:localhost/replica:0/task:0"):
            with tf_module.device(lambda op: "/device:GPU:1" if op.type == "MatMul" else op.device):
                a = tf_module.constant(np.ones((2, 2), np.float32), name="a")
                m = tf_module.matmul(a, a, name="m")
                with tf_module.device("/cpu:0"):
                    c = tf_module.constant(1.0, name="c")
        with tf_module.device(lambda op: "/gpu:0"):
            with tf_module.device("/device:CPU:0"):
                d = tf_module.constant(2.0, name="d")
            e = tf_module.constant(3.0, name="e")
            with tf_module.device(None):
                f = tf_module.constant(4.0, name="f")
    for t in (a, m, c, d, e, f):
        out.append(t.op.device)
    return out


def test_nested_scopes_and_device_functions_follow_tensorflow():
    tf1 = tensorflow_v1()
    assert _scoped_devices(tf) == _scoped_devices(tf1)


def test_cpu_only_process_answers_truthfully(monkeypatch):
    monkeypatch.delenv("TFTEACH_VIRTUAL_GPUS", raising=False)
    devices._registry = None
    tf.config.set_virtual_gpus(0)      # the simulator or no CUDA: no real GPU here
    try:
        local = device_lib.list_local_devices()
        assert [d.name for d in local] == ["/device:CPU:0"]
        assert local[0].memory_limit == 268435456
        assert not tf.test.is_gpu_available()
        assert tf.test.gpu_device_name() == ""
        assert [d.device_type for d in tf.config.list_physical_devices()] == ["CPU"]
        with tf.Session() as sess:
            assert [d.name for d in sess.list_devices()] == [CPU]
    finally:
        devices._registry = None


def test_numba_cuda_simulator_is_not_a_gpu():
    # conftest enables Numba's CUDA simulator: it must never count as a real GPU.
    assert devices._cuda_gpus() == []


def test_virtual_gpus_are_listed_and_labelled(virtual_gpus):
    virtual_gpus(2, memory_limit=1024)
    local = device_lib.list_local_devices()
    assert [d.name for d in local] == ["/device:CPU:0", "/device:GPU:0", "/device:GPU:1"]
    gpu0 = local[1]
    assert gpu0.device_type == "GPU"
    assert gpu0.memory_limit == (1024 - 225) * 2 ** 20       # TF's margin under 2 GiB
    assert "virtual" in gpu0.physical_device_desc
    assert 'physical_device_desc: "device: 0, name: tfteach virtual GPU' in str(gpu0)
    assert tf.test.is_gpu_available()
    assert not tf.test.is_gpu_available(cuda_only=True)
    assert not tf.test.is_gpu_available(min_cuda_compute_capability=(3, 5))
    assert tf.test.gpu_device_name() == "/device:GPU:0"
    assert tf.config.list_physical_devices("GPU")[1].name == "/physical_device:GPU:1"


def test_virtual_gpus_from_the_environment(monkeypatch, virtual_gpus):
    monkeypatch.setenv("TFTEACH_VIRTUAL_GPUS", "3")
    monkeypatch.setenv("TFTEACH_VIRTUAL_GPU_MEMORY", "512")
    devices._registry = None
    gpus = [d for d in devices.local_devices() if d.device_type == "GPU"]
    assert [d.index for d in gpus] == [0, 1, 2]
    assert all(d.is_virtual and d.memory_limit == 512 * 2 ** 20 for d in gpus)


def test_cuda_visible_devices_selects_and_renumbers_cards(monkeypatch, virtual_gpus):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,3")
    gpus = virtual_gpus(4)
    assert len(gpus) == 2
    local = device_lib.list_local_devices()
    assert [d.name for d in local[1:]] == ["/device:GPU:0", "/device:GPU:1"]
    assert local[1].physical_device_desc.startswith("device: 2,")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert virtual_gpus(4) == [] and not tf.test.is_gpu_available()


def test_visible_device_list_and_device_count(virtual_gpus):
    virtual_gpus(2)
    config = tf.ConfigProto()
    config.gpu_options.visible_device_list = "1"
    with tf.device("/gpu:0"):
        v = tf.Variable(np.ones(1000, np.float32))
    with tf.Session(config=config) as sess:
        assert [d.name for d in sess.list_devices()] == [CPU, gpu(0)]
        sess.run(v.initializer)
        # Session GPU:0 is the process's card 1: its memory holds the variable.
        assert tf.config.memory_stats("/gpu:1")["bytes_in_use"] == 2 * 4096
        assert tf.config.memory_stats("/gpu:0")["bytes_in_use"] == 0
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 0})) as sess:
        assert [d.name for d in sess.list_devices()] == [CPU]
    config.gpu_options.visible_device_list = "5"
    with pytest.raises(tf.errors.InvalidArgumentError, match="invalid GPU id '5'"):
        tf.Session(config=config)


def test_log_device_placement_device_mapping(capsys, virtual_gpus):
    tf.constant(1.0)
    virtual_gpus(1)
    with tf.Session(config=tf.ConfigProto(log_device_placement=True)):
        pass
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Device mapping:"
    assert out[1].startswith(gpu(0) + " -> device: 0, name: tfteach virtual GPU")
    virtual_gpus(0)
    with tf.Session(config=tf.ConfigProto(log_device_placement=True)):
        pass
    assert capsys.readouterr().out == "Device mapping: no known devices.\n"


def test_kernel_context_and_step_stats_name_the_assigned_device(virtual_gpus):
    virtual_gpus(1)
    x = tf.constant([1.0, 2.0]) * 3.0
    md = tf.RunMetadata()
    with tf.Session() as sess:
        np.testing.assert_allclose(
            sess.run(x, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                     run_metadata=md), [3.0, 6.0])
        assert sess._kernel_context(x.op).device == gpu(0)
    assert {n.node_name: n.device for n in md.step_stats.all_nodes()}["mul"] == gpu(0)
    assert [d.device for d in md.step_stats.dev_stats] == [gpu(0), CPU]
