"""TF 2's tf.summary (tfteach.v2.summary): writers, steps, record_if, and the values
written (tensor summaries with plugin metadata). TensorFlow's own files:
test_summary_v2_reference.py."""
import glob
import os

import numpy as np
import pytest

from eager_helpers import eager, tf2  # noqa: F401 - fixtures
from tfteach.framework.tensor_proto import make_ndarray
from tfteach.summary.summary_iterator import summary_iterator


def _values(logdir):
    (path,) = glob.glob(os.path.join(str(logdir), "events.out.tfevents.*"))
    out = []
    for event in list(summary_iterator(path))[1:]:
        for value in event.summary.value:
            out.append((value.tag, event.step, value.metadata.plugin_data.plugin_name,
                        make_ndarray(value.tensor)))
    return path, out


def test_scalars_histograms_text_with_steps_and_scopes(tf2, tmp_path):
    tf = tf2
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        for step in range(3):
            with tf.name_scope("train"):
                assert bool(tf.summary.scalar("loss", tf.constant(1.0) / (step + 1),
                                              step=step))
        tf.summary.histogram("w", [1.0, 2.0, 2.0, 5.0], step=7, buckets=4)
        tf.summary.text("note", "hello", step=1)
    path, values = _values(tmp_path)
    assert path.endswith(".v2")
    assert [(t, s, p) for t, s, p, _ in values] == [
        ("train/loss", 0, "scalars"), ("train/loss", 1, "scalars"),
        ("train/loss", 2, "scalars"), ("w", 7, "histograms"), ("note", 1, "text")]
    np.testing.assert_array_equal([v[3] for v in values[:3]],
                                  np.float32([1.0, 0.5, 1.0 / 3]))
    assert values[0][3].dtype == np.float32
    # edges 1, 2, 3, 4, 5; the last bucket closed: counts 1, 2, 0, 1
    np.testing.assert_array_equal(values[3][3], [[1, 2, 1], [2, 3, 2], [3, 4, 0], [4, 5, 1]])
    assert values[4][3] == b"hello"


def test_histogram_edge_cases():
    from tfteach.summary.summary_v2 import histogram_buckets
    np.testing.assert_array_equal(histogram_buckets([3.0, 3.0], 3),
                                  [[3, 3, 0], [3, 3, 0], [3, 3, 2]])
    np.testing.assert_array_equal(histogram_buckets([], 30), np.zeros((30, 3)))
    data = np.random.RandomState(0).randn(1000)
    rows = histogram_buckets(data)
    assert rows.shape == (30, 3) and rows[:, 2].sum() == 1000
    assert rows[0, 0] == data.min() and rows[-1, 1] == data.max()
    assert np.histogram(data, bins=30)[0].tolist() == rows[:, 2].tolist()


def test_no_writer_record_if_and_step_rules(tf2, tmp_path):
    tf = tf2
    assert not bool(tf.summary.scalar("x", 1.0, step=0))      # no default writer
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        with pytest.raises(ValueError, match="No step set"):
            tf.summary.scalar("x", 1.0)
        tf.summary.experimental.set_step(5)
        try:
            assert bool(tf.summary.scalar("x", 1.0))
        finally:
            tf.summary.experimental.set_step(None)
        with tf.summary.record_if(False):
            assert not tf.summary.should_record_summaries()
            assert not bool(tf.summary.scalar("skipped", 1.0, step=1))
        with tf.summary.record_if(lambda: True):
            assert bool(tf.summary.scalar("kept", 2.0, step=2))
        with pytest.raises(ValueError, match="Expected scalar shape"):
            tf.summary.scalar("vector", [1.0, 2.0], step=0)
    with writer.as_default(step=9):
        tf.summary.scalar("y", 3.0)
    _, values = _values(tmp_path)
    assert [(t, s) for t, s, _, _ in values] == [("x", 5), ("kept", 2), ("y", 9)]


def test_images_are_width_height_and_pngs(tf2, tmp_path):
    tf = tf2
    from PIL import Image
    import io
    images = np.linspace(0.0, 1.0, 2 * 4 * 3 * 3, dtype=np.float32).reshape(2, 4, 3, 3)
    with tf.summary.create_file_writer(str(tmp_path)).as_default():
        tf.summary.image("im", images, step=0, max_outputs=1)
    _, values = _values(tmp_path)
    (tag, _, plugin, strings), = values
    assert plugin == "images" and strings.shape == (3,)
    assert strings[0] == b"3" and strings[1] == b"4"                # width, height
    want = np.clip(images[0] * 255.5, 0, 255).astype(np.uint8)     # convert_image_dtype
    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(strings[2]))), want)


def test_summaries_inside_a_tf_function_write_on_every_call(tf2, tmp_path):
    tf = tf2
    step = tf.Variable(0, dtype=tf.int64)
    traced = []

    @tf.function
    def train_step(x):
        traced.append(1)
        loss = tf.reduce_sum(x * x)
        tf.summary.scalar("loss", loss, step=step)
        for e in x:                               # a converted loop: written each pass
            if e > 0:
                tf.summary.scalar("positive", e, step=step)
        step.assign_add(1)
        return loss

    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        train_step(tf.constant([1.0, -2.0]))
        train_step(tf.constant([3.0, 4.0]))
    assert len(traced) == 1
    _, values = _values(tmp_path)
    got = sorted((t, s, float(v)) for t, s, _, v in values)
    assert got == sorted([("loss", 0, 5.0), ("positive", 0, 1.0), ("loss", 1, 25.0),
                          ("positive", 1, 3.0), ("positive", 1, 4.0)])
    assert {p for _, _, p, _ in values} == {"scalars"}


def test_tfscalars_reads_tf2_scalars(tf2, tmp_path):
    tf = tf2
    from tfteach.notebook.scalars_magic import read_scalars
    with tf.summary.create_file_writer(str(tmp_path / "train")).as_default():
        for step in range(3):
            tf.summary.scalar("loss", 1.0 / (step + 1), step=step)
        tf.summary.histogram("w", [1.0, 2.0], step=0)      # not a scalar: left out
    runs = read_scalars(str(tmp_path))
    (run, tags), = runs.items()
    assert list(tags) == ["loss"]
    np.testing.assert_allclose([v for _, v in tags["loss"]], [1.0, 0.5, 1.0 / 3], rtol=1e-7)
    assert [s for s, _ in tags["loss"]] == [0, 1, 2]
