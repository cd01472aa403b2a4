"""`tf.contrib.learn.datasets.mnist`: TF 1.15's MNIST reader, which the tutorials'
`input_data` re-exported (tfteach's is examples/tutorials/mnist/input_data.py)."""
from tfteach.datasets.fetch import BASE_URL as DEFAULT_SOURCE_URL  # TF 1.15's mirror
from tfteach.examples.tutorials.mnist.input_data import (DataSet,  # noqa: F401
                                                         dense_to_one_hot, read_data_sets)

__all__ = ["DataSet", "read_data_sets", "dense_to_one_hot", "load_mnist",
           "DEFAULT_SOURCE_URL"]


def load_mnist(train_dir="MNIST-data"):
    """`read_data_sets(train_dir)` with its defaults, as TF 1.15's `load_mnist`."""
    return read_data_sets(train_dir)
