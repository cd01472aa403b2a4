"""Solutions of lessons/17_batch_norm_and_dropout.ipynb (tests/test_lessons.py runs them)."""

# %% ex17_1
with tf.Graph().as_default():
    x = tf.constant([[1., 2.], [3., 6.], [5., 10.], [7., 2.]])
    y = tf.layers.batch_normalization(x, training=True, momentum=0.9)
    moving = [v for v in tf.global_variables() if 'moving' in v.name]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.get_collection(tf.GraphKeys.UPDATE_OPS))
        answer = sess.run(moving)

# %% ex17_2
with tf.Session() as sess:
    out = sess.run(tf.nn.dropout(tf.ones([1000]), keep_prob=0.25))
answer = sorted(float(v) for v in np.unique(out))

# %% ex17_3
with tf.Graph().as_default():
    x = tf.placeholder(tf.float32, [None, 8, 8, 3])
    conv = tf.layers.conv2d(x, 4, 3)
    batch_norm(conv, training=True, data_format='channels_last')
    trainable = set(tf.trainable_variables())
    answer = sorted(v.name for v in tf.global_variables() if v not in trainable)
