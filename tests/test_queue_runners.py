"""QueueRunner, Coordinator, the input producers and the batching functions
(train/queue_runner.py, coordinator.py, input.py), with real threads: what each produces
against a Python reference, how threads stop, and that none outlives its session."""
import contextlib
import threading
import time

import numpy as np
import pytest

import tfteach as tf
from tests.queue_helpers import call_bounded, runner_threads, start_thread


@pytest.fixture(autouse=True)
def no_runner_thread_left():
    yield
    deadline = time.monotonic() + 10
    while runner_threads() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert runner_threads() == [], "queue runner threads outlived their test"


def _drain(sess, fetch, limit=1000):
    """Every value of `fetch` until OutOfRangeError."""
    out = []
    for _ in range(limit):
        try:
            out.append(call_bounded(lambda: sess.run(fetch)))
        except tf.errors.OutOfRangeError:
            return out
    raise AssertionError("no OutOfRangeError after %d runs" % limit)


@contextlib.contextmanager
def _queue_runners_session():
    """A session (local variables initialised) with the graph's queue runners started;
    on leaving, the runners are stopped and joined and the session closed."""
    sess = tf.Session()
    sess.run(tf.local_variables_initializer())
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    try:
        yield sess
    finally:
        coord.request_stop()
        call_bounded(lambda: coord.join(threads))
        sess.close()


# -- Coordinator ---------------------------------------------------------------------------
def test_coordinator_stop_and_join():
    coord = tf.train.Coordinator()
    ticks = []

    def loop(i):
        while not coord.should_stop():
            ticks.append(i)
            if len(ticks) > 20:
                coord.request_stop()
            time.sleep(0.001)

    threads = [threading.Thread(target=loop, args=(i,), daemon=True) for i in range(3)]
    for t in threads:
        t.start()
    call_bounded(lambda: coord.join(threads))
    assert coord.should_stop() and not any(t.is_alive() for t in threads)
    coord.clear_stop()
    assert not coord.should_stop()


def test_coordinator_join_reraises_a_threads_exception():
    coord = tf.train.Coordinator()

    def worker():
        with coord.stop_on_exception():
            raise ValueError("bad input in a thread")

    t = threading.Thread(target=worker, daemon=True)
    t.start()
    with pytest.raises(ValueError, match="bad input in a thread"):
        call_bounded(lambda: coord.join([t]))


def test_coordinator_out_of_range_is_a_clean_stop():
    coord = tf.train.Coordinator()
    try:
        raise tf.errors.OutOfRangeError(None, None, "end of input")
    except tf.errors.OutOfRangeError as e:
        coord.request_stop(e)
    assert coord.should_stop()
    call_bounded(lambda: coord.join([]))          # nothing raised


def test_coordinator_join_names_stragglers():
    coord = tf.train.Coordinator()
    release = threading.Event()
    t = threading.Thread(target=release.wait, daemon=True, name="straggler")
    t.start()
    coord.request_stop()
    with pytest.raises(RuntimeError, match="Coordinator stopped with threads still "
                       "running: straggler"):
        coord.join([t], stop_grace_period_secs=0.05)
    release.set()
    t.join(5)


def test_wait_for_stop_and_looper_thread():
    coord = tf.train.Coordinator()
    assert coord.wait_for_stop(0.01) is False
    calls = []
    looper = tf.train.LooperThread.loop(coord, 0.01, calls.append, args=(1,))
    deadline = time.monotonic() + 10
    while len(calls) < 2 and time.monotonic() < deadline:     # a busy host may be slow
        time.sleep(0.01)
    coord.request_stop()
    call_bounded(lambda: coord.join([looper]))
    assert len(calls) >= 2 and set(calls) == {1}


# -- QueueRunner ---------------------------------------------------------------------------
def test_notes_queue_runner_example_runs_five_named_daemon_threads():
    # note 004, "多线程协同类 Coordinator QueueRunner"
    queue = tf.FIFOQueue(100, "float")
    enqueue_op = queue.enqueue([tf.random_normal([1])])
    qr = tf.train.QueueRunner(queue, [enqueue_op] * 5)
    tf.train.add_queue_runner(qr)
    out_tensor = queue.dequeue()
    assert tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS) == [qr]
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        assert len(threads) == 6 and all(t.daemon for t in threads)
        assert [t.name for t in threads] == (
            ["QueueRunnerThread-fifo_queue-fifo_queue_enqueue"] * 5 +
            ["QueueRunnerThread-fifo_queue-close_on_stop"])
        values = [call_bounded(lambda: sess.run(out_tensor))[0] for _ in range(3)]
        coord.request_stop()
        call_bounded(lambda: coord.join(threads))
    assert len(set(values)) == 3 and all(np.isfinite(values))


