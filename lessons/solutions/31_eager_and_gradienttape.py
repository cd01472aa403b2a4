# %% ex31_1
m = tf.constant([[1.0, 2.0], [3.0, 4.0]])
answer = tf.reduce_sum(tf.matmul(m, m)).numpy()


# %% ex31_2
x = tf.constant(0.5)
with tf.GradientTape() as outer:
    outer.watch(x)
    with tf.GradientTape() as inner:
        inner.watch(x)
        y = tf.sin(x)
    dy = inner.gradient(y, x)
answer = outer.gradient(dy, x).numpy()


# %% ex31_3
w = tf.Variable(0.0)
for _ in range(50):
    with tf.GradientTape() as tape:
        loss = tf.square(w - 3.0)
    w.assign_sub(0.1 * tape.gradient(loss, w))
answer = round(float(w.numpy()), 3)
