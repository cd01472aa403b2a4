"""The image ops (TF's gen_image_ops): resize, colour, codec and bounding-box ops, each
module with its shape rules, kernels and gradients. The tf.image functions built from
them (and from array and math ops) are in tfteach/image/."""
from tfteach.ops.image import box_ops, codec_ops, color_ops, resize_ops  # noqa: F401
