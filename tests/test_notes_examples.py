"""The course notes' first programs (note 000), run as students run them.

Each program is the notes' code in Python 3. It runs with `tf` bound to tfteach, and its
printed output must be what the notes print (where they print it) and exactly what
TensorFlow's graph mode prints for the same program (when tensorflow is importable).
"""
import contextlib
import io
import textwrap

import numpy as np
import pytest

import tfteach
from tf_reference import tensorflow_v1


def run_program(source, tf_module):
    out = io.StringIO()
    namespace = {"tf": tf_module, "np": np}
    graph = tf_module.Graph()
    with graph.as_default(), contextlib.redirect_stdout(out):
        exec(textwrap.dedent(source), namespace)
    return out.getvalue()


PROGRAMS = {
    # X1 (L21-28): the first program of the notes; they print "result: [3., 8.]".
    "x1_session_close": ("""
        a = tf.constant([1.0, 2.0])
        b = tf.constant([3.0, 4.0])
        c = a * b
        sess = tf.Session()
        print(sess.run(c))
        sess.close()
        """, "[3. 8.]\n"),
    "x2_with_session": ("""
        a = tf.constant([1.0, 2.0])
        b = tf.constant([3.0, 4.0])
        c = a * b
        with tf.Session() as sess: print(sess.run(c))
        """, "[3. 8.]\n"),
    "x3_default_session_eval": ("""
        a = tf.constant([1.0, 2.0])
        b = tf.constant([3.0, 4.0])
        c = a * b
        with tf.Session(): print(c.eval())
        """, "[3. 8.]\n"),
    "x4_as_default": ("""
        a = tf.constant([1.0, 2.0])
        b = tf.constant([3.0, 4.0])
        c = a * b
        sess = tf.Session()
        with sess.as_default(): print(c.eval())
        sess.close()
        """, "[3. 8.]\n"),
    # X5 (L106-116): two graphs, each run by its own session.
    "x5_two_graphs": ("""
        g1 = tf.Graph()
        with g1.as_default():
            c1 = tf.constant([1.0])
        with tf.Graph().as_default() as g2:
            c2 = tf.constant([2.0])
        with tf.Session(graph=g1) as sess1: print(sess1.run(c1))
        with tf.Session(graph=g2) as sess2: print(sess2.run(c2))
        """, "[1.]\n[2.]\n"),
    # X6 (L141-153) with tf.multiply for the removed tf.mul; the notes print 9.
    "x6_only_needed_nodes_run": ("""
        a = tf.constant(1)
        b = tf.constant(2)
        c = tf.constant(3)
        d = tf.constant(4)
        add1 = tf.add(a, b)
        mul1 = tf.multiply(b, c)
        add2 = tf.add(c, d)
        output = tf.add(add1, mul1)
        with tf.Session() as sess: print(sess.run(output))
        """, "9\n"),
    # X8-X10 (L343-374): constant, variable, placeholder.
    "x8_x10_constant_variable_placeholder": ("""
        sess = tf.Session()
        a = tf.constant([[1, 2], [3, 4]], dtype=tf.float32)
        print(a)
        print(sess.run(a))
        c = tf.Variable([[1, 2], [3, 4]], dtype=tf.float32)
        init = tf.global_variables_initializer()
        sess.run(init)
        print(sess.run(c))
        b = tf.placeholder(shape=[2,3], dtype=tf.float32)
        my_input_array = np.array([[1,1,1],[2,4,6]])
        print(sess.run(b, feed_dict={b: my_input_array}))
        """, None),
    # X11-X12 (L385-425): basic math and reductions on variables.
    "x11_x12_math_and_reductions": ("""
        sess = tf.Session()
        x1 = tf.Variable([[1,2], [3,4]], dtype= tf.float32)
        x2 = tf.Variable([[5,6], [7,8]], dtype= tf.float32)
        mat_mul_ops = tf.matmul(x1, x2)
        element_wise_mul_ops = tf.multiply(x1, x2)
        add_ops = tf.add(x1, x2)
        init = tf.global_variables_initializer()
        sess.run(init)
        res1, res2, res3 = sess.run([mat_mul_ops, element_wise_mul_ops, add_ops])
        print(res1)
        print("---")
        print(res2)
        print("---")
        print(res3)
        take_sum_1 = tf.reduce_sum(x1, axis=0)
        take_sum_2 = tf.reduce_sum(x1, axis=1)
        take_sum_3 = tf.reduce_sum(x1)
        take_mean_1 = tf.reduce_mean(x1, axis = 0)
        take_mean_2 = tf.reduce_mean(x1, axis = 1)
        take_mean_3 = tf.reduce_mean(x1)
        sess.run(tf.global_variables_initializer())
        print(sess.run(x1))
        print('---')
        print(sess.run(take_sum_1))
        print(sess.run(take_sum_2))
        print(sess.run(take_sum_3))
        print(sess.run(take_mean_1))
        print(sess.run(take_mean_2))
        print(sess.run(take_mean_3))
        """, "[[19. 22.]\n [43. 50.]]\n---\n[[ 5. 12.]\n [21. 32.]]\n---\n[[ 6.  8.]\n [10. 12.]]\n"
             "[[1. 2.]\n [3. 4.]]\n---\n[4. 6.]\n[3. 7.]\n10.0\n[2. 3.]\n[1.5 3.5]\n2.5\n"),
    # X13 (L431-444): without assign nothing is updated; with it the counter counts.
    "x13_assign_counter": ("""
        sess = tf.Session()
        index_counter = tf.Variable(0)
        one = tf.constant(1)
        new_index = tf.add(index_counter, one)
        update_ops = tf.assign(index_counter, new_index)
        init = tf.global_variables_initializer()
        sess.run(init)
        for _ in np.arange(10):
            sess.run(new_index)
            sess.run(update_ops)
            print(sess.run(index_counter))
        """, "".join("%d\n" % i for i in range(1, 11))),
    # X24 (L1786-1795) without the placement log: the result TensorFlow's guide prints.
    "x24_matmul": ("""
        a = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3], name='a')
        b = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[3, 2], name='b')
        c = tf.matmul(a, b)
        with tf.Session() as sess:
            print(sess.run(c))
        """, "[[22. 28.]\n [49. 64.]]\n"),
    # X28 (L1927-1937): W @ x.
    "x28_w_times_x": ("""
        W = tf.constant([1.0, 2.0, 3.0, 4.0], shape=[2, 2], name='W')
        x = tf.constant([1.3, 2.4], shape=[2, 1], name='x')
        y = tf.matmul(W, x)
        with tf.Session() as sess:
            print(sess.run(y))
        """, None),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_prints_what_the_notes_print(name):
    source, expected = PROGRAMS[name]
    printed = run_program(source, tfteach)
    if expected is not None:
        assert printed == expected


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_prints_what_tensorflow_prints(name):
    tf1 = tensorflow_v1()
    tf1.disable_resource_variables()      # TF 1.x ref variables, as the notes use
    source, _ = PROGRAMS[name]
    assert run_program(source, tfteach) == run_program(source, tf1)


def test_swapped_sessions_raise_the_notes_error():
    # X5's variant at L119: each session only knows its own graph.
    source = """
        g1 = tf.Graph()
        with g1.as_default():
            c1 = tf.constant([1.0])
        with tf.Graph().as_default() as g2:
            c2 = tf.constant([2.0])
        with tf.Session(graph=g1) as sess1: print(sess1.run(c2))
        """
    with pytest.raises(ValueError, match="is not an element of this graph"):
        run_program(source, tfteach)


def test_tf_mul_is_gone_as_in_tensorflow_1x():
    with pytest.raises(AttributeError) as info:
        run_program("mul1 = tf.mul(tf.constant(2), tf.constant(3))", tfteach)
    assert "has no attribute 'mul'" in str(info.value)
    assert "tf.multiply" in str(info.value)


def test_uninitialized_variable_error_of_the_notes():
    source = """
        c = tf.Variable([[1, 2], [3, 4]], dtype=tf.float32)
        with tf.Session() as sess:
            sess.run(c)
        """
    with pytest.raises(tfteach.errors.FailedPreconditionError) as info:
        run_program(source, tfteach)
    assert str(info.value).startswith("Attempting to use uninitialized value Variable")
    assert "global_variables_initializer" in str(info.value)
