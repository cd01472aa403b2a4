"""tf.data pipelines cross between tfteach and TensorFlow (`tf.compat.v1`, graph mode) as
GraphDefs and meta graphs: a pipeline written by one runs in the other with the same
elements (a seeded shuffle: the same elements per epoch, since TF draws with Philox and
tfteach with NumPy), and a meta graph with an initializable iterator and a training op
restores and trains on in the other library to the same weights.
"""
import os

import numpy as np
import pytest

import tfteach
from tf_reference import tensorflow_v1, tf1_behaviour

pytest.importorskip("tensorflow")
pytestmark = pytest.mark.reference

X = np.arange(12, dtype=np.float32).reshape(6, 2)


def _leaves(value):
    if isinstance(value, dict):
        return [x for k in sorted(value) for x in _leaves(value[k])]
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _leaves(v)]
    return [value]


def _drain(tf, sess, fetches, limit=200):
    out = []
    for _ in range(limit):
        try:
            out.append([np.asarray(v) for v in sess.run(fetches)])
        except tf.errors.OutOfRangeError:
            return out
    raise AssertionError("no end within %d elements" % limit)


def _build_and_write(tf, build):
    """(GraphDef bytes, initializer name, get_next names, elements) of build(tf)."""
    with tf.Graph().as_default() as graph:
        iterator = tf.data.make_initializable_iterator(build(tf))
        flat = _leaves(iterator.get_next())
        with tf.Session() as sess:
            sess.run(iterator.initializer)
            elements = _drain(tf, sess, flat)
        return (graph.as_graph_def().SerializeToString(), iterator.initializer.name,
                [t.name for t in flat], elements)


def _import_and_run(tf, data, initializer, names):
    with tf.Graph().as_default():
        tf.import_graph_def(tf.GraphDef.FromString(data), name="")
        with tf.Session() as sess:
            sess.run(initializer)
            return _drain(tf, sess, names)


def _same(a, b):
    assert len(a) == len(b) > 0
    for x, y in zip(a, b):
        assert len(x) == len(y)
        for u, v in zip(x, y):
            assert u.dtype == v.dtype and u.shape == v.shape
            np.testing.assert_array_equal(u, v)


PIPELINES = {
    "map_capture_filter_batch_repeat": lambda tf: (
        tf.data.Dataset.from_tensor_slices((X, np.arange(6)))
        .map(lambda x, i: (x * tf.constant(2.0), i + 1))
        .filter(lambda x, i: tf.equal(i % 2, 1)).batch(2).repeat(2)),
    "range_zip_take_skip_concatenate": lambda tf: (
        tf.data.Dataset.zip((tf.data.Dataset.range(5), tf.data.Dataset.range(10, 20)))
        .skip(1).take(3).concatenate(
            tf.data.Dataset.zip((tf.data.Dataset.range(2), tf.data.Dataset.range(2))))),
    "flat_map_interleave": lambda tf: (
        tf.data.Dataset.range(1, 4).flat_map(lambda n: tf.data.Dataset.range(n))
        .interleave(lambda m: tf.data.Dataset.from_tensors(m).repeat(2), cycle_length=2,
                    block_length=1)),
    "from_tensors_padded_batch_unbatch": lambda tf: (
        tf.data.Dataset.range(1, 5).map(lambda n: tf.fill([n], n))
        .padded_batch(2, [None]).prefetch(1).unbatch()),
}


