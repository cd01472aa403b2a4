"""CPU kernels of `TopKV2` and `InTopK` (NumPy: one sort or one comparison per row)."""
import numpy as np

__all__ = ["top_k", "in_top_k"]


def top_k(x, k, sort):
    """(values, int32 indices) of the k largest entries of each last-axis row.

    Equal values keep their order (the lower index comes first), as in TensorFlow: a
    stable sort of the row in descending order. `sort` does not matter for the result
    here (TF's unsorted output is also in descending order on CPU for small k).
    """
    if x.shape[-1] == 0 or k == 0:
        shape = x.shape[:-1] + (k,)
        return np.empty(shape, x.dtype), np.empty(shape, np.int32)
    if x.dtype.kind == "f":
        # Sort by -x; NaN would sort last in NumPy, TensorFlow ranks it first.
        key = -x.astype(np.float64)
        key[np.isnan(key)] = -np.inf
    else:
        key = -x.astype(np.int64)
    idx = np.argsort(key, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, idx, axis=-1), idx.astype(np.int32)


def in_top_k(predictions, targets, k):
    """out[b] = targets[b] is among the k largest predictions[b] (ties count as in):
    fewer than k classes score strictly higher. An out-of-range target or a non-finite
    prediction in the row gives False, as in TensorFlow."""
    batch, classes = predictions.shape
    out = np.zeros(batch, np.bool_)
    if batch == 0 or classes == 0:
        return out                  # no classes: every target is out of range
    t = targets.astype(np.int64)
    valid = (t >= 0) & (t < classes)
    safe = np.where(valid, t, 0)
    target_pred = predictions[np.arange(batch), safe]
    higher = (predictions > target_pred[:, None]).sum(axis=1)
    finite = np.isfinite(predictions).all(axis=1)
    return valid & finite & (higher < k)
