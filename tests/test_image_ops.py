"""tf.image without TensorFlow: gradients against finite differences, the invariants of
the random ops (sample_distorted_bounding_box, random flips and colour changes), codec
round trips and TF's errors. (test_image_reference.py compares values with TensorFlow.)
"""
import io

import numpy as np
import pytest

from tests.device_helpers import virtual_gpus  # noqa: F401 (fixture)
from tests.gradient_check import check_gradients, recording_gradients

import tfteach as tf
from tfteach import errors

RNG = np.random.RandomState(3)
F32 = RNG.uniform(0, 1, (6, 9, 3)).astype(np.float32)


def _run(*fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(list(fetches), feed)


# -- gradients -------------------------------------------------------------------------------
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [(7, 3), (2, 9)])
def test_resize_bilinear_gradient_is_finite_differences(align_corners, size):
    x = RNG.uniform(-1, 1, (2, 4, 5, 2))
    with recording_gradients() as called:
        # the resize is linear and computes in float32: a large step is exact but for
        # float32 rounding of the outputs
        check_gradients(lambda tf, x: tf.image.resize_images(
            x, size, method=0, align_corners=align_corners), [x], delta=1e-2, rtol=1e-4,
            atol=1e-4)
    assert "ResizeBilinear" in called


@pytest.mark.parametrize("align_corners", [False, True])
def test_resize_nearest_gradient_is_finite_differences(align_corners):
    x = RNG.uniform(-1, 1, (1, 5, 4, 2))
    with recording_gradients() as called:
        check_gradients(lambda tf, x: tf.image.resize_images(
            x, [8, 3], method=1, align_corners=align_corners), [x], delta=1e-3)
    assert "ResizeNearestNeighbor" in called


def test_crop_pad_and_flip_gradients_are_finite_differences():
    # (not rot90: its tf.case merges branches of shapes [h, w] and [w, h], and a fully
    # shaped gradient fed into it fails TF's own static shape check, as in TensorFlow)
    x = RNG.uniform(-1, 1, (5, 6, 2))

    def build(tf, x):
        return [tf.image.flip_left_right(x), tf.image.flip_up_down(x),
                tf.image.transpose_image(x), tf.image.crop_to_bounding_box(x, 1, 2, 3, 3),
                tf.image.pad_to_bounding_box(x, 1, 0, 7, 8), tf.image.central_crop(x, 0.5),
                tf.image.resize_image_with_crop_or_pad(x, 3, 9)]
    check_gradients(build, [x], delta=1e-6, rtol=1e-5, atol=1e-6)


def test_standardization_and_brightness_gradients_are_finite_differences():
    # both compute in float32 (as TF does): a larger step, a looser tolerance
    x = RNG.uniform(-1, 1, (4, 3, 2))
    check_gradients(lambda tf, x: [tf.image.adjust_brightness(x, 0.5),
                                   tf.image.per_image_standardization(x)], [x],
                    delta=1e-3, rtol=2e-3, atol=2e-3)


def test_measure_gradients_are_finite_differences():
    x = RNG.uniform(-1, 1, (1, 4, 5, 2))
    check_gradients(lambda tf, x: [tf.image.sobel_edges(x), tf.image.image_gradients(x)[1],
                                   tf.image.rgb_to_yiq(x[..., :1] * [1.0, 0.5, 2.0])],
                    [x], delta=1e-6, rtol=1e-5, atol=1e-6)
    # total variation has kinks where neighbours are equal: random values are away
    check_gradients(lambda tf, x: tf.image.total_variation(x), [x], delta=1e-7, rtol=1e-5,
                    atol=1e-6)


def test_resize_area_has_no_gradient_and_integer_images_get_none():
    x = tf.placeholder(tf.float32, [1, 4, 4, 1])
    with pytest.raises(LookupError, match="ResizeArea"):
        tf.gradients(tf.image.resize_area(x, [2, 2]), x)
    u = tf.placeholder(tf.uint8, [1, 4, 4, 1])
    # TF: the bilinear and bicubic gradients exist for float32/float64 images only
    for resize in (tf.image.resize_bilinear, tf.image.resize_bicubic):
        out = resize(u, [3, 3])
        assert tf.gradients(out, u) == [None]