TF_ONLY_PIPELINES = {
    # TF 2 writes ParallelMapDatasetV2 / ParallelInterleaveDatasetV4 for these, and reads
    # text and fixed-length files inside a FlatMapDataset's function.
    "parallel_map_and_interleave": lambda tf: (
        tf.data.Dataset.range(6).map(lambda x: x * 2, num_parallel_calls=2)
        .interleave(lambda x: tf.data.Dataset.range(x, x + 2), cycle_length=2,
                    block_length=1, num_parallel_calls=2)),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_tfteachs_pipeline_runs_in_tensorflow(name):
    data, init, names, ours = _build_and_write(tfteach, PIPELINES[name])
    _same(_import_and_run(tensorflow_v1(), data, init, names), ours)


@pytest.mark.parametrize("name", sorted(PIPELINES) + sorted(TF_ONLY_PIPELINES))
def test_tensorflows_pipeline_runs_in_tfteach(name):
    build = PIPELINES.get(name) or TF_ONLY_PIPELINES[name]
    data, init, names, theirs = _build_and_write(tensorflow_v1(), build)
    if name in TF_ONLY_PIPELINES:
        assert b"ParallelMapDatasetV2" in data and b"ParallelInterleaveDatasetV4" in data
    _same(_import_and_run(tfteach, data, init, names), theirs)


def _shuffled(tf):
    return tf.data.Dataset.range(10).shuffle(10, seed=7).batch(5).repeat(2)


def _epochs(elements):
    return [sorted(np.concatenate([b[0] for b in elements[i:i + 2]]).tolist())
            for i in range(0, len(elements), 2)]


def test_a_seeded_shuffle_crosses_both_ways():
    tf = tensorflow_v1()
    data, init, names, ours = _build_and_write(tfteach, _shuffled)
    theirs_of_ours = _import_and_run(tf, data, init, names)
    assert _epochs(theirs_of_ours) == _epochs(ours) == [list(range(10))] * 2
    data, init, names, theirs = _build_and_write(tf, _shuffled)
    assert _epochs(_import_and_run(tfteach, data, init, names)) == _epochs(theirs)


def _write_examples(path):
    with tfteach.python_io.TFRecordWriter(path) as writer:
        for i in range(5):
            example = tfteach.train.Example(features=tfteach.train.Features(feature={
                "x": tfteach.train.Feature(float_list=tfteach.train.FloatList(
                    value=[i, i * 0.5])),
                "label": tfteach.train.Feature(int64_list=tfteach.train.Int64List(
                    value=[i % 2]))}))
            writer.write(example.SerializeToString())


def _parsed(path):
    def build(tf):
        def parse(record):
            features = tf.parse_single_example(record, {
                "x": tf.FixedLenFeature([2], tf.float32),
                "label": tf.FixedLenFeature([], tf.int64)})
            return features["x"], features["label"]
        return tf.data.TFRecordDataset(path).map(parse).batch(2)
    return build


def test_tensorflows_text_and_fixed_length_file_pipelines_run_in_tfteach(tmp_path):
    text, fixed = str(tmp_path / "lines.txt"), str(tmp_path / "records.bin")
    with open(text, "w") as f:
        f.write("one\ntwo\r\nthree")
    with open(fixed, "wb") as f:
        f.write(b"HDabcdefghiFT")
    build = (lambda tf: tf.data.TextLineDataset([text, text]).concatenate(
        tf.data.FixedLengthRecordDataset(fixed, 3, header_bytes=2, footer_bytes=2)))
    data, init, names, theirs = _build_and_write(tensorflow_v1(), build)
    assert [e[0].item() for e in theirs] == [b"one", b"two", b"three"] * 2 + [
        b"abc", b"def", b"ghi"]
    _same(_import_and_run(tfteach, data, init, names), theirs)
    data, init, names, ours = _build_and_write(tfteach, build)
    _same(_import_and_run(tensorflow_v1(), data, init, names), ours)


def test_a_tfrecord_parsing_pipeline_of_tfteach_runs_in_tensorflow(tmp_path):
    path = str(tmp_path / "examples.tfrecord")
    _write_examples(path)
    data, init, names, ours = _build_and_write(tfteach, _parsed(path))
    assert len(ours) == 3 and ours[0][0].tolist() == [[0, 0], [1, 0.5]]
    _same(_import_and_run(tensorflow_v1(), data, init, names), ours)


def test_a_one_shot_iterator_crosses_both_ways():
    def build(tf):
        with tf.Graph().as_default() as graph:
            dataset = tf.data.Dataset.range(4).map(lambda v: v * 3).repeat(2)
            nxt = tf.data.make_one_shot_iterator(dataset).get_next()
            with tf.Session() as sess:
                elements = _drain(tf, sess, [nxt])
            return graph.as_graph_def().SerializeToString(), nxt.name, elements

    def run(tf, data, name):
        with tf.Graph().as_default():
            tf.import_graph_def(tf.GraphDef.FromString(data), name="")
            with tf.Session() as sess:
                return _drain(tf, sess, [name])

    for writer, reader in ((tfteach, tensorflow_v1()), (tensorflow_v1(), tfteach)):
        data, name, elements = build(writer)
        assert [e[0].item() for e in elements] == [0, 3, 6, 9] * 2
        _same(run(reader, data, name), elements)


XS = np.array([[1, 2], [3, 1], [0, 1], [2, 2], [1, 0], [4, 3]], np.float32)
YS = XS @ np.float32([[0.5], [-1.0]]) + 0.25


def _train_and_save(tf, prefix, steps):
    """Linear regression fed by an initializable iterator; saves after `steps` steps,
    then (re-initialising the iterator) takes `steps` more: (prefix, weights after)."""
    with tf.Graph().as_default():
        dataset = tf.data.Dataset.from_tensor_slices((XS, YS)).batch(3).repeat()
        iterator = tf.data.make_initializable_iterator(dataset)
        x, y = iterator.get_next()
        w = tf.Variable(np.zeros((2, 1), np.float32), name="w")
        b = tf.Variable(0.0, name="b")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
        tf.add_to_collection("train_op", train)
        saver = tf.train.Saver()
        tf.add_to_collection(tf.GraphKeys.SAVERS, saver)
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), iterator.initializer])
            for _ in range(steps):
                sess.run(train)
            path = saver.save(sess, prefix, global_step=steps)
            sess.run(iterator.initializer)
            for _ in range(steps):
                sess.run(train)
            return path, sess.run([w, b])


