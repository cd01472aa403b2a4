"""Queues, readers and batching against TensorFlow (tf.compat.v1, graph mode): the same
node names, op types and static shapes, the same values, keys and errors; GraphDefs
with queues cross both ways. Skips without TensorFlow."""
import re

import numpy as np
import pytest

import tfteach
from tests.tf_reference import errors_of_both, first_line, tensorflow_v1, tf1_behaviour

pytestmark = pytest.mark.reference


def _graph_summary(graph, types):
    return [(op.name, op.type) for op in graph.get_operations() if op.type in types]


QUEUE_TYPES = {"FIFOQueueV2", "RandomShuffleQueueV2", "PaddingFIFOQueueV2",
               "PriorityQueueV2", "QueueEnqueueV2", "QueueEnqueueManyV2", "QueueDequeueV2",
               "QueueDequeueManyV2", "QueueDequeueUpToV2", "QueueCloseV2", "QueueSizeV2",
               "QueueIsClosedV2", "TFRecordReaderV2", "TextLineReaderV2",
               "ReaderReadV2", "ReaderReadUpToV2", "CountUpTo", "VariableV2"}


def _build_queues_and_pipeline(tf):
    q = tf.FIFOQueue(3, [tf.float32, tf.int32], shapes=[[2], []])
    q.enqueue([[1.0, 2.0], 3])
    q.enqueue_many([[[1.0, 2.0]], [4]])
    deq = q.dequeue()
    many = q.dequeue_many(2)
    up_to = q.dequeue_up_to(2)
    q.close()
    q.close(cancel_pending_enqueues=True)
    q.size()
    q.is_closed()
    rq = tf.RandomShuffleQueue(10, 2, tf.string, shapes=[[]], seed=3)
    pq = tf.PaddingFIFOQueue(10, [tf.int32], shapes=[[None, 2]])
    names = tf.train.string_input_producer(["a", "b"], num_epochs=2, shuffle=False)
    key, value = tf.TFRecordReader().read(names)
    lines = tf.TextLineReader(skip_header_lines=1).read_up_to(names, 3)
    x = tf.train.slice_input_producer([tf.constant([[1, 2], [3, 4]])], shuffle=False)
    batch = tf.train.batch(x, 2)
    shuffled = tf.train.shuffle_batch([value], 4, capacity=20, min_after_dequeue=10)
    shapes = [t.shape.as_list() for t in deq + many + up_to] + [
        rq.dequeue().shape.as_list(), pq.dequeue_many(3).shape.as_list(),
        key.shape.as_list(), lines[0].shape.as_list(), batch.shape.as_list(),
        shuffled.shape.as_list()]
    return shapes, rq.queue_ref.op.get_attr("seed2")


def test_node_names_types_and_static_shapes_match_tensorflow():
    results = []
    with tf1_behaviour() as tf1:       # TF 1.15's ref variables: the epochs counter
        for tf in (tf1, tfteach):
            graph = tf.Graph()
            with graph.as_default():
                shapes, seed2 = _build_queues_and_pipeline(tf)
            results.append((_graph_summary(graph, QUEUE_TYPES), shapes, seed2))
    (theirs, their_shapes, their_seed), (ours, our_shapes, our_seed) = results
    assert ours == theirs
    assert our_shapes == their_shapes
    assert our_seed == their_seed


def _resource_ids(text):
    return re.sub(r"'_\d+_", "'_N_", text)


def _fifo_errors_program(step):
    def build(tf):
        q = tf.FIFOQueue(3, tf.int32, shapes=[[]])
        unshaped = tf.FIFOQueue(3, tf.int32)
        p = tf.placeholder(tf.int32, [None])
        fixed = tf.FIFOQueue(3, tf.int32, shapes=[[2]])
        with tf.Session() as sess:
            sess.run(q.enqueue_many([[1, 2]]))
            sess.run(unshaped.enqueue(1))
            if step == "dequeue_many_unshaped":
                sess.run(unshaped.dequeue_many(1))
            if step == "shape_mismatch":
                sess.run(fixed.enqueue([p]), {p: [1, 2, 3]})
            sess.run(q.close())
            if step == "enqueue_closed":
                sess.run(q.enqueue(3))
            if step == "dequeue_many_closed":
                sess.run(q.dequeue_many(3))
            if step == "dequeue_drained":
                sess.run(q.dequeue_up_to(5))
                sess.run(q.dequeue())
        return tf.constant(0), None
    return build


