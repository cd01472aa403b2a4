"""`tf.contrib.summary` against TensorFlow's own (its legacy `summary_ops_v2` functions,
which TF 1.15's tf.contrib.summary exported): the graph the calls build (names, devices),
what each run returns, which summaries are written at which steps, eagerly and in a
graph; the errors.

What the events hold is TF 1.15's: its Write*Summary kernels write TF 1 summaries (a
`simple_value`, a histogram, PNG images, WAV audio), the values TF 1's `tf.summary` ops
make. TF 2.21's legacy functions write TF 2 tensor summaries instead, so the values are
compared with TensorFlow's TF 1 summary ops on the same data, read with TensorBoard's
reader (wall times aside)."""
import glob
import io
import json
import os

import numpy as np
import pytest

from eager_helpers import eager  # noqa: F401  (fixture)
from tf_reference import eager_tensorflow_json, tf1_behaviour


def _events(logdir, suffix=".v2"):
    """Every event of `logdir`'s one event file, as comparable plain values."""
    from PIL import Image
    # (The raw events: EventFileLoader would migrate TF 1 values to TF 2 tensors.)
    from tensorboard.backend.event_processing.event_file_loader import (
        LegacyEventFileLoader)
    from tensorboard.compat.proto.graph_pb2 import GraphDef
    from tensorboard.util.tensor_util import make_ndarray
    files = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    assert len(files) == 1 and files[0].endswith(suffix), files
    found = []
    for event in LegacyEventFileLoader(files[0]).Load():
        if event.HasField("graph_def"):
            nodes = {n.name for n in GraphDef.FromString(event.graph_def).node}
            found.append((event.step, "graph", "loss" in nodes))
        for v in event.summary.value:
            kind = v.WhichOneof("value")
            if kind == "simple_value":
                payload = v.simple_value
            elif kind == "histo":
                h = v.histo
                payload = (h.min, h.max, h.num, h.sum, h.sum_squares,
                           list(h.bucket_limit), list(h.bucket))
            elif kind == "image":
                pixels = np.asarray(Image.open(io.BytesIO(v.image.encoded_image_string)))
                payload = (v.image.height, v.image.width, v.image.colorspace,
                           pixels.tolist())
            elif kind == "audio":
                payload = (v.audio.sample_rate, v.audio.num_channels,
                           v.audio.length_frames, v.audio.content_type,
                           len(v.audio.encoded_audio_string))
            else:
                payload = (make_ndarray(v.tensor).tolist(), str(v.metadata.plugin_data))
            found.append((event.step, v.tag, kind, payload))
    return found


def _program(tf, cs, logdir):
    """Note 001's summaries in a graph: every kind of summary under always-record, one
    every second global step, one without a writer and one without recording."""
    names = {}
    w = cs.create_file_writer(logdir)
    gs = tf.train.get_or_create_global_step()
    x = tf.placeholder(tf.float32, [])
    # (A Python step becomes a constant where TF makes it: TF 1.15 in the summary's
    # scope, TF 2.21's legacy functions before it; a tensor step is the same in both.)
    seven = tf.constant(7, tf.int64)
    with w.as_default(), cs.always_record_summaries():
        ops = [cs.scalar("loss", x),
               cs.histogram("w", tf.constant(np.linspace(-1, 1, 50).astype(np.float32)) * x)]
        with tf.name_scope("outer"):
            ops.append(cs.scalar("loss", x * 2, family="fam"))
        ops += [cs.image("im", tf.fill([2, 4, 5, 3], x / 4.0), max_images=1),
                cs.audio("au", tf.fill([1, 8], x / 4.0), 8000, 1),
                cs.generic("gen", tf.fill([2], x)),
                cs.scalar("at_step", x, step=seven)]
    with w.as_default(), cs.record_summaries_every_n_global_steps(2):
        ops.append(cs.scalar("every2", x))
    no_writer = cs.scalar("nowriter", x)
    with w.as_default():
        ops.append(cs.scalar("norecord", x))
    names["returned"] = [str(t) for t in ops] + [no_writer.type]
    names["all"] = [t.name for t in cs.all_summary_ops()]
    names["init"] = [o.name for o in cs.summary_writer_initializer_op()]
    names["consts"] = sorted(o.name for o in tf.get_default_graph().get_operations()
                             if o.type == "Const")
    inc = tf.assign_add(gs, 1)
    runs = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.NotFoundError) as e:
            sess.run(ops[0], {x: 1.0})
        names["not_found"] = [line for line in str(e.value).splitlines()
                              if "Resource" in line][0].replace(logdir, "LOGDIR").strip()
        with w.as_default():
            cs.initialize(session=sess, graph=tf.get_default_graph())
        for i in range(4):
            runs.append([bool(v) for v in sess.run(cs.all_summary_ops(), {x: float(i)})])
            sess.run(inc)
    # No flush: closing the Session closes its writer.
    return names, runs, _events(logdir)


