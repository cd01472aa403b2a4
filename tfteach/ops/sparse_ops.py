"""tf.sparse_to_dense (`SparseToDense`): a dense tensor of `default_value` with
`sparse_values` written at `sparse_indices`.

The kernel makes TF 1.15's checks, with its messages: the shapes of the inputs, and with
validate_indices (the default) every index in bounds, in lexicographic order and not
repeated; without it, an index out of bounds is still an error, and of repeated indices
the last value wins. The gradient is TF's (values: the gradient at their indices).
"""
import numpy as np

from tfteach.framework import dtypes
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import gradient, register_op
from tfteach.kernels.cpu.shape_kernels import invalid_argument, shape_text
from tfteach.ops.constant_op import placeholder
from tfteach.ops.fill_ops import zeros_like
from tfteach.ops.gather_ops import gather_nd
from tfteach.ops.op_builder import ShapeError, apply_op
from tfteach.ops.reduction_ops import reduce_sum
from tfteach.ops.shape_utils import partial_shape_from_tensor
from tfteach.ops.typed_inputs import check_allowed
from tfteach.runtime.placement import register_cpu_only

__all__ = ["sparse_to_dense", "sparse_tensor_to_dense", "sparse_placeholder"]


def _sparse_to_dense_shape(op):
    # TF's shape function only reads output_shape; the kernel checks the rest.
    output_shape = op._inputs[1]
    if output_shape.shape.ndims is not None and output_shape.shape.ndims > 1:
        raise ShapeError("Shape must be at most rank 1 but is rank %d"
                         % output_shape.shape.ndims)
    return [(op._attrs["T"], partial_shape_from_tensor(output_shape))]


def _sparse_to_dense_kernel(ctx, indices, output_shape, values, default_value):
    indices, output_shape = np.asarray(indices), np.asarray(output_shape)
    values, default_value = np.asarray(values), np.asarray(default_value)
    if indices.ndim > 2:
        raise invalid_argument(ctx, "sparse_indices should be a scalar, vector, or matrix, "
                                    "got shape %s" % shape_text(indices.shape))
    num_elems = indices.shape[0] if indices.ndim > 0 else 1
    num_dims = indices.shape[1] if indices.ndim > 1 else 1
    if output_shape.ndim != 1:
        raise invalid_argument(ctx, "output_shape should be a vector, got shape %s"
                               % shape_text(output_shape.shape))
    if output_shape.size != num_dims:
        raise invalid_argument(ctx, "output_shape has incorrect number of elements: %d should "
                                    "be: %d" % (output_shape.size, num_dims))
    if not (values.ndim == 0 or (values.ndim == 1 and values.size == num_elems)):
        raise invalid_argument(ctx, "sparse_values has incorrect shape %s, should be [] or [%d]"
                               % (shape_text(values.shape), num_elems))
    if default_value.ndim != 0:
        raise invalid_argument(ctx, "default_value should be a scalar.")
    for d in output_shape:
        if d < 0:
            raise invalid_argument(ctx, "Dimension %d must be >= 0" % d)
    shape = tuple(int(d) for d in output_shape)
    ix = indices.reshape(num_elems, num_dims).astype(np.int64)
    in_bounds = np.all((ix >= 0) & (ix < np.array(shape, np.int64)), axis=1)
    if ctx.attrs["validate_indices"] and num_elems:
        # The first index that is out of bounds, out of order or repeated, as TF finds it.
        diff = np.diff(ix, axis=0)
        first = np.argmax(diff != 0, axis=1)                 # first differing component
        step = diff[np.arange(len(diff)), first]              # 0 when all equal
        bad = ~in_bounds.copy()
        bad[1:] |= step <= 0
        if bad.any():
            n = int(np.argmax(bad))
            index = "indices[%d] = %s" % (n, shape_text(ix[n]))
            if not in_bounds[n]:
                raise invalid_argument(ctx, "%s is out of bounds: need 0 <= index < [%s]"
                                       % (index, ",".join(str(d) for d in shape)))
            if step[n - 1] < 0:
                # TF 1.15's text; later TF adds a hint to use tf.sparse.reorder.
                raise invalid_argument(ctx, "%s is out of order" % index)
            raise invalid_argument(ctx, "%s is repeated" % index)
    if not in_bounds.all():
        raise invalid_argument(ctx, "Indices are not valid (out of bounds).  Shape: %s"
                               % shape_text(shape))
    out = np.full(shape, default_value, dtype=ctx.attrs["T"].np)
    if num_elems:
        out[tuple(ix.T)] = np.broadcast_to(values, (num_elems,))
    return out


