"""Solutions to the exercises of lessons/01_graphs_and_sessions.ipynb (one section per grade_id)."""

# %% ex01_1
with tf.Session() as sess:
    answer = sess.run(output, feed_dict={add1: 100})

# %% ex01_2
with g1.as_default():
    d1 = c1 * 10
with tf.Session(graph=g1) as sess:
    value = sess.run(d1)
answer = [value.tolist(), d1.graph is g1, len(g1.get_operations())]

# %% ex01_3
with tf.Session() as sess:
    answer = sess.run([y, z], feed_dict={x: [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]})