@pytest.mark.parametrize("step", ["enqueue_closed", "dequeue_many_closed", "dequeue_drained",
                                  "dequeue_many_unshaped", "shape_mismatch"])
def test_queue_errors_match_tensorflow(step):
    theirs, ours = errors_of_both(_fifo_errors_program(step))
    assert type(ours).__name__ == type(theirs).__name__
    their_message = [line for line in theirs.message.splitlines()
                     if line.strip() and not line.startswith(("Graph execution", "Detected",
                                                               "  File", "    ", "\t",
                                                               "Node:", "Original"))]
    # `_<n>_` counts the unnamed resources of each process: TF's count differs from ours
    assert _resource_ids(first_line(ours)) == _resource_ids(their_message[0])


def _write_files(tmp_path, tf):
    text = tmp_path / "lines.csv"
    text.write_bytes(b"header\nalpha\r\n\nbeta,1\ngamma")
    fixed = tmp_path / "fixed.bin"
    fixed.write_bytes(bytes(range(23)))
    records = str(tmp_path / "data.tfrecords")
    with tf.python_io.TFRecordWriter(records) as w:
        for r in (b"one", b"", b"three" * 20):
            w.write(r)
    return str(text), str(fixed), records


def _reader_program(tmp_path, kind):
    def build(tf):
        text, fixed, records = _write_files(tmp_path, tfteach)
        path, reader = {
            "text": (text, lambda: tf.TextLineReader(skip_header_lines=1)),
            "fixed": (fixed, lambda: tf.FixedLengthRecordReader(5, header_bytes=2,
                                                                footer_bytes=3)),
            "tfrecord": (records, lambda: tf.TFRecordReader()),
            "whole": (text, lambda: tf.WholeFileReader()),
        }[kind]
        q = tf.FIFOQueue(2, tf.string, shapes=[[]])
        key, value = reader().read(q)
        out = []
        with tf.Session() as sess:
            sess.run(q.enqueue(path))
            sess.run(q.close())
            while True:
                try:
                    out.append(tuple(sess.run([key, value])))
                except tf.errors.OutOfRangeError:
                    break
        return tf.constant(0), None, out
    return build


@pytest.mark.parametrize("kind", ["text", "fixed", "tfrecord", "whole"])
def test_reader_keys_and_values_match_tensorflow(tmp_path, kind):
    results = []
    for tf in (tensorflow_v1(), tfteach):
        graph = tf.Graph()
        with graph.as_default():
            results.append(_reader_program(tmp_path, kind)(tf)[2])
    assert results[1] == results[0] and results[0]


def _batch_program(allow_smaller):
    def build(tf):
        x = tf.constant(np.arange(14).reshape(7, 2))
        y = tf.constant(["r%d" % i for i in range(7)])
        row, label = tf.train.slice_input_producer([x, y], num_epochs=1, shuffle=False)
        batch = tf.train.batch([row, label], 3, allow_smaller_final_batch=allow_smaller)
        out = []
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            while True:
                try:
                    a, b = sess.run(batch)
                    out.append((a.tolist(), b.tolist()))
                except tf.errors.OutOfRangeError:
                    break
            coord.request_stop()
            coord.join(threads)
        return out
    return build


@pytest.mark.parametrize("allow_smaller", [False, True])
def test_batch_values_match_tensorflow(allow_smaller):
    results = []
    for tf in (tensorflow_v1(), tfteach):
        graph = tf.Graph()
        with graph.as_default():
            results.append(_batch_program(allow_smaller)(tf))
    assert results[1] == results[0]


def test_graph_def_with_queues_crosses_to_tensorflow_and_back():
    tf1 = tensorflow_v1()
    graph = tfteach.Graph()
    with graph.as_default():
        q = tfteach.FIFOQueue(5, [tfteach.float32, tfteach.int32], shapes=[[2], []],
                              name="q")
        q.enqueue_many([[[1.0, 2.0], [3.0, 4.0]], [7, 8]], name="fill")
        q.dequeue_many(2, name="take")
    graph_def = graph.as_graph_def().SerializeToString()
    theirs = tf1.Graph()
    with theirs.as_default():
        tf1.import_graph_def(tf1.GraphDef.FromString(graph_def), name="")
        with tf1.Session() as sess:
            sess.run("fill")
            their_values = sess.run(["take:0", "take:1"])
        their_def = theirs.as_graph_def().SerializeToString()
    ours = tfteach.Graph()
    with ours.as_default():
        tfteach.import_graph_def(tfteach.GraphDef.FromString(their_def), name="")
        with tfteach.Session() as sess:
            sess.run(ours.get_operation_by_name("fill"))
            our_values = sess.run(["take:0", "take:1"])
    for a, b in zip(their_values, our_values):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(our_values[0], [[1.0, 2.0], [3.0, 4.0]])