def _tf1_summaries(tf, logdir):
    """TensorFlow's TF 1 summary ops on the data `_program` summarizes, written at the
    same steps: the values TF 1.15's writer kernels write."""
    x = tf.placeholder(tf.float32, [])
    writer = tf.summary.FileWriter(logdir)
    always = tf.summary.merge([
        tf.summary.scalar("loss", x),
        tf.summary.histogram("w", tf.constant(np.linspace(-1, 1, 50).astype(np.float32)) * x),
        tf.summary.scalar("fam/outer/fam/loss", x * 2),
        tf.summary.image("im", tf.fill([2, 4, 5, 3], x / 4.0), max_outputs=1),
        tf.summary.audio("au", tf.fill([1, 8], x / 4.0), 8000, 1)])
    every2 = tf.summary.scalar("every2", x)
    at_step = tf.summary.scalar("at_step", x)
    with tf.Session() as sess:
        for i in range(4):
            feed = {x: float(i)}
            writer.add_summary(sess.run(always, feed), i)
            writer.add_summary(sess.run(at_step, feed), 7)
            if i % 2 == 0:
                writer.add_summary(sess.run(every2, feed), i)
    writer.close()
    return [e for e in _events(logdir, suffix="") if e[1] != "graph"]


def test_graph_summaries_are_tensorflows(tmp_path):
    import tfteach
    from tensorflow.python.ops import summary_ops_v2
    with tf1_behaviour() as tf, tf.Graph().as_default():
        summary_ops_v2.all_summary_ops = summary_ops_v2.all_v2_summary_ops
        expected = _program(tf, summary_ops_v2, str(tmp_path / "tf"))
    with tf1_behaviour() as tf, tf.Graph().as_default():
        values = _tf1_summaries(tf, str(tmp_path / "tf1"))
    with tfteach.Graph().as_default():
        got = _program(tfteach, tfteach.contrib.summary, str(tmp_path / "tfteach"))
    for part in ("returned", "all", "init", "consts", "not_found"):
        assert got[0][part] == expected[0][part], part
    assert got[1] == expected[1]
    # As many summaries as TF's (which writes TF 2 tensors, with other tags for media).
    assert len(got[2]) == len(expected[2])
    # The values: TF 1's summaries of the same data (generic's tensor: below).
    assert sorted((e for e in got[2] if e[1] not in ("gen", "graph")), key=repr) == \
        sorted(values, key=repr)
    gen = [e[3][0] for e in got[2] if e[1] == "gen"]
    assert gen == [[float(i)] * 2 for i in range(4)]
    assert [e[2] for e in got[2] if e[1] == "graph"] == [True]       # initialize(graph=)


EAGER_PROGRAM = """
import json, glob, os, sys, numpy as np
{setup}
w = cs.create_file_writer({logdir!r})
out = [repr(cs.scalar("nowriter", 1.0))]
gs = tf.train.get_or_create_global_step()
with w.as_default():
    out.append(bool(cs.scalar("norecord", 1.0).numpy()))
    with cs.always_record_summaries():
        for i in range(3):
            out.append(bool(cs.scalar("loss", 0.5 * i).numpy()))
            cs.histogram("h", np.arange(10.0) * i)
            gs.assign_add(1)
        cs.scalar("at", 7.0, step=42)
        with tf.name_scope("outer"):
            cs.scalar("s", 1.5)
    with cs.record_summaries_every_n_global_steps(2):
        for i in range(4):
            cs.scalar("every2", float(i))
            gs.assign_add(1)
    cs.flush()
try:
    cs.summary_writer_initializer_op()
except RuntimeError as e:
    out.append(str(e))
out.append(cs.all_summary_ops() is None)
print(json.dumps(out))
"""

TF_SETUP = ("import tensorflow as tf2; tf = tf2.compat.v1\n"
            "from tensorflow.python.ops import summary_ops_v2 as cs\n"
            "cs.all_summary_ops = cs.all_v2_summary_ops")


def test_eager_summaries_are_tensorflows(eager, tmp_path, capsys):  # noqa: F811
    import contextlib
    expected = eager_tensorflow_json(EAGER_PROGRAM.format(setup=TF_SETUP,
                                                          logdir=str(tmp_path / "tf")))
    out = io.StringIO()
    program = EAGER_PROGRAM.format(setup="import tfteach as tf; cs = tf.contrib.summary",
                                   logdir=str(tmp_path / "tfteach"))
    with contextlib.redirect_stdout(out):
        exec(program, {})  # noqa: S102 - the same program TF ran
    got = json.loads(out.getvalue().strip().splitlines()[-1])
    assert got[1:] == expected[1:]
    assert got[0] == expected[0] == "None"          # no writer: a no-op, None eagerly
    # The same summaries at the same steps (TF 2.21 writes TF 2 tensors of the values).
    written = _events(str(tmp_path / "tfteach"))
    assert [e[:2] for e in written] == [e[:2] for e in _events(str(tmp_path / "tf"))]
    assert [e[3] for e in written if e[1] == "loss"] == [0.0, 0.5, 1.0]
    assert [(e[0], e[3]) for e in written if e[1] == "every2"] == [(4, 1.0), (6, 3.0)]
    assert [e[3][2] for e in written if e[1] == "h"] == [10.0] * 3     # histogram counts


