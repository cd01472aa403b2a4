"""`tf.keras.datasets`: only MNIST is available offline (mnist.load_data)."""
from tfteach.keras.datasets import cifar10, fashion_mnist, mnist  # noqa: F401
