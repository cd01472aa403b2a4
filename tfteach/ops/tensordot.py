"""`tf.tensordot`: sums of products over chosen axes, as one matrix product.

TF 1.15 builds it from ops students already know: transpose each input so that its
contracted axes are last (for `a`) or first (for `b`), reshape both to matrices, one
`MatMul`, and reshape the product to the free dimensions of `a` then of `b`.
"""
import numpy as np

from tfteach.framework import convert
from tfteach.framework.graph_functions import name_scope

__all__ = ["tensordot"]


def _contraction_axes(a, axes):
    """(axes of a, axes of b) from an int N (last N of a with first N of b) or a pair."""
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        if axes < 0:
            raise ValueError("'axes' must be at least 0.")
        ndims = a.shape.ndims
        if ndims is None:
            raise ValueError("tfteach's tensordot needs inputs of known rank")
        if axes > ndims:
            raise ValueError("'axes' must not be larger than the number of dimensions of "
                             "tensor %s." % a)
        return list(range(ndims - axes, ndims)), list(range(axes))
    if isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ValueError("'axes' must be an integer or have length 2.")
        a_axes, b_axes = axes
        if isinstance(a_axes, (int, np.integer)) and isinstance(b_axes, (int, np.integer)):
            a_axes, b_axes = [a_axes], [b_axes]
        if len(a_axes) != len(b_axes):
            raise ValueError("Different number of contraction axes 'a' and 'b', %s != %s."
                             % (len(a_axes), len(b_axes)))
        return list(a_axes), list(b_axes)
    raise TypeError("tfteach's tensordot takes axes as an int or a pair of lists, got %r"
                    % (axes,))


def _as_matrix(tensor, axes, contracted_first):
    """`tensor` transposed and reshaped to [free, contracted] (or [contracted, free])."""
    from tfteach.ops.array_ops import reshape, transpose
    shape = tensor.shape
    if not shape.is_fully_defined():
        raise ValueError("tfteach's tensordot needs inputs of fully known shape, got %s"
                         % shape)
    dims = shape.as_list()
    axes = [i if i >= 0 else i + len(dims) for i in axes]
    free = [i for i in range(len(dims)) if i not in axes]
    free_dims = [dims[i] for i in free]
    prod_free = int(np.prod(free_dims))
    prod_axes = int(np.prod([dims[i] for i in axes]))
    if contracted_first:
        perm, new_shape = axes + free, [prod_axes, prod_free]
    else:
        perm, new_shape = free + axes, [prod_free, prod_axes]
    return reshape(transpose(tensor, perm), new_shape), free_dims


def tensordot(a, b, axes, name=None):
    """Tensor contraction of `a` and `b` over `axes` (an int or a pair of axis lists)."""
    from tfteach.ops.array_ops import reshape
    from tfteach.ops.linalg_ops import matmul
    with name_scope(name, "Tensordot", [a, b]) as scope:
        a = convert.convert_to_tensor(a, name="a")
        b = convert.convert_to_tensor(b, name="b")
        a_axes, b_axes = _contraction_axes(a, axes)
        a_matrix, a_free_dims = _as_matrix(a, a_axes, contracted_first=False)
        b_matrix, b_free_dims = _as_matrix(b, b_axes, contracted_first=True)
        product = matmul(a_matrix, b_matrix)
        return reshape(product, a_free_dims + b_free_dims, name=scope)
