"""`tf.keras.regularizers`: penalties on weights, added to the model's loss by `fit`."""
import tfteach as tf
from tfteach.keras.serialization import accepted_kwargs, deserialize

__all__ = ["Regularizer", "L1L2", "l1", "l2", "l1_l2", "get", "serialize"]


class Regularizer:
    def __call__(self, x):
        return 0.


class L1L2(Regularizer):
    """`l1 * sum(|x|) + l2 * sum(x**2)` (Keras' rule: no 1/2 as in tf.nn.l2_loss)."""

    def __init__(self, l1=0., l2=0.):  # noqa: E741
        self.l1, self.l2 = float(l1), float(l2)

    def __call__(self, x):
        penalty = tf.constant(0., dtype=x.dtype.base_dtype)
        if self.l1:
            penalty += self.l1 * tf.reduce_sum(tf.abs(x))
        if self.l2:
            penalty += self.l2 * tf.reduce_sum(tf.square(x))
        return penalty

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


def l1(l=0.01):  # noqa: E741
    return L1L2(l1=l)


def l2(l=0.01):  # noqa: E741
    return L1L2(l2=l)


def l1_l2(l1=0.01, l2=0.01):  # noqa: E741
    return L1L2(l1=l1, l2=l2)


# Functions that make a regularizer: by name they are called, as TF 1.15's `get` calls
# them ('l2' is `l2()`, an L1L2 with l2=0.01), not returned as the regularizer itself.
_MAKERS = {"l1": l1, "l2": l2, "l1_l2": l1_l2}


def get(identifier):
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, str) and identifier in _MAKERS:
        identifier = {"class_name": identifier, "config": {}}
    if isinstance(identifier, dict) and identifier.get("class_name") in _MAKERS:
        maker = _MAKERS[identifier["class_name"]]
        return maker(**accepted_kwargs(maker, dict(identifier.get("config") or {})))
    return deserialize(identifier, {"L1L2": L1L2}, "regularizer")


def serialize(regularizer):
    if regularizer is None:
        return None
    return {"class_name": type(regularizer).__name__, "config": regularizer.get_config()}