def test_runner_reports_an_op_error_to_the_coordinator():
    q = tf.FIFOQueue(10, tf.float32, shapes=[[]])
    bad = tf.placeholder(tf.float32, [])                  # never fed: the op fails
    tf.train.add_queue_runner(tf.train.QueueRunner(q, [q.enqueue(bad)]))
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        with pytest.raises(tf.errors.InvalidArgumentError, match="placeholder"):
            call_bounded(lambda: coord.join(threads))


def test_start_queue_runners_needs_a_session():
    with pytest.raises(ValueError, match="Cannot start queue runners: No default session"):
        tf.train.start_queue_runners()
    with pytest.raises(TypeError, match="sess must be a `tf.Session` object"):
        tf.train.start_queue_runners(sess=object())


def test_a_second_start_in_the_same_session_starts_nothing():
    q = tf.FIFOQueue(10, tf.int32, shapes=[[]])
    qr = tf.train.QueueRunner(q, [q.enqueue(1)])
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        first = qr.create_threads(sess, coord=coord, start=True)
        assert len(first) == 2 and qr.create_threads(sess, coord=coord) == []
        coord.request_stop()
        call_bounded(lambda: coord.join(first))


def test_queue_runner_bad_arguments():
    q = tf.FIFOQueue(10, tf.int32, shapes=[[]])
    with pytest.raises(ValueError, match="Must provide queue and enqueue_ops."):
        tf.train.QueueRunner(q, [])
    with pytest.raises(TypeError, match="queue_closed_exception_types, when provided, must "
                       "be a tuple of tf.error types"):
        tf.train.QueueRunner(q, [q.enqueue(1)], queue_closed_exception_types=[ValueError])


# -- threads never outlive their session ------------------------------------------------------
def _endless_producer():
    q = tf.FIFOQueue(4, tf.int32, shapes=[[]])
    tf.train.add_queue_runner(tf.train.QueueRunner(q, [q.enqueue(1)] * 3))
    return q


def test_closing_the_session_without_join_stops_and_joins_runner_threads():
    q = _endless_producer()
    before = set(threading.enumerate())
    with tf.Session() as sess:
        threads = tf.train.start_queue_runners(sess=sess, coord=tf.train.Coordinator())
        assert call_bounded(lambda: sess.run(q.dequeue())) == 1
        time.sleep(0.1)                       # the runners now wait on the full queue
        assert all(t.is_alive() for t in threads)
    # the with block closed the session: no coord.request_stop / join was called
    assert not any(t.is_alive() for t in threads)
    assert set(threading.enumerate()) <= before


def test_closing_the_session_stops_runners_started_without_a_coordinator():
    q = _endless_producer()
    sess = tf.Session()
    threads = tf.train.start_queue_runners(sess=sess)
    call_bounded(lambda: sess.run(q.dequeue()))
    call_bounded(sess.close)
    assert not any(t.is_alive() for t in threads)


def test_a_stop_request_cancels_runners_blocked_on_a_full_queue():
    q = _endless_producer()
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        time.sleep(0.1)
        coord.request_stop()
        call_bounded(lambda: coord.join(threads))      # TF's CancelledError is clean here
        assert not any(t.is_alive() for t in threads)


# -- producers -------------------------------------------------------------------------------
def test_string_input_producer_epochs_in_order():
    names = tf.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=False)
    item = names.dequeue()
    with _queue_runners_session() as sess:
        assert _drain(sess, item) == [b"a", b"b", b"c"] * 2
    assert names.name == "input_producer"


def test_string_input_producer_shuffles_each_epoch_as_a_permutation():
    names = [b"f%d" % i for i in range(8)]
    queue = tf.train.string_input_producer(names, num_epochs=3, seed=1)
    item = queue.dequeue()
    with _queue_runners_session() as sess:
        got = _drain(sess, item)
    epochs = [got[i:i + 8] for i in (0, 8, 16)]
    assert all(sorted(e) == names for e in epochs) and len(got) == 24
    assert epochs != [names] * 3


def test_string_input_producer_rejects_an_empty_list():
    with pytest.raises(ValueError, match="string_input_producer requires a non-null input "
                       "tensor"):
        tf.train.string_input_producer([])


def test_range_and_slice_input_producers():
    numbers = tf.train.range_input_producer(4, num_epochs=1, shuffle=False).dequeue()
    x = tf.constant([[1, 2], [3, 4], [5, 6]])
    y = tf.constant(["a", "b", "c"])
    row, label = tf.train.slice_input_producer([x, y], num_epochs=1, shuffle=False)
    assert row.shape.as_list() == [2] and label.shape.as_list() == []
    with _queue_runners_session() as sess:
        assert _drain(sess, numbers) == [0, 1, 2, 3]
        got = _drain(sess, [row, label])
    assert [(r.tolist(), s) for r, s in got] == [([1, 2], b"a"), ([3, 4], b"b"),
                                                ([5, 6], b"c")]


