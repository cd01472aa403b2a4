"""Gradients of the array ops that move values around without changing them.

TensorFlow 1.15's array_grad.py is the model: the same formulas, built from the same
ops. The idea of every one: the gradient goes back to where the value came from —
reshape it back, transpose it back, cut a concat's gradient into the inputs' pieces,
sum a tile's copies. Gradients of the ops that pick elements by index (slice, gather,
...) are in index_grad.py; the ops only gradients need are in array_grad_ops.py.

Each function is `grad(op, *output_grads) -> [gradient per input]` (None: no gradient).
"""
from tfteach.framework import dtypes
from tfteach.framework.registry import gradient, not_differentiable
from tfteach.ops import array_grad_ops as grad_ops
from tfteach.ops import binary_ops, cast_ops, index_grad, reduction_ops  # noqa: F401
from tfteach.ops import logging_ops  # noqa: F401 (registers Print before its gradient)
from tfteach.ops.fill_ops import range as range_op
from tfteach.ops.fill_ops import matrix_diag, matrix_set_diag, zeros, zeros_like
from tfteach.ops.join_ops import concat, split, stack, unstack
from tfteach.ops.layout_ops import pad, reverse_v2, transpose
from tfteach.ops.shape_ops import rank, reshape, shape, shape_n, size, squeeze
from tfteach.ops.slicing import slice as slice_op

__all__ = ["fill_missing"]


def fill_missing(op, grads):
    """`grads` with zeros for the outputs nothing downstream differentiated.

    tf.gradients already hands an op zeros for such outputs (TF's ZerosLikeOutsideLoop);
    this keeps the gradients below correct when called with None (a nested use).
    """
    return [zeros_like(op.outputs[i], optimize=False) if g is None else g
            for i, g in enumerate(grads)]


def _as_dtype(t, dtype):
    return t if t.dtype.base_dtype == dtype else cast_ops.cast(t, dtype)


# -- shape changes: the gradient is reshaped back -------------------------------------------
def _reshape_to_input(op, grad):
    return reshape(grad, shape(op.inputs[0]))


@gradient("Reshape")
def _reshape_grad(op, grad):
    return [_reshape_to_input(op, grad), None]


@gradient("ExpandDims")
def _expand_dims_grad(op, grad):
    return [_reshape_to_input(op, grad), None]


@gradient("Squeeze")
def _squeeze_grad(op, grad):
    return [_reshape_to_input(op, grad)]


@gradient("Transpose")
def _transpose_grad(op, grad):
    """The inverse permutation puts every dimension back."""
    return [transpose(grad, grad_ops.invert_permutation(op.inputs[1])), None]


@gradient("ConjugateTranspose")
def _conjugate_transpose_grad(op, grad):
    return [transpose(grad, grad_ops.invert_permutation(op.inputs[1]), conjugate=True), None]


@gradient("ReverseV2")
def _reverse_v2_grad(op, grad):
    return [reverse_v2(grad, op.inputs[1]), None]


# -- joining and splitting: the reverse operation ---------------------------------------------
@gradient("Pack")
def _pack_grad(op, grad):
    return unstack(grad, num=op.get_attr("N"), axis=op.get_attr("axis"))


@gradient("Unpack")
def _unpack_grad(op, *grads):
    return [stack(fill_missing(op, grads), axis=op.get_attr("axis"))]


@gradient("Split")
def _split_grad(op, *grads):
    return [None, concat(fill_missing(op, grads), op.inputs[0])]


@gradient("SplitV")
def _split_v_grad(op, *grads):
    return [concat(fill_missing(op, grads), op.inputs[2]), None, None]


def _input_shapes(values):
    """TF's _ExtractInputShapes: constant shapes when all are known, else one ShapeN."""
    if all(v.shape.is_fully_defined() for v in values):
        return [shape(v) for v in values]
    return shape_n(values)


@gradient("ConcatV2")
def _concat_v2_grad(op, grad):
    """Each input's gradient is the slice of `grad` where that input was placed."""
    values, axis = op.inputs[:-1], op.inputs[-1]
    if len(values) == 1:
        return [grad, None]
    axis = _as_dtype(axis, dtypes.int32)
    non_negative_axis = binary_ops.floormod(axis, rank(values[0]))
    sizes = _input_shapes(values)
    if len(sizes) > 16:
        # Many inputs: TF cuts with one split on the sizes along the axis instead.
        along_axis = squeeze(slice_op(stack(sizes, axis=1), stack([non_negative_axis, 0]),
                                      [1, -1]))
        return split(grad, along_axis, non_negative_axis, num=len(sizes)) + [None]
    offsets = grad_ops.concat_offset(non_negative_axis, sizes)
    return [slice_op(grad, begin, size) for begin, size in zip(offsets, sizes)] + [None]