def test_colour_ops_have_tensorflow_1_15s_gradients_none_or_lookup_error():
    x = tf.placeholder(tf.float32, [4, 4, 3])
    # TF 1.15: NotDifferentiable (TF 2 later added a gradient for RGBToHSV)
    assert tf.gradients([tf.image.rgb_to_hsv(x), tf.image.hsv_to_rgb(x)], x) == [None]
    for op_type, adjust in [("AdjustHue", lambda x: tf.image.adjust_hue(x, 0.1)),
                            ("AdjustSaturation", lambda x: tf.image.adjust_saturation(x, 2.)),
                            ("AdjustContrastv2", lambda x: tf.image.adjust_contrast(x, 2.))]:
        with pytest.raises(LookupError, match=op_type):
            tf.gradients(adjust(x), x)


# -- sample_distorted_bounding_box -----------------------------------------------------------
@pytest.mark.parametrize("covered,aspect,area", [
    (0.1, (0.75, 1.33), (0.05, 1.0)), (0.5, (0.5, 2.0), (0.1, 0.5)),
    (0.9, (1.0, 1.0), (0.3, 1.0)), (0.0, (0.2, 5.0), (0.01, 0.2))])
def test_sample_distorted_bounding_box_invariants(covered, aspect, area):
    height, width = 60, 80
    box = np.array([0.1, 0.2, 0.7, 0.9], np.float32)
    begin, size, drawn = tf.image.sample_distorted_bounding_box(
        [height, width, 3], box.reshape(1, 1, 4), min_object_covered=covered,
        aspect_ratio_range=aspect, area_range=area, seed=5)
    assert begin.shape.as_list() == [3] and drawn.shape.as_list() == [1, 1, 4]
    box_pixels = (int(box[1] * width), int(box[0] * height), int(box[3] * width),
                  int(box[2] * height))
    whole_image = 0
    with tf.Session() as sess:
        for _ in range(40):
            b, s, d = sess.run([begin, size, drawn])
            y0, x0 = b[:2]
            h, w = s[:2]
            assert b[2] == 0 and s[2] == -1
            assert 0 <= y0 and 0 <= x0 and y0 + h <= height and x0 + w <= width
            np.testing.assert_allclose(d[0, 0], [y0 / height, x0 / width, (y0 + h) / height,
                                                 (x0 + w) / width], rtol=1e-6)
            if (h, w) == (height, width):
                whole_image += 1        # the fallback after max_attempts failures
                continue
            assert area[0] * height * width <= h * w <= area[1] * height * width
            # the crop's aspect ratio is rounded to whole pixels: within one pixel
            assert aspect[0] * h - 1 <= w <= aspect[1] * h + 1
            inside = (max(0, min(x0 + w, box_pixels[2]) - max(x0, box_pixels[0]))
                      * max(0, min(y0 + h, box_pixels[3]) - max(y0, box_pixels[1])))
            box_area = (box_pixels[2] - box_pixels[0]) * (box_pixels[3] - box_pixels[1])
            assert inside / box_area >= covered - 1e-6
    assert whole_image < 40      # most draws find a crop


def test_sample_distorted_bounding_box_is_seeded_per_session():
    begin, size, _ = tf.image.sample_distorted_bounding_box(
        [50, 50, 3], [[[0.0, 0.0, 1.0, 1.0]]], seed=11)
    first = [tuple(v) for v in _run(begin, size)]
    again = [tuple(v) for v in _run(begin, size)]
    assert first == again        # a new session starts the op's sequence again
    with tf.Session() as sess:
        draws = {tuple(sess.run(begin)) for _ in range(10)}
    assert len(draws) > 1         # and each run draws a new crop


def test_sample_distorted_bounding_box_ignores_the_graph_seed():
    """TF 1.x hands `seed`/`seed2` to the op unchanged: tf.set_random_seed does not make
    it repeatable (the op's attributes stay 0, 0), its own seed does."""
    tf.set_random_seed(1)
    unseeded = tf.image.sample_distorted_bounding_box([50, 50, 3], [[[0.0, 0.0, 1.0, 1.0]]])
    seeded = tf.image.sample_distorted_bounding_box([50, 50, 3], [[[0.0, 0.0, 1.0, 1.0]]],
                                                    seed=3, seed2=4)
    assert (unseeded[0].op.get_attr("seed"), unseeded[0].op.get_attr("seed2")) == (0, 0)
    assert (seeded[0].op.get_attr("seed"), seeded[0].op.get_attr("seed2")) == (3, 4)


