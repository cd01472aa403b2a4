"""tf.image against TensorFlow (tf.compat.v1, graph mode) on small images the tests make.

Each program is built on both libraries; values, dtypes and static shapes must agree:
exactly where TF's op is exact (flips, crops, pads, dtype conversions, boxes), to float
rounding for the resizes and colour ops (TF's kernels compute in float32 in their own
order of operations). TF 2's `tf.compat.v1.image.resize_images` keeps TF 1.15's legacy
sampling grid, which is what tfteach implements. The codecs are in
test_image_codecs_reference.py. Skips without TensorFlow.
"""
import numpy as np
import pytest

from tests.image_helpers import same, static_shapes
from tests.tf_reference import errors_of_both, run_both, tensorflow_v1

import tfteach

pytestmark = pytest.mark.reference

RNG = np.random.RandomState(7)
U8 = RNG.randint(0, 256, (6, 9, 3)).astype(np.uint8)
F32 = RNG.uniform(0, 1, (6, 9, 3)).astype(np.float32)
BATCH = RNG.uniform(0, 1, (2, 5, 7, 3)).astype(np.float32)


def same_values_and_static_shapes(build, atol=0.0):
    """`build(tf)`'s fetches have TF's values (within `atol`) and TF's static shapes."""
    expected, got = run_both(build)
    same(expected, got, atol=atol)
    tf_shapes, our_shapes = static_shapes(build)
    assert our_shapes == tf_shapes


# -- resizes ---------------------------------------------------------------------------------
@pytest.mark.parametrize("method", [0, 1, 2, 3])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [(4, 5), (11, 17), (6, 13)])
@pytest.mark.parametrize("image", ["u8", "f32", "batch"])
def test_resize_images(method, align_corners, size, image):
    value = {"u8": U8, "f32": F32, "batch": BATCH}[image]

    def build(tf):
        return [tf.image.resize_images(tf.constant(value), size, method=method,
                                       align_corners=align_corners)], None
    # float32 rounding of values up to 255 (uint8 input) or 1
    same_values_and_static_shapes(build, atol=2e-4 if image == "u8" else 2e-6)


def test_resize_images_notes_static_shape():
    """The notes print `TensorShape([Dimension(300), Dimension(300), Dimension(None)])`
    for a resize of a decoded JPEG of unknown channels."""
    def build(tf):
        p = tf.placeholder(tf.float32, [None, None, None])
        return [tf.image.resize_images(p, [30, 30], method=0)], {p: F32}
    tf_shapes, our_shapes = static_shapes(build)
    assert our_shapes == tf_shapes == [[30, 30, None]]


def test_resize_same_size_and_preserve_aspect_ratio():
    def build(tf):
        x = tf.constant(U8)
        return [tf.image.resize_images(x, [6, 9]),
                tf.image.resize_images(tf.constant(F32), [12, 12], preserve_aspect_ratio=True),
                tf.image.resize_bilinear(tf.constant(BATCH), [3, 4]),
                tf.image.resize_nearest_neighbor(tf.constant(BATCH), [9, 3]),
                tf.image.resize_bicubic(tf.constant(BATCH), [8, 8], align_corners=True),
                tf.image.resize_area(tf.constant(BATCH), [3, 3])], None
    expected, got = run_both(build)
    same(expected, got, atol=2e-6)


def test_resize_gradients_match_tensorflow():
    from tests.gradient_check import check_gradients_match_tensorflow
    x = RNG.uniform(-1, 1, (2, 4, 5, 2))
    for align in (False, True):
        check_gradients_match_tensorflow(
            lambda tf, x: tf.image.resize_bilinear(x, [7, 3], align_corners=align), [x],
            rtol=1e-5, atol=1e-5)
        check_gradients_match_tensorflow(
            lambda tf, x: tf.image.resize_nearest_neighbor(x, [7, 8], align_corners=align),
            [x], rtol=1e-6, atol=1e-9)


