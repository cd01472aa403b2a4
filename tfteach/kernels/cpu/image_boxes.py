"""CPU kernels of the bounding-box ops: DrawBoundingBoxes(V2), CropAndResize (and its
two gradients) and SampleDistortedBoundingBoxV2, after TensorFlow 1.15's C++ kernels.

Boxes are normalised `[y_min, x_min, y_max, x_max]` (0 = top/left edge, 1 = bottom/right).
"""
import numpy as np
from numba import njit

from tfteach.kernels.cpu.image_resize import bilinear_mix

__all__ = ["DEFAULT_COLORS", "draw_boxes", "crop_and_resize", "crop_and_resize_grad_image",
           "crop_and_resize_grad_boxes", "sample_crop"]

# TF's DefaultColorTable: yellow, blue, red, lime, purple, olive, maroon, navy, aqua, fuchsia
DEFAULT_COLORS = np.array([[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1],
                           [0.5, 0, 0.5, 1], [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1],
                           [0, 1, 1, 1], [1, 0, 1, 1]], np.float32)


def draw_boxes(images, boxes, colors):
    """Each box's outline (one pixel wide) in colour `colors[k % len(colors)]`; boxes
    partly outside the image are drawn clipped, inverted ones are skipped (TF's rules:
    the corners are `int(coordinate * (size - 1))`, truncated toward zero)."""
    canvas = np.array(images)
    _, height, width, depth = canvas.shape
    for b in range(canvas.shape[0]):
        for k in range(boxes.shape[1]):
            color = colors[k % len(colors)][:depth].astype(canvas.dtype)
            y0, x0, y1, x1 = (int(np.float32(v) * np.float32(size - 1)) for v, size in
                              zip(boxes[b, k], (height, width, height, width)))
            if y0 > y1 or x0 > x1:
                continue                                   # inverted: not drawn
            if y0 >= height or y1 < 0 or x0 >= width or x1 < 0:
                continue                                   # completely outside
            rows = slice(max(y0, 0), min(y1, height - 1) + 1)
            cols = slice(max(x0, 0), min(x1, width - 1) + 1)
            if y0 >= 0:
                canvas[b, y0, cols] = color
            if y1 < height:
                canvas[b, y1, cols] = color
            if x0 >= 0:
                canvas[b, rows, x0] = color
            if x1 < width:
                canvas[b, rows, x1] = color
    return canvas


@njit(cache=True, nogil=True)
def _sample_position(k, size, low, high, image_size):
    """Where crop row (or column) k of `size` samples the image, for a box edge pair
    (low, high) in [0, 1] coordinates (TF's CropAndResize grid)."""
    # every step in float32, as TF's kernel computes it (an int64 factor would carry
    # the sums in float64 and round once: 1-2 ulps off TF's numbers)
    last = np.float32(image_size - 1)
    if size > 1:
        scale = (high - low) * last / np.float32(size - 1)
        return low * last + np.float32(k) * scale
    return np.float32(0.5) * (low + high) * last


@njit(cache=True, nogil=True, inline="always")
def _neighbours(position):
    """The image rows (or columns) either side of a sample position inside the image,
    and how far along from the first to the second it lies (float32, as TF)."""
    low = int(np.floor(position))
    return low, int(np.ceil(position)), np.float32(position - low)


@njit(cache=True, nogil=True)
def crop_and_resize(image, boxes, box_index, crop_h, crop_w, bilinear, extrapolation):
    batch, height, width, depth = image.shape
    out = np.empty((boxes.shape[0], crop_h, crop_w, depth), np.float32)
    for n in range(boxes.shape[0]):
        y1, x1, y2, x2 = boxes[n, 0], boxes[n, 1], boxes[n, 2], boxes[n, 3]
        b = box_index[n]
        for y in range(crop_h):
            in_y = _sample_position(y, crop_h, y1, y2, height)
            if in_y < 0 or in_y > height - 1:
                out[n, y, :, :] = extrapolation
                continue
            top, bottom, y_lerp = _neighbours(in_y)
            for x in range(crop_w):
                in_x = _sample_position(x, crop_w, x1, x2, width)
                if in_x < 0 or in_x > width - 1:
                    out[n, y, x, :] = extrapolation
                    continue
                if not bilinear:
                    # TF's roundf: halves away from zero (in_y, in_x >= 0 here)
                    yy = int(np.floor(in_y + np.float32(0.5)))
                    xx = int(np.floor(in_x + np.float32(0.5)))
                    for d in range(depth):
                        out[n, y, x, d] = image[b, yy, xx, d]
                    continue
                left, right, x_lerp = _neighbours(in_x)
                for d in range(depth):
                    out[n, y, x, d] = bilinear_mix(
                        image[b, top, left, d], image[b, top, right, d],
                        image[b, bottom, left, d], image[b, bottom, right, d],
                        x_lerp, y_lerp)
    return out


