# Solutions of lessons/13_mnist_best_practice.ipynb (tests/test_lessons.py runs them in place of the
# exercise cells; a teacher can paste a section into the student's cell).

# %% ex13_1
answer = int(np.sum(np.argmax(mnist.test.labels, axis=1) == 7))

# %% ex13_2
tf.reset_default_graph()
inference(tf.placeholder(tf.float32, [None, INPUT_NODE]), None)
answer = int(sum(np.prod(v.shape.as_list()) for v in tf.trainable_variables()))

# %% ex13_3
with tf.Graph().as_default():
    inference(tf.placeholder(tf.float32, [None, INPUT_NODE]), None)
    mapping = tf.train.ExponentialMovingAverage(MOVING_AVERAGE_DECAY).variables_to_restore()
    answer = [name for name, v in mapping.items() if v.op.name == 'layer2/biases'][0]