def test_bicubic_and_crop_and_resize_gradients_match_tensorflow():
    from tests.gradient_check import check_gradients_match_tensorflow
    x = RNG.uniform(-1, 1, (2, 4, 5, 2)).astype(np.float32)
    boxes = np.array([[0.1, 0.2, 0.7, 0.9], [0.8, 0.1, 0.3, 0.6], [-0.2, 0.3, 1.2, 0.5]],
                     np.float32)
    check_gradients_match_tensorflow(
        lambda tf, x: tf.image.resize_bicubic(x, [7, 3], align_corners=True), [x],
        rtol=1e-5, atol=1e-5)
    for method in ("bilinear", "nearest"):
        check_gradients_match_tensorflow(
            lambda tf, x, b: tf.image.crop_and_resize(x, b, [0, 1, 1], [3, 4],
                                                      method=method), [x, boxes],
            rtol=1e-5, atol=1e-5)


# -- flips, crops, pads ----------------------------------------------------------------------
def _geometry_program(tf):
    x, b = tf.constant(F32), tf.constant(BATCH)
    fetches = [tf.image.flip_left_right(x), tf.image.flip_up_down(x),
               tf.image.flip_left_right(b), tf.image.flip_up_down(b),
               tf.image.transpose_image(x), tf.image.transpose_image(b),
               tf.image.central_crop(x, 0.5), tf.image.central_crop(b, 0.33),
               tf.image.crop_to_bounding_box(x, 1, 2, 4, 5),
               tf.image.crop_to_bounding_box(b, 0, 1, 5, 3),
               tf.image.pad_to_bounding_box(x, 2, 1, 10, 12),
               tf.image.pad_to_bounding_box(b, 0, 3, 6, 10),
               tf.image.resize_image_with_crop_or_pad(x, 3, 4),
               tf.image.resize_image_with_crop_or_pad(x, 10, 13),
               tf.image.resize_image_with_crop_or_pad(x, 4, 12),
               tf.image.resize_image_with_crop_or_pad(b, 8, 2)]
    fetches += [tf.image.rot90(x, k) for k in range(-1, 5)]
    fetches += [tf.image.rot90(b, k) for k in (1, 2, 3)]
    return fetches, None


def test_flips_crops_pads_and_rotations():
    same_values_and_static_shapes(_geometry_program)


def test_crop_and_pad_with_unknown_shape():
    def build(tf):
        p = tf.placeholder(tf.float32, [None, None, 3])
        return [tf.image.resize_image_with_crop_or_pad(p, 4, 12),
                tf.image.central_crop(p, 0.5),
                tf.image.crop_to_bounding_box(p, 1, 1, 3, 3)], {p: F32}
    same_values_and_static_shapes(build)


def test_crop_and_resize():
    def build(tf):
        boxes = [[0.2, 0.5, 0.5, 1.0], [0.0, 0.0, 1.0, 1.0], [-0.2, 0.1, 1.3, 0.6],
                 [0.7, 0.8, 0.2, 0.1], [0.3, 0.3, 0.3, 0.3]]
        index = [0, 1, 0, 1, 0]
        b = tf.constant(BATCH)
        return [tf.image.crop_and_resize(b, boxes, index, [4, 6]),
                tf.image.crop_and_resize(b, boxes, index, [1, 1]),
                tf.image.crop_and_resize(b, boxes, index, [3, 5], method="nearest",
                                         extrapolation_value=-1)], None
    expected, got = run_both(build)
    same(expected, got, atol=2e-6)


# -- dtypes and colours ----------------------------------------------------------------------
_CONVERSIONS = [("uint8", "float32"), ("uint8", "float64"), ("uint8", "uint16"),
                ("uint8", "int32"), ("uint16", "uint8"), ("int32", "uint8"),
                ("int16", "int8"), ("float32", "uint8"), ("float32", "int32"),
                ("float64", "uint16"), ("float32", "float64"), ("int8", "int16")]


