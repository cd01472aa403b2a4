"""CPU kernels of the resize ops (ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic,
ResizeArea) and of the three resize gradients, as TensorFlow 1.15 computes them.

TF 1.15's `tf.image.resize_images` uses the *legacy* sampling grid
(`half_pixel_centers=False`): output pixel `y` reads the input at `y * scale`, where
`scale = in / out`, or `(in - 1) / (out - 1)` with `align_corners=True`. TF 2's
`tf.image.resize` moved to half-pixel centres; these kernels keep 1.15's grid, which
TF 2 still has as `tf.compat.v1.image.resize_images`.

All loops work on [batch, height, width, channels] float arrays; the arithmetic is
float32 where TF's kernels use float, so the values agree with TF's to float rounding.
"""
import numpy as np
from numba import njit

__all__ = ["resize_scale", "resize_bilinear", "resize_bilinear_grad", "resize_nearest",
           "resize_nearest_grad", "resize_bicubic", "resize_bicubic_grad", "resize_area"]


def resize_scale(in_size, out_size, align_corners):
    """TF's CalculateResizeScale (a float32 number, as in the C++ kernels)."""
    if align_corners and out_size > 1:
        return np.float32((in_size - 1) / np.float32(out_size - 1))
    return np.float32(in_size / np.float32(out_size))


@njit(cache=True, nogil=True)
def _bilinear_weights(out_size, in_size, scale):
    """For each output row: the lower and upper input rows and the upper's weight."""
    lower = np.empty(out_size, np.int64)
    upper = np.empty(out_size, np.int64)
    lerp = np.empty(out_size, np.float32)
    for i in range(out_size):
        position = np.float32(i) * scale
        low = int(np.floor(position))
        lower[i] = low
        upper[i] = min(low + 1, in_size - 1)
        lerp[i] = position - np.float32(low)
    return lower, upper, lerp


@njit(cache=True, nogil=True, inline="always")
def bilinear_mix(top_left, top_right, bottom_left, bottom_right, x_lerp, y_lerp):
    """The four neighbours mixed as TF's bilinear kernels do (ResizeBilinear,
    CropAndResize): along x first, then along y, every step in float32."""
    top_left, top_right = np.float32(top_left), np.float32(top_right)
    bottom_left, bottom_right = np.float32(bottom_left), np.float32(bottom_right)
    top = top_left + (top_right - top_left) * x_lerp
    bottom = bottom_left + (bottom_right - bottom_left) * x_lerp
    return top + (bottom - top) * y_lerp


@njit(cache=True, nogil=True)
def resize_bilinear(images, out_h, out_w, scale_h, scale_w):
    batch, in_h, in_w, channels = images.shape
    out = np.empty((batch, out_h, out_w, channels), np.float32)
    ys_low, ys_high, ys_lerp = _bilinear_weights(out_h, in_h, scale_h)
    xs_low, xs_high, xs_lerp = _bilinear_weights(out_w, in_w, scale_w)
    for b in range(batch):
        for y in range(out_h):
            y0, y1, dy = ys_low[y], ys_high[y], ys_lerp[y]
            for x in range(out_w):
                x0, x1, dx = xs_low[x], xs_high[x], xs_lerp[x]
                for c in range(channels):
                    out[b, y, x, c] = bilinear_mix(images[b, y0, x0, c], images[b, y0, x1, c],
                                                   images[b, y1, x0, c], images[b, y1, x1, c],
                                                   dx, dy)
    return out


