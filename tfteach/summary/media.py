"""Images and sounds as TensorBoard stores them: PNG and WAV bytes.

`to_uint8_images` is TF's ImageSummary rule for float images (all values >= 0: scaled
so the largest is 255; any negative: scaled so the largest magnitude reaches 127 around
128; then truncated to uint8), non-finite pixels painted `bad_color`. PNG bytes come from io/png_format.py
(one IDAT chunk, zlib); WAV comes from the standard library.
"""
import io
import wave

import numpy as np

from tfteach.io import png_format

__all__ = ["to_uint8_images", "encode_png", "encode_wav"]


def to_uint8_images(images, bad_color):
    """uint8 [N, H, W, C] from uint8 or float images, as TF's ImageSummary does."""
    images = np.asarray(images)
    if images.dtype == np.uint8:
        return images
    out = np.empty(images.shape, np.uint8)
    for i, image in enumerate(images.astype(np.float32)):
        finite = np.isfinite(image).all(axis=-1)
        good = image[finite]
        image_min = good.min() if good.size else 0.0
        image_max = good.max() if good.size else 0.0
        if image_min >= 0:
            scale = 255.0 / image_max if image_max > 0 else 0.0
            offset = 0.0
        else:
            bound = max(-image_min, image_max)
            scale = 127.0 / bound if bound > 0 else 0.0
            offset = 128.0
        with np.errstate(invalid="ignore"):
            scaled = np.where(finite[..., None], image * scale + offset, 0.0)
        out[i] = np.clip(scaled, 0, 255).astype(np.uint8)   # truncated, as TF's cast
        out[i][~finite] = np.asarray(bad_color, np.uint8)[:image.shape[-1]]
    return out


def encode_png(image):
    """PNG bytes of one uint8 [H, W, C] image, C in 1 (grey), 3 (RGB), 4 (RGBA): the one
    PNG writer (io/png_format.py), which tf.image.encode_png uses too."""
    return png_format.encode(np.asarray(image))


def encode_wav(samples, sample_rate):
    """16-bit PCM WAV bytes of float samples [frames, channels] in [-1, 1]."""
    samples = np.asarray(samples, np.float32)
    # TF's wav_io: round(x * 2^15), clamped to int16's range.
    pcm = np.clip(np.round(samples * 32768.0), -32768, 32767).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(samples.shape[1])
        w.setsampwidth(2)
        w.setframerate(int(sample_rate))
        w.writeframes(pcm.tobytes())
    return buf.getvalue()
