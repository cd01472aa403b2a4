"""CPU kernels of the colour ops: RGBToHSV, HSVToRGB, AdjustHue, AdjustSaturation and
AdjustContrastv2, written after TensorFlow's C++ kernels (same branches, same order of
float operations), so their values agree with TF's to float rounding.

Every kernel takes pixels as a [n, 3] array (the image reshaped; the last axis is the
colour) and returns a new array.
"""
import numpy as np
from numba import njit

__all__ = ["rgb_to_hsv", "hsv_to_rgb", "adjust_hue", "adjust_saturation", "adjust_contrast"]


@njit(cache=True, nogil=True, inline="always")
def _to_hsv(r, g, b):
    """TF's rgb_to_hsv: h and s in [0, 1], v the largest component."""
    v = max(r, max(g, b))
    chroma = v - min(r, min(g, b))
    s = chroma / v if v > 0 else r * 0
    norm = 1 / (6 * chroma) if chroma > 0 else r * 0
    if r == v:
        h = norm * (g - b)
    elif g == v:
        h = norm * (b - r) + 2.0 / 6.0
    else:
        h = norm * (r - g) + 4.0 / 6.0
    if chroma <= 0:
        h = r * 0
    if h < 0:
        h = h + 1
    return h, s, v


@njit(cache=True, nogil=True, inline="always")
def _sector_rgb(sector, c, x):
    """(r, g, b) less the common offset m in the hue wheel's `sector` (0 to 5; any other
    is black): the largest component is the chroma `c`, the middle one `x`."""
    zero = c * 0
    if sector == 0:
        return c, x, zero
    if sector == 1:
        return x, c, zero
    if sector == 2:
        return zero, c, x
    if sector == 3:
        return zero, x, c
    if sector == 4:
        return x, zero, c
    if sector == 5:
        return c, zero, x
    return zero, zero, zero


@njit(cache=True, nogil=True, inline="always")
def _to_rgb(h, s, v):
    """TF's hsv_to_rgb (the sector of the hue wheel picks which component is largest)."""
    c = s * v
    m = v - c
    dh = h * 6
    sector = int(dh)
    fmodu = dh
    while fmodu <= 0:
        fmodu += 2
    while fmodu >= 2:
        fmodu -= 2
    x = c * (1 - abs(fmodu - 1))
    rr, gg, bb = _sector_rgb(sector, c, x)
    return rr + m, gg + m, bb + m


@njit(cache=True, nogil=True)
def rgb_to_hsv(pixels):
    out = np.empty_like(pixels)
    for i in range(pixels.shape[0]):
        out[i, 0], out[i, 1], out[i, 2] = _to_hsv(pixels[i, 0], pixels[i, 1], pixels[i, 2])
    return out


@njit(cache=True, nogil=True)
def hsv_to_rgb(pixels):
    """TF's HSVToRGB op (Eigen): the sector is int(6 h) and x uses fmod(6 h, 2)."""
    out = np.empty_like(pixels)
    for i in range(pixels.shape[0]):
        h, s, v = pixels[i, 0], pixels[i, 1], pixels[i, 2]
        c = s * v
        m = v - c
        dh = h * 6
        sector = int(dh)
        x = c * (1 - abs(np.fmod(dh, 2) - 1))
        if sector == 6:                      # h == 1 is red again, as h == 0
            sector = 0
        rr, gg, bb = _sector_rgb(sector, c, x)
        out[i, 0], out[i, 1], out[i, 2] = rr + m, gg + m, bb + m
    return out


@njit(cache=True, nogil=True)
def adjust_saturation(pixels, factor):
    out = np.empty_like(pixels)
    for i in range(pixels.shape[0]):
        h, s, v = _to_hsv(pixels[i, 0], pixels[i, 1], pixels[i, 2])
        s = min(np.float32(1), max(np.float32(0), s * factor))
        out[i, 0], out[i, 1], out[i, 2] = _to_rgb(h, s, v)
    return out


@njit(cache=True, nogil=True)
def adjust_hue(pixels, delta):
    """TF's AdjustHue: the hue as a position in [0, 6) between the smallest and largest
    component (the sector and the place of the middle component in it), turned by
    6 * delta; the smallest and largest components keep their values."""
    out = np.empty_like(pixels)
    for i in range(pixels.shape[0]):
        r, g, b = pixels[i, 0], pixels[i, 1], pixels[i, 2]
        if r < g:
            if b < r:
                v_max, v_mid, v_min, sector = g, r, b, 1
            elif b > g:
                v_max, v_mid, v_min, sector = b, g, r, 3
            else:
                v_max, v_mid, v_min, sector = g, b, r, 2
        else:
            if b < g:
                v_max, v_mid, v_min, sector = r, g, b, 0
            elif b > r:
                v_max, v_mid, v_min, sector = b, r, g, 4
            else:
                v_max, v_mid, v_min, sector = r, b, g, 5
        if v_max == v_min:
            h = np.float32(0)
        else:
            ratio = (v_mid - v_min) / (v_max - v_min)
            h = sector + (ratio if sector % 2 == 0 else 1 - ratio)
        h = np.float32(h + delta * 6)
        while h < 0:
            h += 6
        while h >= 6:
            h -= 6
        sector = int(h)
        ratio = h - sector
        if sector % 2 == 1:
            ratio = 1 - ratio
        v_mid = v_min + ratio * (v_max - v_min)
        if sector == 0:
            rgb = v_max, v_mid, v_min
        elif sector == 1:
            rgb = v_mid, v_max, v_min
        elif sector == 2:
            rgb = v_min, v_max, v_mid
        elif sector == 3:
            rgb = v_min, v_mid, v_max
        elif sector == 4:
            rgb = v_mid, v_min, v_max
        else:
            rgb = v_max, v_min, v_mid
        out[i, 0], out[i, 1], out[i, 2] = rgb
    return out


def adjust_contrast(images, factor):
    """TF's AdjustContrastv2: (x - mean) * factor + mean, the mean per image and channel
    over height and width. `images` is [batch, height, width, channels] float32."""
    mean = images.mean(axis=(1, 2), keepdims=True, dtype=np.float32)
    return ((images - mean) * np.float32(factor) + mean).astype(np.float32)
