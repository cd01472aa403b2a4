"""`tf.keras.datasets.mnist.load_data()` from the course's local MNIST files.

Keras downloads 60,000 training and 10,000 test images. tfteach reads the IDX files
under `$TFTEACH_DATA/mnist` (tfteach.datasets.mnist): when both parts are there you
get Keras' split; the course's shared copy holds only the 10,000-image test set, and
then load_data() splits it, 8,000 to train and 2,000 to test (in file order), and says
so once. Arrays are uint8 [N, 28, 28] images and uint8 [N] labels, as Keras returns.
"""
import warnings

from tfteach.datasets import mnist as mnist_files

__all__ = ["load_data"]

TRAIN_FROM_TEST_SET = 8000


def load_data(path="mnist.npz"):
    """((x_train, y_train), (x_test, y_test)) as NumPy uint8 arrays."""
    parts = mnist_files.available()
    if "train" in parts and "t10k" in parts:
        return mnist_files.load("train"), mnist_files.load("t10k")
    if "t10k" not in parts:
        raise FileNotFoundError(
            "MNIST is not available offline: tfteach reads it from $TFTEACH_DATA/mnist "
            "(the course's copy is ../shared/data) and does not download it")
    images, labels = mnist_files.load("t10k")
    warnings.warn("Only MNIST's 10,000-image test set is available here: load_data() "
                  "returns its first %d images as the training set and the other %d as "
                  "the test set." % (TRAIN_FROM_TEST_SET, len(images) - TRAIN_FROM_TEST_SET),
                  stacklevel=2)
    split = TRAIN_FROM_TEST_SET
    return (images[:split], labels[:split]), (images[split:], labels[split:])
