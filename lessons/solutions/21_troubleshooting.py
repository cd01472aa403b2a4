"""Solutions to the exercises of lessons/21_troubleshooting.ipynb (one section per grade_id)."""

# %% ex21_1
sentences = [[3, 1], [2, 3, 1, 1], [2]]
longest = max(len(s) for s in sentences)
padded = [s + [0] * (longest - len(s)) for s in sentences]
lengths = tf.reduce_sum(tf.cast(tf.not_equal(input_x, 0), tf.int32), axis=1)
with tf.Session() as sess:
    answer = sess.run(lengths, feed_dict={input_x: padded}).tolist()

# %% ex21_2
tf.reset_default_graph()
def dense(x):
    with tf.variable_scope("layer", reuse=tf.AUTO_REUSE):
        W = tf.get_variable("W", [2, 2])
        b = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
        return tf.matmul(x, W) + b
inputs = tf.ones([1, 2])
out = dense(dense(inputs))
answer = sorted(v.name for v in tf.trainable_variables())

# %% ex21_3
tf.reset_default_graph()
w = tf.Variable([1.0])
y_pred = w * xs                                   # no tf.round
loss = tf.reduce_mean(tf.square(y_pred - ys))
train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
with tf.Session() as sess:
    sess.run(w.initializer)
    for _ in range(50):
        sess.run(train)
    answer = float(sess.run(w)[0])

# %% ex21_4
snippets = [snippet_a, snippet_b, snippet_c, snippet_d]
answer = []
for snippet in snippets:
    try:
        snippet()
    except Exception as e:
        answer.append(type(e).__name__)