@njit(cache=True, nogil=True)
def resize_bilinear_grad(grads, in_h, in_w, scale_h, scale_w):
    """Each output pixel's gradient goes back to its four input pixels, weighted as in
    the forward pass (TF's ResizeBilinearGrad)."""
    batch, out_h, out_w, channels = grads.shape
    out = np.zeros((batch, in_h, in_w, channels), np.float32)
    ys_low, ys_high, ys_lerp = _bilinear_weights(out_h, in_h, scale_h)
    xs_low, xs_high, xs_lerp = _bilinear_weights(out_w, in_w, scale_w)
    for b in range(batch):
        for y in range(out_h):
            y0, y1, dy = ys_low[y], ys_high[y], ys_lerp[y]
            for x in range(out_w):
                x0, x1, dx = xs_low[x], xs_high[x], xs_lerp[x]
                for c in range(channels):
                    g = np.float32(grads[b, y, x, c])
                    out[b, y0, x0, c] += g * (1 - dy) * (1 - dx)
                    out[b, y0, x1, c] += g * (1 - dy) * dx
                    out[b, y1, x0, c] += g * dy * (1 - dx)
                    out[b, y1, x1, c] += g * dy * dx
    return out


@njit(cache=True, nogil=True)
def _nearest_index(out_size, in_size, scale, align_corners):
    index = np.empty(out_size, np.int64)
    for i in range(out_size):
        position = np.float32(i) * scale
        # TF: roundf (halves away from zero) with align_corners, floorf without
        nearest = int(np.floor(position + np.float32(0.5))) if align_corners else int(
            np.floor(position))
        index[i] = min(nearest, in_size - 1)
    return index


@njit(cache=True, nogil=True)
def resize_nearest(images, out_h, out_w, scale_h, scale_w, align_corners):
    batch, in_h, in_w, channels = images.shape
    out = np.empty((batch, out_h, out_w, channels), images.dtype)
    ys = _nearest_index(out_h, in_h, scale_h, align_corners)
    xs = _nearest_index(out_w, in_w, scale_w, align_corners)
    for b in range(batch):
        for y in range(out_h):
            for x in range(out_w):
                for c in range(channels):
                    out[b, y, x, c] = images[b, ys[y], xs[x], c]
    return out


@njit(cache=True, nogil=True)
def resize_nearest_grad(grads, in_h, in_w, scale_h, scale_w, align_corners):
    """The gradient of a nearest-neighbour resize: each output pixel's gradient is added
    to the one input pixel it copied."""
    batch, out_h, out_w, channels = grads.shape
    out = np.zeros((batch, in_h, in_w, channels), grads.dtype)
    ys = _nearest_index(out_h, in_h, scale_h, align_corners)
    xs = _nearest_index(out_w, in_w, scale_w, align_corners)
    for b in range(batch):
        for y in range(out_h):
            for x in range(out_w):
                for c in range(channels):
                    out[b, ys[y], xs[x], c] += grads[b, y, x, c]
    return out


# -- bicubic: TF's legacy kernel reads its weights from a 1025-entry table (Keys' cubic
# convolution with a = -0.75), indexed by the rounded fractional position.
CUBIC_TABLE_SIZE = 1024


def _cubic_table(a=-0.75):
    x = np.arange(CUBIC_TABLE_SIZE + 1, dtype=np.float64) / CUBIC_TABLE_SIZE
    near = ((a + 2) * x - (a + 3)) * x * x + 1            # weight of the pixel at distance x
    far = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a   # at distance x + 1
    return np.stack([near, far]).astype(np.float32)


_CUBIC = _cubic_table()


@njit(cache=True, nogil=True)
def _cubic_taps(out_size, in_size, scale, table):
    """For each output row: 4 input rows (clamped to the image) and their 4 weights."""
    index = np.empty((out_size, 4), np.int64)
    weight = np.empty((out_size, 4), np.float32)
    for i in range(out_size):
        position = np.float32(i) * scale
        start = int(np.floor(position))
        delta = position - np.float32(start)
        offset = int(np.rint(delta * CUBIC_TABLE_SIZE))
        weight[i, 0] = table[1, offset]
        weight[i, 1] = table[0, offset]
        weight[i, 2] = table[0, CUBIC_TABLE_SIZE - offset]
        weight[i, 3] = table[1, CUBIC_TABLE_SIZE - offset]
        for k in range(4):
            index[i, k] = min(max(start - 1 + k, 0), in_size - 1)
    return index, weight


