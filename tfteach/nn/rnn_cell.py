"""`tf.nn.rnn_cell`: the RNN cells (defined in rnn_cell_impl.py)."""
from tfteach.nn.rnn_cell_impl import *  # noqa: F401,F403