def _pipeline_meta_graph(tf):
    """A range producer batched by a runner thread, exported as a meta graph."""
    value = tf.train.range_input_producer(6, shuffle=False).dequeue()
    tf.train.batch([value * 10], 3, name="tens")
    return tf.train.export_meta_graph()


def _take_batches(tf, meta_graph_def):
    graph = tf.Graph()
    with graph.as_default():
        tf.train.import_meta_graph(meta_graph_def)
        runners = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            out = [sess.run("tens:0").tolist() for _ in range(2)]
            coord.request_stop()
            coord.join(threads)
    return len(runners), out


def test_meta_graph_queue_runners_cross_both_ways():
    tf1 = tensorflow_v1()
    ours = tfteach.Graph()
    with ours.as_default():
        our_meta = _pipeline_meta_graph(tfteach)
    theirs = tf1.Graph()
    with theirs.as_default():
        their_meta = _pipeline_meta_graph(tf1)
    # the QueueRunnerDef bytes are TensorFlow's
    from tensorflow.core.protobuf import queue_runner_pb2
    ours_defs = [queue_runner_pb2.QueueRunnerDef.FromString(raw) for raw in
                 our_meta.collection_def["queue_runners"].bytes_list.value]
    theirs_defs = [queue_runner_pb2.QueueRunnerDef.FromString(raw) for raw in
                   their_meta.collection_def["queue_runners"].bytes_list.value]
    assert ours_defs == theirs_defs and len(ours_defs) == 2
    expected = (2, [[0, 10, 20], [30, 40, 50]])
    their_meta_for_us = tfteach.MetaGraphDef.FromString(their_meta.SerializeToString())
    assert _take_batches(tfteach, their_meta_for_us) == expected
    our_meta_for_them = tf1.MetaGraphDef.FromString(our_meta.SerializeToString())
    assert _take_batches(tf1, our_meta_for_them) == expected


def test_read_up_to_across_files_matches_tensorflow(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(b"1\n2\n3\n")
    b.write_bytes(b"4\n5\n6\n7\n")
    results = []
    for tf in (tensorflow_v1(), tfteach):
        graph = tf.Graph()
        with graph.as_default():
            q = tf.FIFOQueue(3, tf.string, shapes=[[]])
            keys, values = tf.TextLineReader().read_up_to(q, 2)
            out = []
            with tf.Session() as sess:
                sess.run(q.enqueue_many([[str(a), str(b)]]))
                sess.run(q.close())
                while True:
                    try:
                        k, v = sess.run([keys, values])
                        out.append((k.tolist(), v.tolist()))
                    except tf.errors.OutOfRangeError:
                        break
            results.append(out)
    assert results[1] == results[0]


def test_a_tensorflow_reader_graph_runs_in_tfteach(tmp_path):
    text = tmp_path / "lines.txt"
    text.write_bytes(b"head\nfirst\nsecond\n")
    tf1 = tensorflow_v1()
    theirs = tf1.Graph()
    with theirs.as_default():
        q = tf1.FIFOQueue(2, tf1.string, shapes=[[]], name="names")
        q.enqueue(str(text), name="add_name")
        q.close(name="no_more")
        reader = tf1.TextLineReader(skip_header_lines=1, name="lines")
        reader.read(q, name="read")
        reader.num_records_produced(name="count")
    ours = tfteach.Graph()
    with ours.as_default():
        tfteach.import_graph_def(tfteach.GraphDef.FromString(
            theirs.as_graph_def().SerializeToString()), name="")
        assert ours.get_operation_by_name("lines").type == "TextLineReaderV2"
        with tfteach.Session() as sess:
            sess.run(ours.get_operation_by_name("add_name"))
            sess.run(ours.get_operation_by_name("no_more"))
            got = [sess.run("read:1") for _ in range(2)]
            with pytest.raises(tfteach.errors.OutOfRangeError):
                sess.run("read:1")
            assert sess.run("count:0") == 2
    assert got == [b"first", b"second"]
