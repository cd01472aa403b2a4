"""The run-observer hook (runtime/run_observers.py) that %%tfgraph records runs with."""
import numpy as np
import pytest

import tfteach as tf
from tfteach.runtime import run_observers

from notes_graphs import notes_example


class Recorder:
    def __init__(self, dry_run=False, capture_values=True):
        self.records = []
        self.dry_run = dry_run
        self.capture_values = capture_values

    def on_run(self, record):
        self.records.append(record)


def test_observer_sees_each_run_with_order_values_and_placement():
    output, _ = notes_example()
    rec = Recorder()
    with tf.Session() as sess:
        with run_observers.observing(rec):
            assert sess.run(output) == 9
            assert output.eval() == 9           # eval goes through Session.run
        sess.run(output)                        # after the block: not observed
    assert len(rec.records) == 2
    r = rec.records[0]
    assert r.fetches == ["output:0"] and r.feeds == [] and r.error is None
    assert r.executed_nodes() == ["a", "b", "c", "add1", "mul1", "output"]   # no add2
    values = {name: vals[0] for name, vals in r.node_outputs.items()}
    assert values["add1"] == 3 and values["mul1"] == 6 and values["output"] == 9
    assert set(r.placement) == {"a", "b", "c", "d", "add1", "mul1", "add2", "output"}
    assert run_observers._observers == []


def test_feeds_are_cut_points_and_values_are_snapshots():
    x = tf.placeholder(tf.float32, [2], name="x")
    v = tf.Variable([1.0, 2.0], name="v")
    y = tf.add(x, v, name="y")
    step = tf.assign_add(v, [10.0, 10.0])
    rec = Recorder()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with run_observers.observing(rec):
            sess.run(y, {x: [1.0, 1.0]})
            sess.run(step)
    first = rec.records[0]
    assert first.feeds == ["x:0"]
    assert "x" not in first.executed_nodes()    # a fed placeholder does not run
    np.testing.assert_array_equal(first.node_outputs["v"][0], [1.0, 2.0])   # before the update
    np.testing.assert_array_equal(first.node_outputs["y"][0], [2.0, 3.0])


def test_dry_run_plans_without_executing():
    output, _ = notes_example()
    rec = Recorder(dry_run=True)
    with tf.Session() as sess:
        with run_observers.observing(rec):
            assert sess.run([output, output]) == [None, None]
    r = rec.records[0]
    assert r.dry_run and r.planned == ["a", "b", "c", "add1", "mul1", "output"]
    assert r.run_metadata.executed_nodes() == []


def test_failing_run_is_reported_then_raised():
    x = tf.placeholder(tf.float32, [None], name="x")
    y = tf.add(x, tf.constant([1.0, 2.0]), name="y")
    rec = Recorder()
    with tf.Session() as sess, run_observers.observing(rec):
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(y, {x: [1.0, 2.0, 3.0]})
    assert isinstance(rec.records[0].error, tf.errors.InvalidArgumentError)


def test_would_run_is_the_executor_pruning():
    output, add2 = notes_example()
    g = tf.get_default_graph()
    assert run_observers.would_run(g, "output") == ["a", "b", "c", "add1", "mul1", "output"]
    assert run_observers.would_run(g, output, feeds=["add1:0"]) == ["b", "c", "mul1", "output"]
    assert run_observers.would_run(g, [add2]) == ["c", "d", "add2"]


def test_user_run_metadata_still_filled():
    output, _ = notes_example()
    rec, meta = Recorder(capture_values=False), tf.RunMetadata()
    with tf.Session() as sess, run_observers.observing(rec):
        sess.run(output, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=meta)
    assert meta.executed_nodes() == rec.records[0].executed_nodes()
    assert rec.records[0].node_outputs is None
    assert meta.step_stats.node_outputs is None     # the capture is not left behind
