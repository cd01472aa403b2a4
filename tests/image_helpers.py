"""Helpers of the tf.image reference tests (test_image_reference.py,
test_image_codecs_reference.py): comparing fetched values and static shapes, and
photo-like test images."""
import io

import numpy as np

from tests.tf_reference import tensorflow_v1

import tfteach

def same(expected, got, atol=0.0):
    assert len(expected) == len(got)
    for k, (e, g) in enumerate(zip(expected, got)):
        e, g = np.asarray(e), np.asarray(g)
        assert e.dtype == g.dtype, "fetch %d: dtype %s vs TF's %s" % (k, g.dtype, e.dtype)
        assert e.shape == g.shape, "fetch %d: shape %s vs TF's %s" % (k, g.shape, e.shape)
        if atol:
            np.testing.assert_allclose(g.astype(np.float64), e.astype(np.float64), rtol=0,
                                       atol=atol, err_msg="fetch %d" % k)
        else:
            np.testing.assert_array_equal(g, e, err_msg="fetch %d" % k)


def static_shapes(build):
    """The static shapes of the fetches `build` makes, on TF and on tfteach."""
    shapes = []
    for tf in (tensorflow_v1(), tfteach):
        with tf.Graph().as_default():
            fetches, _ = build(tf)
            shapes.append([t.get_shape().as_list() if t.get_shape().ndims is not None
                           else None for t in fetches])
    return shapes


def jpeg_bytes(image, quality=95):
    from PIL import Image
    out = io.BytesIO()
    Image.fromarray(image).save(out, "JPEG", quality=quality)
    return out.getvalue()


def smooth_image(height=24, width=32):
    """A photo-like image (smooth gradients): JPEG decoders agree closely on these."""
    y, x = np.mgrid[0:height, 0:width]
    return np.stack([128 + 100 * np.sin(x / 5.0), 128 + 100 * np.cos(y / 4.0),
                     (x + y) * 4.0], axis=2).clip(0, 255).astype(np.uint8)
