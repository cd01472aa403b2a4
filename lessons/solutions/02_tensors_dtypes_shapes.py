"""Solutions of lessons/02_tensors_dtypes_shapes.ipynb (one section per exercise; tests/test_lessons.py runs them)."""

# %% ex02_1
x = tf.placeholder(tf.float32, [None, 784])
w = tf.zeros([784, 10])
bias = tf.zeros([10])
y = tf.matmul(x, w) + bias
answer = y.shape.as_list()

# %% ex02_2
values = [[1, 2], [1, 2.0], np.arange(2), np.ones(2)]
answer = [tf.constant(v).dtype.name for v in values]

# %% ex02_3
scores = tf.constant([1, 2, 2, 4])
with tf.Session() as sess:
    answer = sess.run(tf.reduce_mean(tf.cast(scores, tf.float32)))

# %% ex02_4
col = tf.constant([[0], [10], [20]])
row = tf.constant([1, 2, 3, 4])
with tf.Session() as sess:
    answer = sess.run(col + row)
