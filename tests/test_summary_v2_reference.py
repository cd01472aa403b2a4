"""TF 2's tf.summary against TensorFlow's: the same program writes an event file with
each; the events (tags, steps, plugin metadata on every event, descriptions, tensor
dtypes, shapes and values; images compared as decoded pixels, since PNG compressors
differ) must be equal, and TensorBoard's EventAccumulator must read ours as it reads
TensorFlow's. TensorFlow runs eagerly in a child process (this process's TensorFlow is
in graph mode for the other reference tests)."""
import glob
import importlib.util
import io
import os
import textwrap

import numpy as np
import pytest

from eager_helpers import eager, tf2  # noqa: F401 - fixtures
from tf_reference import eager_tensorflow_json, run_eager_tensorflow
from tfteach.framework.tensor_proto import make_ndarray
from tfteach.summary.summary_iterator import summary_iterator

pytestmark = [pytest.mark.reference,
              pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None,
                                 reason="TensorFlow is not installed")]

PROGRAM = """
import numpy as np

def run(tf, logdir):
    writer = tf.summary.create_file_writer(logdir)
    r = np.random.RandomState(0)
    with writer.as_default():
        for step in range(3):
            with tf.name_scope("train"):
                tf.summary.scalar("loss", 1.0 / (step + 1), step=step)
            tf.summary.scalar("count", tf.constant(step * 2), step=step,
                              description="an int32 scalar")
        tf.summary.histogram("normal", r.randn(500), step=0)
        tf.summary.histogram("few", [1.0, 2.0, 2.0, 5.0], step=1, buckets=4)
        tf.summary.histogram("same", np.full(5, 3.0), step=1, buckets=3)
        tf.summary.histogram("none", np.zeros(0), step=1)
        tf.summary.text("words", tf.constant(["one", "two"]), step=2)
        tf.summary.image("pics", np.linspace(0, 1, 2 * 4 * 3 * 3).reshape(2, 4, 3, 3)
                         .astype(np.float32), step=2, max_outputs=2)
        tf.summary.image("bytes", np.arange(2 * 2 * 3, dtype=np.uint8).reshape(1, 2, 2, 3),
                         step=3)
        with tf.summary.record_if(False):
            tf.summary.scalar("skipped", 1.0, step=0)
        tf.summary.experimental.set_step(11)
        tf.summary.scalar("default_step", 2.5)
        tf.summary.experimental.set_step(None)
    writer.flush()
"""


def _events(logdir):
    (path,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    from PIL import Image
    out = []
    for event in list(summary_iterator(path))[1:]:
        for value in event.summary.value:
            array = make_ndarray(value.tensor)
            if value.metadata.plugin_data.plugin_name == "images":
                array = [array[0], array[1]] + [
                    np.asarray(Image.open(io.BytesIO(png))).tolist() for png in array[2:]]
            else:
                array = [str(array.dtype), array.shape, array.tolist()]
            out.append((value.tag, event.step, value.metadata.SerializeToString(), array))
    return path, out


@pytest.fixture(scope="module")
def theirs(tmp_path_factory):
    logdir = str(tmp_path_factory.mktemp("tf_summary_v2"))
    code = ("import tensorflow as tf\nns = {}\nexec(%r, ns)\nns['run'](tf, %r)\n"
            % (textwrap.dedent(PROGRAM), logdir))
    run_eager_tensorflow(code)
    return logdir


@pytest.fixture
def ours(tf2, tmp_path):
    namespace = {}
    exec(textwrap.dedent(PROGRAM), namespace)     # noqa: S102 - the shared program
    namespace["run"](tf2, str(tmp_path))
    return str(tmp_path)


def test_same_events_as_tensorflow(theirs, ours):
    their_path, their_events = _events(theirs)
    our_path, our_events = _events(ours)
    assert [e[:3] for e in our_events] == [e[:3] for e in their_events]
    for (tag, _, _, a), (_, _, _, b) in zip(our_events, their_events):
        if isinstance(a[-1], list) and a[0] in ("float64", "float32"):
            assert a[:2] == b[:2], tag
            np.testing.assert_allclose(a[2], b[2], rtol=1e-12, atol=1e-12, err_msg=tag)
        else:
            assert a == b, tag
    assert our_path.endswith(".v2") and their_path.endswith(".v2")


def test_event_accumulator_reads_ours_as_tensorflows(theirs, ours):
    from tensorboard.backend.event_processing import event_accumulator

    def read(logdir):
        acc = event_accumulator.EventAccumulator(logdir, size_guidance={"tensors": 0})
        acc.Reload()
        return {tag: [(e.step, make_ndarray(e.tensor_proto).shape) for e in
                      acc.Tensors(tag)] + [acc.SummaryMetadata(tag).plugin_data.plugin_name]
                for tag in acc.Tags()["tensors"]}
    assert read(ours) == read(theirs)


def test_a_vector_given_to_scalar_is_tensorflows_eager_error(tf2, tmp_path):
    # tf.debugging.assert_scalar's eager words: no tensor name.
    theirs = eager_tensorflow_json(textwrap.dedent("""
        import json
        import tensorflow as tf
        with tf.summary.create_file_writer(%r).as_default():
            try:
                tf.summary.scalar("loss", [1.0, 2.0], step=0)
            except ValueError as e:
                print(json.dumps(str(e)))
    """ % str(tmp_path / "tf")))
    with tf2.summary.create_file_writer(str(tmp_path / "tfteach")).as_default():
        with pytest.raises(ValueError) as info:
            tf2.summary.scalar("loss", [1.0, 2.0], step=0)
    assert str(info.value) == theirs == "Expected scalar shape, saw shape: (2,)."