def test_errors_are_tensorflows(tmp_path):
    import tfteach as tf
    cs = tf.contrib.summary
    with tf.Graph().as_default():
        with pytest.raises(RuntimeError, match="^No default tf.contrib.summary."
                                               "SummaryWriter found$"):
            cs.initialize()
        w = cs.create_file_writer(str(tmp_path))
        with w.as_default():
            with pytest.raises(ValueError, match="^session must be passed if no default "
                                                 "session exists$"):
                cs.initialize()
            with pytest.raises(TypeError, match=r"^graph\(\) needs a tf.Tensor \(e.g. "
                                                r"tf.placeholder\) in graph mode, but was: "):
                cs.graph(tf.get_default_graph())
            with cs.always_record_summaries():
                s = cs.scalar("s", 1.0, step=0)
                bad = cs.histogram("h", tf.constant([1.0, np.nan]), step=0)
        close = w.close()
        with tf.Session() as sess:
            sess.run(cs.summary_writer_initializer_op())
            assert sess.run(s)
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="Nan in summary histogram for: h"):
                sess.run(bad)
            sess.run(close)                    # closed: its resource is gone
            with pytest.raises(tf.errors.NotFoundError, match="does not exist"):
                sess.run(s)
            sess.run(cs.summary_writer_initializer_op())     # made again: a new file
            assert sess.run(s)
    assert len(glob.glob(str(tmp_path / "events.out.tfevents.*"))) >= 1
    with pytest.raises(ValueError, match="^Name of dataset is not found: x$"):
        tf.contrib.learn.datasets.load_dataset("x")
    assert cs.eval_dir("m") == os.path.join("m", "eval")
    assert cs.eval_dir("m", "val") == os.path.join("m", "eval_val")
    with pytest.raises(NotImplementedError, match="create_file_writer"):
        cs.create_db_writer("file:/tmp/x.sqlite")


def test_eager_media_graphs_events_and_errors(eager, tmp_path):  # noqa: F811
    tf = eager
    from tfteach.io.tf_protos import Event
    cs = tf.contrib.summary
    w = cs.create_file_writer(str(tmp_path))
    assert cs.create_file_writer(str(tmp_path))._writer is w._writer   # one shared writer
    images = np.zeros([2, 3, 3, 1], np.float32)
    images[1] = 1.0
    with w.as_default(), cs.always_record_summaries():
        assert bool(cs.generic("gen", tf.constant([1.0, 2.0]), step=1).numpy())
        assert bool(cs.image("im", images, max_images=2, step=1).numpy())
        assert bool(cs.audio("au", np.zeros([1, 8], np.float32), 8000, 1, step=1).numpy())
        assert cs.graph(tf.Graph(), step=0) is None
        assert cs.import_event(Event(step=9, wall_time=1.0).SerializeToString()) is None
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^Nan in summary histogram for: bad "
                                 r"\[Op:WriteHistogramSummary\]$"):
            cs.histogram("bad", np.array([1.0, np.nan]), step=1)
    w.close()
    events = _events(str(tmp_path))
    assert [e[:3] for e in events] == [
        (1, "gen", "tensor"), (1, "im/image/0", "image"), (1, "im/image/1", "image"),
        (1, "au/audio", "audio"), (0, "graph", False)]
    assert events[0][3][0] == [1.0, 2.0]
    assert events[1][3][3] == [[0] * 3] * 3 and events[2][3][3] == [[255] * 3] * 3  # gray
    # the imported event (no summary) is there too, at its step
    from tfteach.summary.summary_iterator import summary_iterator
    path = glob.glob(str(tmp_path / "events.out.tfevents.*"))[0]
    assert 9 in [e.step for e in summary_iterator(path)]


def test_an_eager_writer_never_flushed_is_written_when_python_exits(tmp_path):
    import subprocess
    import sys
    program = ("import tfteach as tf\ntf.enable_eager_execution()\n"
               "tf.contrib.summary.create_file_writer(%r).set_as_default()\n"
               "with tf.contrib.summary.always_record_summaries():\n"
               "    tf.contrib.summary.scalar('a', 1.5, step=3)\n" % str(tmp_path))
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert _events(str(tmp_path)) == [(3, "a", "simple_value", 1.5)]
