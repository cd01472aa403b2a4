"""CPU kernels of Select (TF1's 3-argument tf.where) and SelectV2 (tf.where_v2)."""
import numpy as np

from tfteach.kernels.cpu.shape_kernels import invalid_argument, shape_text

__all__ = ["select", "select_v2"]


def select(ctx, condition, x, y):
    """TF1 rules: no broadcasting, except a scalar condition or a vector one along dim 0."""
    condition, x, y = np.asarray(condition), np.asarray(x), np.asarray(y)
    if x.shape != y.shape:
        raise invalid_argument(ctx, "'then' and 'else' must have the same size.  but received: "
                                    "%s vs. %s" % (shape_text(x.shape), shape_text(y.shape)))
    if condition.ndim == 0:
        return x if condition else y
    if condition.ndim == 1 and x.ndim != 1:
        if x.ndim < 1:
            raise invalid_argument(ctx, "'then' must be at least a vector, but saw shape: %s"
                                   % shape_text(x.shape))
        if x.shape[0] != condition.shape[0]:
            raise invalid_argument(ctx, "Number of batches of 'then' must match size of 'cond', "
                                        "but saw: %d vs. %d" % (x.shape[0], condition.shape[0]))
        condition = condition.reshape((-1,) + (1,) * (x.ndim - 1))
    elif condition.shape != x.shape:
        # (TF's text really names 'then' and 'else' here.)
        raise invalid_argument(ctx, "'then' and 'else' must have the same size.  but received: "
                                    "%s vs. %s" % (shape_text(condition.shape),
                                                   shape_text(x.shape)))
    return np.where(condition, x, y)


def select_v2(ctx, condition, x, y):
    condition, x, y = np.asarray(condition), np.asarray(x), np.asarray(y)
    try:
        np.broadcast_shapes(condition.shape, x.shape, y.shape)
    except ValueError:
        raise invalid_argument(ctx, "condition %s, then %s, and else %s must be broadcastable"
                               % (shape_text(condition.shape), shape_text(x.shape),
                                  shape_text(y.shape))) from None
    return np.where(condition, x, y)
