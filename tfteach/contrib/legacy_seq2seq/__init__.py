"""`tf.contrib.legacy_seq2seq`: for now its losses (seq2seq.py)."""
from tfteach.contrib.legacy_seq2seq import seq2seq
from tfteach.contrib.legacy_seq2seq.seq2seq import *  # noqa: F401,F403

__all__ = list(seq2seq.__all__)
