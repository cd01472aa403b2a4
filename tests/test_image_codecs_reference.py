"""tf.image's codecs against TensorFlow: PNG (8 and 16 bits, palettes, channel
conversions) to the bit both ways, JPEG to the bit with the accurate DCT and within a few
levels with TF's default one, GIF, BMP, and bad bytes. Skips without TensorFlow."""
import io

import numpy as np
import pytest

from tests.image_helpers import jpeg_bytes, same, smooth_image
from tests.tf_reference import errors_of_both, run_both, run_program, tensorflow_v1

import tfteach

pytestmark = pytest.mark.reference

RNG = np.random.RandomState(11)


def _decode_on(tf, op_builder):
    return run_program(tf, lambda tf: ([op_builder(tf)], None))[0]


@pytest.mark.parametrize("shape,dtype", [((5, 7, 1), np.uint8), ((5, 7, 2), np.uint8),
                                         ((5, 7, 3), np.uint8), ((5, 7, 4), np.uint8),
                                         ((4, 6, 3), np.uint16), ((4, 6, 1), np.uint16),
                                         ((4, 6, 4), np.uint16)])
def test_png_round_trips_between_tfteach_and_tensorflow(shape, dtype):
    image = RNG.randint(0, np.iinfo(dtype).max + 1, shape).astype(dtype)
    tf_dtype = "uint16" if dtype == np.uint16 else "uint8"
    ours = _decode_on(tfteach, lambda tf: tf.image.encode_png(image, compression=9))
    theirs = _decode_on(tensorflow_v1(), lambda tf: tf.image.encode_png(image))
    for data in (ours, theirs):
        for tf in (tensorflow_v1(), tfteach):
            decoded = _decode_on(tf, lambda tf: tf.image.decode_png(
                data, dtype=getattr(tf, tf_dtype)))
            assert decoded.dtype == dtype
            np.testing.assert_array_equal(decoded, image)


def test_png_channel_and_depth_conversions_match_tensorflow():
    grey = RNG.randint(0, 256, (4, 5, 1)).astype(np.uint8)
    rgba = RNG.randint(0, 256, (4, 5, 4)).astype(np.uint8)
    deep = RNG.randint(0, 65536, (4, 5, 3)).astype(np.uint16)

    def build(tf):
        g, c, d = (tf.image.encode_png(v) for v in (grey, rgba, deep))
        return [tf.image.decode_png(g, channels=3), tf.image.decode_png(g, channels=4),
                tf.image.decode_png(c, channels=3), tf.image.decode_png(g, dtype=tf.uint16),
                tf.image.decode_png(d, dtype=tf.uint8), tf.image.decode_image(g),
                tf.image.decode_image(c, dtype=tf.float32)], None
    expected, got = run_both(build)
    same(expected[:-1], got[:-1])
    # TF 1.15 converts the uint8 pixels with convert_image_dtype (x * (1/255) in float32),
    # TF 2's kernel decodes to float itself: one float32 ulp apart at most
    same(expected[-1:], got[-1:], atol=1.2e-7)


def test_png_colour_to_grey_is_libpngs():
    """libpng's fixed-point grey (truncated for 8 bits, rounded for 16), to the bit."""
    rgb = RNG.randint(0, 256, (32, 32, 3)).astype(np.uint8)
    rgba = RNG.randint(0, 256, (32, 32, 4)).astype(np.uint8)
    grey_alpha = RNG.randint(0, 256, (32, 32, 2)).astype(np.uint8)
    deep = RNG.randint(0, 65536, (32, 32, 3)).astype(np.uint16)

    def build(tf):
        a, b, c, d = (tf.image.encode_png(v) for v in (rgb, rgba, grey_alpha, deep))
        return [tf.image.decode_png(a, channels=1), tf.image.decode_png(b, channels=1),
                tf.image.decode_png(c, channels=3), tf.image.decode_png(c, channels=4),
                tf.image.decode_png(c, channels=1), tf.image.decode_png(c),
                tf.image.decode_png(d, channels=1, dtype=tf.uint16),
                tf.image.decode_png(d, channels=4, dtype=tf.uint16),
                tf.image.decode_jpeg(a, channels=1)], None
    expected, got = run_both(build)
    same(expected, got)


