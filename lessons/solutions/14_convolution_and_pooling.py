"""Solutions of lessons/14_convolution_and_pooling.ipynb (tests/test_lessons.py runs them)."""

# %% ex14_1
x28 = tf.zeros([1, 28, 28, 1])
f5 = tf.zeros([5, 5, 1, 1])
answer = [tf.nn.conv2d(x28, f5, [1, 2, 2, 1], p).shape.as_list()[1] for p in ('SAME', 'VALID')]

# %% ex14_2
def pads(W, F, S):
    new = -(-W // S)
    needed = max((new - 1) * S + F - W, 0)
    return needed // 2, needed - needed // 2
top, bottom = pads(7, 4, 2)
left, right = pads(8, 3, 2)
answer = (top, bottom, left, right)
image = np.random.RandomState(2).rand(1, 7, 8, 1).astype(np.float32)
kernel = np.random.RandomState(3).rand(4, 3, 1, 1).astype(np.float32)
with tf.Session() as sess:
    s, p = sess.run([tf.nn.conv2d(image, kernel, [1, 2, 2, 1], 'SAME'),
                     tf.nn.conv2d(tf.pad(image, [[0, 0], [top, bottom], [left, right], [0, 0]]),
                                  kernel, [1, 2, 2, 1], 'VALID')])
print(np.abs(s - p).max())    # 0.0

# %% ex14_3
tt = np.arange(48).reshape([-1, 4, 4, 3]).astype(np.float32)
with tf.Session() as sess:
    pooled = sess.run(tf.nn.max_pool(tt, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding='SAME'))
answer = pooled[0, :, :, 0]

# %% ex14_4
with tf.Graph().as_default():
    x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    w1 = tf.get_variable('w1', [5, 5, 1, 32]); b1 = tf.get_variable('b1', [32])
    h = tf.nn.max_pool(tf.nn.relu(tf.nn.conv2d(x, w1, [1, 1, 1, 1], 'SAME') + b1), [1, 2, 2, 1], [1, 2, 2, 1], 'SAME')
    w2 = tf.get_variable('w2', [5, 5, 32, 64]); b2 = tf.get_variable('b2', [64])
    h2 = tf.nn.conv2d(h, w2, [1, 1, 1, 1], 'SAME') + b2
    answer = sum(int(np.prod(v.shape.as_list())) for v in tf.trainable_variables())
