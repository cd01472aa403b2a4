"""The notes' models, built with whichever library is passed in (`tfteach` or TF's
`tf.compat.v1`), for the GraphDef / meta graph / frozen graph tests in both directions.

Each builder returns a dict: `inputs` (placeholder names -> feed value), `outputs`
(tensor names to compare), `train` (the training op's name) and `init`. Seeds are fixed,
but the tests never rely on two libraries drawing the same random numbers: weights are
copied from one session into the other by name.
"""
import numpy as np

RNG = np.random.RandomState(0)
X_REG = RNG.rand(8, 2).astype(np.float32)
Y_REG = (X_REG @ np.array([[1.0], [2.0]], np.float32) + 0.5).astype(np.float32)
X_MNIST = RNG.rand(4, 784).astype(np.float32)
Y_MNIST = np.eye(10, dtype=np.float32)[[3, 1, 4, 1]]
X_IMAGE = RNG.rand(2, 28, 28, 1).astype(np.float32)
X_SEQ = RNG.rand(3, 4, 2).astype(np.float32)     # batch 3, 4 steps, 2 features


def linear_regression(tf):
    """The notes' linear regression: y = x W + b, MSE, gradient descent."""
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    w = tf.Variable(tf.random_normal([2, 1], stddev=1, seed=1), name="w")
    b = tf.Variable(tf.zeros([1]), name="b")
    pred = tf.add(tf.matmul(x, w), b, name="pred")
    loss = tf.reduce_mean(tf.square(pred - y), name="loss")
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, name="train")
    init = tf.global_variables_initializer()
    return dict(inputs={"x:0": X_REG, "y:0": Y_REG}, outputs=["pred:0", "loss:0"],
                train=train.name, init=init.name)


def mnist_mlp(tf):
    """The notes' MNIST best practice: 784-500-10 MLP, L2, EMA shadows, global step."""
    x = tf.placeholder(tf.float32, [None, 784], name="x-input")
    y_ = tf.placeholder(tf.float32, [None, 10], name="y-input")
    with tf.variable_scope("layer1"):
        w1 = tf.get_variable("weights", [784, 50],
                             initializer=tf.truncated_normal_initializer(stddev=0.1, seed=2))
        b1 = tf.get_variable("biases", [50], initializer=tf.constant_initializer(0.1))
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
    with tf.variable_scope("layer2"):
        w2 = tf.get_variable("weights", [50, 10],
                             initializer=tf.truncated_normal_initializer(stddev=0.1, seed=3))
        b2 = tf.get_variable("biases", [10], initializer=tf.constant_initializer(0.1))
        logits = tf.add(tf.matmul(h, w2), b2, name="logits")
    global_step = tf.Variable(0, trainable=False, name="global_step")
    ema = tf.train.ExponentialMovingAverage(0.99, global_step)
    ce = tf.nn.sparse_softmax_cross_entropy_with_logits(logits=logits,
                                                        labels=tf.argmax(y_, 1))
    loss = tf.add(tf.reduce_mean(ce), 1e-4 * (tf.nn.l2_loss(w1) + tf.nn.l2_loss(w2)),
                  name="loss")
    step = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=global_step)
    # The notes group the step and the averages in one control_dependencies block, which
    # lets the averages read the weights before or after the step (a race in TF too);
    # here the averages follow the step, so both libraries compute the same numbers.
    with tf.control_dependencies([step]):
        ema_op = ema.apply(tf.trainable_variables())
    with tf.control_dependencies([ema_op]):
        train = tf.no_op(name="train")
    correct = tf.equal(tf.argmax(logits, 1), tf.argmax(y_, 1))
    tf.reduce_mean(tf.cast(correct, tf.float32), name="accuracy")
    init = tf.global_variables_initializer()
    return dict(inputs={"x-input:0": X_MNIST, "y-input:0": Y_MNIST},
                outputs=["layer2/logits:0", "loss:0", "accuracy:0"], train=train.name,
                init=init.name)


