"""GPU memory: reservations under GPUOptions, buffers, OOM, and giving memory back."""
import gc

import numpy as np
import pytest

import tfteach as tf
from device_helpers import gpu, virtual_gpus  # noqa: F401 (fixture)
from tfteach.runtime.allocator import Allocator, human_bytes, min_system_memory

MIB = 2 ** 20


def stats(device="/gpu:0"):
    return tf.config.memory_stats(device)


def test_tensorflow_system_margin_and_byte_formatting():
    assert min_system_memory(1024 * MIB) == 225 * MIB
    assert min_system_memory(2048 * MIB) == 314572800
    assert min_system_memory(16384 * MIB) == int(16384 * MIB * 0.05)
    assert [human_bytes(n) for n in (256, 1024, 4000000, 3 * 2 ** 30)] == [
        "256B", "1.0KiB", "3.81MiB", "3.00GiB"]


def test_default_session_reserves_nearly_all_memory(virtual_gpus):
    virtual_gpus(1, memory_limit=2048)
    assert stats()["bytes_reserved"] == 0                  # nothing until a session
    sess = tf.Session()
    s = stats()
    assert s["bytes_limit"] == 2048 * MIB - 314572800
    assert s["bytes_reserved"] == s["bytes_limit"]
    assert s["bytes_in_use"] == 0 and s["virtual"] and s["allocator"] == "GPU_0_bfc"
    sess.close()


@pytest.mark.parametrize("mib, usable_mib", [(100, 100), (225, 225), (226, 1), (1024, 799)])
def test_a_card_no_bigger_than_the_margin_is_all_usable(virtual_gpus, mib, usable_mib):
    # TF 1.15 (gpu_device.cc) takes MinSystemMemory off only when the card has more:
    # a 100 MiB virtual GPU gives its 100 MiB, not a negative limit where every
    # tensor ran out of memory.
    virtual_gpus(1, memory_limit=mib)
    sess = tf.Session()
    assert stats()["bytes_limit"] == usable_mib * MIB
    assert sess.run(tf.constant([1.0, 2.0]) * 2.0).tolist() == [2.0, 4.0]
    sess.close()


def test_allow_growth_reserves_in_doubling_regions_and_keeps_them(virtual_gpus):
    virtual_gpus(1, memory_limit=1024)
    config = tf.ConfigProto()
    config.gpu_options.allow_growth = True
    x = tf.placeholder(tf.float32, [None])
    y = x * 2.0
    sess = tf.Session(config=config)
    assert stats()["bytes_reserved"] == 0
    sess.run(y, {x: np.ones(1000, np.float32)})
    assert stats()["bytes_reserved"] == MIB                # the first 1 MiB region
    sess.run(y, {x: np.ones(600000, np.float32)})          # 2.4 MB each: bigger regions
    grown = stats()["bytes_reserved"]
    assert grown > 2 * 2400000 and stats()["allow_growth"]
    # Temporaries were freed; the constant 2.0 stays on the GPU while the session lives.
    assert [b["op"] for b in stats()["live_buffers"]] == ["mul/y"]
    sess.close()
    assert stats()["bytes_in_use"] == 0
    assert stats()["bytes_reserved"] == grown              # ... but never given back


def test_fraction_caps_the_reservation_and_later_options_are_ignored(virtual_gpus):
    virtual_gpus(1, memory_limit=1000)
    options = tf.GPUOptions(per_process_gpu_memory_fraction=0.3)
    first = tf.Session(config=tf.ConfigProto(gpu_options=options))
    assert stats()["bytes_limit"] == stats()["bytes_reserved"] == 314572800 // 256 * 256
    second = tf.Session()                  # TF: the first session configured the GPU
    assert stats()["bytes_limit"] == 314572800 // 256 * 256
    first.close()
    second.close()


def oom_graph():
    x = tf.placeholder(tf.float32, [1000, 1000], name="x")
    return x, tf.matmul(x, x, name="MatMul"), tf.reduce_sum(x, name="total")


def test_oom_under_a_fraction_cap_has_tensorflows_text(virtual_gpus):
    virtual_gpus(1, memory_limit=1024)
    x, y, total = oom_graph()
    options = tf.GPUOptions(per_process_gpu_memory_fraction=0.006)   # ~6.4 MB
    big = np.ones((1000, 1000), np.float32)
    with tf.Session(config=tf.ConfigProto(gpu_options=options)) as sess:
        with pytest.raises(tf.errors.ResourceExhaustedError) as info:
            sess.run(y, {x: big})
        lines = str(info.value).splitlines()
        assert lines[0] == ("OOM when allocating tensor with shape[1000,1000] and type float "
                            "on /job:localhost/replica:0/task:0/device:GPU:0 by allocator "
                            "GPU_0_bfc")
        assert lines[1].startswith("\t [[node MatMul (defined at ")
        assert lines[-1] == ("Hint: If you want to see a list of allocated tensors when OOM "
                             "happens, add report_tensor_allocations_upon_oom to RunOptions "
                             "for current allocation info.")
        assert info.value.op is y.op
        assert stats()["bytes_in_use"] == 0                # the failed run freed its buffers
        # The session is still usable.
        assert sess.run(total, {x: big}) == 1e6
        with pytest.raises(tf.errors.ResourceExhaustedError) as info:
            sess.run(y, {x: big},
                     options=tf.RunOptions(report_tensor_allocations_upon_oom=True))
        report = str(info.value)
        assert ("Current usage from device: /job:localhost/replica:0/task:0/device:GPU:0, "
                "allocator: GPU_0_bfc\n  3.81MiB from x/_copy_to_GPU:0") in report
        assert "Hint: If you want" not in report