def test_palette_and_low_bit_depth_pngs_decode_as_tensorflow_does():
    """Pillow writes these files (4-bit palette, with and without transparency, 1-bit,
    grey); TF's libpng gives an added alpha channel the file's (1 << bit depth) - 1."""
    from PIL import Image
    colour = Image.fromarray(RNG.randint(0, 256, (9, 11, 3)).astype(np.uint8))
    palette = colour.convert("P", palette=Image.ADAPTIVE, colors=16)
    bits = Image.fromarray(RNG.randint(0, 2, (9, 11)).astype(bool))

    def png(image, **options):
        out = io.BytesIO()
        image.save(out, "PNG", **options)
        return out.getvalue()
    files = [png(palette), png(palette, transparency=3), png(bits), png(colour.convert("L"))]

    def build(tf):
        return [tf.image.decode_png(data, channels=channels)
                for data in files for channels in (0, 1, 3, 4)], None
    expected, got = run_both(build)
    same(expected, got)


def test_bmp_decoding_matches_tensorflow():
    from PIL import Image
    colour = RNG.randint(0, 256, (5, 7, 3)).astype(np.uint8)
    with_alpha = np.concatenate([colour, colour[:, :, :1]], axis=2)

    def bmp(array, mode):
        out = io.BytesIO()
        Image.fromarray(array, mode).save(out, "BMP")
        return out.getvalue()
    rgb, rgba = bmp(colour, "RGB"), bmp(with_alpha, "RGBA")     # 24 and 32 bits

    def build(tf):
        return [tf.image.decode_bmp(rgb), tf.image.decode_bmp(rgb, channels=3),
                tf.image.decode_image(rgb), tf.image.decode_bmp(rgba),
                tf.image.decode_image(rgba)], None
    expected, got = run_both(build)
    same(expected, got)
    np.testing.assert_array_equal(got[3], with_alpha)


def test_png_channels_two_is_refused():
    def build(tf):
        return [tf.image.decode_png(tf.image.encode_png(np.zeros((2, 2, 2), np.uint8)),
                                    channels=2)], None
    theirs, ours = errors_of_both(build)
    assert type(theirs).__name__ == type(ours).__name__ == "InvalidArgumentError"
    assert "channels must be 0, 1, 3, or 4, got 2" in str(ours)


def test_jpeg_decoding_matches_tensorflow():
    data = jpeg_bytes(smooth_image())
    grey = jpeg_bytes(smooth_image()[:, :, 0])

    def build(tf):
        accurate = {"dct_method": "INTEGER_ACCURATE"}
        return [tf.image.decode_jpeg(data, **accurate),
                tf.image.decode_jpeg(data, channels=1, **accurate),
                tf.image.decode_jpeg(grey, **accurate),
                tf.image.decode_jpeg(grey, channels=3, **accurate),
                tf.image.decode_jpeg(data, ratio=2, **accurate),
                tf.image.decode_jpeg(data, ratio=8, **accurate),
                tf.image.is_jpeg(data), tf.image.is_jpeg(tf.image.encode_png(smooth_image()))
                ], None
    expected, got = run_both(build)
    # with libjpeg's accurate integer DCT, the same pixels to the bit
    same(expected, got)


def test_jpeg_default_dct_is_within_a_few_levels_of_tensorflows():
    """TF's default is libjpeg's fast integer DCT, which Pillow does not offer; tfteach
    always decodes with the accurate one (docs/image.md): a few levels apart."""
    data = jpeg_bytes(smooth_image())

    def build(tf):
        return [tf.image.decode_jpeg(data), tf.image.decode_image(data)], None
    expected, got = run_both(build)
    same(expected, got, atol=8)
    for e, g in zip(expected, got):
        assert np.abs(e.astype(int) - g.astype(int)).mean() < 3


def test_jpeg_encoding_decodes_like_tensorflows():
    image = smooth_image()
    for kwargs in ({}, {"quality": 60}, {"chroma_downsampling": False},
                   {"progressive": True, "optimize_size": True}):
        ours = _decode_on(tfteach, lambda tf: tf.image.encode_jpeg(image, **kwargs))
        theirs = _decode_on(tensorflow_v1(), lambda tf: tf.image.encode_jpeg(image, **kwargs))
        a = _decode_on(tensorflow_v1(), lambda tf: tf.image.decode_jpeg(ours))
        b = _decode_on(tensorflow_v1(), lambda tf: tf.image.decode_jpeg(theirs))
        assert a.shape == b.shape == image.shape
        tolerance = 12 if kwargs.get("quality") == 60 else 6
        np.testing.assert_allclose(a.astype(int), b.astype(int), rtol=0, atol=tolerance)
    grey = _decode_on(tfteach, lambda tf: tf.image.encode_jpeg(image[:, :, :1]))
    assert _decode_on(tensorflow_v1(), lambda tf: tf.image.decode_jpeg(grey)).shape == (
        24, 32, 1)


