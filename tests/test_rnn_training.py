"""Training recurrent networks end to end: gradients through tf.nn.dynamic_rnn's loop.

1. The notes' sin-curve example: an LSTM reads the previous 10 samples of sin(t) and
   predicts the next one; the test error must fall far below that of "repeat the last
   value".
2. A tiny PTB-style character language model: embedding -> LSTM (state carried from
   one batch to the next, fed through the zero state's tensors) -> softmax; its
   perplexity must drop clearly from the vocabulary size.
"""
import numpy as np

import tfteach as tf

TIMESTEPS = 10
SAMPLE_GAP = 0.3          # radians between samples: the last value alone is a poor guess


def sin_windows(start, count):
    """X [count, TIMESTEPS, 1]: windows of sin; y [count, 1]: the value after each."""
    seq = np.sin(np.arange(start, start + count + TIMESTEPS) * SAMPLE_GAP)
    x = np.stack([seq[i:i + TIMESTEPS] for i in range(count)])[..., None]
    y = seq[TIMESTEPS:TIMESTEPS + count, None]
    return x.astype(np.float32), y.astype(np.float32)


def test_lstm_learns_the_sin_curve():
    tf.set_random_seed(0)
    rng = np.random.RandomState(0)
    train_x, train_y = sin_windows(0, 2000)
    test_x, test_y = sin_windows(2000 + TIMESTEPS, 500)

    x = tf.placeholder(tf.float32, [None, TIMESTEPS, 1])
    y = tf.placeholder(tf.float32, [None, 1])
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(16) for _ in range(2)])
    outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    last = outputs[:, -1, :]                                  # the output after step 10
    w = tf.get_variable("w", [16, 1])
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    predictions = tf.matmul(last, w) + b
    loss = tf.losses.mean_squared_error(labels=y, predictions=predictions)
    train_op = tf.train.AdamOptimizer(0.01).minimize(loss)

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run(loss, {x: test_x, y: test_y})
        for _ in range(300):
            batch = rng.randint(0, len(train_x), 32)
            sess.run(train_op, {x: train_x[batch], y: train_y[batch]})
        test_mse = sess.run(loss, {x: test_x, y: test_y})
    naive_mse = np.mean((test_x[:, -1] - test_y) ** 2)       # "repeat the last value"
    assert test_mse < 0.01, (before, test_mse)
    assert test_mse < naive_mse / 4, (test_mse, naive_mse)


CORPUS = (
    "the cat sat on the mat . the dog sat on the log . "
    "a cat and a dog sat on a mat . the cat ran to the dog . "
    "the dog ran to the cat . a dog and a cat ran on the log . "
) * 6


def test_char_language_model_perplexity_drops():
    tf.set_random_seed(1)
    vocab = sorted(set(CORPUS))
    ids = np.array([vocab.index(ch) for ch in CORPUS], dtype=np.int32)
    batch_size, num_steps, hidden = 4, 12, 48
    # PTB's reader: batch_size parallel streams, cut into windows of num_steps.
    batch_len = len(ids) // batch_size
    data = ids[:batch_size * batch_len].reshape(batch_size, batch_len)
    epoch_size = (batch_len - 1) // num_steps

    inputs = tf.placeholder(tf.int32, [batch_size, num_steps])
    targets = tf.placeholder(tf.int32, [batch_size, num_steps])
    embedding = tf.get_variable("embedding", [len(vocab), 16])
    cell = tf.nn.rnn_cell.BasicLSTMCell(hidden)
    initial_state = cell.zero_state(batch_size, tf.float32)
    outputs, final_state = tf.nn.dynamic_rnn(cell, tf.nn.embedding_lookup(embedding, inputs),
                                             initial_state=initial_state)
    softmax_w = tf.get_variable("softmax_w", [hidden, len(vocab)])
    softmax_b = tf.get_variable("softmax_b", [len(vocab)], initializer=tf.zeros_initializer())
    logits = tf.matmul(tf.reshape(outputs, [-1, hidden]), softmax_w) + softmax_b
    cost = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.reshape(targets, [-1]), logits=logits))
    optimizer = tf.train.AdamOptimizer(0.01)
    grads, _ = tf.clip_by_global_norm(tf.gradients(cost, tf.trainable_variables()), 5.0)
    train_op = optimizer.apply_gradients(zip(grads, tf.trainable_variables()))

    def run_epoch(sess, op):
        state = sess.run(initial_state)
        total = 0.0
        for step in range(epoch_size):
            window = slice(step * num_steps, (step + 1) * num_steps)
            shifted = slice(step * num_steps + 1, (step + 1) * num_steps + 1)
            feed = {inputs: data[:, window], targets: data[:, shifted],
                    initial_state.c: state.c, initial_state.h: state.h}
            loss, state, _ = sess.run([cost, final_state, op], feed)
            total += loss
        return float(np.exp(total / epoch_size))

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = run_epoch(sess, tf.no_op())
        for _ in range(8):
            run_epoch(sess, train_op)
        last = run_epoch(sess, tf.no_op())
    assert first > 0.7 * len(vocab), first             # untrained: about uniform
    assert last < 3.0, (first, last)
