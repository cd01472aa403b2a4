"""`tf.contrib.learn.datasets.base`: the named tuples the dataset loaders return."""
import collections

from tfteach.examples.tutorials.mnist.input_data import Datasets

__all__ = ["Dataset", "Datasets"]

Dataset = collections.namedtuple("Dataset", ["data", "target"])
