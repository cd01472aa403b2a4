"""`input_data.read_data_sets`, the MNIST helper of TensorFlow 1.x's tutorials.

As in TensorFlow: `mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)` gives
`mnist.train`, `mnist.validation` and `mnist.test`, each with `images` (float32 in
[0, 1], one row of 784 pixels per image), `labels` and `next_batch(n)`.

It looks for the IDX files in `train_dir`, then `$TFTEACH_DATA/mnist`, then the user cache
(`~/.cache/tfteach/mnist`, or under $XDG_CACHE_HOME), and takes the first folder with the
full set (else the first with the test set). When MNIST is in none of them it downloads
the four files from `source_url` (default: TF's mirror, or $TFTEACH_MNIST_URL) into the
user cache — not into `train_dir` as TF 1.x did, so no lesson folder or repository ever
holds a copy — with a progress bar, and checks each file's SHA-256 before use
(datasets/fetch.py, download.py). Offline, it says exactly what to do instead.
When only the 10,000-image test set exists (the course's shared copy), it says so and
splits it: its first 8,000 images are the training
images — of which the first `validation_size` (TF's default: 5,000) become
`mnist.validation` and the rest `mnist.train` — and its last 2,000 are `mnist.test`.

`dtype` is TF's: `tf.float32` (or np.float32, the default) scales pixels to [0, 1] as
TF 1.15 does, `image * (1.0 / 255.0)` in float32 (not `image / 255`, which rounds 126 of
the 256 pixel values differently), `tf.uint8` keeps the bytes 0..255; anything else is
TF's TypeError. Labels are TF's too: the file's uint8 digits, or with `one_hot=True`
float64 rows of `dense_to_one_hot`. Each file read is announced as TF announces it
(`Extracting MNIST_data/train-images-idx3-ubyte.gz`).

Shuffling is TF's: a DataSet seeds NumPy's global generator when it is made
(`np.random.seed`, from `seed` and the graph-level seed by `tf.set_random_seed`'s rules;
unseeded, from fresh entropy) and `next_batch` shuffles with it. So, as in TensorFlow, a
program's own `np.random` calls after `read_data_sets(..., seed=0)` draw the same numbers
on every run, and `np.random.seed` called before it is overridden.
"""
import collections
import os

import numpy as np

from tfteach.datasets import fetch, mnist
from tfteach.datasets.download import Offline
from tfteach.framework import dtypes
from tfteach.ops import random_ops

__all__ = ["read_data_sets", "DataSet", "Datasets", "dense_to_one_hot"]

Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])
TEST_SET_SPLIT = 8000
FAKE_EXAMPLES = 10000            # TF's fake DataSet's size


class DataSet:
    """Images and labels with TF's `next_batch` (reshuffled every epoch).

    As TF 1.15's: `one_hot` only shapes the fake data's labels (`fake_data=True`: 10,000
    examples of a blank-ones image); real labels are kept as given."""

    def __init__(self, images, labels, fake_data=False, one_hot=False, dtype=np.float32,
                 reshape=True, seed=None):
        seed1, seed2 = random_ops.get_seed(seed)
        # TF's DataSet seeds NumPy's global generator (its shuffles draw from it).
        np.random.seed(seed1 if seed is None else seed2)
        dtype = dtypes.as_dtype(dtype).base_dtype
        if dtype not in (dtypes.uint8, dtypes.float32):
            raise TypeError("Invalid image dtype %r, expected uint8 or float32" % dtype)
        if fake_data:
            self._num_examples = FAKE_EXAMPLES
            self.one_hot = one_hot
        else:
            # TensorFlow's own checks are `assert`s (note 001 quotes them): AssertionError.
            if images.shape[0] != labels.shape[0]:
                raise AssertionError("images.shape: %s labels.shape: %s" % (images.shape,
                                                                           labels.shape))
            self._num_examples = images.shape[0]
            if reshape:
                if images.ndim == 4 and images.shape[3] != 1:   # TF: assert shape[3] == 1
                    raise AssertionError()
                images = images.reshape(images.shape[0], int(np.prod(images.shape[1:])))
            if dtype == dtypes.float32:
                # TF's rescaling, bit for bit: a multiplication by the float32 1/255.
                images = np.multiply(images.astype(np.float32), 1.0 / 255.0)
        self._images = images
        self._labels = labels
        self._epochs_completed = 0
        self._index_in_epoch = 0

    images = property(lambda self: self._images)
    labels = property(lambda self: self._labels)
    num_examples = property(lambda self: self._num_examples)
    epochs_completed = property(lambda self: self._epochs_completed)

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        """The next `batch_size` examples; a new shuffled epoch starts when one ends."""
        if fake_data:
            image = [1] * 784
            label = [1] + [0] * 9 if self.one_hot else 0
            return [image for _ in range(batch_size)], [label for _ in range(batch_size)]
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            self._shuffle()
        if start + batch_size > self._num_examples:
            self._epochs_completed += 1
            rest = self._num_examples - start
            images_rest = self._images[start:]
            labels_rest = self._labels[start:]
            if shuffle:
                self._shuffle()
            self._index_in_epoch = batch_size - rest
            end = self._index_in_epoch
            return (np.concatenate((images_rest, self._images[:end]), axis=0),
                    np.concatenate((labels_rest, self._labels[:end]), axis=0))
        self._index_in_epoch += batch_size
        end = self._index_in_epoch
        return self._images[start:end], self._labels[start:end]

    def _shuffle(self):
        order = np.arange(self._num_examples)
        np.random.shuffle(order)             # NumPy's global generator, as TF's
        self._images = self._images[order]
        self._labels = self._labels[order]


