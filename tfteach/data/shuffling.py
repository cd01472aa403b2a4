"""`Dataset.shuffle`: TF's buffer shuffle, with TF 1.15's seed rules.

The two seeds come from `tf.set_random_seed` and the `seed` argument as for every random
op (`random_ops.get_seed`); both unset means fresh entropy. The order of a pass is drawn
from a generator seeded per pass: with `reshuffle_each_iteration` (the default) every
pass (each epoch of a later `repeat`) takes the next seed of a sequence that starts
again at each initialisation of an iterator — so a seeded program gives the same orders
after every re-initialisation and in every new Session, as TF's does (checked against
TensorFlow); without it, every pass takes the same order. The numbers are
NumPy's, not TF's Philox: the same seed gives a different (equally random) order than
TensorFlow's.
"""
import threading

import numpy as np

from tfteach.data import streams
from tfteach.data.dataset_ops import dataset_op, int64_scalar
from tfteach.ops import random_ops

__all__ = ["shuffle"]


class _Seeds:
    """The per-pass seeds of one shuffle op in one Session."""

    def __init__(self, seed, seed2, reshuffle):
        entropy = None if seed == 0 and seed2 == 0 else [int(seed), int(seed2)]
        self._sequence = np.random.SeedSequence(entropy)
        self._first = int(self._sequence.generate_state(1)[0])
        self._reshuffle = reshuffle
        self._source = np.random.default_rng(self._sequence)
        self._lock = threading.Lock()

    def next_seed(self):
        if not self._reshuffle:
            return self._first
        with self._lock:
            return int(self._source.integers(2 ** 63))


def shuffle(dataset, buffer_size, seed=None, reshuffle_each_iteration=None):
    reshuffle = True if reshuffle_each_iteration is None else bool(reshuffle_each_iteration)
    seed, seed2 = random_ops.get_seed(seed)
    inputs = [dataset._variant, int64_scalar(buffer_size, "buffer_size"),
              int64_scalar(seed or 0, "seed"), int64_scalar(seed2 or 0, "seed2")]

    def make(ctx, stream, size, first, second):
        # A new sequence of seeds at each initialisation (TF keeps its seed generator in
        # the iterator's state, made anew by MakeIterator).
        return streams.Shuffle(stream, size, _Seeds(first, second, reshuffle).next_seed)

    return dataset_op("ShuffleDataset", inputs, dataset._structure, make,
                      {"reshuffle_each_iteration": reshuffle})
