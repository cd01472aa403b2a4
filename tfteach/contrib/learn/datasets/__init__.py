"""`tf.contrib.learn.datasets`: `load_dataset(name)` and the MNIST reader behind it.

As in TF 1.15, `load_dataset("mnist")` is `mnist.read_data_sets("MNIST-data")` with its
defaults: train / validation / test DataSets of float32 images in [0, 1] and uint8 labels
(input_data.py says where the files are found, and what happens when only the course's
10,000-image test set is on the machine). The other names of TF's table ("iris",
"boston": CSV files shipped inside TensorFlow's wheel; "dbpedia": a download) are not in
tfteach: asking for them says so, instead of TF's ValueError for an unknown name.
"""
from tfteach.contrib.learn.datasets import base, mnist

__all__ = ["load_dataset", "DATASETS", "base", "mnist"]


def _not_in_tfteach(name):
    def load(*args, **kwargs):
        raise NotImplementedError(
            "tf.contrib.learn.datasets.load_dataset(%r): TensorFlow 1.15 ships this dataset "
            "inside its wheel, tfteach does not. tfteach has 'mnist'." % name)
    return load


# TF's table of names, the loaders tfteach has and those it has not.
DATASETS = {
    "iris": _not_in_tfteach("iris"),
    "boston": _not_in_tfteach("boston"),
    "mnist": mnist.load_mnist,
    "dbpedia": _not_in_tfteach("dbpedia"),
}


def load_dataset(name, size="small", test_with_fake_data=False):
    """The dataset `name` ("mnist"), as TF 1.15's `load_dataset`; ValueError for a name
    not in TF's table, with TF's words."""
    if name not in DATASETS:
        raise ValueError("Name of dataset is not found: %s" % name)
    if name == "dbpedia":
        return DATASETS[name](size, test_with_fake_data)
    return DATASETS[name]()
