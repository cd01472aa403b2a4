# Solutions of lessons/11_loss_functions.ipynb (tests/test_lessons.py runs them in place of the
# exercise cells; a teacher can paste a section into the student's cell).

# %% ex11_1
loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0], logits=[[2.0, 1.0, 0.1]])
with tf.Session() as sess:
    answer = float(sess.run(loss)[0])

# %% ex11_2
loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=[1.0, 1.0, 0.0, 0.0],
                                                              logits=[1.0, -1.0, 4.0, -3.0]))
with tf.Session() as sess:
    answer = float(sess.run(loss))

# %% ex11_3
tf.reset_default_graph()
np.random.seed(0)
X = tf.placeholder(tf.float32, [None, 2])
y_ = tf.placeholder(tf.float32, [None, 1])
w1 = tf.Variable(tf.random_normal([2, 1], stddev=1, seed=1))
y = tf.matmul(X, w1)
loss = tf.reduce_mean(tf.where(tf.greater(y, y_), (y - y_) * 10, (y_ - y) * 1))
train_step = tf.train.AdamOptimizer(0.001).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for ii in range(5000):
        batch = np.random.permutation(128)[:8]
        sess.run(train_step, feed_dict={X: train_X[batch], y_: train_y[batch]})
    w = sess.run(w1)
answer = "above" if w.sum() > 2 else "below"
