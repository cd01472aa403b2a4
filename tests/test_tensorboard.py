"""TensorBoard's own reader (EventAccumulator from the `tensorboard` package) on the
event files tfteach's FileWriter writes: scalars per step, histograms, images, audio,
text, the graph with its name scopes, run metadata with node step stats."""
import glob
import os

import numpy as np
import pytest

import tfteach as tf
from tfteach.io.records import encode_record, masked_crc32c, read_records

event_accumulator = pytest.importorskip(
    "tensorboard.backend.event_processing.event_accumulator")

KEEP_ALL = {"scalars": 0, "histograms": 0, "images": 0, "audio": 0, "tensors": 0}


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.summary.FileWriterCache.clear()


def _accumulator(logdir):
    acc = event_accumulator.EventAccumulator(str(logdir), size_guidance=KEEP_ALL)
    acc.Reload()
    return acc


def test_masked_crc32c_known_value():
    # CRC-32C of b"123456789" is 0xE3069283 (RFC 3720's check value); masked by hand.
    crc = 0xE3069283
    assert masked_crc32c(b"123456789") == (((crc >> 15) | (crc << 17)) + 0xA282EAD8) \
        & 0xFFFFFFFF
    raw = encode_record(b"abc") + encode_record(b"")
    assert list(read_records(raw)) == [b"abc", b""]
    corrupted = bytearray(raw)
    corrupted[13] ^= 1
    with pytest.raises(ValueError, match="corrupted record data"):
        list(read_records(bytes(corrupted)))


def test_training_summaries_read_back_by_tensorboard(tmp_path):
    x = tf.placeholder(tf.float32, [None], name="x")
    with tf.name_scope("train"):
        mse = tf.reduce_mean(tf.square(x), name="mse")
        tf.summary.scalar("loss", mse)
        tf.summary.histogram("x", x)
    tf.summary.image("pic", tf.reshape(tf.range(2 * 4 * 6, dtype=tf.float32),
                                       [2, 4, 6, 1]), max_outputs=2)
    tf.summary.audio("snd", tf.zeros([1, 50]), 8000)
    tf.summary.text("note", tf.constant("hello"))
    merged = tf.summary.merge_all()
    feeds = [np.arange(n + 1, dtype=np.float32) for n in range(3)]
    with tf.Session() as sess:
        writer = tf.summary.FileWriter(str(tmp_path), sess.graph)
        for step, value in enumerate(feeds):
            writer.add_summary(sess.run(merged, {x: value}), global_step=step * 10)
        writer.close()
    acc = _accumulator(tmp_path)
    scalars = acc.Scalars("train/loss")
    assert [e.step for e in scalars] == [0, 10, 20]
    np.testing.assert_allclose([e.value for e in scalars],
                               [np.mean(v ** 2) for v in feeds], rtol=1e-6)
    histo = acc.Histograms("train/x")[-1].histogram_value
    assert (histo.num, histo.min, histo.max, histo.sum) == (3, 0.0, 2.0, 3.0)
    assert histo.sum_squares == 5.0 and sum(histo.bucket) == 3
    images = acc.Images("pic/image/1")
    assert [(i.width, i.height, i.step) for i in images] == [(6, 4, 0), (6, 4, 10),
                                                             (6, 4, 20)]
    # one clip, max_outputs=3: TF's tag is "snd/audio/0" (this read "snd/audio" before)
    assert acc.Audio("snd/audio/0")[0].sample_rate == 8000
    assert acc.Tensors("note")[0].tensor_proto.string_val == [b"hello"]


def test_graph_and_meta_graph_with_scopes(tmp_path):
    with tf.name_scope("layer1"):
        w = tf.Variable(tf.ones([2, 2]), name="weights")
        tf.matmul(w, w, name="product")
    writer = tf.summary.FileWriter(str(tmp_path), tf.get_default_graph())
    writer.close()
    acc = _accumulator(tmp_path)
    names = {n.name for n in acc.Graph().node}
    assert {"layer1/weights", "layer1/weights/read", "layer1/product"} <= names
    shapes = [n for n in acc.Graph().node if n.name == "layer1/product"][0]
    assert [d.size for d in shapes.attr["_output_shapes"].list.shape[0].dim] == [2, 2]
    assert "variables" in acc.MetaGraph().collection_def


