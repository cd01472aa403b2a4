"""`tf.layers` (TF 1.15): functions and classes that create variables and ops for you.

One module per idea: base.py (the Layer class: naming, variable scopes, reuse,
collections), core.py (dense, flatten, dropout), convolutional.py (conv2d,
conv2d_transpose), pooling.py (max/average pooling), normalization.py (batch
normalization and its UPDATE_OPS). See docs/layers.md.
"""
from tfteach.layers import base, convolutional, core, normalization, pooling
from tfteach.layers.base import InputSpec, Layer
from tfteach.layers.convolutional import (Conv2D, Conv2DTranspose, Convolution2D,  # noqa
                                          Convolution2DTranspose, conv2d,
                                          conv2d_transpose, convolution2d,
                                          convolution2d_transpose)
from tfteach.layers.core import Dense, Dropout, Flatten, dense, dropout, flatten
from tfteach.layers.normalization import BatchNormalization, batch_normalization
from tfteach.layers.pooling import (AveragePooling2D, MaxPooling2D, average_pooling2d,
                                    max_pooling2d)

__all__ = ["Layer", "InputSpec", "Dense", "dense", "Flatten", "flatten", "Dropout",
           "dropout", "Conv2D", "conv2d", "Conv2DTranspose", "conv2d_transpose",
           "Convolution2D", "convolution2d", "Convolution2DTranspose",
           "convolution2d_transpose", "MaxPooling2D", "max_pooling2d",
           "AveragePooling2D", "average_pooling2d", "BatchNormalization",
           "batch_normalization"]