def dense_to_one_hot(labels_dense, num_classes):
    """Class labels as one-hot float64 rows, as TF 1.15's MNIST helper makes them."""
    one_hot = np.zeros((labels_dense.shape[0], num_classes))
    one_hot[np.arange(labels_dense.shape[0]), labels_dense.ravel()] = 1
    return one_hot


def _candidates(train_dir):
    folders = [train_dir] if train_dir else []
    if os.environ.get("TFTEACH_DATA"):
        folders.append(mnist.data_dir())
    folders.append(mnist.cache_dir())
    return folders


def _directory(train_dir):
    """The first folder with all of MNIST, else the first with its test set, else None."""
    found = [(folder, set(mnist.available(folder))) for folder in _candidates(train_dir)]
    for wanted in ({"train", "t10k"}, {"t10k"}):
        for folder, parts in found:
            if wanted <= parts:
                return folder
    return None


def _offline_message(train_dir, cache, url, reason):
    files = ", ".join(fetch.TRAIN_FILES + fetch.TEST_FILES)
    looked = _candidates(train_dir)
    return ("MNIST is not on this machine (looked in %s) and could not be downloaded from "
            "%s (%s). Do one of these, then run the cell again:\n"
            "  - connect this machine to the network: read_data_sets downloads it into %s;\n"
            "  - on a machine with network, run `python -m tfteach.datasets.fetch DIR --train`"
            " and copy DIR/mnist here, then set TFTEACH_DATA=DIR (the folder holding mnist/);"
            "\n  - or download %s from %s into %s yourself (read_data_sets checks their "
            "SHA-256)." % (", ".join(looked), url, reason, cache, files, url, cache))


def _download(train_dir, source_url):
    cache = mnist.cache_dir()
    url = source_url or os.environ.get("TFTEACH_MNIST_URL") or fetch.BASE_URL
    try:
        fetch.fetch_mnist(None, train=True, base_url=url, progress=True, folder=cache,
                          say=lambda line: None)
    except Offline as e:
        raise FileNotFoundError(_offline_message(train_dir, cache, url, e)) from None
    return cache


def _split_message(total, validation_size):
    """What the split of a test-only folder really gives (train / validation / test)."""
    train = max(TEST_SET_SPLIT - validation_size, 0)
    return ("tfteach: only the MNIST test set (%d images) is available, so it is split: "
            "its first %d images are the training images, %d of them kept for validation "
            "(validation_size=%d), leaving %d in mnist.train; its last %d are mnist.test."
            % (total, TEST_SET_SPLIT, min(validation_size, TEST_SET_SPLIT), validation_size,
               train, total - TEST_SET_SPLIT))


def read_data_sets(train_dir, fake_data=False, one_hot=False, dtype=np.float32,
                   reshape=True, validation_size=5000, seed=None, source_url=None):
    """MNIST split into train / validation / test DataSets (see the module docstring)."""
    if fake_data:
        def fake():
            return DataSet([], [], fake_data=True, one_hot=one_hot, dtype=dtype, seed=seed)
        return Datasets(train=fake(), validation=fake(), test=fake())
    directory = _directory(train_dir) or _download(train_dir, source_url)
    parts = [part for part in ("train", "t10k") if part in mnist.available(directory)]
    loaded = {}
    for part in parts:
        for path in mnist.paths(part, directory):
            print("Extracting", path)
        images, labels = mnist.load(part, directory)
        loaded[part] = (images, dense_to_one_hot(labels, 10) if one_hot else labels)
    test_images, test_labels = loaded["t10k"]
    if "train" in loaded:
        train_images, train_labels = loaded["train"]
    else:
        print(_split_message(len(test_images), validation_size))
        train_images, train_labels = test_images[:TEST_SET_SPLIT], test_labels[:TEST_SET_SPLIT]
        test_images, test_labels = test_images[TEST_SET_SPLIT:], test_labels[TEST_SET_SPLIT:]
    if not 0 <= validation_size <= len(train_images):
        raise ValueError("Validation size should be between 0 and {}. Received: {}."
                         .format(len(train_images), validation_size))
    make = dict(reshape=reshape, dtype=dtype, seed=seed)
    return Datasets(
        train=DataSet(train_images[validation_size:], train_labels[validation_size:], **make),
        validation=DataSet(train_images[:validation_size], train_labels[:validation_size],
                           **make),
        test=DataSet(test_images, test_labels, **make))
