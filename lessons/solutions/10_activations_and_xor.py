# Solutions of lessons/10_activations_and_xor.ipynb (tests/test_lessons.py runs them in place of the
# exercise cells; a teacher can paste a section into the student's cell).

# %% ex10_1
p = tf.placeholder(tf.float32, [4])
parts = [tf.sigmoid(p[0]), tf.tanh(p[1]), tf.nn.relu(p[2]), tf.nn.relu(p[3])]
grad = tf.gradients(tf.add_n(parts), p)[0]
with tf.Session() as sess:
    answer = [float(g) for g in sess.run(grad, {p: [0.0, 0.0, -1.0, 2.0]})]

# %% ex10_2
W1 = tf.constant([[1.0, 1.0], [1.0, 1.0]])   # h1 = relu(x1 + x2), h2 = relu(x1 + x2 - 1)
b1 = tf.constant([0.0, -1.0])
W2 = tf.constant([[1.0], [-2.0]])            # out = h1 - 2 h2
b2 = tf.constant([0.0])
out = tf.matmul(tf.nn.relu(tf.matmul(tf.constant(xor_X), W1) + b1), W2) + b2
with tf.Session() as sess:
    answer = [float(v) for v in sess.run(out).ravel()]

# %% ex10_3
answer = int(sum(np.prod(v.shape.as_list()) for v in tf.trainable_variables(scope='hidden_layer')))
