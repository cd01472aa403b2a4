"""Solutions of lessons/04_placeholders_and_feeds.ipynb (one section per exercise; tests/test_lessons.py runs them)."""

# %% ex04_1
batch = np.arange(12).reshape(4, 3)
x = tf.placeholder(tf.float32, [None, 3])
w = tf.constant([[1.0], [2.0], [3.0]])
y = tf.matmul(x, w)
with tf.Session() as sess:
    answer = sess.run(y, feed_dict={x: batch})

# %% ex04_2
a = tf.constant(1, name="a")
b = tf.constant(2, name="b")
c = tf.constant(3, name="c")
add1 = tf.add(a, b, name="add1")
mul1 = tf.multiply(b, c, name="mul1")
output = tf.add(add1, mul1, name="output")
with tf.Session() as sess:
    answer = sess.run(output, feed_dict={add1: 100})

# %% ex04_3
sentences = [[4, 2, 3], [1, 2], [4]]
ids = tf.placeholder(tf.int32, [None, None])
lengths = tf.reduce_sum(tf.cast(tf.not_equal(ids, 0), tf.int32), axis=1)
longest = max(len(s) for s in sentences)
padded = [s + [0] * (longest - len(s)) for s in sentences]
with tf.Session() as sess:
    answer = sess.run(lengths, feed_dict={ids: padded})

# %% ex04_4
keep = tf.placeholder_with_default(1.0, shape=[])
x = tf.placeholder(tf.float32, [None])
out = x * keep
with tf.Session() as sess:
    answer = [sess.run(out, {x: [2.0, 4.0]}), sess.run(out, {x: [2.0, 4.0], keep: 0.5})]
