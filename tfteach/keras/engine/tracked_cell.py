"""A `tf.nn.rnn_cell` cell kept as an attribute of a Keras layer or model.

In TF 1.15 the tf.nn cells (`BasicLSTMCell`, `GRUCell`, ...) are layers, so a subclassed
`tf.keras.Model` that keeps one as an attribute (note 002's character RNN:
`self.cell = tf.nn.rnn_cell.BasicLSTMCell(256)`) counts the cell's variables among its
own: `model.variables` holds them and the tape trains them. tfteach's cells are plain
TF1 objects (tfteach/nn/), so a Keras layer tracks one through this small Layer that
answers for it: its weights are the cell's (made by the cell's first call), it has no
updates or losses of its own.
"""
from tfteach.keras.engine.base_layer import Layer

__all__ = ["TrackedCell", "is_rnn_cell"]


def is_rnn_cell(value):
    from tfteach.nn.rnn_cell_base import RNNCell
    return isinstance(value, RNNCell)


class TrackedCell(Layer):
    def __init__(self, cell):
        self.cell = cell          # (set before Layer.__init__: not a tracked sublayer)
        super().__init__(name=cell.name, trainable=cell.trainable)

    built = property(lambda self: self.cell.built, lambda self, value: None)

    @property
    def trainable(self):
        return self.cell.trainable

    @trainable.setter
    def trainable(self, value):
        self.cell.trainable = value

    @property
    def trainable_weights(self):
        return self.cell.trainable_weights

    @property
    def non_trainable_weights(self):
        weights = self.cell.non_trainable_weights
        if not self.cell.trainable:
            weights = list(self.cell._trainable_weights) + weights
        return weights

    def __repr__(self):
        return "<tracked %s cell %r>" % (type(self.cell).__name__, self.cell.name)