def test_graph_with_a_tfteach_only_op_is_still_drawn(tmp_path):
    i = tf.constant(0)
    tf.while_loop(lambda i: i < 3, lambda i: i + 1, [i], name="loop")
    tf.summary.FileWriter(str(tmp_path), tf.get_default_graph()).close()
    ops = {n.op for n in _accumulator(tmp_path).Graph().node}
    assert "While" in ops


def test_run_metadata_has_node_step_stats(tmp_path):
    a = tf.constant(3.0, name="a")
    b = tf.square(a, name="b")
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    metadata = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(b, options=options, run_metadata=metadata)
    writer = tf.summary.FileWriter(str(tmp_path))
    writer.add_run_metadata(metadata, "step1", global_step=1)
    with pytest.raises(ValueError, match="The provided tag was already used"):
        writer.add_run_metadata(metadata, "step1")
    writer.close()
    stats = _accumulator(tmp_path).RunMetadata("step1").step_stats
    nodes = [n.node_name for d in stats.dev_stats for n in d.node_stats]
    assert "b" in nodes and "a" in nodes


def test_session_log_flush_close_and_reopen(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path), max_queue=100, flush_secs=1000)
    writer.add_session_log(tf.SessionLog(status=tf.SessionLog.START), global_step=5)
    files = glob.glob(str(tmp_path / "events.out.tfevents.*"))
    assert len(files) == 1
    events = list(read_records(open(files[0], "rb").read()))
    assert len(events) == 1                        # only file_version until a flush
    assert tf.Event.FromString(events[0]).file_version == "brain.Event:2"
    writer.flush()
    events = [tf.Event.FromString(e) for e in read_records(open(files[0], "rb").read())]
    assert events[1].session_log.status == tf.SessionLog.START and events[1].step == 5
    writer.close()
    with pytest.warns(UserWarning, match="^Attempting to use a closed FileWriter. The "
                      "operation will be a noop unless the FileWriter is explicitly "
                      "reopened.$"):
        writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="t", simple_value=1.0)]))
    writer.reopen()
    writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="t", simple_value=2.0)]), 3)
    writer.close()
    assert len(glob.glob(str(tmp_path / "events.out.tfevents.*"))) == 2
    assert [(e.step, e.value) for e in _accumulator(tmp_path).Scalars("t")] == [(3, 2.0)]


def test_file_writer_cache_shares_one_writer(tmp_path):
    first = tf.summary.FileWriterCache.get(str(tmp_path))
    assert tf.summary.FileWriterCache.get(str(tmp_path)) is first
    assert first.get_logdir() == str(tmp_path)
    tf.summary.FileWriterCache.clear()
    assert tf.summary.FileWriterCache.get(str(tmp_path)) is not first
    assert os.path.isdir(tmp_path)


def test_merge_all_empty_and_scalar_shape_error_when_run():
    assert tf.summary.merge_all() is None
    summary = tf.summary.scalar("v", tf.constant([1.0, 2.0]))   # builds, as in TF
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"tags and values not the same shape: \[\] != \[2\] "
                                 r"\(tag 'v'\)"):
            sess.run(summary)


def test_projector_config_is_written_where_tensorboard_reads_it(tmp_path):
    from google.protobuf import text_format
    projector = tf.contrib.tensorboard.plugins.projector
    config = projector.ProjectorConfig()
    embedding = config.embeddings.add()
    embedding.tensor_name = "embedding:0"
    embedding.metadata_path = "metadata.tsv"
    writer = tf.summary.FileWriter(str(tmp_path))
    projector.visualize_embeddings(writer, config)
    writer.close()
    text = (tmp_path / "projector_config.pbtxt").read_text()
    parsed = text_format.Parse(text, projector.ProjectorConfig())
    assert parsed.embeddings[0].tensor_name == "embedding:0"
    assert parsed.embeddings[0].metadata_path == "metadata.tsv"


