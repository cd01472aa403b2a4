"""`fit`, `evaluate` and `predict` reading a `tf.data.Dataset`, as TF 1.15's Keras does.

Each element of the dataset is a batch: `(x, y)` for fit and evaluate (`x` for predict;
a `y` there is ignored). Without `steps_per_epoch` an epoch is one whole pass (a new
iterator each epoch, its length unknown until the end: the progress bar counts steps);
with it, the epochs take that many batches in turn from one iterator, and an iterator
that runs out ends training, as in TF. Executing eagerly the dataset is iterated
directly; in a graph, one initializable iterator per dataset runs in Keras' Session.
"""
import numpy as np

from tfteach.framework.errors import OutOfRangeError
from tfteach.keras import backend

__all__ = ["is_dataset", "DatasetBatches"]


def is_dataset(x):
    from tfteach.data.dataset_ops import DatasetV1
    return isinstance(x, DatasetV1)


def _numpy(value):
    if isinstance(value, dict):
        return {k: _numpy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_numpy(v) for v in value)
    return np.asarray(value)


class DatasetBatches:
    """The batches of one dataset, as NumPy `(x, y)` pairs."""

    def __init__(self, dataset):
        self._dataset = dataset
        self._current = None            # the iterator that steps_per_epoch continues
        self._graph_iterator = None     # graph mode: (initializer, next element)

    def _elements(self):
        """A new pass: a generator of the elements as NumPy structures."""
        if backend.executing_eagerly():
            return (_numpy(element) for element in self._dataset)
        return self._graph_pass()

    def _graph_pass(self):
        if self._graph_iterator is None:
            from tfteach.data.iterator_ops import make_initializable_iterator
            iterator = make_initializable_iterator(self._dataset)
            self._graph_iterator = (iterator.initializer, iterator.get_next())
        initializer, next_element = self._graph_iterator
        session = backend.get_session()
        session.run(initializer)
        while True:
            try:
                yield session.run(next_element)
            except OutOfRangeError:
                return

    def epoch(self, steps=None):
        """The elements of one epoch: a whole pass, or `steps` of a continuing one."""
        if steps is None:
            yield from self._elements()
            return
        for _ in range(steps):
            if self._current is None:
                self._current = self._elements()
            try:
                yield next(self._current)
            except StopIteration:
                self._current = None
                return


def split(element):
    """(x, y) of one element: a pair, or x alone."""
    if isinstance(element, tuple) and len(element) in (2, 3):
        if len(element) == 3:
            raise NotImplementedError("tfteach's Keras has no sample weights yet: the "
                                      "dataset's elements must be (x, y)")
        return element[0], element[1]
    return element, None
