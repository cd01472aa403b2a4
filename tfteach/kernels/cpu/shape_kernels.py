"""CPU kernels of the shape ops (Shape, Size, Rank, Reshape, ExpandDims, Squeeze).

They are NumPy calls (a reshape is a view, no loop to write); what they add is
TensorFlow's checks and error texts. Results may be views of their inputs: inputs are
never written to, and read-only inputs give read-only views.
"""
import numpy as np

from tfteach.framework import errors

__all__ = ["invalid_argument", "shape_text", "list_outputs", "shape", "shape_n", "size", "rank",
           "reshape", "expand_dims", "squeeze"]


def invalid_argument(ctx, message):
    """TensorFlow's InvalidArgumentError for the op this kernel runs."""
    return errors.InvalidArgumentError(None, ctx.op, message)


def shape_text(dims):
    """A shape as TF's runtime messages print it: `[2,3]`."""
    return "[%s]" % ",".join(str(int(d)) for d in dims)


def list_outputs(values):
    """What the kernel of an op with a list of outputs (Split, Unpack, ShapeN, ...) returns:
    a tuple, one value per output, except for a list of one, where the op has a single
    output and the executor stores the kernel's value itself (a 1-tuple would reach the
    student as `(array(...),)`)."""
    values = tuple(values)
    return values[0] if len(values) == 1 else values


def _dims(x):
    # An array's own `.shape`: np.shape's dispatch cost ~1-2 us in a loop body, where
    # ShapeN runs once a time step in dynamic_rnn's gradient (the outputs so far).
    return x.shape if type(x) is np.ndarray else np.shape(x)


def shape(ctx, x):
    return np.array(_dims(x), dtype=ctx.attrs["out_type"].np)


def shape_n(ctx, *xs):
    out_type = ctx.attrs["out_type"].np
    return list_outputs([np.array(_dims(x), dtype=out_type) for x in xs])


def size(ctx, x):
    return np.array(np.size(x), dtype=ctx.attrs["out_type"].np)


def rank(ctx, x):
    return np.array(np.ndim(x), dtype=np.int32)


def reshape(ctx, x, sizes):
    x = np.asarray(x)
    sizes = np.asarray(sizes)
    if sizes.ndim == 1:
        # NumPy applies TF's rules (one -1 inferred, sizes must match); on any refusal the
        # checks below find which rule broke and say it in TensorFlow's words. (NumPy
        # also takes -2 for the unknown size, which TF refuses: those go below too.)
        dims = sizes.tolist()
        if min(dims, default=0) >= -1:
            try:
                return x.reshape(dims)
            except (ValueError, TypeError):
                pass
    if sizes.ndim > 1:
        raise invalid_argument(ctx, "sizes input must be 1-D, not %s" % shape_text(sizes.shape))
    new_shape = []
    product = 1
    unknown_index = -1
    for d, value in enumerate(sizes.reshape(-1)):
        value = int(value)
        if value == -1:
            if unknown_index != -1:
                raise invalid_argument(ctx, "Only one input size may be -1, not both %d and %d"
                                       % (unknown_index, d))
            unknown_index = d
            new_shape.append(1)
        elif value < 0:
            raise invalid_argument(ctx, "Size %d must be non-negative, not %d" % (d, value))
        else:
            new_shape.append(value)
            product *= value
    if unknown_index != -1:
        if product <= 0:
            raise invalid_argument(ctx, "Reshape cannot infer the missing input size for an "
                                        "empty tensor unless all specified input sizes are "
                                        "non-zero")
        missing = x.size // product
        if missing * product != x.size:
            raise invalid_argument(ctx, "Input to reshape is a tensor with %d values, but the "
                                        "requested shape requires a multiple of %d"
                                   % (x.size, product))
        new_shape[unknown_index] = missing
    wanted = int(np.prod(new_shape, dtype=np.int64))
    if wanted != x.size:
        raise invalid_argument(ctx, "Input to reshape is a tensor with %d values, but the "
                                    "requested shape has %d" % (x.size, wanted))
    return x.reshape(new_shape)


def expand_dims(ctx, x, dim):
    x = np.asarray(x)
    dim = np.asarray(dim)
    if dim.size != 1:
        raise invalid_argument(ctx, "'dim' must be a tensor with a single value")
    axis = int(dim) if dim.ndim == 0 else int(dim.reshape(-1)[0])
    if not -1 - x.ndim <= axis <= x.ndim:
        raise invalid_argument(ctx, "Tried to expand dim index %d for tensor with %d dimensions."
                               % (axis, x.ndim))
    # np.expand_dims(x, axis) is this reshape (a view) behind a general axis-tuple
    # normalisation: ~1.5 us of Python a call, dynamic_rnn's output once a time step.
    if axis < 0:
        axis += x.ndim + 1
    return x.reshape(x.shape[:axis] + (1,) + x.shape[axis:])


def squeeze(ctx, x):
    x = np.asarray(x)
    axes = ctx.attrs["squeeze_dims"]
    wanted = set()
    for axis in axes:
        if not -x.ndim <= axis < x.ndim:
            raise invalid_argument(ctx, "Tried to squeeze dim index %d for tensor with %d "
                                        "dimensions." % (axis, x.ndim))
        wanted.add(axis % x.ndim)
    for axis in sorted(wanted):
        if x.shape[axis] != 1:
            raise invalid_argument(ctx, "Can not squeeze dim[%d], expected a dimension of 1, "
                                        "got %d" % (axis, x.shape[axis]))
    if not wanted:
        wanted = {i for i, d in enumerate(x.shape) if d == 1}
    return x.reshape([d for i, d in enumerate(x.shape) if i not in wanted])
