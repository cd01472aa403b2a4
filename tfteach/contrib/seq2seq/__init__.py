"""`tf.contrib.seq2seq`: for now `sequence_loss` (loss.py)."""
from tfteach.contrib.seq2seq import loss
from tfteach.contrib.seq2seq.loss import *  # noqa: F401,F403

__all__ = list(loss.__all__)
