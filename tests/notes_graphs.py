"""Graphs from the course notes that several test modules build."""
import tfteach as tf


def notes_example():
    """The notes' example (seed 000, L135-164): sess.run(output) never runs add2.

    Returns (output, add2)."""
    a, b, c, d = (tf.constant(v, name=n) for v, n in ((1, "a"), (2, "b"), (3, "c"), (4, "d")))
    add1 = tf.add(a, b, name="add1")
    mul1 = tf.multiply(b, c, name="mul1")
    add2 = tf.add(c, d, name="add2")
    return tf.add(add1, mul1, name="output"), add2