def test_allocator_figures_and_live_buffers():
    alloc = Allocator("/job:localhost/replica:0/task:0/device:GPU:0", "GPU_0_bfc",
                      1024 * MIB)
    alloc.configure(tf.GPUOptions(allow_growth=True))
    a = np.ones((10, 10), np.float32)
    buf = alloc.charge(a, "a")
    assert alloc.charge(a, "again") is buf and buf.refs == 2        # same array: shared
    view = alloc.charge(a.reshape(100), "reshape")                 # a view: shared
    assert view is buf
    b = alloc.charge(np.float32(1.5), "scalar")
    assert (alloc.bytes_in_use, alloc.num_allocs, alloc.largest_alloc_size) == (768, 2, 512)
    assert alloc.stats()["live_buffers"] == [
        {"op": "a", "shape": (10, 10), "dtype": "float", "bytes": 512},
        {"op": "scalar", "shape": (), "dtype": "float", "bytes": 256}]
    for _ in range(3):
        alloc.unref(buf)
    alloc.unref(b)
    assert alloc.bytes_in_use == 0 and alloc.peak_bytes_in_use == 768
    assert alloc.charge(object(), "ref") is None


def test_variables_live_on_the_gpu_until_the_session_closes(virtual_gpus):
    virtual_gpus(1)
    v = tf.Variable(np.zeros((100, 100), np.float32), name="weights")
    inc = tf.assign_add(v, np.ones((100, 100), np.float32))
    sess = tf.Session()
    sess.run(v.initializer)
    s = stats()
    # The variable's own buffer, and the initial value (a Const, kept by the session).
    assert sorted(s["live_buffers"], key=lambda b: b["op"]) == [
        {"op": "weights", "shape": (100, 100), "dtype": "float", "bytes": 40192},
        {"op": "weights/initial_value", "shape": (100, 100), "dtype": "float", "bytes": 40192}]
    sess.run(inc)                                      # its constant joins the GPU
    in_use = stats()["bytes_in_use"]
    assert in_use == s["bytes_in_use"] + 40192
    for _ in range(3):
        sess.run(inc)
    assert stats()["bytes_in_use"] == in_use           # each new value replaces the old
    assert sess.run(v)[0, 0] == 4.0
    sess.close()
    assert stats()["bytes_in_use"] == 0