def lenet5(tf):
    """The notes' LeNet-5 (smaller depths): conv-pool-conv-pool-fc-fc, SAME padding."""
    x = tf.placeholder(tf.float32, [None, 28, 28, 1], name="x")
    with tf.variable_scope("layer1-conv1"):
        w = tf.get_variable("weight", [5, 5, 1, 4],
                            initializer=tf.truncated_normal_initializer(stddev=0.1, seed=4))
        b = tf.get_variable("bias", [4], initializer=tf.constant_initializer(0.0))
        relu1 = tf.nn.relu(tf.nn.bias_add(
            tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME"), b))
    with tf.name_scope("layer2-pool1"):
        pool1 = tf.nn.max_pool(relu1, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                               padding="SAME")
    with tf.variable_scope("layer3-conv2"):
        w = tf.get_variable("weight", [5, 5, 4, 8],
                            initializer=tf.truncated_normal_initializer(stddev=0.1, seed=5))
        b = tf.get_variable("bias", [8], initializer=tf.constant_initializer(0.0))
        relu2 = tf.nn.relu(tf.nn.bias_add(
            tf.nn.conv2d(pool1, w, strides=[1, 1, 1, 1], padding="SAME"), b))
    with tf.name_scope("layer4-pool2"):
        pool2 = tf.nn.max_pool(relu2, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                               padding="VALID")
    reshaped = tf.reshape(pool2, [-1, 7 * 7 * 8])
    with tf.variable_scope("layer5-fc1"):
        w = tf.get_variable("weight", [7 * 7 * 8, 10],
                            initializer=tf.truncated_normal_initializer(stddev=0.1, seed=6))
        b = tf.get_variable("bias", [10], initializer=tf.constant_initializer(0.1))
        tf.add(tf.matmul(reshaped, w), b, name="logit")
    tf.nn.softmax(tf.get_default_graph().get_tensor_by_name("layer5-fc1/logit:0"),
                  name="prob")
    init = tf.global_variables_initializer()
    return dict(inputs={"x:0": X_IMAGE}, outputs=["layer5-fc1/logit:0", "prob:0"],
                train=None, init=init.name)


def lstm(tf):
    """The notes' LSTM predictor, unrolled with static_rnn (BasicLSTMCell, 8 units)."""
    x = tf.placeholder(tf.float32, [3, 4, 2], name="x")
    cell = _rnn_cells(tf).BasicLSTMCell(8)
    steps = tf.unstack(x, axis=1)
    outputs, _ = tf.nn.static_rnn(cell, steps, dtype=tf.float32)
    w = tf.Variable(tf.truncated_normal([8, 1], stddev=0.1, seed=7), name="out_w")
    tf.matmul(outputs[-1], w, name="prediction")
    init = tf.global_variables_initializer()
    return dict(inputs={"x:0": X_SEQ}, outputs=["prediction:0"], train=None,
                init=init.name)


def _rnn_cells(tf):
    """tf.nn.rnn_cell; TensorFlow 2 keeps the TF1 cells in its legacy_rnn module."""
    if tf.__name__.startswith("tfteach"):
        return tf.nn.rnn_cell
    from tensorflow.python.keras.layers.legacy_rnn import rnn_cell_impl
    return rnn_cell_impl


MODELS = {"linear_regression": linear_regression, "mnist_mlp": mnist_mlp,
          "lenet5": lenet5, "lstm": lstm}


def variable_values(tf, sess, graph):
    """{variable op name: value} of every global variable in `graph`."""
    with graph.as_default():
        variables = tf.global_variables()
    return dict(zip([v.op.name for v in variables], sess.run(variables)))


def load_values(tf, sess, graph, values):
    """Assigns `values` ({variable op name: array}) to `graph`'s variables in `sess`."""
    with graph.as_default():
        for v in tf.global_variables():
            v.load(values[v.op.name], sess)