# -- SampleDistortedBoundingBox ---------------------------------------------------------------
def _area(box):
    return max(box[2] - box[0], 0) * max(box[3] - box[1], 0)


def _random_crop(rng, width, height, min_area, max_area, aspect):
    """TF's GenerateRandomCrop: a (x0, y0, x1, y1) of about the aspect ratio `aspect` and
    an area in [min_area, max_area] (fractions of the image), or None."""
    if max_area <= 0 or aspect <= 0 or min_area > max_area:
        return None
    min_area = np.float32(min_area * width * height)
    max_area = np.float32(max_area * width * height)
    crop_h = int(np.rint(np.sqrt(min_area / aspect)))
    max_h = int(np.rint(np.sqrt(max_area / aspect)))
    if np.rint(max_h * aspect) > width:
        max_h = int((width + 0.5 - 1e-7) / aspect)
    max_h = min(max_h, height)
    crop_h = min(crop_h, max_h)
    if crop_h < max_h:
        crop_h += int(rng.integers(max_h - crop_h + 1))
    crop_w = int(np.rint(crop_h * aspect))
    area = crop_w * crop_h
    if area < min_area:           # rounding made it too small: one row more
        crop_h += 1
        crop_w = int(np.rint(crop_h * aspect))
        area = crop_w * crop_h
    if area > max_area:           # or too big: one row fewer
        crop_h -= 1
        crop_w = int(np.rint(crop_h * aspect))
        area = crop_w * crop_h
    if (area < min_area or area > max_area or crop_w > width or crop_h > height
            or crop_w <= 0 or crop_h <= 0):
        return None
    y = int(rng.integers(height - crop_h)) if crop_h < height else 0
    x = int(rng.integers(width - crop_w)) if crop_w < width else 0
    return x, y, x + crop_w, y + crop_h


def _covers(crop, boxes, min_covered):
    """TF's SatisfiesOverlapConstraints: the crop has at least 10 pixels and covers at
    least `min_covered` of one of the boxes."""
    if _area(crop) < 10:
        return False
    for box in boxes:
        box_area = _area(box)
        if box_area == 0:
            continue
        inside = (max(crop[0], box[0]), max(crop[1], box[1]),
                  min(crop[2], box[2]), min(crop[3], box[3]))
        if np.float32(_area(inside)) / np.float32(box_area) >= min_covered:
            return True
    return False


def sample_crop(rng, height, width, boxes, min_covered, aspect_range, area_range,
                max_attempts):
    """TF's SampleDistortedBoundingBox: tries `max_attempts` random crops, returns the
    first that covers enough of a box, else the whole image, as (x0, y0, x1, y1)."""
    pixel_boxes = [(int(np.float32(b[1]) * width), int(np.float32(b[0]) * height),
                    int(np.float32(b[3]) * width), int(np.float32(b[2]) * height))
                   for b in boxes]
    whole = (0, 0, width, height)
    if not pixel_boxes:
        pixel_boxes = [whole]
    low, high = (np.float32(v) for v in aspect_range)
    for _ in range(max_attempts):
        aspect = np.float32(rng.random(dtype=np.float32) * (high - low) + low)
        crop = _random_crop(rng, width, height, np.float32(area_range[0]),
                            np.float32(area_range[1]), aspect)
        if crop is not None and _covers(crop, pixel_boxes, min_covered):
            return crop
    return whole


