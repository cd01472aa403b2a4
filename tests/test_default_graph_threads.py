"""The default graph is a property of the current thread, as in TensorFlow 1.15: a
thread's `with g.as_default()` changes no other thread's default graph, a new thread
starts with the global default graph, and sessions made in a thread use its graph.
(Before, the `as_default` stack was one for the process: two threads building in their
own graphs at once built ops into each other's.)"""
import threading

import numpy as np

import tfteach as tf
from thread_helpers import run_in_threads


def test_threads_building_in_their_own_graphs_at_once_never_mix_them():
    barrier = threading.Barrier(4)
    results = {}

    def build_and_run(k):
        graph = tf.Graph()
        with graph.as_default():
            barrier.wait()                      # all four inside as_default at once
            x = tf.placeholder(tf.float32, [None], name="x")
            total = x
            for i in range(100):
                total = total * 1.0 + float(k)
                assert total.graph is graph and tf.get_default_graph() is graph
            with tf.Session() as sess:
                assert sess.graph is graph
                results[k] = sess.run(total, {x: np.zeros(2, np.float32)})
        assert tf.get_default_graph() is not graph
        assert len(graph.get_operations()) == 1 + 2 * 100 + 2 * 100   # x, consts, ops
    run_in_threads(build_and_run, 4)
    for k in range(4):
        np.testing.assert_array_equal(results[k], np.full(2, 100.0 * k, np.float32))


def test_a_new_thread_starts_with_the_global_default_graph():
    global_graph = tf.get_default_graph()
    outer = tf.Graph()
    seen = []
    with outer.as_default():
        t = threading.Thread(target=lambda: seen.append(tf.get_default_graph()))
        t.start()
        t.join()
        assert tf.get_default_graph() is outer
    assert seen == [global_graph]


def test_a_thread_can_still_build_in_a_graph_it_is_handed():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
    made = []

    def build():
        with graph.as_default():
            made.append(x + 1.0)
    run_in_threads(lambda k: build(), 2)
    assert all(t.graph is graph for t in made)
    with tf.Session(graph=graph) as sess:
        assert [sess.run(t, {x: 2.0}) for t in made] == [3.0, 3.0]


def test_eager_mode_in_one_thread_is_not_switched_off_by_a_graph_in_another():
    """executing_eagerly() asks the current thread's stack: a thread inside a graph's
    as_default (a trace, a tf.data function) leaves the others eager."""
    from tfteach.eager import context
    from tfteach.framework import eager_mode
    saved = eager_mode.STATE.enabled
    context.eager_mode_on()
    try:
        inside, release = threading.Event(), threading.Event()
        seen = []

        def hold_a_graph():
            with tf.Graph().as_default():
                seen.append(tf.executing_eagerly())
                inside.set()
                release.wait(10)
        t = threading.Thread(target=hold_a_graph)
        t.start()
        inside.wait(10)
        try:
            assert tf.executing_eagerly()
            value = tf.constant(2.0) * 3.0
            assert float(value.numpy()) == 6.0
        finally:
            release.set()
            t.join()
        assert seen == [False]
    finally:
        eager_mode.STATE.enabled = saved
        context.TAPES.clear()
