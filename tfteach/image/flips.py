"""Flips, transposes and rotations (tf.image.flip_left_right, ..., rot90), built from
ReverseV2 and Transpose as in TF 1.15, so their gradients are those ops' gradients.

The random flips draw one uniform number per image: a 3-D image is flipped through a
`tf.cond` (one coin), a batch through a 0/1 mask per image, as TF 1.15 does.
"""
from tfteach.framework import dtypes
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.graph_functions import name_scope
from tfteach.image.checks import check_at_least_3d_image, check_rank_3_or_4
from tfteach.ops import array_ops, control_flow_ops, math_ops, random_ops

__all__ = ["flip_left_right", "flip_up_down", "random_flip_left_right",
           "random_flip_up_down", "transpose_image", "transpose", "rot90"]


def _fix_flip_shape(image, result):
    """TF's fix_image_flip_shape: at least [?, ?, ?] when nothing else is known."""
    if image.get_shape().ndims is None:
        result.set_shape([None, None, None])
    else:
        result.set_shape(image.get_shape())
    return result


def _flip(image, flip_index, scope_name):
    with name_scope(None, scope_name, [image]):
        image = convert_to_tensor(image, name="image")
        check_at_least_3d_image(image, require_static=False)
        ndims = check_rank_3_or_4(image)
        if ndims == 4:
            return array_ops.reverse(image, [flip_index + 1])
        return _fix_flip_shape(image, array_ops.reverse(image, [flip_index]))


def flip_left_right(image):
    """Mirrors the image(s) along the width: [batch,] height, width, channels."""
    return _flip(image, 1, "flip_left_right")


def flip_up_down(image):
    """Turns the image(s) upside down (reverses the height axis)."""
    return _flip(image, 0, "flip_up_down")


def _random_flip(image, flip_index, seed, scope_name):
    with name_scope(None, scope_name, [image]) as scope:
        image = convert_to_tensor(image, name="image")
        check_at_least_3d_image(image, require_static=False)
        ndims = check_rank_3_or_4(image)
        if ndims == 4:
            batch_size = array_ops.shape(image)[0]
            uniform = random_ops.random_uniform([batch_size], 0, 1.0, seed=seed)
            flips = math_ops.round(array_ops.reshape(uniform, [batch_size, 1, 1, 1]))
            flips = math_ops.cast(flips, image.dtype)
            flipped = array_ops.reverse(image, [flip_index + 1])
            return flips * flipped + (1 - flips) * image
        uniform = random_ops.random_uniform([], 0, 1.0, seed=seed)
        mirror = math_ops.less(uniform, .5)
        result = control_flow_ops.cond(mirror, lambda: array_ops.reverse(image, [flip_index]),
                                       lambda: image, name=scope)
        return _fix_flip_shape(image, result)


def random_flip_left_right(image, seed=None):
    """With probability 1/2 (per image of a batch), flip_left_right."""
    return _random_flip(image, 1, seed, "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    """With probability 1/2 (per image of a batch), flip_up_down."""
    return _random_flip(image, 0, seed, "random_flip_up_down")


def transpose(image, name=None):
    """Swaps height and width (a flip along the main diagonal)."""
    with name_scope(name, "transpose", [image]):
        image = convert_to_tensor(image, name="image")
        check_at_least_3d_image(image, require_static=False)
        ndims = check_rank_3_or_4(image)
        perm = [0, 2, 1, 3] if ndims == 4 else [1, 0, 2]
        return array_ops.transpose(image, perm, name=name)


def transpose_image(image):
    """TF 1.x's name of tf.image.transpose."""
    return transpose(image=image, name=None)


def rot90(image, k=1, name=None):
    """Rotates the image(s) counter-clockwise by k * 90 degrees (k a scalar, any int)."""
    with name_scope(name, "rot90", [image, k]) as scope:
        image = convert_to_tensor(image, name="image")
        check_at_least_3d_image(image, require_static=False)
        k = convert_to_tensor(k, dtype=dtypes.int32, name="k")
        k.get_shape().assert_has_rank(0)
        k = math_ops.mod(k, 4)
        ndims = check_rank_3_or_4(image)
        h, w = (1, 2) if ndims == 4 else (0, 1)
        perm = [0, 2, 1, 3] if ndims == 4 else [1, 0, 2]

        def rotate_90():
            return array_ops.transpose(array_ops.reverse(image, [w]), perm)

        def rotate_180():
            return array_ops.reverse(image, [h, w])

        def rotate_270():
            return array_ops.reverse(array_ops.transpose(image, perm), [w])

        cases = [(math_ops.equal(k, 1), rotate_90), (math_ops.equal(k, 2), rotate_180),
                 (math_ops.equal(k, 3), rotate_270)]
        result = control_flow_ops.case(cases, default=lambda: image, exclusive=True,
                                       name=scope)
        shape = image.get_shape()
        if ndims == 4:
            result.set_shape([shape[0], None, None, shape[3]])
        else:
            result.set_shape([None, None, shape[2] if shape.ndims else None])
        return result
