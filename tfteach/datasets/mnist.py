"""MNIST from the folder named by the environment variable TFTEACH_DATA.

`$TFTEACH_DATA/mnist/` holds the IDX files (`t10k-images-idx3-ubyte.gz`, ...). The
course's shared copy has only the 10,000-image test set, so lessons and tests split it
(e.g. 8,000 to train, 2,000 to test); `available()` says what is there. `cache_dir()` is
where `read_data_sets` keeps the copy it downloads when MNIST is nowhere else.
"""
import os

import numpy as np

from tfteach.datasets.idx import read_idx

__all__ = ["data_dir", "available", "load", "paths", "FILES", "cache_dir"]

FILES = {
    "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    "t10k": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}


def data_dir(directory=None):
    """The MNIST folder: `directory` if given, else `$TFTEACH_DATA/mnist`."""
    if directory is not None:
        return directory
    root = os.environ.get("TFTEACH_DATA")
    if not root:
        raise FileNotFoundError(
            "MNIST not found: set the environment variable TFTEACH_DATA to the folder "
            "that holds mnist/ (the course's copy is ../shared/data)")
    return os.path.join(root, "mnist")


def cache_dir():
    """The user's cache for a downloaded MNIST: $XDG_CACHE_HOME/tfteach/mnist, by default
    ~/.cache/tfteach/mnist (outside any repository and any lesson folder)."""
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(root, "tfteach", "mnist")


def _find(directory, stem):
    for name in (stem + ".gz", stem):
        path = os.path.join(directory, name)
        if os.path.exists(path):
            return path
    return None


def available(directory=None):
    """The parts ("train", "t10k") whose image and label files both exist."""
    try:
        directory = data_dir(directory)
    except FileNotFoundError:
        return []
    return [part for part, stems in FILES.items()
            if all(_find(directory, s) is not None for s in stems)]


def paths(part="t10k", directory=None):
    """[images file, labels file] of one part (.gz or not), or FileNotFoundError."""
    directory = data_dir(directory)
    images_stem, labels_stem = FILES[part]
    found = [_find(directory, images_stem), _find(directory, labels_stem)]
    if None in found:
        raise FileNotFoundError("MNIST %s files not found in %s (looked for %s and %s, "
                                "optionally .gz)" % (part, directory, images_stem,
                                                     labels_stem))
    return found


def load(part="t10k", directory=None):
    """(images uint8 [N, 28, 28], labels uint8 [N]) of one part, checked for consistency."""
    images_path, labels_path = paths(part, directory)
    images = read_idx(images_path, expected_ndim=3)
    labels = read_idx(labels_path, expected_ndim=1)
    if images.shape[0] != labels.shape[0]:
        raise ValueError("MNIST %s: %d images but %d labels" % (part, images.shape[0],
                                                                labels.shape[0]))
    if labels.size and labels.max() > 9:
        raise ValueError("MNIST %s: label %d is not a digit" % (part, labels.max()))
    return images, labels


def one_hot(labels, classes=10):
    return np.eye(classes, dtype=np.float32)[labels]
