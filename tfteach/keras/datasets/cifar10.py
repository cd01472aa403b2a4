"""`tf.keras.datasets.cifar10`: not stored in the course data; downloading is not built."""

__all__ = ["load_data"]


def load_data():
    raise RuntimeError(
        "cifar10 cannot be loaded: tfteach reads data sets from local files "
        "($TFTEACH_DATA) and this one is not in the course data, and tfteach does not "
        "download it. Use tf.keras.datasets.mnist.load_data() instead.")