@pytest.mark.parametrize("src,dst", _CONVERSIONS)
@pytest.mark.parametrize("saturate", [False, True])
def test_convert_image_dtype(src, dst, saturate):
    src_dtype = np.dtype(src)
    if src_dtype.kind == "f":
        # inside [0, 1), at its edges and outside it (wrapping vs saturation)
        value = np.array([0.0, 0.25, 0.5, 0.999, 1.0, -0.5, 1.5, 0.123456], src_dtype)
    else:
        info = np.iinfo(src_dtype)
        value = np.array([info.min, -1 if info.min < 0 else 0, 0, 1, 7, 100,
                          info.max // 3, info.max], src_dtype)

    def build(tf):
        return [tf.image.convert_image_dtype(tf.constant(value), getattr(tf, dst),
                                             saturate=saturate)], None
    expected, got = run_both(build)
    same(expected, got)


def _color_program(tf):
    x, u = tf.constant(F32), tf.constant(U8)
    return [tf.image.adjust_brightness(x, -0.3), tf.image.adjust_brightness(u, 0.2),
            tf.image.adjust_contrast(x, 1.7), tf.image.adjust_contrast(u, -5.0),
            tf.image.adjust_contrast(tf.constant(BATCH), 0.4),
            tf.image.adjust_hue(x, 0.1), tf.image.adjust_hue(x, -0.45),
            tf.image.adjust_hue(tf.constant(BATCH), 0.7),
            tf.image.adjust_saturation(x, 2.5), tf.image.adjust_saturation(x, -5.0),
            tf.image.adjust_saturation(x, 0.3),
            tf.image.adjust_gamma(x, 2.2), tf.image.adjust_gamma(x, 0.5, gain=1.5),
            tf.image.rgb_to_hsv(x), tf.image.hsv_to_rgb(x), tf.image.hsv_to_rgb(
                tf.image.rgb_to_hsv(tf.constant(BATCH))),
            tf.image.rgb_to_grayscale(x), tf.image.rgb_to_grayscale(tf.constant(BATCH)),
            tf.image.grayscale_to_rgb(tf.image.rgb_to_grayscale(x)),
            tf.image.per_image_standardization(x),
            tf.image.per_image_standardization(tf.constant(BATCH))], None


def test_colour_adjustments():
    expected, got = run_both(_color_program)
    same(expected, got, atol=3e-6)


def test_colour_adjustments_of_uint8_images():
    """uint8 results go through float32 and back: a value on a rounding edge may land
    one level apart, nothing more."""
    def build(tf):
        u = tf.constant(U8)
        return [tf.image.adjust_hue(u, 0.2), tf.image.adjust_saturation(u, 1.8),
                tf.image.rgb_to_grayscale(u), tf.image.adjust_brightness(u, -0.1)], None
    expected, got = run_both(build)
    same(expected, got, atol=1)


def test_colour_ops_on_grey_and_saturated_pixels():
    """Ties between components, grey pixels (no hue) and pure colours: the branches of
    TF's hue arithmetic."""
    pixels = np.array([[[0, 0, 0], [1, 1, 1], [0.5, 0.5, 0.5], [1, 0, 0], [0, 1, 0],
                        [0, 0, 1], [1, 1, 0], [0, 1, 1], [1, 0, 1], [0.2, 0.2, 0.7],
                        [0.7, 0.2, 0.7], [0.3, 0.6, 0.6]]], np.float32)

    def build(tf):
        x = tf.constant(pixels)
        return [tf.image.rgb_to_hsv(x), tf.image.hsv_to_rgb(x), tf.image.adjust_hue(x, 0.3),
                tf.image.adjust_hue(x, -0.9), tf.image.adjust_saturation(x, 0.5)], None
    expected, got = run_both(build)
    same(expected, got, atol=3e-7)


def test_draw_bounding_boxes():
    boxes = np.array([[[0.05, 0.05, 0.9, 0.7], [0.35, 0.47, 0.5, 0.56],
                       [-0.2, 0.3, 0.6, 1.4], [0.6, 0.6, 0.2, 0.2], [1.5, 1.5, 2.0, 2.0]]] * 2,
                     np.float32)
    grey = BATCH[..., :1]
    rgba = np.concatenate([BATCH, BATCH[..., :1]], axis=3)
    many = np.tile(boxes, (1, 3, 1))          # more boxes than colours: the table wraps

    def build(tf):
        return [tf.image.draw_bounding_boxes(tf.constant(BATCH), boxes),
                tf.image.draw_bounding_boxes(tf.constant(grey), boxes),
                tf.image.draw_bounding_boxes(tf.constant(rgba), boxes),
                tf.image.draw_bounding_boxes(tf.constant(BATCH), many)], None
    expected, got = run_both(build)
    same(expected, got)


# -- bad input -------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", ["flip_left_right", "flip_up_down", "transpose_image",
                                "random_flip_left_right", "rot90"])