def test_limit_epochs_and_count_up_to():
    v = tf.Variable(0, dtype=tf.int64)
    counter = tf.count_up_to(v, 2)
    limited = tf.train.limit_epochs(tf.constant(7), num_epochs=2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.local_variables_initializer())
        assert [sess.run(counter), sess.run(counter)] == [0, 1]
        with pytest.raises(tf.errors.OutOfRangeError, match="Reached limit of 2"):
            sess.run(counter)
        assert [sess.run(limited), sess.run(limited)] == [7, 7]
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(limited)
    with pytest.raises(ValueError, match="num_epochs must be > 0 not 0."):
        tf.train.limit_epochs(tf.constant(1), 0)


def test_match_filenames_once_is_a_local_variable(tmp_path):
    for name in ("b.txt", "a.txt", "c.csv"):
        (tmp_path / name).write_text("x")
    files = tf.train.match_filenames_once(str(tmp_path / "*.txt"))
    assert files in tf.local_variables() and files not in tf.global_variables()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(files)
        sess.run(tf.local_variables_initializer())
        assert sess.run(files).tolist() == [str(tmp_path / n).encode()
                                            for n in ("a.txt", "b.txt")]


# -- batching --------------------------------------------------------------------------------
def _numbers_producer(n, epochs=1):
    return tf.train.range_input_producer(n, num_epochs=epochs, shuffle=False).dequeue()


def test_batch_keeps_order_with_one_thread_and_a_smaller_final_batch():
    value = _numbers_producer(7)
    pair = [value, value * 10]
    batch = tf.train.batch(pair, batch_size=3, allow_smaller_final_batch=True)
    assert [t.shape.as_list() for t in batch] == [[None], [None]]
    assert batch[0].op.name == "batch" and batch[0].op.type == "QueueDequeueUpToV2"
    with _queue_runners_session() as sess:
        got = _drain(sess, batch)
    assert [b[0].tolist() for b in got] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [b[1].tolist() for b in got] == [[0, 10, 20], [30, 40, 50], [60]]


def test_batch_of_one_tensor_list_returns_a_tensor_and_drops_the_last_partial_batch():
    batch = tf.train.batch([_numbers_producer(7)], batch_size=3)
    assert isinstance(batch, tf.Tensor) and batch.shape.as_list() == [3]
    with _queue_runners_session() as sess:
        got = _drain(sess, batch)
    assert [b.tolist() for b in got] == [[0, 1, 2], [3, 4, 5]]


def test_batch_with_several_threads_and_enqueue_many_loses_nothing():
    rows = tf.constant(np.arange(24).reshape(12, 2))
    chunk = tf.train.slice_input_producer([rows], num_epochs=1, shuffle=False)[0]
    pairs = tf.train.batch([tf.reshape(chunk, [1, 2])], batch_size=4, num_threads=3,
                           enqueue_many=True, allow_smaller_final_batch=True)
    assert pairs.shape.as_list() == [None, 2]
    with _queue_runners_session() as sess:
        got = np.concatenate(_drain(sess, pairs))
    assert sorted(map(tuple, got.tolist())) == [(2 * i, 2 * i + 1) for i in range(12)]


def test_batch_dict_and_dynamic_pad():
    index = _numbers_producer(3)
    ragged = tf.range(index + 1)                        # lengths 1, 2, 3
    out = tf.train.batch({"n": index, "seq": ragged}, batch_size=3, dynamic_pad=True)
    assert sorted(out) == ["n", "seq"] and out["seq"].shape.as_list() == [3, None]
    with _queue_runners_session() as sess:
        got = call_bounded(lambda: sess.run(out))
    assert got["n"].tolist() == [0, 1, 2]
    assert got["seq"].tolist() == [[0, 0, 0], [0, 1, 0], [0, 1, 2]]


def test_batch_of_unknown_shapes_needs_shapes_or_dynamic_pad():
    p = tf.placeholder(tf.float32, [None])
    with pytest.raises(ValueError, match="All shapes must be fully defined"):
        tf.train.batch([p], 2)
    with pytest.raises(ValueError, match="Cannot infer Tensor's rank"):
        tf.train.batch([tf.placeholder(tf.float32)], 2)


def test_shuffle_batch_draws_a_permutation_of_its_input():
    value = _numbers_producer(30)
    batch = tf.train.shuffle_batch([value], batch_size=5, capacity=20, min_after_dequeue=5,
                                   seed=4, allow_smaller_final_batch=True)
    with _queue_runners_session() as sess:
        got = np.concatenate(_drain(sess, batch)).tolist()
    assert sorted(got) == list(range(30)) and got != list(range(30))


