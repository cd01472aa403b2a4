"""Queues (ops/data_flow_ops.py, kernels/cpu/queues.py): order, capacity, blocking across
real threads, closing, cancellation when the session closes, RunOptions timeouts, static
shapes and TF's errors. Expected values are written out from the queue's definition
(FIFO order, a permutation for the shuffle queue, padding with zeros)."""
import re
import threading
import time

import numpy as np
import pytest

import tfteach as tf
from tests.queue_helpers import call_bounded, start_thread

TIMEOUT = tf.RunOptions(timeout_in_ms=200)


def test_fifo_order_size_and_close():
    q = tf.FIFOQueue(10, tf.int32, shapes=[[]])
    with tf.Session() as sess:
        sess.run(q.enqueue_many([[3, 1, 2]]))
        sess.run(q.enqueue(7))
        assert sess.run(q.size()) == 4
        assert [sess.run(q.dequeue()) for _ in range(2)] == [3, 1]
        np.testing.assert_array_equal(sess.run(q.dequeue_many(2)), [2, 7])
        assert not sess.run(q.is_closed())
        sess.run(q.close())
        assert sess.run(q.is_closed())


def test_queue_state_belongs_to_each_session():
    q = tf.FIFOQueue(10, tf.int32, shapes=[[]])
    enq = q.enqueue(5)
    with tf.Session() as a, tf.Session() as b:
        a.run(enq)
        a.run(enq)
        b.run(enq)
        assert (a.run(q.size()), b.run(q.size())) == (2, 1)


def test_notes_fifo_queue_example_prints_its_sequence(capsys):
    # note 004, "队列类 FIFOQueue RandomShuffleQueue": the printed sequence is the notes'.
    q = tf.FIFOQueue(2, tf.int32)
    init = q.enqueue_many(([0, 10],))
    x = q.dequeue()
    y = x + 1
    q_inc = q.enqueue([y])
    sess = tf.InteractiveSession()
    try:
        init.run()
        for _ in range(5):
            v, _ = call_bounded(lambda: sess.run([x, q_inc]))
            print("v = %d" % v)
    finally:
        sess.close()
    assert capsys.readouterr().out.split("\n")[:5] == [
        "v = 0", "v = 10", "v = 1", "v = 11", "v = 2"]


def test_several_components_and_names():
    q = tf.FIFOQueue(5, [tf.float32, tf.string], shapes=[[2], []])
    named = tf.FIFOQueue(5, [tf.int32, tf.int64], shapes=[[], []], names=["a", "b"])
    with tf.Session() as sess:
        sess.run(q.enqueue([[1.5, 2.5], "x"]))
        value, text = sess.run(q.dequeue())
        np.testing.assert_array_equal(value, np.float32([1.5, 2.5]))
        assert text == b"x"
        sess.run(named.enqueue({"a": 1, "b": 2}))
        out = sess.run(named.dequeue())
        assert out == {"a": 1, "b": 2}
        assert out["b"].dtype == np.int64


def test_static_shapes_as_tf_infers_them():
    q = tf.FIFOQueue(5, [tf.float32, tf.int32], shapes=[[2], []])
    a, b = q.dequeue()
    assert a.shape.as_list() == [2] and b.shape.as_list() == []
    many = q.dequeue_many(3)
    assert [t.shape.as_list() for t in many] == [[3, 2], [3]]
    up_to = q.dequeue_up_to(3)
    assert [t.shape.as_list() for t in up_to] == [[None, 2], [None]]
    unknown = tf.FIFOQueue(5, tf.float32).dequeue()
    assert unknown.shape.ndims is None
    assert q.queue_ref.dtype == tf.resource
    assert q.queue_ref.op.type == "FIFOQueueV2"
    assert q.dequeue_many(2)[0].op.type == "QueueDequeueManyV2"