def test_rank_two_image_is_a_value_error(fn):
    def build(tf):
        return [getattr(tf.image, fn)(tf.constant(F32[:, :, 0]))], None
    theirs, ours = errors_of_both(build)
    assert isinstance(theirs, ValueError) and isinstance(ours, ValueError)
    # TF 1.15's words (TF 2 adds the shape: "'image' (shape (6, 9)) must be ...")
    assert str(ours) == "'image' must be at least three-dimensional."
    assert "must be at least three-dimensional" in str(theirs)


@pytest.mark.parametrize("build", [
    lambda tf: ([tf.image.crop_to_bounding_box(tf.constant(F32), 3, 0, 4, 9)], None),
    lambda tf: ([tf.image.pad_to_bounding_box(tf.constant(F32), 0, 4, 6, 12)], None),
    lambda tf: ([tf.image.central_crop(tf.constant(F32), 1.5)], None),
    lambda tf: ([tf.image.resize_image_with_crop_or_pad(tf.constant(F32), 0, 4)], None),
    lambda tf: ([tf.image.random_contrast(tf.constant(F32), 0.5, 0.4)], None),
    lambda tf: ([tf.image.random_hue(tf.constant(F32), 0.7)], None),
    lambda tf: ([tf.image.resize_images(tf.constant(F32), [1, 2, 3])], None),
    lambda tf: ([tf.image.resize_images(tf.constant(F32[0, 0]), [1, 2])], None),
], ids=["crop_height", "pad_width", "central_fraction", "target_height", "contrast_range",
        "hue_delta", "size_elements", "images_rank"])
def test_bad_arguments_are_tensorflows_value_errors(build):
    theirs, ours = errors_of_both(build)
    assert isinstance(theirs, ValueError), theirs
    assert isinstance(ours, ValueError), ours
    assert str(ours) == str(theirs)


def test_sample_distorted_bounding_box_seed_attributes_match_tensorflow():
    seeds = []
    for tf in (tensorflow_v1(), tfteach):
        with tf.Graph().as_default():
            tf.set_random_seed(5)
            ops = [tf.image.sample_distorted_bounding_box(
                [9, 9, 3], [[[0.0, 0.0, 1.0, 1.0]]], **kwargs)[0].op
                for kwargs in ({}, {"seed": 7}, {"seed": 7, "seed2": 2})]
            seeds.append([(op.get_attr("seed"), op.get_attr("seed2")) for op in ops])
    assert seeds[1] == seeds[0]


def test_sample_distorted_bounding_box_shapes_match_tensorflow():
    def build(tf):
        return list(tf.image.sample_distorted_bounding_box(
            tf.constant([20, 30, 3]), tf.constant([[[0.1, 0.2, 0.6, 0.9]]]),
            min_object_covered=0.3, seed=3)), None
    expected, got = run_both(build)
    assert [(e.dtype, e.shape) for e in expected] == [(g.dtype, g.shape) for g in got]
    tf_shapes, our_shapes = static_shapes(build)
    assert our_shapes == tf_shapes


def test_rgb_to_grayscale_of_an_image_of_unknown_shape():
    def build(tf):
        p = tf.placeholder(tf.float32, [None, None, 3])
        return [tf.image.rgb_to_grayscale(p)], {p: F32}
    expected, got = run_both(build)
    same(expected, got, atol=3e-7)


@pytest.mark.parametrize("target", [(10, 12), (4, 4), (20, 7), (6, 9)])
def test_resize_image_with_pad(target):
    def build(tf):
        return [tf.image.resize_image_with_pad(tf.constant(F32), *target),
                tf.image.resize_image_with_pad(tf.constant(BATCH), *target, method=1)], None
    same_values_and_static_shapes(build, atol=2e-6)