def test_the_notes_mnist_with_summaries_program(tmp_path):
    """Note 003's TensorBoard section (TF's mnist_with_summaries), on random digits:
    image, scalar and histogram summaries in name scopes, two writers, run metadata."""
    rng = np.random.RandomState(0)
    images = rng.rand(20, 784).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[rng.randint(0, 10, 20)]
    with tf.name_scope("input"):
        x = tf.placeholder(tf.float32, [None, 784], name="x-input")
        y_ = tf.placeholder(tf.float32, [None, 10], name="y-input")
    with tf.name_scope("input_reshape"):
        tf.summary.image("input", tf.reshape(x, [-1, 28, 28, 1]), 10)

    def variable_summaries(var):
        with tf.name_scope("summaries"):
            mean = tf.reduce_mean(var)
            tf.summary.scalar("mean", mean)
            with tf.name_scope("stddev"):
                stddev = tf.sqrt(tf.reduce_mean(tf.square(var - mean)))
            tf.summary.scalar("stddev", stddev)
            tf.summary.scalar("max", tf.reduce_max(var))
            tf.summary.scalar("min", tf.reduce_min(var))
            tf.summary.histogram("histogram", var)

    with tf.name_scope("layer1"):
        with tf.name_scope("weights"):
            w = tf.Variable(tf.truncated_normal([784, 10], stddev=0.1, seed=1))
            variable_summaries(w)
        logits = tf.matmul(x, w)
    with tf.name_scope("cross_entropy"):
        cross_entropy = tf.reduce_mean(
            tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=logits))
    tf.summary.scalar("cross_entropy", cross_entropy)
    train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), tf.argmax(y_, 1)),
                                      tf.float32))
    merged = tf.summary.merge_all()
    feed = {x: images, y_: labels}
    with tf.Session() as sess:
        train_writer = tf.summary.FileWriter(str(tmp_path / "train"), sess.graph)
        test_writer = tf.summary.FileWriter(str(tmp_path / "test"))
        sess.run(tf.global_variables_initializer())
        losses = []
        for i in range(12):
            if i % 10 == 0:
                summary, _ = sess.run([merged, accuracy], feed_dict=feed)
                test_writer.add_summary(summary, i)
            elif i % 10 == 9:
                run_metadata = tf.RunMetadata()
                summary, _ = sess.run(
                    [merged, train_step], feed_dict=feed, run_metadata=run_metadata,
                    options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE))
                train_writer.add_run_metadata(run_metadata, "step%03d" % i)
                train_writer.add_summary(summary, i)
            else:
                losses.append((i, sess.run(cross_entropy, feed)))
                summary, _ = sess.run([merged, train_step], feed_dict=feed)
                train_writer.add_summary(summary, i)
        train_writer.close()
        test_writer.close()
    train = _accumulator(tmp_path / "train")
    test = _accumulator(tmp_path / "test")
    # "cross_entropy_1": the scope `cross_entropy` is taken, as TensorBoard shows for
    # TensorFlow's own mnist_with_summaries.
    assert [e.step for e in test.Scalars("cross_entropy_1")] == [0, 10]
    by_step = {e.step: e.value for e in train.Scalars("cross_entropy_1")}
    for step, loss in losses:
        assert by_step[step] == pytest.approx(loss, rel=1e-6)
    assert "layer1/weights/summaries/histogram" in train.Tags()["histograms"]
    assert len(train.Tags()["images"]) == 10          # input_reshape/input/image/0..9
    assert train.Tags()["run_metadata"] == ["step009"]
    graph_names = {n.name for n in train.Graph().node}
    assert "layer1/weights/Variable" in graph_names


def test_file_writer_accepts_a_graph_def_as_tf1_did(tmp_path):
    tf.constant(1.0, name="c")
    with pytest.warns(UserWarning, match="please use the `graph` named argument"):
        writer = tf.summary.FileWriter(str(tmp_path), tf.get_default_graph().as_graph_def())
    writer.close()
    assert [n.name for n in _accumulator(tmp_path).Graph().node] == ["c"]
    with pytest.raises(ValueError, match="Please pass only graph, or graph_def"):
        tf.summary.FileWriter(str(tmp_path), tf.get_default_graph(),
                              graph_def=tf.get_default_graph().as_graph_def())


def test_summary_iterator_reads_events_in_order(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path))
    for step in range(3):
        writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="v", simple_value=step)]),
                           step)
    writer.close()
    (path,) = glob.glob(str(tmp_path / "events.out.tfevents.*"))
    events = list(tf.train.summary_iterator(path))
    assert events[0].file_version == "brain.Event:2"
    assert [(e.step, e.summary.value[0].simple_value) for e in events[1:]] == \
        [(0, 0.0), (1, 1.0), (2, 2.0)]
