"""A convolution layer on a virtual GPU shares its patches and Fourier transforms between
its three ops as on the CPU (runtime/fusion.py, fusion 3): the CPU's numbers, and the
same tensors made and counted on the GPU as the plan run op by op (a traced run)."""
import numpy as np

import tfteach as tf
from device_helpers import virtual_gpus  # noqa: F401 (fixture)
from tfteach.runtime import devices


def _conv_layer_gradients(config=None):
    """LeNet's second layer (5x5, 32 -> 64 channels, 14x14, SAME, batch 50): its output and the
    gradients of a loss for its input and filter; (session, fetches, feed)."""
    rng = np.random.RandomState(3)
    x = tf.placeholder(tf.float32, [None, 14, 14, 32])
    f = tf.constant(rng.randn(5, 5, 32, 64).astype(np.float32) * 0.1)
    y = tf.nn.conv2d(x, f, strides=[1, 1, 1, 1], padding="SAME")
    loss = tf.reduce_sum(tf.square(y))
    fetches = [y] + tf.gradients(loss, [x, f])
    sess = tf.Session(config=config)
    return sess, fetches, {x: rng.randn(50, 14, 14, 32).astype(np.float32)}


def _run_counted(sess, fetches, feed, **kwargs):
    """The fetched values, and the op names of the tensors the run made on the GPU."""
    sess.run(fetches, feed, **kwargs)                   # plans built, constants held
    allocator = [d for d in devices.local_devices() if d.device_type == "GPU"][0].allocator
    made = []
    counted = allocator.allocate_locked

    def allocate_locked(nbytes, op_name, *args, **kwargs):
        made.append(op_name)
        return counted(nbytes, op_name, *args, **kwargs)
    allocator.allocate_locked = allocate_locked          # this object only, this run
    try:
        values = sess.run(fetches, feed, **kwargs)
    finally:
        del allocator.allocate_locked
    return values, sorted(made)


def test_a_virtual_gpus_conv_layer_shares_its_work_with_the_cpus_bits(virtual_gpus,
                                                                      monkeypatch):
    virtual_gpus(1, memory_limit=2048)
    cpu_sess, fetches, feed = _conv_layer_gradients(tf.ConfigProto(device_count={"GPU": 0}))
    on_cpu = cpu_sess.run(fetches, feed)
    tf.reset_default_graph()
    sess, fetches, feed = _conv_layer_gradients()
    metadata = tf.RunMetadata()
    sess.run(fetches, feed, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
             run_metadata=metadata)
    assert {n.node_name: n.device for n in metadata.step_stats.all_nodes()}[
        "Conv2D"].endswith("GPU:0")                              # really on the GPU
    shared, shared_memory = _run_counted(sess, fetches, feed)
    # The same layer with nothing shared (each op its own im2col, as before):
    from tfteach.runtime import fusion
    monkeypatch.setattr(fusion, "share_conv_patches", lambda steps: steps)
    tf.reset_default_graph()
    sess, fetches, feed = _conv_layer_gradients()
    alone, alone_memory = _run_counted(sess, fetches, feed)
    # The layer pays in the Fourier domain, so the shared path is not im2col's ...
    assert any(a.tobytes() != b.tobytes() for a, b in zip(shared, alone))
    # ... it is the CPU's, bit for bit
    for a, b in zip(shared, on_cpu):
        assert a.tobytes() == b.tobytes()
    # and both agree up to float rounding
    for a, b in zip(shared, alone):
        np.testing.assert_allclose(a, b, rtol=2e-4, atol=2e-4 * np.abs(b).max())
    # the same tensors are made on the GPU and counted (their sizes can differ: a
    # kernel's output may be a view of a larger buffer, which is what is counted)
    assert shared_memory == alone_memory
    assert {"Conv2D", "gradients/Conv2D_grad/Conv2DBackpropInput",
            "gradients/Conv2D_grad/Conv2DBackpropFilter"} <= set(shared_memory)