def test_shuffle_batch_checks_capacity():
    with pytest.raises(ValueError, match="capacity 10 must be bigger than min_after_dequeue "
                       "10."):
        tf.train.shuffle_batch([tf.constant(1)], 2, capacity=10, min_after_dequeue=10)


def test_batch_join_and_shuffle_batch_join_read_every_list():
    a = _numbers_producer(5)
    b = tf.train.range_input_producer(5, num_epochs=1, shuffle=False).dequeue() + 100
    joined = tf.train.batch_join([[a], [b]], batch_size=2, allow_smaller_final_batch=True)
    shuffled = tf.train.shuffle_batch_join([[a * 0 - 1], [b * 0 - 2]], batch_size=2,
                                           capacity=10, min_after_dequeue=2, seed=1)
    assert joined.op.name == "batch_join" and shuffled.op.name == "shuffle_batch_join"
    assert len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)) == 4
    # the two lists feed one queue through two threads (and the join's summary is there)
    summaries = [op.name for op in tf.get_default_graph().get_operations()
                 if op.type == "ScalarSummary"]
    assert "batch_join/fraction_of_32_full" in summaries
    with pytest.raises(TypeError, match="Expected types to be consistent: int32 vs. float32"):
        tf.train.batch_join([[a], [tf.cast(b, tf.float32)]], 2)


def test_batch_join_values():
    a = _numbers_producer(5)
    b = tf.train.range_input_producer(5, num_epochs=1, shuffle=False).dequeue() + 100
    joined = tf.train.batch_join([[a], [b]], batch_size=2, allow_smaller_final_batch=True)
    with _queue_runners_session() as sess:
        got = np.concatenate(_drain(sess, joined)).tolist()
    assert sorted(got) == [0, 1, 2, 3, 4, 100, 101, 102, 103, 104]
    assert [v for v in got if v < 100] == [0, 1, 2, 3, 4]         # each list in its order


def test_runner_thread_count_is_back_to_zero_after_many_sessions():
    q = _endless_producer()
    deq = q.dequeue()
    for _ in range(5):
        with tf.Session() as sess:
            tf.train.start_queue_runners(sess=sess, coord=tf.train.Coordinator())
            call_bounded(lambda: sess.run(deq))
    assert runner_threads() == []


def test_a_blocked_main_thread_is_freed_by_closing_from_a_timer():
    # the lesson's demonstration: a dequeue nothing will ever fill, rescued by a timer
    q = tf.FIFOQueue(1, tf.int32)
    sess = tf.Session()
    timer = threading.Timer(0.2, sess.close)
    timer.start()
    waiter = start_thread(lambda: sess.run(q.dequeue()))
    waiter.join(10)
    assert isinstance(waiter.box.get("error"), tf.errors.CancelledError)


def test_queue_runner_def_round_trip_through_a_meta_graph():
    value = tf.train.range_input_producer(4, shuffle=False).dequeue()
    batch = tf.train.batch([value], 2, name="pairs")
    qr = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)[1]
    proto = qr.to_proto()
    assert proto.queue_name == "pairs/fifo_queue"
    assert list(proto.enqueue_op_name) == ["pairs/fifo_queue_enqueue"]
    assert (proto.close_op_name, proto.cancel_op_name) == ("pairs/fifo_queue_Close",
                                                           "pairs/fifo_queue_Close_1")
    assert list(proto.queue_closed_exception_types) == [tf.errors.OUT_OF_RANGE]
    meta = tf.train.export_meta_graph()
    assert batch.name == "pairs:0"
    graph = tf.Graph()
    with graph.as_default():
        tf.train.import_meta_graph(meta, import_scope="copy")
        runners = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
        assert [r.name for r in runners] == ["copy/input_producer", "copy/pairs/fifo_queue"]
        assert runners[1].enqueue_ops[0].name == "copy/pairs/fifo_queue_enqueue"
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            got = [call_bounded(lambda: sess.run("copy/pairs:0")).tolist() for _ in range(3)]
            coord.request_stop()
            call_bounded(lambda: coord.join(threads))
    assert got == [[0, 1], [2, 3], [0, 1]]


def test_batching_a_sparse_tensor_says_it_is_not_supported():
    sparse = tf.SparseTensor(indices=[[0, 0]], values=[1.0], dense_shape=[1, 2])
    with pytest.raises(NotImplementedError, match="do not batch SparseTensors"):
        tf.train.batch([sparse], 2)
    with pytest.raises(NotImplementedError, match="do not batch SparseTensors"):
        tf.train.shuffle_batch_join([[sparse]], 2, capacity=10, min_after_dequeue=1)
