"""tf.image: decoding and encoding, resizing, cropping, flipping, colour adjustments
and bounding boxes, as TF 1.15 has them (docs/image.md).

The functions are built from the image ops of tfteach/ops/image/ (resize, colour,
codec and box kernels) and from array and math ops (flips are ReverseV2, crops Slice,
pads Pad), as in TensorFlow, so `%%tfgraph` shows the same kind of graph and the
gradients of resizes, crops, pads and flips exist.
"""
from tfteach.image.boxes import *  # noqa: F401,F403
from tfteach.image.codecs import *  # noqa: F401,F403
from tfteach.image.colors import *  # noqa: F401,F403
from tfteach.image.crops import (central_crop, crop_to_bounding_box,  # noqa: F401
                                 pad_to_bounding_box, random_crop,
                                 resize_image_with_crop_or_pad, resize_with_crop_or_pad)
from tfteach.image.flips import *  # noqa: F401,F403
from tfteach.image.measures import *  # noqa: F401,F403
from tfteach.image.resizing import *  # noqa: F401,F403
