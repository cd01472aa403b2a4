"""`tf.keras.preprocessing`: image augmentation (ImageDataGenerator)."""
from tfteach.keras.preprocessing import image  # noqa: F401