def test_training_on_a_gpu_updates_in_place_with_the_same_accounting(virtual_gpus):
    virtual_gpus(1)
    w = tf.Variable(np.ones((64, 64), np.float32), name="w")
    read = tf.identity(w.value())
    train = tf.train.MomentumOptimizer(0.5, 0.9).apply_gradients([(tf.ones([64, 64]), w)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        in_use, allocs = stats()["bytes_in_use"], stats()["num_allocs"]
        held = sess.run(read)                  # a student's copy never changes
        kept = held.copy()
        address = sess.variable_values["w"].__array_interface__["data"][0]
        for _ in range(3):
            sess.run(train)
        np.testing.assert_array_equal(held, kept)
        assert sess.variable_values["w"].__array_interface__["data"][0] == address
        assert stats()["bytes_in_use"] == in_use
        # Momentum by hand: accum = 0.9 accum + 1; w -= 0.5 accum, four steps from 1.
        accum, value = 0.0, np.float32(1.0)
        for _ in range(4):
            accum = np.float32(0.9) * np.float32(accum) + np.float32(1.0)
            value = np.float32(value - np.float32(0.5) * accum)
        np.testing.assert_allclose(sess.run(w), np.full((64, 64), value), rtol=1e-6)
        assert stats()["num_allocs"] >= allocs
    assert stats()["bytes_in_use"] == 0


def test_release_memory_returns_only_unused_reservations(virtual_gpus):
    virtual_gpus(2, memory_limit=1024)
    with tf.device("/gpu:0"):
        v = tf.Variable(np.ones(1000, np.float32))
    sess = tf.Session()
    sess.run(v.initializer)
    reserved = stats()["bytes_reserved"]
    in_use = stats()["bytes_in_use"]
    assert in_use == 2 * 4096                          # the variable and its initial value
    freed = tf.config.release_memory()
    assert freed[gpu(0)] == reserved - in_use
    assert freed[gpu(1)] == reserved                    # nothing lived there
    assert stats()["bytes_in_use"] == stats()["bytes_reserved"] == in_use
    np.testing.assert_array_equal(sess.run(v), np.ones(1000))   # the variable survived
    sess.close()
    assert tf.config.release_memory()[gpu(0)] == in_use
    assert stats()["bytes_reserved"] == stats()["bytes_in_use"] == 0
    # A device given back entirely takes the next session's options afresh.
    config = tf.ConfigProto()
    config.gpu_options.allow_growth = True
    with tf.Session(config=config):
        assert stats()["bytes_reserved"] == 0 and stats()["allow_growth"]


def test_an_open_session_keeps_its_options_after_a_release(virtual_gpus):
    # The notebook releases idle memory at the end of each cell: a GPU with nothing in
    # use forgets its GPUOptions. The open session that runs on it next must still run
    # under its own cap (TF: the options of the process's first session), not the default.
    virtual_gpus(1, memory_limit=1024)
    x, y, total = oom_graph()
    options = tf.GPUOptions(per_process_gpu_memory_fraction=0.006)   # ~6.4 MB
    big = np.ones((1000, 1000), np.float32)
    with tf.Session(config=tf.ConfigProto(gpu_options=options)) as sess:
        with pytest.raises(tf.errors.ResourceExhaustedError):
            sess.run(y, {x: big})
        tf.config.release_memory()
        assert stats()["bytes_reserved"] == 0
        with pytest.raises(tf.errors.ResourceExhaustedError):
            sess.run(y, {x: big})                         # still capped
        assert stats()["bytes_limit"] == int(1024 * MIB * 0.006) // 256 * 256
        tf.config.release_memory()
        assert sess.run(total, {x: big}) == 1e6           # the single-fetch path too
        assert stats()["bytes_limit"] == int(1024 * MIB * 0.006) // 256 * 256


def test_reset_memory_is_a_hard_reset(virtual_gpus):
    virtual_gpus(1)
    v = tf.Variable(np.ones(1000, np.float32))
    sess = tf.Session()
    sess.run(v.initializer)
    tf.config.reset_memory()
    s = stats()
    assert (s["bytes_in_use"], s["bytes_reserved"], s["num_allocs"], s["live_buffers"]) == (
        0, 0, 0, [])
    sess.close()                                       # later frees are ignored
    assert stats()["bytes_in_use"] == 0


def test_a_forgotten_session_frees_its_memory_when_collected(virtual_gpus):
    virtual_gpus(1)
    v = tf.Variable(np.ones(1000, np.float32))
    sess = tf.Session()
    sess.run(v.initializer)
    assert stats()["bytes_in_use"] == 2 * 4096        # the variable and its initial value
    del sess
    gc.collect()
    assert stats()["bytes_in_use"] == 0


def test_int32_tensors_of_gpu_ops_live_in_host_memory(virtual_gpus):
    virtual_gpus(1)
    x = tf.placeholder(tf.float32, [3, 4])
    shape = tf.shape(x)
    md = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(shape, {x: np.ones((3, 4))}, options=tf.RunOptions(trace_level=3),
                 run_metadata=md)
    node = [n for n in md.step_stats.all_nodes() if n.node_name == "Shape"][0]
    assert node.device == gpu(0)
    assert node.output[0].tensor_description.allocation_description.allocator_name == \
        "cuda_host_bfc"


def test_step_stats_name_the_gpu_allocator(virtual_gpus):
    virtual_gpus(1)
    y = tf.constant(np.ones(10, np.float32)) * 2.0
    md = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(y, options=tf.RunOptions(trace_level=3), run_metadata=md)
        peak = stats()["peak_bytes_in_use"]
    node = [n for n in md.step_stats.all_nodes() if n.node_name == "mul"][0]
    assert node.output[0].tensor_description.allocation_description.allocator_name == \
        "GPU_0_bfc"
    assert node.output_bytes == 40 and peak >= 256


def test_cpu_memory_is_not_accounted(monkeypatch):
    from tfteach.runtime import devices
    monkeypatch.delenv("TFTEACH_VIRTUAL_GPUS", raising=False)
    devices._registry = None
    tf.config.set_virtual_gpus(0)
    s = tf.config.memory_stats("/cpu:0")
    assert not s["accounted"] and s["bytes_in_use"] == 0
    with pytest.raises(ValueError, match="No such device"):
        tf.config.memory_stats("/gpu:0")
    assert tf.config.release_memory() == {}
    devices._registry = None


def test_get_memory_info_names(virtual_gpus):
    virtual_gpus(1)
    v = tf.Variable(np.ones(64, np.float32))
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert tf.config.experimental.get_memory_info("GPU:0") == {"current": 512,
                                                                  "peak": 512}
