"""Solutions of lessons/03_constants_math_random.ipynb (one section per exercise; tests/test_lessons.py runs them)."""

# %% ex03_1
m = tf.constant([[3, 1, 4], [1, 5, 9], [2, 6, 5]])
col_sums, row_argmax = sess.run([tf.reduce_sum(m, axis=0), tf.argmax(m, axis=1)])
answer = {"col_sums": col_sums, "row_argmax": row_argmax}

# %% ex03_2
v = tf.constant([-2.0, -0.5, 0.0, 1.5, 3.0])
relu = tf.where(tf.greater(v, 0.0), v, tf.zeros_like(v))
answer = sess.run(tf.clip_by_value(relu, 0.0, 2.0))

# %% ex03_3
ll = tf.reshape(tf.range(24), [3, 2, 4])
ww = tf.reshape(tf.range(20), [4, 5])
flat = tf.reshape(ll, [-1, 4])
answer = sess.run(tf.reshape(tf.matmul(flat, ww), [3, 2, 5]))

# %% ex03_4
u = tf.random_uniform([4], seed=7)
r1 = sess.run(u)
r2 = sess.run(u)
with tf.Session() as other:
    r3 = other.run(u)
answer = [bool(np.array_equal(r1, r2)), bool(np.array_equal(r1, r3))]
