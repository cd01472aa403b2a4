"""Queues in the notebook: %%tfgraph's export draws queues and the runner threads that
fill them (notebook/graph_queues.py), and a cell that starts runner threads and never
joins them leaves nothing running once its session is closed — by the program, by the
end of a `with` block, or by the notebook's %tfrelease --close-sessions."""
import types

import pytest

import tfteach as tf
from tests.queue_helpers import call_bounded, runner_threads
from tfteach.notebook import cell_memory, graph_dot, graph_export, graph_outline
from tfteach.runtime.session import live_sessions


def _pipeline():
    filenames = tf.train.string_input_producer(["a.txt", "b.txt"], shuffle=False)
    _, line = tf.TextLineReader().read(filenames)
    batch = tf.train.batch([line], 2, num_threads=3)
    extra = tf.FIFOQueue(4, tf.int32, name="extra")
    extra.enqueue(1, name="by_hand")
    return batch


def test_export_lists_each_queue_its_runner_threads_and_its_readers():
    _pipeline()
    export = graph_export.export_graph(tf.get_default_graph())
    queues = {q["name"]: q for q in export["queues"]}
    assert sorted(queues) == ["batch/fifo_queue", "extra", "input_producer"]
    batch_queue = queues["batch/fifo_queue"]
    assert batch_queue["op"] == "FIFOQueueV2"
    assert batch_queue["runners"] == [{"threads": {"batch/fifo_queue_enqueue": 3},
                                       "close_op": "batch/fifo_queue_Close",
                                       "cancel_op": "batch/fifo_queue_Close_1"}]
    assert batch_queue["dequeue_ops"] == ["batch"]
    assert queues["input_producer"]["readers"] == ["ReaderReadV2"]
    assert queues["extra"]["runners"] == [] and queues["extra"]["enqueue_ops"] == ["by_hand"]
    assert graph_export.export_graph(tf.Graph())["queues"] == []


def test_svg_source_and_outline_show_who_feeds_which_queue():
    _pipeline()
    export = graph_export.export_graph(tf.get_default_graph())
    dot = graph_dot.to_dot(export)
    ids = {}
    for line in dot.splitlines():                  # the box of each node, by its label
        if "label=" in line and line.strip().startswith("n") and "->" not in line:
            node_id = line.split()[0]
            label = line.split('label="', 1)[1].split("\\n", 1)[0]
            ids.setdefault(label, node_id)
    runner_edges = [line for line in dot.splitlines() if line.strip().startswith("runner_")
                    and "->" in line]
    assert any(line.split("->")[1].split()[0] == ids["fifo_queue_enqueue"] and
               'label="3 threads"' in line for line in runner_edges)
    assert 'label="QueueRunner\\n3 threads"' in dot
    assert "%s [shape=cylinder" % ids["extra"] in dot
    assert "purple box: a QueueRunner" in dot                     # the legend says so
    assert "QueueRunner" not in graph_dot.to_dot(graph_export.export_graph(tf.Graph()))
    text = graph_outline.outline(export)
    assert "queue batch/fifo_queue (FIFOQueueV2):" in text
    assert "filled by a QueueRunner: 3 threads running batch/fifo_queue_enqueue" in text
    assert "dequeued by: ReaderReadV2 (a reader taking file names)" in text
    assert "queue extra (FIFOQueueV2):\n  enqueued by: by_hand" in text


class _Shell:
    def __init__(self):
        self.user_ns = {"_oh": {}}
        self.user_ns_hidden = {}
        self.displayhook = None
        self.execution_count = 1


def _endless():
    q = tf.FIFOQueue(2, tf.int32, shapes=[[]])
    tf.train.add_queue_runner(tf.train.QueueRunner(q, [q.enqueue(1)] * 2))
    return q.dequeue()


def test_a_cell_that_never_joins_its_runners_does_not_hang_and_release_stops_them():
    for s in live_sessions():
        s.close()
    monitor = cell_memory.CellMemory(_Shell())
    monitor._show = lambda obj: None
    ns = monitor.shell.user_ns
    ns.update(tf=tf, deq=_endless())
    code = ("sess = tf.Session()\n"
            "coord = tf.train.Coordinator()\n"
            "threads = tf.train.start_queue_runners(sess=sess, coord=coord)\n"
            "first = sess.run(deq)\n")                 # no request_stop, no join

    def cell():
        monitor.pre_run_cell()
        exec(code, ns)
        monitor.post_run_cell(types.SimpleNamespace(execution_count=1))
    call_bounded(cell)                                # the cell ends: nothing waits on it
    assert ns["first"] == 1 and len(runner_threads()) == 3
    call_bounded(lambda: monitor.release_now(close_sessions=True))
    assert runner_threads() == [] and ns["sess"]._closed
    assert not any(t.is_alive() for t in ns["threads"])


def test_a_with_block_cell_closes_and_joins():
    deq = _endless()
    with tf.Session() as sess:
        threads = tf.train.start_queue_runners(sess=sess, coord=tf.train.Coordinator())
        call_bounded(lambda: sess.run(deq))
    assert runner_threads() == [] and not any(t.is_alive() for t in threads)


def test_tfgraph_records_the_cells_runs_not_the_runner_threads():
    from tfteach.notebook.run_recorder import RunRecorder
    deq = _endless()
    with RunRecorder() as recorder:
        with tf.Session() as sess:
            threads = tf.train.start_queue_runners(sess=sess, coord=tf.train.Coordinator())
            call_bounded(lambda: [sess.run(deq) for _ in range(3)])
    assert len(recorder.runs) == 3
    assert all(r.fetches == [deq.name] for r in recorder.runs)
    assert not any(t.is_alive() for t in threads)


def test_a_recorded_run_keeps_its_timeout():
    from tfteach.notebook.run_recorder import RunRecorder
    q = tf.FIFOQueue(1, tf.int32)
    with RunRecorder() as recorder, tf.Session() as sess:
        with pytest.raises(tf.errors.DeadlineExceededError):
            call_bounded(lambda: sess.run(q.dequeue(),
                                          options=tf.RunOptions(timeout_in_ms=100)))
    assert recorder.runs[0].error.startswith("DeadlineExceededError")


@pytest.fixture(autouse=True)
def _no_runner_left():
    yield
    for s in live_sessions():
        s.close()
    assert runner_threads() == []
