"""Solutions of lessons/05_variables.ipynb (one section per exercise; tests/test_lessons.py runs them)."""

# %% ex05_1
ww = tf.Variable([2.0, 3.0])
bb = tf.Variable(ww.initialized_value() * 2)
cc = tf.Variable(ww.initialized_value() + bb.initialized_value())
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    answer = sess.run(cc)

# %% ex05_2
counter = tf.Variable(10, name='counter')
step = tf.assign_add(counter, 3)
with tf.Session() as sess:
    sess.run(counter.initializer)
    answer = [sess.run(step) for _ in range(5)]

# %% ex05_3
with tf.Graph().as_default():
    w = tf.Variable(1.0, name='w')
    step = tf.Variable(0, trainable=False, name='step')
    z = tf.Variable(0.5, name='z', collections=[tf.GraphKeys.LOCAL_VARIABLES])
    answer = {"global": [v.name for v in tf.global_variables()],
              "trainable": [v.name for v in tf.trainable_variables()],
              "local": [v.name for v in tf.local_variables()]}

# %% ex05_4
v = tf.Variable(1.0)
add4 = tf.assign_add(v, 4.0)
with tf.Session() as first, tf.Session() as second:
    first.run(v.initializer)
    second.run(v.initializer)
    first.run(add4)
    answer = [first.run(v), second.run(v)]