def test_sample_distorted_bounding_box_errors():
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"All bounding box coordinates must be in \[0.0, 1.0\]: 1.5"):
        _run(tf.image.sample_distorted_bounding_box([5, 5, 3], [[[0.0, 0.0, 1.5, 1.0]]])[0])
    with pytest.raises(errors.InvalidArgumentError, match="No bounding boxes provided"):
        _run(tf.image.sample_distorted_bounding_box(
            [5, 5, 3], np.zeros((1, 0, 4), np.float32))[0])
    with pytest.raises(ValueError, match="Dimension must be 4 but is 3"):
        tf.image.sample_distorted_bounding_box([5, 5, 3], [[[0.0, 0.0, 1.0]]])


# -- random flips and colours ----------------------------------------------------------------
def test_random_flips_give_the_image_or_its_flip():
    x = tf.constant(F32)
    batch = tf.constant(np.stack([F32, F32[::-1]]))
    left_right = tf.image.random_flip_left_right(x, seed=1)
    up_down = tf.image.random_flip_up_down(batch, seed=2)
    seen = set()
    with tf.Session() as sess:
        for _ in range(30):
            a, b = sess.run([left_right, up_down])
            if np.array_equal(a, F32):
                seen.add("same")
            else:
                np.testing.assert_array_equal(a, F32[:, ::-1])
                seen.add("flipped")
            for image, original in zip(b, (F32, F32[::-1])):
                assert (np.array_equal(image, original)
                        or np.array_equal(image, original[::-1]))
    assert seen == {"same", "flipped"}


def test_random_colour_changes_stay_in_their_ranges():
    x = tf.constant(F32)
    brighter = tf.image.random_brightness(x, 0.2, seed=1)
    contrast = tf.image.random_contrast(x, 0.5, 1.5, seed=2)
    mean = F32.mean(axis=(0, 1))
    with tf.Session() as sess:
        for _ in range(10):
            b, c = sess.run([brighter, contrast])
            delta = b - F32
            assert np.ptp(delta) < 1e-6 and abs(delta.mean()) <= 0.2
            factor = (c - mean) / (F32 - mean)
            assert 0.5 - 1e-3 <= np.median(factor) <= 1.5 + 1e-3


def test_random_crop():
    value = np.arange(5 * 6 * 2).reshape(5, 6, 2).astype(np.float32)
    crop = tf.random_crop(value, [3, 4, 2], seed=4)
    assert crop.shape.as_list() == [3, 4, 2]
    with tf.Session() as sess:
        for _ in range(10):
            c = sess.run(crop)
            y, x = np.argwhere(value[:, :, 0] == c[0, 0, 0])[0]
            np.testing.assert_array_equal(c, value[y:y + 3, x:x + 4])
    with pytest.raises(errors.InvalidArgumentError, match="Need value.shape >= size"):
        _run(tf.random_crop(value, [6, 1, 1]))


# -- codecs ----------------------------------------------------------------------------------
def test_png_round_trip_and_static_shapes():
    image = RNG.randint(0, 65536, (4, 5, 3)).astype(np.uint16)
    data = tf.image.encode_png(image)
    assert data.dtype == tf.string and data.shape.as_list() == []
    decoded = tf.image.decode_png(data, dtype=tf.uint16)
    assert decoded.shape.as_list() == [None, None, None]
    assert tf.image.decode_png(data, channels=3).shape.as_list() == [None, None, 3]
    assert tf.image.decode_image(data).shape.ndims is None       # TF 1.15: unknown
    assert tf.image.decode_gif(data).shape.as_list() == [None, None, None, 3]
    got, as_8_bits = _run(decoded, tf.image.decode_png(data))
    np.testing.assert_array_equal(got, image)
    np.testing.assert_array_equal(as_8_bits, image >> 8)


def test_decode_jpeg_also_decodes_png_and_the_notes_read_the_file_this_way(tmp_path):
    image = RNG.randint(0, 256, (3, 4, 3)).astype(np.uint8)
    path = str(tmp_path / "x.png")
    with tf.gfile.GFile(path, "wb") as f:
        f.write(_run(tf.image.encode_png(image))[0])
    raw = tf.gfile.FastGFile(path, "rb").read()
    got, is_jpeg = _run(tf.image.decode_jpeg(raw), tf.image.is_jpeg(raw))
    np.testing.assert_array_equal(got, image)
    assert not is_jpeg


