"""The notes' training programs converge with tfteach as they do with TensorFlow.

Linear regression reaches W≈3, b≈2; XOR with a hidden layer reaches 100% accuracy from
a fixed seed; softmax regression on the real MNIST test set (train on 8,000 images, test
on the other 2,000) reaches the accuracy the notes report (about 0.92).
"""
import numpy as np
import pytest

import tfteach as tf
from tfteach.datasets import mnist


def test_linear_regression_finds_w_3_b_2():
    rng = np.random.RandomState(0)
    xs = rng.rand(100).astype(np.float32)
    ys = 3 * xs + 2
    x = tf.placeholder(tf.float32, [None])
    y = tf.placeholder(tf.float32, [None])
    w = tf.Variable(tf.random_uniform([1], -1.0, 1.0, seed=1))
    b = tf.Variable(tf.zeros([1]))
    loss = tf.reduce_mean(tf.square(w * x + b - y))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(500):
            sess.run(train, {x: xs, y: ys})
        w_value, b_value, final = sess.run([w, b, loss], {x: xs, y: ys})
    assert abs(w_value[0] - 3) < 1e-2 and abs(b_value[0] - 2) < 1e-2
    assert final < 1e-4


def test_xor_with_a_hidden_layer_reaches_100_percent():
    tf.set_random_seed(6)
    data = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], np.float32)
    labels = np.array([[0], [1], [1], [0]], np.float32)
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.placeholder(tf.float32, [None, 1])
    w1 = tf.Variable(tf.random_normal([2, 8], stddev=1.0))
    b1 = tf.Variable(tf.zeros([8]))
    w2 = tf.Variable(tf.random_normal([8, 1], stddev=1.0))
    b2 = tf.Variable(tf.zeros([1]))
    hidden = tf.tanh(tf.matmul(x, w1) + b1)
    logits = tf.matmul(hidden, w2) + b2
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.cast(logits > 0, tf.float32), y),
                                      tf.float32))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(500):
            sess.run(train, {x: data, y: labels})
        assert sess.run(accuracy, {x: data, y: labels}) == 1.0


def mnist_split():
    if "t10k" not in mnist.available():
        pytest.skip("MNIST not found: set TFTEACH_DATA to the folder holding mnist/ "
                    "(the course's copy is ../shared/data)")
    images, labels = mnist.load("t10k")
    images = images.reshape(-1, 784).astype(np.float32) / 255.0
    one_hot = np.eye(10, dtype=np.float32)[labels]
    return (images[:8000], one_hot[:8000]), (images[8000:], one_hot[8000:])


def test_mnist_softmax_regression_reaches_the_notes_accuracy():
    (train_x, train_y), (test_x, test_y) = mnist_split()
    x = tf.placeholder(tf.float32, [None, 784])
    y_ = tf.placeholder(tf.float32, [None, 10])
    W = tf.Variable(tf.zeros([784, 10]))
    b = tf.Variable(tf.zeros([10]))
    y = tf.matmul(x, W) + b
    cross_entropy = tf.reduce_mean(
        tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=y))
    train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)
    correct = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    order = np.random.RandomState(0).permutation(8000)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for epoch in range(5):
            for start in range(0, 8000, 100):
                batch = order[start:start + 100]
                sess.run(train_step, {x: train_x[batch], y_: train_y[batch]})
        test_accuracy = sess.run(accuracy, {x: test_x, y_: test_y})
    assert 0.90 <= test_accuracy <= 0.97, test_accuracy


def test_mnist_best_practice_mlp_with_decay_l2_and_moving_averages():
    """The book's "MNIST best practice": a 500-unit ReLU layer, L2 regularisation
    collected in 'losses', an exponentially decayed learning rate and moving averages
    of the weights used for evaluation."""
    (train_x, train_y), (test_x, test_y) = mnist_split()
    x = tf.placeholder(tf.float32, [None, 784], name="x-input")
    y_ = tf.placeholder(tf.float32, [None, 10], name="y-input")
    regularizer = tf.contrib.layers.l2_regularizer(0.0001)

    def layer(name, inputs, shape, relu):
        with tf.variable_scope(name):
            weights = tf.get_variable(
                "weights", shape, initializer=tf.truncated_normal_initializer(stddev=0.1))
            tf.add_to_collection("losses", regularizer(weights))
            biases = tf.get_variable("biases", [shape[1]],
                                     initializer=tf.constant_initializer(0.1))
        out = tf.matmul(inputs, weights) + biases
        return (tf.nn.relu(out) if relu else out), (weights, biases)

    tf.set_random_seed(0)
    hidden, params1 = layer("layer1", x, [784, 500], True)
    y, params2 = layer("layer2", hidden, [500, 10], False)
    global_step = tf.Variable(0, trainable=False)
    ema = tf.train.ExponentialMovingAverage(0.99, global_step)
    ema_op = ema.apply(tf.trainable_variables())
    cross_entropy = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.argmax(y_, 1), logits=y))
    tf.add_to_collection("losses", cross_entropy)
    loss = tf.add_n(tf.get_collection("losses"))
    learning_rate = tf.train.exponential_decay(0.8, global_step, 80, 0.99, staircase=True)
    train_step = tf.train.GradientDescentOptimizer(learning_rate).minimize(
        loss, global_step=global_step)
    with tf.control_dependencies([train_step, ema_op]):
        train_op = tf.no_op(name="train")

    def averaged(inputs):
        (w1, b1), (w2, b2) = params1, params2
        h = tf.nn.relu(tf.matmul(inputs, ema.average(w1)) + ema.average(b1))
        return tf.matmul(h, ema.average(w2)) + ema.average(b2)

    correct = tf.equal(tf.argmax(averaged(x), 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    order = np.random.RandomState(1).permutation(8000)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(4):
            for start in range(0, 8000, 100):
                batch = order[start:start + 100]
                sess.run(train_op, {x: train_x[batch], y_: train_y[batch]})
        assert sess.run(global_step) == 320
        test_accuracy = sess.run(accuracy, {x: test_x, y_: test_y})
    assert test_accuracy > 0.93, test_accuracy
