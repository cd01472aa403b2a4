"""`tf.contrib.learn` (TF 1.15's, which TF 2 removed): the part the course notes use.

Note 002's MLP (§6.4) reads MNIST with `tf.contrib.learn.datasets.load_dataset("mnist")`;
that is `datasets` here. contrib.learn's estimators (`DNNClassifier`, `SKCompat`, ...)
were deprecated in TF 1.x in favour of `tf.estimator`, which tfteach has.
"""
from tfteach.contrib.learn import datasets  # noqa: F401

__all__ = ["datasets"]