def test_jpeg_round_trip_is_close():
    y, x = np.mgrid[0:16, 0:24]
    image = np.stack([x * 10, y * 15, (x + y) * 5], axis=2).astype(np.uint8)
    data = tf.image.encode_jpeg(image, quality=100, chroma_downsampling=False)
    got, = _run(tf.image.decode_jpeg(data))
    assert np.abs(got.astype(int) - image).max() <= 3


@pytest.mark.parametrize("op,message", [
    ("decode_jpeg", "Expected image (JPEG, PNG, or GIF), got unknown format starting with "
                    "'not an image\\\\001'"),
    ("decode_png", "Expected image (JPEG, PNG, or GIF), got unknown format starting with "
                   "'not an image\\\\001'"),
    ("decode_image", "Unable to decode bytes as JPEG, PNG, GIF, or BMP")])
def test_bad_bytes_say_what_tensorflow_says(op, message):
    with pytest.raises(errors.InvalidArgumentError) as caught:
        _run(getattr(tf.image, op)(b"not an image\x01"))
    assert message.replace("\\\\", "\\") in str(caught.value)


def test_empty_bytes_and_corrupt_png():
    with pytest.raises(errors.InvalidArgumentError, match="got empty file"):
        _run(tf.image.decode_png(b""))
    data = _run(tf.image.encode_png(np.zeros((4, 4, 1), np.uint8)))[0]
    with pytest.raises(errors.InvalidArgumentError, match="Invalid PNG data, size 30"):
        _run(tf.image.decode_png(data[:30]))


def test_encode_errors():
    with pytest.raises(ValueError, match="Shape must be rank 3 but is rank 2"):
        tf.image.encode_png(np.zeros((4, 4), np.uint8))
    # EncodeJpeg's image is a fixed uint8 input: a float32 tensor is op_def_library's
    # TypeError, a NumPy float array is converted to uint8 (this asserted TF's words for a
    # type attr, "DataType float32 not in list of allowed values", for the NumPy array;
    # test_image_codecs_reference.py checks both against TensorFlow)
    with pytest.raises(TypeError, match=r"^Input 'image' of 'EncodeJpeg' Op has type float32 "
                                        r"that does not match expected type of uint8\.$"):
        tf.image.encode_jpeg(tf.zeros((4, 4, 3)))
    assert tf.image.encode_jpeg(np.zeros((4, 4, 3), np.float32)).op.inputs[0].dtype == tf.uint8
    with pytest.raises(errors.InvalidArgumentError, match="image must have 1 or 3 channels"):
        _run(tf.image.encode_jpeg(np.zeros((4, 4, 4), np.uint8)))


def test_animated_gif():
    from PIL import Image
    frames = [Image.fromarray(np.full((3, 4, 3), v, np.uint8)) for v in (10, 200, 90)]
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:])
    data = out.getvalue()
    gif, image = _run(tf.image.decode_gif(data), tf.image.decode_image(data))
    assert gif.shape == image.shape == (3, 3, 4, 3)
    first, = _run(tf.image.decode_image(data, expand_animations=False))
    assert first.shape == (3, 4, 3)
    with pytest.raises(errors.InvalidArgumentError, match="Got 3 frames, but animated gifs"):
        _run(tf.image.decode_jpeg(data))


# -- bad arguments at build time -------------------------------------------------------------
def test_build_time_errors():
    with pytest.raises(ValueError, match="'image' must be at least three-dimensional."):
        tf.image.flip_up_down(np.zeros((3, 3), np.float32))
    with pytest.raises(ValueError, match="'image' must have either 3 or 4 dimensions."):
        tf.image.flip_up_down(np.zeros((1, 2, 3, 3, 3), np.float32))
    with pytest.raises(ValueError, match="'images' must have either 3 or 4 dimensions."):
        tf.image.resize_images(np.zeros((1, 2, 3, 3, 3), np.float32), [2, 2])
    with pytest.raises(ValueError, match="Dimension must be 3 but is 4"):
        tf.image.rgb_to_hsv(np.zeros((2, 2, 4), np.float32))
    with pytest.raises(ValueError, match="Last dimension of a grayscale image should be "
                                         "size 1."):
        tf.image.grayscale_to_rgb(np.zeros((2, 2, 3), np.float32))
    with pytest.raises(AttributeError, match="dtype must be either floating point or "
                                             "integer"):
        tf.image.convert_image_dtype(np.zeros((2, 2, 3), np.float32), tf.string)