register_op("SparseToDense", _sparse_to_dense_shape, cpu=_sparse_to_dense_kernel)
register_cpu_only("SparseToDense")


@gradient("SparseToDense")
def _sparse_to_dense_grad(op, grad):
    # TF's: each value gets the gradient at its index, the default value the rest.
    sparse_indices, output_shape = op.inputs[:2]
    values_grad = gather_nd(grad, sparse_indices)
    default_grad = reduce_sum(grad) - reduce_sum(values_grad)
    return [zeros_like(sparse_indices), zeros_like(output_shape), values_grad, default_grad]


def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0,
                    validate_indices=True, name=None):
    """A dense tensor of shape `output_shape`, `default_value` everywhere but at
    `sparse_indices` (a scalar, a vector, or an [N, rank] matrix), where it is
    `sparse_values` (a scalar for all, or one value each)."""
    with name_scope(name, "SparseToDense",
                    [sparse_indices, output_shape, sparse_values, default_value]) as scope:
        indices = convert_to_tensor(sparse_indices, name="sparse_indices")
        check_allowed(indices.dtype.base_dtype, "index", "sparse_indices")
        shape = convert_to_tensor(output_shape, name="output_shape",
                                  dtype=indices.dtype.base_dtype)
        values = convert_to_tensor(sparse_values, name="sparse_values")
        default = convert_to_tensor(default_value, name="default_value",
                                    dtype=values.dtype.base_dtype)
        return apply_op("SparseToDense", [indices, shape, values, default],
                        {"T": values.dtype.base_dtype, "Tindices": indices.dtype.base_dtype,
                         "validate_indices": bool(validate_indices)}, scope)


def sparse_tensor_to_dense(sp_input, default_value=0, validate_indices=True, name=None):
    """`tf.sparse.to_dense` / `tf.sparse_tensor_to_dense`: the dense tensor a SparseTensor
    stands for, `default_value` in the cells it does not store.

    TF 1.15's default_value is 0 (later TF: None, the dtype's zero), so string values
    need `default_value=""` as in 1.15."""
    sp_input = _as_sparse_tensor(sp_input)
    return sparse_to_dense(sp_input.indices, sp_input.dense_shape, sp_input.values,
                           default_value=default_value, validate_indices=validate_indices,
                           name=name)


def _as_sparse_tensor(sp_input):
    if isinstance(sp_input, SparseTensorValue):
        return SparseTensor.from_value(sp_input)
    if not isinstance(sp_input, SparseTensor):
        raise TypeError("Input must be a SparseTensor.")
    return sp_input


def sparse_placeholder(dtype, shape=None, name=None):
    """`tf.sparse_placeholder`: a SparseTensor to feed (a SparseTensorValue, or an
    (indices, values, dense_shape) triple).

    As TF 1.15: its parts are placeholders `NAME/indices`, `NAME/values` and (unless
    `shape` is fully known, then a constant `NAME/shape`) `NAME/shape`."""
    shape_name = (name + "/shape") if name is not None else None
    rank = None
    dense_shape = None
    if shape is not None:
        rank = len(shape)
        if None not in list(shape):
            dense_shape = convert_to_tensor(shape, dtype=dtypes.int64, name=shape_name)
    if dense_shape is None:
        dense_shape = placeholder(dtypes.int64, shape=[rank], name=shape_name)
    return SparseTensor(
        values=placeholder(dtype, shape=[None],
                           name=(name + "/values") if name is not None else None),
        indices=placeholder(dtypes.int64, shape=[None, rank],
                            name=(name + "/indices") if name is not None else None),
        dense_shape=dense_shape)