def test_dequeue_blocks_until_another_thread_enqueues():
    q = tf.FIFOQueue(2, tf.int32, shapes=[[]])
    deq, enq = q.dequeue(), q.enqueue(42)
    with tf.Session() as sess:
        waiter = start_thread(lambda: sess.run(deq))
        time.sleep(0.2)
        assert waiter.is_alive()                       # the queue is empty: it waits
        sess.run(enq)
        waiter.join(10)
        assert not waiter.is_alive() and waiter.box["value"] == 42


def test_enqueue_blocks_while_full_until_a_dequeue():
    q = tf.FIFOQueue(1, tf.int32, shapes=[[]])
    enq1, enq2, deq = q.enqueue(1), q.enqueue(2), q.dequeue()
    with tf.Session() as sess:
        sess.run(enq1)
        waiter = start_thread(lambda: sess.run(enq2))
        time.sleep(0.2)
        assert waiter.is_alive()                       # full: it waits for room
        assert sess.run(deq) == 1
        waiter.join(10)
        assert not waiter.is_alive() and "error" not in waiter.box
        assert sess.run(deq) == 2


def test_closed_queue_errors_have_tfs_words():
    q = tf.FIFOQueue(3, tf.int32, shapes=[[]])
    with tf.Session() as sess:
        sess.run(q.enqueue_many([[1, 2]]))
        sess.run(q.close())
        with pytest.raises(tf.errors.CancelledError) as info:
            sess.run(q.enqueue(3))
        # _<n>_: the process's count of unnamed resources (TF's ResourceMgr ids)
        assert re.match(r"FIFOQueue '_\d+_fifo_queue' is closed.$",
                        info.value.message.splitlines()[0])
        # dequeue_many needs 3, only 2 are left; dequeue_up_to takes what is left
        with pytest.raises(tf.errors.OutOfRangeError) as info:
            sess.run(q.dequeue_many(3))
        assert re.match(r"FIFOQueue '_\d+_fifo_queue' is closed and has insufficient "
                        r"elements \(requested 3, current size 2\)$",
                        info.value.message.splitlines()[0])
        np.testing.assert_array_equal(sess.run(q.dequeue_up_to(3)), [1, 2])
        with pytest.raises(tf.errors.OutOfRangeError, match=r"requested 1, current size 0"):
            sess.run(q.dequeue())


def test_close_wakes_a_waiting_dequeue_with_out_of_range():
    q = tf.FIFOQueue(3, tf.int32, shapes=[[]])
    deq, close = q.dequeue(), q.close()
    with tf.Session() as sess:
        waiter = start_thread(lambda: sess.run(deq))
        time.sleep(0.2)
        sess.run(close)
        waiter.join(10)
        assert isinstance(waiter.box.get("error"), tf.errors.OutOfRangeError)


def test_close_with_cancel_pending_enqueues_cancels_a_waiting_enqueue():
    q = tf.FIFOQueue(1, tf.int32, shapes=[[]])
    enq = q.enqueue(1)
    with tf.Session() as sess:
        sess.run(enq)
        waiter = start_thread(lambda: sess.run(enq))
        time.sleep(0.2)
        sess.run(q.close(cancel_pending_enqueues=True))
        waiter.join(10)
        error = waiter.box.get("error")
        assert isinstance(error, tf.errors.CancelledError)
        assert error.message.splitlines()[0] == "Enqueue operation was cancelled"
        assert sess.run(q.size()) == 1


def test_closing_the_session_cancels_a_blocked_dequeue():
    q = tf.FIFOQueue(1, tf.int32, shapes=[[]])
    deq = q.dequeue()
    sess = tf.Session()
    waiter = start_thread(lambda: sess.run(deq))
    time.sleep(0.2)
    sess.close()
    waiter.join(10)
    assert not waiter.is_alive()
    error = waiter.box.get("error")
    assert isinstance(error, tf.errors.CancelledError)
    assert error.message.splitlines()[0] == "Dequeue operation was cancelled"


def test_closing_the_session_from_a_timer_thread_frees_the_main_thread():
    q = tf.FIFOQueue(1, tf.int32)
    sess = tf.Session()
    threading.Timer(0.2, sess.close).start()
    with pytest.raises(tf.errors.CancelledError):
        call_bounded(lambda: sess.run(q.dequeue()))