def test_runtime_shape_errors_of_fed_images():
    p = tf.placeholder(tf.float32)
    with pytest.raises(errors.InvalidArgumentError,
                       match="input must have 3 channels but instead has 2 channels."):
        _run(tf.image.adjust_hue(tf.reshape(p, [2, 2, 2]), 0.1), feed={p: np.zeros(8)})
    with pytest.raises(errors.InvalidArgumentError, match="input must be 4-dimensional"):
        _run(tf.image.resize_bilinear(p, [2, 2]), feed={p: np.zeros((2, 2, 3))})


# -- inline display --------------------------------------------------------------------------
def test_show_images_draws_a_grid():
    import matplotlib
    matplotlib.use("Agg")
    from tfteach.notebook import show_images
    from tfteach.notebook.image_grid import as_displayable
    grey = RNG.randint(0, 256, (6, 9, 1)).astype(np.uint8)
    figure = show_images([F32, grey, F32 * 4 - 2], titles=["a", "b", "c"], cols=2,
                         show=False)
    axes = [a for a in figure.axes if a.images]
    assert [a.get_title() for a in axes] == ["a", "b", "c"]
    assert len(figure.axes) == 4                      # 2 x 2, the last one empty
    shown = axes[2].images[0].get_array()
    assert shown.min() == 0.0 and shown.max() == 1.0  # clipped, as imshow would
    stretched, _ = as_displayable(F32 * 4 - 2, rescale=True)
    np.testing.assert_allclose(stretched, (F32 - F32.min()) / (F32.max() - F32.min()),
                               atol=1e-6)
    picture, cmap = as_displayable(grey)
    assert picture.shape == (6, 9) and cmap == "gray"
    batch = show_images(np.stack([F32, F32]), show=False)
    assert len([a for a in batch.axes if a.images]) == 2
    with pytest.raises(ValueError, match="2 titles for 3 images"):
        show_images([F32] * 3, titles=["x", "y"], show=False)
    import matplotlib.pyplot as plt
    plt.close("all")


def test_image_ops_on_a_virtual_gpu_go_to_the_cpu_with_soft_placement(virtual_gpus):
    virtual_gpus(1)
    with tf.Graph().as_default():
        with tf.device("/gpu:0"):
            x = tf.constant(F32)
            y = tf.image.adjust_hue(tf.image.resize_images(x, [3, 4]), 0.2)
        config = tf.ConfigProto(allow_soft_placement=True)
        with tf.Session(config=config) as sess:
            assert sess.run(y).shape == (3, 4, 3)
        with pytest.raises(errors.InvalidArgumentError,
                           match="no supported kernel for GPU devices"):
            with tf.Session() as sess:
                sess.run(y)


def test_jpeg_crop_shape_and_quality_errors_and_randomness():
    y, x = np.mgrid[0:16, 0:24]
    image = np.stack([x * 10, y * 15, (x + y) * 5], axis=2).astype(np.uint8)
    data = _run(tf.image.encode_jpeg(image))[0]
    with pytest.raises(errors.InvalidArgumentError,
                       match="Invalid JPEG data or crop window, data size"):
        _run(tf.image.decode_and_crop_jpeg(data, [10, 0, 8, 8]))
    png = _run(tf.image.encode_png(image))[0]
    with pytest.raises(errors.InvalidArgumentError, match="Invalid JPEG data, size"):
        _run(tf.image.extract_jpeg_shape(png))
    with pytest.raises(errors.InvalidArgumentError, match="can run on JPEG only, but "
                                                          "detected PNG"):
        _run(tf.image.decode_and_crop_jpeg(png, [0, 0, 2, 2]))
    with pytest.raises(ValueError, match="jpeg encoding range must be between 0 and 100."):
        tf.image.random_jpeg_quality(image, 10, 101)
    with pytest.raises(ValueError, match="`min_jpeg_quality` must be less than"):
        tf.image.random_jpeg_quality(image, 50, 50)
    degraded = tf.image.random_jpeg_quality(tf.image.convert_image_dtype(image, tf.float32),
                                            5, 95, seed=1)
    assert degraded.dtype == tf.float32
    with tf.Session() as sess:
        runs = [sess.run(degraded) for _ in range(4)]
    assert all(r.shape == (16, 24, 3) for r in runs)
    assert any(not np.array_equal(runs[0], r) for r in runs[1:])   # a new quality each run
