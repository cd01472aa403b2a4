"""Matrix products: `tf.matmul` (the `@` operator) and `tf.tensordot`.

`tf.matmul` of two matrices builds a `MatMul` op. As soon as either input has more than
two dimensions (or an unknown rank) TF 1.15 builds `BatchMatMulV2` instead: one matrix
product per batch index, with NumPy-style broadcasting of the batch dimensions.
"""
from tfteach.framework import convert, tensor_shape
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import register_op
from tfteach.kernels.cpu.linalg import batch_matmul_kernel, matmul_kernel
from tfteach.ops.op_builder import ShapeError, apply_op, broadcast_static_shape
from tfteach.ops.typed_inputs import convert_same_type

__all__ = ["matmul", "tensordot"]


# -- shape functions (TF's C++ shape inference, with its messages) -------------------------
def _with_rank(shape, rank):
    if shape.ndims is None:
        return tensor_shape.unknown_shape(rank)
    if shape.ndims != rank:
        raise ShapeError("Shape must be rank %d but is rank %d" % (rank, shape.ndims))
    return shape


def _merge_dims(a, b):
    """Two dimensions that must agree (None matches anything)."""
    if a is not None and b is not None and a != b:
        raise ShapeError("Dimensions must be equal, but are %d and %d" % (a, b))
    return a if a is not None else b


def _matmul_shape(op):
    a, b = op._inputs
    a_dims = _with_rank(a.shape, 2).as_list()
    b_dims = _with_rank(b.shape, 2).as_list()
    if op._attrs["transpose_a"]:
        a_dims = a_dims[::-1]
    if op._attrs["transpose_b"]:
        b_dims = b_dims[::-1]
    _merge_dims(a_dims[1], b_dims[0])
    return [(a.dtype.base_dtype, tensor_shape.TensorShape([a_dims[0], b_dims[1]]))]


def _batch_matmul_shape(op):
    x, y = op._inputs
    dtype = x.dtype.base_dtype
    for shape in (x.shape, y.shape):
        if shape.ndims is not None and shape.ndims < 2:
            raise ShapeError("Shape must be at least rank 2 but is rank %d" % shape.ndims)
    if x.shape.ndims is None or y.shape.ndims is None:
        return [(dtype, tensor_shape.unknown_shape())]
    x_dims, y_dims = x.shape.as_list(), y.shape.as_list()
    rows = x_dims[-1] if op._attrs["adj_x"] else x_dims[-2]
    x_inner = x_dims[-2] if op._attrs["adj_x"] else x_dims[-1]
    y_inner = y_dims[-1] if op._attrs["adj_y"] else y_dims[-2]
    cols = y_dims[-2] if op._attrs["adj_y"] else y_dims[-1]
    _merge_dims(x_inner, y_inner)
    batch = broadcast_static_shape(tensor_shape.TensorShape(x_dims[:-2]),
                                   tensor_shape.TensorShape(y_dims[:-2]))
    return [(dtype, batch.concatenate([rows, cols]))]


register_op("MatMul", _matmul_shape, cpu=matmul_kernel)
register_op("BatchMatMulV2", _batch_matmul_shape, cpu=batch_matmul_kernel)


# -- building ----------------------------------------------------------------------------------
def _has_batch_dims(tensor):
    return tensor.shape.ndims is None or tensor.shape.ndims > 2


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, name=None):
    """The matrix product a @ b (`MatMul`), batched over leading axes (`BatchMatMulV2`).

    For real dtypes an adjoint is a transpose; for complex ones it is the conjugate
    transpose, built as TF does: `MatMul` has only transpose flags, so an adjoint becomes
    a `Conj` op and a transpose; `BatchMatMulV2` has only adjoint flags, so a transpose
    becomes a `Conj` and an adjoint (`Conj` of a real tensor is no op at all).
    `a_is_sparse`/`b_is_sparse` are only hints to TF's kernel choice; tfteach accepts and
    ignores them.
    """
    from tfteach.ops.complex_ops import conj
    with name_scope(name, "MatMul", [a, b]) as scope:
        if transpose_a and adjoint_a:
            raise ValueError("Only one of transpose_a and adjoint_a can be True.")
        if transpose_b and adjoint_b:
            raise ValueError("Only one of transpose_b and adjoint_b can be True.")
        a = convert.convert_to_tensor(a, name="a")
        b = convert.convert_to_tensor(b, name="b")
        if _has_batch_dims(a) or _has_batch_dims(b):
            x, y = convert_same_type("BatchMatMulV2", [("x", a), ("y", b)], "matmul")
            x = conj(x) if transpose_a else x
            y = conj(y) if transpose_b else y
            return apply_op("BatchMatMulV2", [x, y], {
                "T": x.dtype.base_dtype, "adj_x": transpose_a or adjoint_a,
                "adj_y": transpose_b or adjoint_b}, scope)
        a, b = convert_same_type("MatMul", [("a", a), ("b", b)], "matmul")
        a = conj(a) if adjoint_a else a
        b = conj(b) if adjoint_b else b
        return apply_op("MatMul", [a, b], {"T": a.dtype.base_dtype,
                                           "transpose_a": transpose_a or adjoint_a,
                                           "transpose_b": transpose_b or adjoint_b}, scope)


from tfteach.ops.tensordot import tensordot  # noqa: E402 - built on matmul