# -- repeating and padding ------------------------------------------------------------------------
@gradient("Tile")
def _tile_grad(op, grad):
    """Reshape grad to [m0, d0, m1, d1, ...] and sum the copies (the even axes)."""
    multiples = op.inputs[1]
    input_shape = shape(op.inputs[0], out_type=multiples.dtype.base_dtype)
    split_shape = reshape(transpose(stack([multiples, input_shape])), [-1])
    axes = range_op(0, size(split_shape), 2)
    input_grad = reduction_ops.reduce_sum(reshape(grad, split_shape), axes)
    input_grad.set_shape(op.inputs[0].shape)
    return [input_grad, None]


def _pad_grad(op, grad):
    """The part of `grad` where the input sits: begins at the `before` paddings."""
    x, paddings = op.inputs[0], op.inputs[1]
    pad_before = slice_op(paddings, [0, 0], stack([rank(x), 1]))
    begin = reshape(pad_before, [-1])
    x_grad = slice_op(grad, begin, shape(x, out_type=begin.dtype.base_dtype))
    return [x_grad] + [None] * (len(op.inputs) - 1)


gradient("Pad")(_pad_grad)
gradient("PadV2")(_pad_grad)


@gradient("MirrorPad")
def _mirror_pad_grad(op, grad):
    """The mirrored borders are added back onto the values they copied."""
    return [grad_ops.mirror_pad_grad(grad, op.inputs[1], op.get_attr("mode")), None]


@gradient("MirrorPadGrad")
def _mirror_pad_grad_grad(op, grad):
    return [pad(grad, op.inputs[1], mode=op.get_attr("mode")), None]


# -- values made from a scalar -------------------------------------------------------------------
@gradient("Fill")
def _fill_grad(op, grad):
    """Every element is the one `value`: its gradient is the sum."""
    return [None, reduction_ops.reduce_sum(grad)]


@gradient("Print")
def _print_grad(op, *grads):
    """tf.Print passes its first input through: so does the gradient (TF's _PrintGrad)."""
    return list(grads) + [None] * (len(op.inputs) - 1)


# -- diagonals ------------------------------------------------------------------------------------
@gradient("MatrixDiag")
def _matrix_diag_grad(op, grad):
    return [grad_ops.matrix_diag_part(grad)]


@gradient("MatrixDiagPart")
def _matrix_diag_part_grad(op, grad):
    matrix_shape = op.inputs[0].shape[-2:]
    if matrix_shape.is_fully_defined() and matrix_shape[0] == matrix_shape[1]:
        return [matrix_diag(grad)]
    return [matrix_set_diag(zeros_like(op.inputs[0]), grad)]


@gradient("MatrixSetDiag")
def _matrix_set_diag_grad(op, grad):
    """The input's gradient without the diagonal, and the diagonal's part of it."""
    input_shape = op.inputs[0].shape.merge_with(grad.shape)
    diag_shape = op.inputs[1].shape
    if input_shape.is_fully_defined() and diag_shape.is_fully_defined():
        dims = input_shape.as_list()
        zeros_shape = dims[:-2] + [min(dims[-2:])]
    else:
        grad_shape = shape(grad)
        grad_rank = rank(grad)
        batch_shape = slice_op(grad_shape, [0], stack([grad_rank - 2]))
        matrix_dims = slice_op(grad_shape, stack([grad_rank - 2]), [2])
        zeros_shape = concat([batch_shape, [reduction_ops.reduce_min(matrix_dims)]], 0)
    grad_input = matrix_set_diag(grad, zeros(zeros_shape, dtype=grad.dtype.base_dtype))
    return [grad_input, grad_ops.matrix_diag_part(grad)]


# -- ops with no gradient (TF marks the same ones) ----------------------------------------------
for _op_type in ("Shape", "ShapeN", "Rank", "Size", "ZerosLike", "OnesLike", "Range",
                 "LinSpace", "Where"):
    not_differentiable(_op_type)
