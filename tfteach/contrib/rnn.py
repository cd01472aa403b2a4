"""`tf.contrib.rnn` (TF 1.15): the RNN cells and static RNNs under their older home.

Old tutorials write `tf.contrib.rnn.BasicLSTMCell(...)` and `tf.contrib.rnn.static_rnn`;
these are the very same classes and functions as `tf.nn.rnn_cell.*` and `tf.nn.*`.
"""
from tfteach.nn.rnn import static_bidirectional_rnn, static_rnn
from tfteach.nn.rnn_cell_impl import (BasicLSTMCell, BasicRNNCell, DeviceWrapper,
                                      DropoutWrapper, GRUCell, LayerRNNCell, LSTMCell,
                                      LSTMStateTuple, MultiRNNCell, ResidualWrapper, RNNCell)

__all__ = ["RNNCell", "LayerRNNCell", "BasicRNNCell", "BasicLSTMCell", "GRUCell",
           "LSTMCell", "LSTMStateTuple", "MultiRNNCell", "DropoutWrapper",
           "ResidualWrapper", "DeviceWrapper", "static_rnn", "static_bidirectional_rnn"]
