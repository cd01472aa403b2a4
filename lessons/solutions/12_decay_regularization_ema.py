# Solutions of lessons/12_decay_regularization_ema.ipynb (tests/test_lessons.py runs them in place of the
# exercise cells; a teacher can paste a section into the student's cell).

# %% ex12_1
s = tf.placeholder(tf.int32, [])
a = tf.train.exponential_decay(0.1, s, decay_steps=10, decay_rate=0.5, staircase=False)
b = tf.train.exponential_decay(0.1, s, decay_steps=10, decay_rate=0.5, staircase=True)
with tf.Session() as sess:
    answer = [float(v) for v in sess.run([a, b], {s: 25})]

# %% ex12_2
with tf.Graph().as_default():
    weights = tf.constant([[1.0, -2.0], [-3.0, 4.0]])
    tf.add_to_collection('losses', tf.contrib.layers.l2_regularizer(0.1)(weights))
    tf.add_to_collection('losses', tf.contrib.layers.l1_regularizer(0.1)(weights))
    total = tf.add_n(tf.get_collection('losses'))
    with tf.Session() as sess:
        answer = float(sess.run(total))

# %% ex12_3
tf.reset_default_graph()
v = tf.Variable(0.0)
ema = tf.train.ExponentialMovingAverage(0.9)
op = ema.apply([v])
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    sess.run(tf.assign(v, 10.0))
    sess.run(op)
    sess.run(tf.assign(v, 20.0))
    sess.run(op)
    answer = float(sess.run(ema.average(v)))

# %% ex12_4
tf.reset_default_graph()
w = tf.Variable(2.0)
train_step = tf.train.GradientDescentOptimizer(0.25).minimize(w * w)
ema = tf.train.ExponentialMovingAverage(0.5)
with tf.control_dependencies([train_step]):
    train_op = ema.apply([w])
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    sess.run(train_op)
    sess.run(train_op)
    answer = float(sess.run(ema.average(w)))
