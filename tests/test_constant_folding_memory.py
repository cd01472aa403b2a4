"""Constant folding keeps TensorFlow's size limit, and an Assign keeps its value's buffer.

TensorFlow folds no constant bigger than 10 MiB: `tf.ones([16, 1024, 1024])` (a Fill,
64 MiB) is computed on the GPU each time its op runs and freed after its last use, and
the initializer's Assign, its only reader, makes that buffer the variable's. So the
device holds 64 MiB after `global_variables_initializer()`, and the figures of
`tf.config.memory_stats` (virtual GPUs, docs/devices.md) are TensorFlow's. Expected
sizes are counted here from shapes: 4 bytes a float32, each buffer rounded up to 256
bytes (TF's BFC allocator).
"""
import numpy as np
import pytest

import tfteach as tf
from device_helpers import virtual_gpus  # noqa: F401 (fixture)
from tfteach.runtime.executor import MAX_FOLDED_BYTES

MIB = 2 ** 20
BIG = [16, 1024, 1024]                        # 64 MiB of float32
BIG_BYTES = 16 * 1024 * 1024 * 4
SCALAR = 256                                  # a scalar constant's rounded buffer


def stats():
    return tf.config.memory_stats("/gpu:0")


def growing():
    config = tf.ConfigProto()
    config.gpu_options.allow_growth = True
    return config


def test_the_limit_is_tensorflows():
    assert MAX_FOLDED_BYTES == 10 * MIB


def test_a_64_mib_variable_holds_64_mib_after_the_initializer(virtual_gpus):
    virtual_gpus(1, memory_limit=1024)
    with tf.device("/gpu:0"):
        v = tf.Variable(tf.ones(BIG))
    init = tf.global_variables_initializer()
    with tf.Session(config=growing()) as sess:
        sess.run(init)
        s = stats()
        # The variable and the Fill's scalar 1.0 (a Const: it stays with the session).
        assert s["bytes_in_use"] == BIG_BYTES + SCALAR
        assert s["peak_bytes_in_use"] == BIG_BYTES + SCALAR      # never two copies
        # Initializing again: the Fill's new tensor and the variable's current value are
        # alive together (TF's Assign then copies into the variable's buffer); after it,
        # 64 MiB again.
        sess.run(init)
        s = stats()
        assert s["bytes_in_use"] == BIG_BYTES + SCALAR
        assert s["peak_bytes_in_use"] == 2 * BIG_BYTES + SCALAR
        assert float(sess.run(tf.reduce_sum(v[0, 0]))) == 1024.0
    assert stats()["bytes_in_use"] == 0


def test_a_big_constant_derived_tensor_is_freed_after_its_last_use(virtual_gpus):
    virtual_gpus(1, memory_limit=1024)
    with tf.device("/gpu:0"):
        total = tf.reduce_sum(tf.ones(BIG) * 2.0)
    with tf.Session(config=growing()) as sess:
        assert sess.run(total) == 2.0 * 16 * 1024 * 1024
        s = stats()
        # Fill's output and the product lived during the run only; what stays are the
        # constants (the scalars 1.0 and 2.0, the reduction's axes are int32: host).
        assert s["bytes_in_use"] == 2 * SCALAR
        assert s["peak_bytes_in_use"] >= 2 * BIG_BYTES
        before = s["num_allocs"]
        sess.run(total)
        assert stats()["num_allocs"] > before             # computed again: not folded


def test_a_small_constant_expression_is_still_folded(virtual_gpus):
    # 1000 x 100 float32 (400,000 bytes) is under the limit: folded once, kept on the
    # device for the session like a Const, and not allocated again per run.
    virtual_gpus(1, memory_limit=1024)
    with tf.device("/gpu:0"):
        total = tf.reduce_sum(tf.ones([1000, 100]))
    with tf.Session(config=growing()) as sess:
        assert sess.run(total) == 100000.0
        held = stats()["bytes_in_use"]
        assert held >= 400000
        before = stats()["num_allocs"]
        sess.run(total)
        s = stats()
        assert s["bytes_in_use"] == held
        assert s["num_allocs"] - before <= 1              # only the scalar result


def test_initializing_fits_where_two_copies_would_not(virtual_gpus):
    # A 320 MiB card leaves 95 MiB to the process (TF's 225 MiB margin): one 64 MiB
    # variable fits, as in TensorFlow; the folded value plus a copy (128 MiB) did not.
    virtual_gpus(1, memory_limit=320)
    with tf.device("/gpu:0"):
        v = tf.Variable(tf.ones(BIG))
    with tf.Session() as sess:
        assert stats()["bytes_limit"] == 95 * MIB
        sess.run(v.initializer)
        assert stats()["bytes_in_use"] == BIG_BYTES + SCALAR


def test_a_constant_expression_over_the_device_memory_is_an_oom_when_it_runs(virtual_gpus):
    virtual_gpus(1, memory_limit=320)                   # 95 MiB for the process
    with tf.device("/gpu:0"):
        huge = tf.ones([32, 1024, 1024], name="huge")   # 128 MiB
        v = tf.Variable(huge)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.ResourceExhaustedError) as raised:
            sess.run(v.initializer)
        text = str(raised.value)
        assert text.startswith("OOM when allocating tensor with shape[32,1024,1024] and "
                               "type float on /job:localhost/replica:0/task:0/device:GPU:0 "
                               "by allocator GPU_0_bfc")
        assert "[[node huge " in text
        assert stats()["bytes_in_use"] == SCALAR        # nothing left of the failed run
        assert not sess.run(tf.is_variable_initialized(v))


def test_the_cpu_still_gets_the_same_values():
    x = tf.ones([3, 1024, 1024]) * 2.0                  # 12 MiB: not folded
    v = tf.Variable(x)
    small = tf.Variable(tf.fill([2, 3], 7.0))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(v)
        assert got.shape == (3, 1024, 1024) and np.all(got == 2.0)
        np.testing.assert_array_equal(sess.run(small), np.full((2, 3), 7.0, np.float32))
        got[0, 0, 0] = 5.0                              # the student's copy
        assert sess.run(v)[0, 0, 0] == 2.0
        assert not sess.variable_values[v.op.name].flags.writeable