@njit(cache=True, nogil=True)
def _resize_bicubic(images, out_h, out_w, scale_h, scale_w, table):
    batch, in_h, in_w, channels = images.shape
    out = np.empty((batch, out_h, out_w, channels), np.float32)
    y_index, y_weight = _cubic_taps(out_h, in_h, scale_h, table)
    x_index, x_weight = _cubic_taps(out_w, in_w, scale_w, table)
    for b in range(batch):
        for y in range(out_h):
            for x in range(out_w):
                for c in range(channels):
                    total = np.float32(0)
                    for i in range(4):
                        row = np.float32(0)
                        for j in range(4):
                            row += x_weight[x, j] * np.float32(
                                images[b, y_index[y, i], x_index[x, j], c])
                        total += y_weight[y, i] * row
                    out[b, y, x, c] = total
    return out


def resize_bicubic(images, out_h, out_w, scale_h, scale_w):
    return _resize_bicubic(images, out_h, out_w, scale_h, scale_w, _CUBIC)


@njit(cache=True, nogil=True)
def _area_spans(out_size, in_size, scale):
    """For each output row, the input rows it covers and how much of each (TF's
    ResizeArea: the output pixel is the mean of the input area it covers)."""
    starts = np.empty(out_size, np.int64)
    counts = np.empty(out_size, np.int64)
    widest = 0
    for i in range(out_size):
        low = np.float32(i) * scale
        high = np.float32(i + 1) * scale
        starts[i] = int(np.floor(low))
        counts[i] = int(np.ceil(high)) - starts[i]
        widest = max(widest, counts[i])
    index = np.zeros((out_size, widest), np.int64)
    weight = np.zeros((out_size, widest), np.float32)
    for i in range(out_size):
        low = np.float32(i) * scale
        high = np.float32(i + 1) * scale
        for k in range(counts[i]):
            j = starts[i] + k
            if j < low:
                share = scale if j + 1 > high else np.float32(j + 1) - low
            else:
                share = high - np.float32(j) if j + 1 > high else np.float32(1.0)
            index[i, k] = min(max(j, 0), in_size - 1)
            weight[i, k] = share
    return index, weight, counts


@njit(cache=True, nogil=True)
def resize_area(images, out_h, out_w, scale_h, scale_w):
    batch, in_h, in_w, channels = images.shape
    out = np.empty((batch, out_h, out_w, channels), np.float32)
    y_index, y_weight, y_count = _area_spans(out_h, in_h, scale_h)
    x_index, x_weight, x_count = _area_spans(out_w, in_w, scale_w)
    norm = np.float32(1.0) / (scale_h * scale_w)
    for b in range(batch):
        for y in range(out_h):
            for x in range(out_w):
                for c in range(channels):
                    total = np.float32(0)
                    for i in range(y_count[y]):
                        row = np.float32(0)
                        for j in range(x_count[x]):
                            row += np.float32(images[b, y_index[y, i], x_index[x, j], c]) \
                                * x_weight[x, j]
                        total += row * y_weight[y, i]
                    out[b, y, x, c] = total * norm
    return out


@njit(cache=True, nogil=True)
def _resize_bicubic_grad(grads, in_h, in_w, scale_h, scale_w, table):
    """Each output pixel's gradient goes back to its 4 x 4 input pixels, with the
    forward pass's weights (TF's ResizeBicubicGrad)."""
    batch, out_h, out_w, channels = grads.shape
    out = np.zeros((batch, in_h, in_w, channels), np.float32)
    y_index, y_weight = _cubic_taps(out_h, in_h, scale_h, table)
    x_index, x_weight = _cubic_taps(out_w, in_w, scale_w, table)
    for b in range(batch):
        for y in range(out_h):
            for x in range(out_w):
                for c in range(channels):
                    g = np.float32(grads[b, y, x, c])
                    for i in range(4):
                        for j in range(4):
                            out[b, y_index[y, i], x_index[x, j], c] += \
                                g * y_weight[y, i] * x_weight[x, j]
    return out


def resize_bicubic_grad(grads, in_h, in_w, scale_h, scale_w):
    return _resize_bicubic_grad(grads, in_h, in_w, scale_h, scale_w, _CUBIC)