@njit(cache=True, nogil=True)
def crop_and_resize_grad_image(grads, boxes, box_index, image_shape, bilinear):
    """TF's CropAndResizeGradImage: each crop pixel's gradient goes back to the image
    pixels it was sampled from, with the forward pass's weights."""
    batch, height, width, depth = image_shape
    out = np.zeros((batch, height, width, depth), np.float32)
    crop_h, crop_w = grads.shape[1], grads.shape[2]
    for n in range(boxes.shape[0]):
        y1, x1, y2, x2 = boxes[n, 0], boxes[n, 1], boxes[n, 2], boxes[n, 3]
        b = box_index[n]
        for y in range(crop_h):
            in_y = _sample_position(y, crop_h, y1, y2, height)
            if in_y < 0 or in_y > height - 1:
                continue
            top, bottom, y_lerp = _neighbours(in_y)
            for x in range(crop_w):
                in_x = _sample_position(x, crop_w, x1, x2, width)
                if in_x < 0 or in_x > width - 1:
                    continue
                if not bilinear:
                    yy = int(np.floor(in_y + np.float32(0.5)))
                    xx = int(np.floor(in_x + np.float32(0.5)))
                    for d in range(depth):
                        out[b, yy, xx, d] += grads[n, y, x, d]
                    continue
                left, right, x_lerp = _neighbours(in_x)
                for d in range(depth):
                    upper = (1 - y_lerp) * grads[n, y, x, d]
                    out[b, top, left, d] += (1 - x_lerp) * upper
                    out[b, top, right, d] += x_lerp * upper
                    lower = y_lerp * grads[n, y, x, d]
                    out[b, bottom, left, d] += (1 - x_lerp) * lower
                    out[b, bottom, right, d] += x_lerp * lower
    return out


@njit(cache=True, nogil=True)
def crop_and_resize_grad_boxes(grads, image, boxes, box_index):
    """TF's CropAndResizeGradBoxes: how the bilinear crop changes when a box edge moves
    (the image's slope at each sample point, times how far that point moves with the
    edge); TF uses it for the nearest method too."""
    _, height, width, depth = image.shape
    crop_h, crop_w = grads.shape[1], grads.shape[2]
    out = np.zeros((boxes.shape[0], 4), np.float32)
    for n in range(boxes.shape[0]):
        y1, x1, y2, x2 = boxes[n, 0], boxes[n, 1], boxes[n, 2], boxes[n, 3]
        b = box_index[n]
        hm1, wm1 = np.float32(height - 1), np.float32(width - 1)
        height_ratio = hm1 / np.float32(crop_h - 1) if crop_h > 1 else np.float32(0)
        width_ratio = wm1 / np.float32(crop_w - 1) if crop_w > 1 else np.float32(0)
        for y in range(crop_h):
            in_y = _sample_position(y, crop_h, y1, y2, height)
            if in_y < 0 or in_y > height - 1:
                continue
            top, bottom, y_lerp = _neighbours(in_y)
            for x in range(crop_w):
                in_x = _sample_position(x, crop_w, x1, x2, width)
                if in_x < 0 or in_x > width - 1:
                    continue
                left, right, x_lerp = _neighbours(in_x)
                for d in range(depth):
                    top_left = np.float32(image[b, top, left, d])
                    top_right = np.float32(image[b, top, right, d])
                    bottom_left = np.float32(image[b, bottom, left, d])
                    bottom_right = np.float32(image[b, bottom, right, d])
                    # float32 throughout, as TF's kernel (a Python 1 or an int64 row
                    # index would carry the sums in float64); TF's 0.5 is a double, so
                    # the crop_h == 1 terms are added in double and stored as float
                    one, g = np.float32(1), np.float32(grads[n, y, x, d])
                    slope_y = ((one - x_lerp) * (bottom_left - top_left)
                               + x_lerp * (bottom_right - top_right)) * g
                    slope_x = ((one - y_lerp) * (top_right - top_left)
                               + y_lerp * (bottom_right - bottom_left)) * g
                    if crop_h > 1:
                        yf = np.float32(y)
                        out[n, 0] += slope_y * (hm1 - yf * height_ratio)
                        out[n, 2] += slope_y * (yf * height_ratio)
                    else:
                        half_h = np.float64(slope_y) * 0.5 * (height - 1)
                        out[n, 0] = np.float32(np.float64(out[n, 0]) + half_h)
                        out[n, 2] = np.float32(np.float64(out[n, 2]) + half_h)
                    if crop_w > 1:
                        xf = np.float32(x)
                        out[n, 1] += slope_x * (wm1 - xf * width_ratio)
                        out[n, 3] += slope_x * (xf * width_ratio)
                    else:
                        half_w = np.float64(slope_x) * 0.5 * (width - 1)
                        out[n, 1] = np.float32(np.float64(out[n, 1]) + half_w)
                        out[n, 3] = np.float32(np.float64(out[n, 3]) + half_w)
    return out