def _restore_and_train(tf, path, steps):
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(path + ".meta")
        assert len(tf.get_collection(tf.GraphKeys.SAVERS)) == 1
        train = tf.get_collection("train_op")[0]
        with tf.Session() as sess:
            saver.restore(sess, path)
            sess.run("MakeIterator")
            for _ in range(steps):
                sess.run(train)
            return sess.run(["w:0", "b:0"])


@pytest.mark.parametrize("direction", ["tfteach_to_tensorflow", "tensorflow_to_tfteach"])
def test_a_meta_graph_with_an_iterator_restores_and_trains_on(tmp_path, direction):
    with tf1_behaviour() as tf:
        writer, reader = ((tfteach, tf) if direction == "tfteach_to_tensorflow"
                          else (tf, tfteach))
        path, expected = _train_and_save(writer, str(tmp_path / "model"), 4)
        assert os.path.exists(path + ".meta")
        got = _restore_and_train(reader, path, 4)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def test_tensorflows_tfrecord_parsing_pipeline_runs_in_tfteach(tmp_path):
    path = str(tmp_path / "examples.tfrecord")
    _write_examples(path)
    data, init, names, theirs = _build_and_write(tensorflow_v1(), _parsed(path))
    _same(_import_and_run(tfteach, data, init, names), theirs)


def test_tensorflow_2s_parse_example_v2_of_a_batch_runs_in_tfteach(tmp_path):
    path = str(tmp_path / "examples.tfrecord")
    _write_examples(path)
    records = list(tfteach.python_io.tf_record_iterator(path))

    def build(tf):
        parsed = tf.parse_example(tf.constant(records[:3]), {
            "x": tf.FixedLenFeature([2], tf.float32), "label": tf.VarLenFeature(tf.int64)})
        return [parsed["x"], parsed["label"].indices, parsed["label"].values]

    tf = tensorflow_v1()
    with tf.Graph().as_default() as graph:
        fetches = build(tf)
        assert "ParseExampleV2" in [op.type for op in graph.get_operations()]
        with tf.Session() as sess:
            theirs = sess.run(fetches)
        data, names = graph.as_graph_def().SerializeToString(), [t.name for t in fetches]
    with tfteach.Graph().as_default():
        tfteach.import_graph_def(tfteach.GraphDef.FromString(data), name="")
        with tfteach.Session() as sess:
            ours = sess.run(names)
    _same([[np.asarray(v) for v in ours]], [[np.asarray(v) for v in theirs]])


def test_tfteachs_feedable_iterator_runs_in_tensorflow():
    with tfteach.Graph().as_default() as graph:
        train = tfteach.data.Dataset.range(3).make_initializable_iterator()
        valid = tfteach.data.Dataset.range(10, 12).make_initializable_iterator()
        handle = tfteach.placeholder(tfteach.string, [], name="handle")
        nxt = tfteach.data.Iterator.from_string_handle(handle, tfteach.int64, []).get_next()
        names = [train.initializer.name, valid.initializer.name, train.string_handle().name,
                 valid.string_handle().name, nxt.name]
        data = graph.as_graph_def().SerializeToString()
    tf = tensorflow_v1()
    with tf.Graph().as_default():
        tf.import_graph_def(tf.GraphDef.FromString(data), name="")
        with tf.Session() as sess:
            sess.run(names[:2])
            train_handle, valid_handle = sess.run(names[2:4])
            got = [sess.run(names[4], {"handle:0": h})
                   for h in (train_handle, valid_handle, train_handle)]
    assert got == [0, 10, 1]