def _interop_program(tf):
    data = tf.image.encode_png(U8)
    image = tf.image.convert_image_dtype(tf.image.decode_png(data), tf.float32)
    batch = tf.expand_dims(image, 0)
    return [tf.image.resize_images(image, [4, 5]),
            tf.image.resize_images(image, [9, 9], method=2, align_corners=True),
            tf.image.resize_images(image, [3, 3], method=3),
            tf.image.adjust_hue(image, 0.2), tf.image.adjust_saturation(image, 1.5),
            tf.image.adjust_contrast(image, 0.5), tf.image.rgb_to_hsv(image),
            tf.image.flip_left_right(image),
            tf.image.draw_bounding_boxes(batch, [[[0.1, 0.1, 0.8, 0.8]]]),
            tf.image.crop_and_resize(batch, [[0.0, 0.0, 1.0, 1.0]], [0], [3, 3]),
            tf.image.decode_image(data), tf.image.is_jpeg(data)]


@pytest.mark.parametrize("direction", ["tfteach_to_tensorflow", "tensorflow_to_tfteach"])
def test_image_graphs_travel_as_graph_defs(direction):
    """A GraphDef of image ops built by one library runs in the other: same op types,
    attributes and values (names too: the same scopes)."""
    tf1 = tensorflow_v1()
    source, target = (tfteach, tf1) if direction == "tfteach_to_tensorflow" else (tf1, tfteach)
    with source.Graph().as_default() as graph:
        fetches = _interop_program(source)
        names = [t.name for t in fetches]
        with source.Session() as sess:
            expected = sess.run(fetches)
        data = graph.as_graph_def().SerializeToString()
    with target.Graph().as_default():
        graph_def = target.GraphDef()
        graph_def.ParseFromString(data)
        target.import_graph_def(graph_def, name="")
        with target.Session() as sess:
            got = sess.run(names)
    same(expected, got, atol=2e-6)


def test_image_functions_name_their_ops_as_tensorflow():
    names = []
    for tf in (tensorflow_v1(), tfteach):
        with tf.Graph().as_default():
            names.append([t.name for t in _interop_program(tf)])
    # but decode_image: TF 1.15 ends it in a tf.cond over the formats, TF 2 in one
    # DecodeImage op, tfteach in DecodeImage and convert_image_dtype's Identity
    decode_image = 10
    del names[0][decode_image], names[1][decode_image]
    assert names[1] == names[0]


def test_colour_spaces_and_measures():
    noisy = np.clip(BATCH + RNG.normal(0, 0.05, BATCH.shape), 0, 1).astype(np.float32)

    def build(tf):
        x, b, n = tf.constant(F32), tf.constant(BATCH), tf.constant(noisy)
        p = tf.placeholder(tf.float32, [None, None, 3])
        dy, dx = tf.image.image_gradients(b)
        return [tf.image.rgb_to_yiq(x), tf.image.yiq_to_rgb(x), tf.image.rgb_to_yuv(b),
                tf.image.yuv_to_rgb(b), tf.image.rgb_to_yiq(p),
                tf.image.total_variation(x), tf.image.total_variation(b),
                tf.image.psnr(b, n, 1.0),
                tf.image.psnr(tf.constant(U8), tf.constant(U8[::-1]), 255), dy, dx,
                tf.image.sobel_edges(b)], {p: F32}
    expected, got = run_both(build)
    same(expected, got, atol=2e-5)


# TF 2's tf.compat.v1.image has these, which tfteach does not (docs/image.md): object
# detection's box suppression and glimpses, patches, SSIM, and codecs newer than 1.15
NOT_IN_TFTEACH = {"combined_non_max_suppression", "extract_glimpse", "extract_image_patches",
                  "extract_patches", "generate_bounding_box_proposals", "non_max_suppression",
                  "non_max_suppression_overlaps", "non_max_suppression_padded",
                  "non_max_suppression_with_scores", "ssim", "ssim_multiscale",
                  "decode_webp", "decode_jxl"}


def test_the_tf_image_namespace():
    theirs = {n for n in dir(tensorflow_v1().image) if not n.startswith("_")}
    ours = {n for n in dir(tfteach.image) if not n.startswith("_")}
    assert sorted(theirs - ours) == sorted(NOT_IN_TFTEACH)
