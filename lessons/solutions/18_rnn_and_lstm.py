"""Solutions of lessons/18_rnn_and_lstm.ipynb (tests/test_lessons.py runs them)."""

# %% ex18_1
state = np.zeros(2)
for xi in [1, 2, 3]:
    state = np.tanh(np.dot(state, w_cell_state) + xi * w_cell_input + b_cell)
    final_output = np.dot(state, w_output) + b_output
answer = float(final_output.ravel()[0])

# %% ex18_2
with tf.Graph().as_default():
    cell = rnn.MultiRNNCell([rnn.BasicLSTMCell(4), rnn.BasicLSTMCell(6)])
    outs, st = tf.nn.dynamic_rnn(cell, tf.ones([5, 7, 3]), dtype=tf.float32)
    n = sum(int(np.prod(v.shape.as_list())) for v in tf.trainable_variables())
    answer = [outs.shape.as_list(), st[-1].h.shape.as_list(), n]

# %% ex18_3
def lstm_parameters(time_steps, depth):
    with tf.Graph().as_default():
        cell = rnn.MultiRNNCell([rnn.BasicLSTMCell(num_units=30) for _ in range(2)])
        tf.nn.dynamic_rnn(cell, tf.placeholder(tf.float32, [None, time_steps, depth]), dtype=tf.float32)
        return sum(int(np.prod(v.shape.as_list())) for v in tf.trainable_variables())
answer = [lstm_parameters(1, 10), lstm_parameters(10, 1)]
