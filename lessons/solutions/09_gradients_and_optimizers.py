# Solutions of lessons/09_gradients_and_optimizers.ipynb (tests/test_lessons.py runs them in place of the
# exercise cells; a teacher can paste a section into the student's cell).

# %% ex09_1
x = tf.Variable(2.0)
y = x * x * x + 2 * x
dy = tf.gradients(y, x)[0]
d2y = tf.gradients(dy, x)[0]
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    answer = [float(v) for v in sess.run([dy, d2y])]

# %% ex09_2
tf.reset_default_graph()
x = tf.Variable(1.0)
train = tf.train.MomentumOptimizer(learning_rate=0.1, momentum=0.9).minimize(x * x)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(3):
        sess.run(train)
    answer = float(sess.run(x))

# %% ex09_3
tf.reset_default_graph()
W = tf.Variable(tf.zeros([3, 2]))
b = tf.Variable(tf.zeros([2]))
loss = tf.reduce_sum(tf.matmul(tf.ones([1, 3]), W) + b)
before = len(tf.global_variables())
tf.train.AdamOptimizer(0.01).minimize(loss)
answer = len(tf.global_variables()) - before
