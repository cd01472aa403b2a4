"""`tf.keras.utils`: to_categorical, get_file, Progbar, normalize."""
import numpy as np

from tfteach.keras.utils.data_utils import get_file
from tfteach.keras.utils.progbar import Progbar

__all__ = ["to_categorical", "Progbar", "normalize", "get_file"]


def to_categorical(y, num_classes=None, dtype="float32"):
    """Class ids [N] (or [N, 1]) -> one-hot rows [N, num_classes] (Keras' rule)."""
    y = np.array(y, dtype="int")
    input_shape = y.shape
    if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
        input_shape = tuple(input_shape[:-1])
    y = y.ravel()
    if not num_classes:
        num_classes = np.max(y) + 1
    n = y.shape[0]
    categorical = np.zeros((n, num_classes), dtype=dtype)
    categorical[np.arange(n), y] = 1
    return np.reshape(categorical, input_shape + (num_classes,))


def normalize(x, axis=-1, order=2):
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis)
