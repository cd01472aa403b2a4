"""Images and sounds as TensorBoard stores them: PNG and WAV bytes.

`to_uint8_images` is TF's ImageSummary rule for float images (all values >= 0: scaled
so the largest is 255; any negative: scaled so the largest magnitude reaches 127 around
128; then truncated to uint8), non-finite pixels painted `bad_color`. The PNG writer is the format's minimum
(8-bit grey / RGB / RGBA, one IDAT chunk, zlib); WAV comes from the standard library.
"""
import io
import struct
import wave
import zlib

import numpy as np

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


def _chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def encode_png(image):
    """PNG bytes of one uint8 [H, W, C] image, C in 1 (grey), 3 (RGB), 4 (RGBA)."""
    height, width, channels = image.shape
    color_type = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    rows = b"".join(b"\x00" + image[r].tobytes() for r in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(rows)) + _chunk(b"IEND", b""))


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
