"""Solutions of lessons/07_control_flow.ipynb (one section per exercise; tests/test_lessons.py runs them)."""

# %% ex07_1
v = tf.Variable(1.0)
double = tf.assign(v, v * 2)
with tf.control_dependencies([double]):
    y = tf.identity(v) * 10
with tf.Session() as sess:
    sess.run(v.initializer)
    answer = [sess.run(y) for _ in range(3)]

# %% ex07_2
x = tf.placeholder(tf.float32, shape=[])
f = tf.cond(x < 1.0, lambda: x * x, lambda: 2.0 * x - 1.0)
with tf.Session() as sess:
    answer = [sess.run(f, {x: 0.5}), sess.run(f, {x: 3.0})]

# %% ex07_3
def not_done(n, steps):
    return tf.not_equal(n, 1)
def collatz(n, steps):
    return tf.where(tf.equal(n % 2, 0), n // 2, 3 * n + 1), steps + 1
_, steps = tf.while_loop(not_done, collatz, [tf.constant(27), tf.constant(0)])
with tf.Session() as sess:
    answer = sess.run(steps)

# %% ex07_4
a = tf.Variable(0)
b = tf.Variable(0)
step = tf.group(tf.assign_add(a, 1), tf.assign_add(b, 10))
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    first = sess.run(step)
    sess.run(step)
    sess.run(step)
    answer = [first, sess.run(a), sess.run(b)]