def test_gif_decoding_matches_tensorflow():
    from PIL import Image
    frames = [Image.fromarray(np.full((6, 8, 3), v, np.uint8)) for v in (0, 255)]
    frames[0].paste((255, 0, 0), (2, 1, 5, 4))
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:], duration=50)
    data = out.getvalue()

    def build(tf):
        return [tf.image.decode_gif(data), tf.image.decode_image(data)], None
    expected, got = run_both(build)
    same(expected, got)


@pytest.mark.parametrize("op", ["decode_jpeg", "decode_png", "decode_image"])
def test_bad_bytes_are_invalid_argument_errors(op):
    def build(tf):
        return [getattr(tf.image, op)(b"not an image at all")], None
    theirs, ours = errors_of_both(build)
    assert type(theirs).__name__ == type(ours).__name__ == "InvalidArgumentError"


def test_corrupt_jpeg_is_an_invalid_argument_error():
    data = jpeg_bytes(smooth_image())[:40]

    def build(tf):
        return [tf.image.decode_jpeg(data)], None
    theirs, ours = errors_of_both(build)
    assert type(theirs).__name__ == type(ours).__name__ == "InvalidArgumentError"
    assert "Invalid JPEG data or crop window, data size 40" in str(ours)
    assert "Invalid JPEG data or crop window" in str(theirs)


def test_jpeg_shape_crop_and_quality_functions():
    data = jpeg_bytes(smooth_image())

    def build(tf):
        return [tf.image.extract_jpeg_shape(data), tf.image.extract_jpeg_shape(data, tf.int64),
                tf.image.decode_and_crop_jpeg(data, [3, 5, 10, 12],
                                              dct_method="INTEGER_ACCURATE"),
                tf.image.decode_and_crop_jpeg(data, [16, 0, 8, 16], channels=1,
                                              dct_method="INTEGER_ACCURATE"),
                tf.image.adjust_jpeg_quality(tf.constant(smooth_image()), 90)], None
    expected, got = run_both(build)
    same(expected[:2], got[:2])
    # TF decodes only the window (libjpeg's crop): the upsampled chroma at the window's
    # edges may differ by a level or two
    same(expected[2:4], got[2:4], atol=3)
    same(expected[4:], got[4:], atol=8)      # two encoders, two DCTs


def test_encode_jpeg_converts_its_input_as_tensorflow():
    """EncodeJpeg's `image` is a fixed uint8 input: a NumPy array or list is converted to
    uint8 (named EncodeJpeg/image), a tensor of another dtype is op_def_library's
    TypeError. Before, tfteach refused both with a type attr's words ("Value passed to
    parameter 'image' has DataType float32 not in list of allowed values: uint8")."""
    def program(tf):
        out = []
        with tf.Graph().as_default():
            encoded = tf.image.encode_jpeg(np.full((2, 3, 3), 200.7, np.float32))
            out.append([encoded.name, encoded.op.inputs[0].name])
            listed = tf.image.encode_jpeg([[[1, 2, 3]]], name="enc")
            out.append([listed.name, listed.op.inputs[0].name])
            for value in (tf.zeros((4, 4, 3)), tf.zeros((4, 4, 3), tf.int32)):
                try:
                    tf.image.encode_jpeg(value)
                except TypeError as e:
                    out.append(str(e))
            with tf.Session() as sess:
                out.append(sess.run(tf.image.decode_jpeg(encoded)).shape)
        return out

    assert program(tfteach) == program(tensorflow_v1())


def test_codec_ops_name_their_constant_inputs_as_tensorflow():
    """Bytes given as Python values become constants inside the op's name scope, as
    TF's generated wrappers make them (`DecodeJpeg/contents`; before: contents_1);
    encode_png's image converts to a plain Const first, as TF's wrapper converts it."""
    def program(tf):
        with tf.Graph().as_default():
            made = [tf.image.decode_png(b"x"), tf.image.decode_jpeg(b"x"),
                    tf.image.extract_jpeg_shape(b"x"),
                    tf.image.decode_and_crop_jpeg(b"x", [0, 0, 1, 1]),
                    tf.image.decode_gif(b"x"), tf.image.decode_bmp(b"x", name="bmp"),
                    tf.image.encode_png(np.zeros((2, 2, 3), np.uint8))]
            return [(t.name, [i.name for i in t.op.inputs]) for t in made]

    assert program(tfteach) == program(tensorflow_v1())
