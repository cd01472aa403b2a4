"""Compiles the engine's common kernels once at image build time (binder/postBuild).

tfteach's Numba kernels are `cache=True`: compiled machine code is stored on disk next to
the modules (or in NUMBA_CACHE_DIR) and reused by every later process of the same image.
Running small versions of what the lessons do (float32 dense layers, activations,
losses, the optimizers, convolution and pooling, random initialisers, control flow) fills
that cache, so a student's first training cell does not wait for compilation.
Prints how long it took; a second run (cache warm) takes a fraction of the first.
"""
import time

import numpy as np

import tfteach as tf


def dense_training(optimizer):
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        y = tf.placeholder(tf.float32, [None, 3], name="y")
        w1 = tf.Variable(tf.truncated_normal([4, 8], stddev=0.1))
        b1 = tf.Variable(tf.zeros([8]))
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
        h = tf.nn.sigmoid(h) + tf.nn.tanh(h)
        w2 = tf.Variable(tf.random_normal([8, 3], stddev=0.1))
        logits = tf.matmul(h, w2)
        loss = (tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
                + tf.reduce_mean(tf.square(logits - y))
                + tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits)))
        step = optimizer.minimize(loss)
        accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), tf.argmax(y, 1)),
                                          tf.float32))
        rng = np.random.RandomState(0)
        xs = rng.rand(16, 4).astype(np.float32)
        ys = np.eye(3, dtype=np.float32)[rng.randint(0, 3, 16)]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run([step, loss, accuracy], {x: xs, y: ys})


def conv_training():
    g = tf.Graph()
    with g.as_default():
        images = tf.placeholder(tf.float32, [None, 28, 28, 1])
        labels = tf.placeholder(tf.int64, [None])
        k = tf.Variable(tf.truncated_normal([5, 5, 1, 4], stddev=0.1))
        c = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(images, k, [1, 1, 1, 1], "SAME"),
                                      tf.Variable(tf.zeros([4]))))
        p = tf.nn.max_pool(c, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        p = tf.nn.avg_pool(p, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        flat = tf.reshape(p, [-1, 7 * 7 * 4])
        logits = tf.layers.dense(tf.nn.dropout(flat, keep_prob=0.9), 10)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits))
        step = tf.train.AdamOptimizer(1e-3).minimize(loss)
        rng = np.random.RandomState(0)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(2):
                sess.run([step, loss], {images: rng.rand(8, 28, 28, 1).astype(np.float32),
                                        labels: rng.randint(0, 10, 8)})


def control_flow():
    g = tf.Graph()
    with g.as_default():
        i = tf.constant(0)
        total = tf.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + tf.cast(i, tf.float32)),
                              [i, tf.constant(0.0)])
        r = tf.cond(total[1] > 3.0, lambda: total[1] * 2.0, lambda: total[1])
        with tf.Session() as sess:
            sess.run(r)


def main():
    start = time.perf_counter()
    for opt in (tf.train.GradientDescentOptimizer(0.1), tf.train.MomentumOptimizer(0.1, 0.9),
                tf.train.AdamOptimizer(0.01), tf.train.AdagradOptimizer(0.1),
                tf.train.RMSPropOptimizer(0.01), tf.train.AdadeltaOptimizer(1.0)):
        dense_training(opt)
    conv_training()
    control_flow()
    print("warmed Numba's cache in %.1f s" % (time.perf_counter() - start))


if __name__ == "__main__":
    main()
