"""tf.train.MonitoredSession / MonitoredTrainingSession and the session-run hooks: the
hooks' call order, extra fetches, stopping, checkpoints restored, input exhausted."""
import os

import numpy as np
import pytest

import tfteach as tf
from tests.logging_helpers import log_lines


class Recorder(tf.train.SessionRunHook):
    def __init__(self, fetch=None):
        self.calls, self.values, self._fetch = [], [], fetch

    def begin(self):
        self.calls.append("begin")

    def after_create_session(self, session, coord):
        self.calls.append("after_create_session")

    def before_run(self, run_context):
        self.calls.append("before_run")
        return tf.train.SessionRunArgs(self._fetch) if self._fetch is not None else None

    def after_run(self, run_context, run_values):
        self.calls.append("after_run")
        self.values.append(run_values.results)

    def end(self, session):
        self.calls.append("end")


def counting_graph():
    step = tf.train.get_or_create_global_step()
    w = tf.Variable(1.0, name="w")
    train = tf.group(tf.assign_add(w, 1.0), tf.assign_add(step, 1))
    return step, w, train


def test_hooks_see_every_run_and_stop_at_step(tmp_path):
    step, w, train = counting_graph()
    recorder = Recorder(fetch=w)
    with tf.train.MonitoredSession(hooks=[recorder, tf.train.StopAtStepHook(last_step=3)]) \
            as sess:
        runs = 0
        while not sess.should_stop():
            sess.run(train)
            runs += 1
    assert runs == 3
    assert recorder.calls == ["begin", "after_create_session"] + \
        ["before_run", "after_run"] * 3 + ["end"]
    assert len(recorder.values) == 3


def test_monitored_training_session_saves_and_restores(tmp_path):
    directory = str(tmp_path)
    step, w, train = counting_graph()
    with tf.train.MonitoredTrainingSession(checkpoint_dir=directory,
                                           hooks=[tf.train.StopAtStepHook(num_steps=4)]) as s:
        while not s.should_stop():
            s.run(train)
    assert tf.train.latest_checkpoint(directory) == os.path.join(directory, "model.ckpt-4")
    tf.reset_default_graph()
    step, w, train = counting_graph()
    with tf.train.MonitoredTrainingSession(checkpoint_dir=directory) as s:
        assert s.run([step, w]) == [4, 5.0]


def test_out_of_range_ends_the_session_quietly():
    x = tf.data.Dataset.range(3).make_one_shot_iterator().get_next()
    seen = []
    with tf.train.MonitoredSession() as sess:
        while not sess.should_stop():
            seen.append(sess.run(x))
    assert seen == [0, 1, 2]


def test_logging_tensor_hook_logs_sorted_tags_every_n_iterations():
    with pytest.raises(ValueError, match="exactly one of every_n_iter and every_n_secs"):
        tf.train.LoggingTensorHook({"a": tf.constant(1)})
    hook = tf.train.LoggingTensorHook({"b": tf.constant(2), "a": tf.constant(1)},
                                      every_n_iter=2)
    with log_lines() as lines:
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(5):
                sess.run([])
    logged = [line for line in lines if line.startswith("a = ")]
    assert len(logged) == 3          # iterations 0, 2, 4
    assert logged[0] == "a = 1, b = 2"
    assert logged[1].startswith("a = 1, b = 2 (") and logged[1].endswith(" sec)")


def test_user_and_hook_feeding_the_same_tensor_is_an_error():
    x = tf.placeholder(tf.float32, [])
    doubled = x * 2   # the graph is finalized once the session exists

    class Feeder(tf.train.SessionRunHook):
        def before_run(self, run_context):
            return tf.train.SessionRunArgs([], feed_dict={x: 1.0})
    with tf.train.MonitoredSession(hooks=[Feeder()]) as sess:
        assert sess.run(doubled) == 2.0
        with pytest.raises(RuntimeError, match="Same tensor is fed by a SessionRunHook and "
                                               "user"):
            sess.run(x, feed_dict={x: 3.0})


def test_nan_tensor_hook_raises():
    loss = tf.constant(np.nan)
    with pytest.raises(tf.train.NanLossDuringTrainingError):
        with tf.train.MonitoredSession(hooks=[tf.train.NanTensorHook(loss)]) as sess:
            sess.run(loss)