def test_run_options_timeout_is_deadline_exceeded():
    q = tf.FIFOQueue(1, tf.int32, shapes=[[]])
    with tf.Session() as sess:
        start = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError) as info:
            call_bounded(lambda: sess.run(q.dequeue(), options=TIMEOUT))
        assert time.monotonic() - start >= 0.19
        assert info.value.message.splitlines()[0] == "Timed out waiting for notification"
        sess.run(q.enqueue(1))
        with pytest.raises(tf.errors.DeadlineExceededError):
            call_bounded(lambda: sess.run(q.enqueue(2), options=TIMEOUT))
        assert sess.run(q.dequeue(), options=TIMEOUT) == 1     # a run in time is fine


def test_dequeue_many_needs_shapes():
    q = tf.FIFOQueue(3, tf.int32)
    with tf.Session() as sess:
        sess.run(q.enqueue(1))
        with pytest.raises(tf.errors.InvalidArgumentError, match="FIFOQueue's DequeueMany "
                           "and DequeueUpTo require the components to have specified "
                           "shapes."):
            sess.run(q.dequeue_many(1))


def test_bad_enqueues_fail_with_tfs_errors():
    q = tf.FIFOQueue(3, [tf.int32, tf.float32], shapes=[[], [2]])
    with pytest.raises(TypeError, match="Expected int32"):
        q.enqueue([1.5, [1.0, 2.0]])
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2,\) are incompatible"):
        q.enqueue([1, [1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="Dimensions 2 and 1 are not compatible"):
        q.enqueue_many([[1, 2], [[1.0, 2.0]]])
    with pytest.raises(ValueError, match="You must enqueue a dictionary in a Queue with "
                       "names"):
        tf.FIFOQueue(3, [tf.int32], names=["a"]).enqueue([1])
    with pytest.raises(ValueError, match="Queue shapes must have the same length as dtypes"):
        tf.FIFOQueue(3, [tf.int32, tf.int32], shapes=[[2]])
    # a shape the graph cannot check is checked when the op runs
    p = tf.placeholder(tf.int32, [None])
    fixed = tf.FIFOQueue(3, tf.int32, shapes=[[2]])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Shape mismatch in tuple component 0. Expected \[2\], "
                                 r"got \[3\]"):
            sess.run(fixed.enqueue([p]), {p: [1, 2, 3]})


def test_random_shuffle_queue_keeps_min_after_dequeue_and_returns_a_permutation():
    q = tf.RandomShuffleQueue(20, 5, tf.int32, shapes=[[]], seed=7)
    with tf.Session() as sess:
        sess.run(q.enqueue_many([list(range(10))]))
        first = sess.run(q.dequeue_many(5))            # 10 - 5 left: allowed
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(q.dequeue(), options=TIMEOUT)     # would leave fewer than 5
        sess.run(q.close())
        rest = sess.run(q.dequeue_up_to(10))           # closed: the minimum no longer holds
    assert sorted(first.tolist() + rest.tolist()) == list(range(10))
    assert len(rest) == 5


def test_random_shuffle_queue_with_a_seed_repeats_in_a_new_session():
    q = tf.RandomShuffleQueue(50, 0, tf.int32, shapes=[[]], seed=3)
    enq, deq = q.enqueue_many([list(range(40))]), q.dequeue_many(40)
    orders = []
    for _ in range(2):
        with tf.Session() as sess:
            sess.run(enq)
            orders.append(sess.run(deq).tolist())
    assert orders[0] == orders[1] and orders[0] != list(range(40))
    assert sorted(orders[0]) == list(range(40))


def test_random_shuffle_queue_closed_error_names_its_kind():
    q = tf.RandomShuffleQueue(5, 1, tf.int32, shapes=[[]])
    with tf.Session() as sess:
        sess.run(q.close())
        with pytest.raises(tf.errors.OutOfRangeError, match="^RandomShuffleQueue "
                           r"'_\d+_random_shuffle_queue' is closed and has insufficient "
                           r"elements \(requested 1, current size 0\)"):
            sess.run(q.dequeue())


def test_padding_fifo_queue_pads_to_the_longest():
    q = tf.PaddingFIFOQueue(5, [tf.int32, tf.string], shapes=[[None], [None]])
    with tf.Session() as sess:
        sess.run(q.enqueue([[1, 2], ["a"]]))
        sess.run(q.enqueue([[3], ["b", "c"]]))
        numbers, texts = sess.run(q.dequeue_many(2))
    np.testing.assert_array_equal(numbers, [[1, 2], [3, 0]])
    assert texts.tolist() == [[b"a", b""], [b"b", b"c"]]
    assert q.dequeue_many(2)[0].shape.as_list() == [2, None]


def test_padding_fifo_queue_needs_shapes():
    with pytest.raises(TypeError):
        tf.PaddingFIFOQueue(5, [tf.int32])                 # pylint: disable=no-value-for-parameter


def test_priority_queue_dequeues_smallest_priority_first():
    q = tf.PriorityQueue(10, [tf.string], shapes=[[]])
    with tf.Session() as sess:
        sess.run(q.enqueue_many([[5, 1, 3], ["five", "one", "three"]]))
        priorities, names = sess.run(q.dequeue_many(3))
    assert priorities.tolist() == [1, 3, 5]
    assert names.tolist() == [b"one", b"three", b"five"]


def test_resource_names_count_through_the_process_as_tfs():
    q = tf.FIFOQueue(1, tf.int32, shapes=[[]])
    ids = []
    for _ in range(2):
        with tf.Session() as sess:
            sess.run(q.close())
            with pytest.raises(tf.errors.CancelledError) as info:
                sess.run(q.enqueue(1))
            ids.append(int(re.match(r"FIFOQueue '_(\d+)_fifo_queue'",
                                    info.value.message).group(1)))
    assert ids[1] == ids[0] + 1


def test_shared_name_shares_the_queue_between_two_ops():
    a = tf.FIFOQueue(5, tf.int32, shapes=[[]], shared_name="shared")
    b = tf.FIFOQueue(5, tf.int32, shapes=[[]], shared_name="shared")
    with tf.Session() as sess:
        sess.run(a.enqueue(9))
        assert sess.run(b.dequeue()) == 9


def test_many_producers_and_consumers_lose_nothing():
    q = tf.FIFOQueue(4, tf.int32, shapes=[[]])
    value = tf.placeholder(tf.int32, [])
    enq, deq = q.enqueue(value), q.dequeue()
    with tf.Session() as sess:
        producers = [start_thread(lambda k=k: [sess.run(enq, {value: 100 * k + i})
                                               for i in range(50)]) for k in range(4)]
        consumers = [start_thread(lambda: [int(sess.run(deq)) for _ in range(50)])
                     for _ in range(4)]
        for t in producers + consumers:
            t.join(30)
            assert not t.is_alive() and "error" not in t.box
    got = sorted(v for t in consumers for v in t.box["value"])
    assert got == sorted(100 * k + i for k in range(4) for i in range(50))
    for t in consumers:                 # each consumer sees each producer's values in order
        for k in range(4):
            mine = [v for v in t.box["value"] if v // 100 == k]
            assert mine == sorted(mine)


def test_a_waiting_run_does_not_count_as_computing():
    # a runner blocked on a full queue must not keep other runs' BLAS one-threaded
    from tfteach.kernels.cpu import run_state
    q = tf.FIFOQueue(1, tf.int32, shapes=[[]])
    deq, enq = q.dequeue(), q.enqueue(5)
    with tf.Session() as sess:
        before = len(run_state.IN_PROGRESS)
        waiter = start_thread(lambda: sess.run(deq))
        time.sleep(0.2)
        assert waiter.is_alive() and len(run_state.IN_PROGRESS) == before
        sess.run(enq)
        waiter.join(10)
        assert waiter.box["value"] == 5 and len(run_state.IN_PROGRESS) == before
