"""Solutions of lessons/16_deconvolution_and_slim.ipynb (tests/test_lessons.py runs them)."""

# %% ex16_1
f3 = tf.zeros([3, 3, 1, 1])
answer = [W for W in range(3, 21)
          if tf.nn.conv2d(tf.zeros([1, W, W, 1]), f3, [1, 3, 3, 1], 'VALID').shape.as_list()[1] == 4]

# %% ex16_2
inp = np.array([[1, 2], [3, 4]], np.float32).reshape(1, 2, 2, 1)
filt = np.array([[1, 0], [0, 1]], np.float32).reshape(2, 2, 1, 1)
with tf.Session() as sess:
    answer = sess.run(tf.nn.conv2d_transpose(inp, filt, [1, 3, 3, 1], [1, 1, 1, 1], 'VALID'))[0, :, :, 0]

# %% ex16_3
with tf.Graph().as_default():
    x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    net = slim.conv2d(x, 6, 5, scope='conv1')
    net = slim.max_pool2d(net, 2)
    net = slim.fully_connected(slim.flatten(net), 10, activation_fn=None, scope='logits')
    answer = [v.name for v in tf.trainable_variables()]

# %% ex16_4
answer = sum(int(np.prod(v.shape.as_list())) for v in tf.trainable_variables())
