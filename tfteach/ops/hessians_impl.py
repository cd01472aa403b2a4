"""`tf.hessians(ys, xs)`: second derivatives, built from `tf.gradients` of gradients.

As in TF 1.15, for each x: g = tf.gradients(ys, x), flattened; then a `tf.while_loop`
over j = 0 .. size(x)-1 whose body builds tf.gradients(g[j], x), row j of the Hessian.
The body's gradient ops are built once (inside the loop) and run size(x) times, so the
graph stays small whatever the size of x. TF collects the rows in a TensorArray;
tfteach (which has none) grows a [rows so far, size(x)] tensor by one row per
iteration. Finally the rows are reshaped to shape(x) + shape(x).

This needs the gradient ops of the first derivative to be differentiable themselves
(`TanhGrad`, `SigmoidGrad`, `MatMul`, `Mul`, ...: test_hessians.py checks them).
Differences with TF 1.15, which fails there with "None values not supported.":
a row whose second derivative is unconnected (ys linear in x) is zeros.
"""
from tfteach.framework import tensor_shape
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.graph_functions import name_scope
from tfteach.ops import fill_ops, join_ops, shape_ops
from tfteach.ops.gradients_impl import UnconnectedGradients, gradients
from tfteach.ops.while_ops import while_loop

__all__ = ["hessians"]


def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False,
             gate_gradients=False, aggregation_method=None):
    """The Hessian of sum(ys) with respect to each x in xs: one tensor of shape
    x.shape + x.shape per x, as `tf.hessians`."""
    xs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    kwargs = {"colocate_gradients_with_ops": colocate_gradients_with_ops,
              "gate_gradients": gate_gradients, "aggregation_method": aggregation_method}
    with name_scope(name, "hessians", (list(ys) if isinstance(ys, (list, tuple)) else [ys])
                    + xs):
        xs = [convert_to_tensor(x, name="x") for x in xs]
        first = gradients(ys, xs, **kwargs)
        return [_hessian(g, x, kwargs) for g, x in zip(first, xs)]


def _hessian(gradient, x, kwargs):
    if gradient is None:
        raise ValueError("None values not supported. (tf.hessians: the ys do not depend on "
                         "%s, so there is no gradient to differentiate again.)" % x.name)
    flat = shape_ops.reshape(gradient, [-1])
    n = shape_ops.size(x)
    width = x.shape.num_elements() if x.shape.is_fully_defined() else None

    def body(j, rows):
        row, = gradients(flat[j], x, unconnected_gradients=UnconnectedGradients.ZERO,
                         **kwargs)
        return j + 1, join_ops.concat([rows, shape_ops.reshape(row, [1, -1])], 0)

    empty = fill_ops.zeros(join_ops.stack([0, n]), dtype=x.dtype.base_dtype)
    _, rows = while_loop(lambda j, _: j < n, body, [0, empty],
                         shape_invariants=[tensor_shape.TensorShape([]),
                                           tensor_shape.TensorShape([None, width])])
    x_shape = shape_ops.shape(x)
    hessian = shape_ops.reshape(rows, join_ops.concat([x_shape, x_shape], 0))
    hessian.set_shape(x.shape.concatenate(x.shape))
    return hessian
