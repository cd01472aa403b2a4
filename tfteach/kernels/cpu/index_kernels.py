"""CPU kernels that read or write by index: gather, gather_nd, one_hot, unsorted_segment_sum.

Their natural form is a loop that checks every index against its bound (TensorFlow
reports the first bad one, e.g. `indices[1] = 7 is not in [0, 5)`), so the loops are
Numba functions, compiled on first use and cached. The arrays are viewed as 2-D or 3-D
blocks (outer x indexed x inner) so one loop serves every rank. String tensors (NumPy
object arrays) cannot enter Numba; they take the equivalent NumPy path.
"""
import math

import numpy as np
from tfteach.kernels.cpu.lazy_jit import njit

from tfteach.kernels.cpu.output_limits import check_shape
from tfteach.kernels.cpu.shape_kernels import invalid_argument, shape_text

__all__ = ["gather", "gather_nd", "one_hot", "unsorted_segment_sum", "SegmentRows",
           "summed_unsorted_segment_sum", "where_coordinates"]


def _numba_ok(array):
    return array.dtype != object and array.dtype != np.float16


def _position_text(shape, flat_index):
    """TF's SliceDebugString: `[1]`, `[1,0]`, or nothing for a scalar."""
    if not shape:
        return ""
    return "[%s]" % ",".join(str(int(i)) for i in np.unravel_index(flat_index, shape))


@njit(cache=True)
def _first_out_of_range(indices, limit):
    """Position of the first index outside [0, limit), or -1."""
    for i in range(indices.size):
        if indices[i] < 0 or indices[i] >= limit:
            return i
    return -1


# -- gather ---------------------------------------------------------------------------------
@njit(cache=True)
def _gather_blocks(params, indices):
    """out[o, j, :] = params[o, indices[j], :] for a params block of shape (outer, n, inner)."""
    outer, _, inner = params.shape
    out = np.empty((outer, indices.size, inner), dtype=params.dtype)
    for o in range(outer):
        for j in range(indices.size):
            row = indices[j]
            for k in range(inner):
                out[o, j, k] = params[o, row, k]
    return out


def gather(ctx, params, indices, axis):
    params, indices = np.asarray(params), np.asarray(indices)
    axis = int(axis)
    if not -params.ndim <= axis < params.ndim:
        raise invalid_argument(ctx, "Expected axis in the range [%d, %d), but got %d"
                               % (-params.ndim, params.ndim, axis))
    axis %= params.ndim
    limit = params.shape[axis]
    if indices.ndim == 0 and axis == 0:
        return _gather_one_row(ctx, params, int(indices), limit)
    flat = np.ascontiguousarray(indices.reshape(-1))
    bad = _first_out_of_range(flat, limit)
    if bad >= 0:
        raise invalid_argument(ctx, "indices%s = %d is not in [0, %d)"
                               % (_position_text(indices.shape, bad), flat[bad], limit))
    out_shape = params.shape[:axis] + indices.shape + params.shape[axis + 1:]
    if not _numba_ok(params):
        return np.take(params, flat, axis=axis).reshape(out_shape)
    outer = math.prod(params.shape[:axis])
    blocks = np.ascontiguousarray(params).reshape(outer, limit, -1) if params.size else None
    if blocks is None:
        return np.empty(out_shape, dtype=params.dtype)
    return _gather_blocks(blocks, flat).reshape(out_shape)


def _gather_one_row(ctx, params, index, limit):
    """gather(params, i) for one scalar index on axis 0: a copy of params[i].

    dynamic_rnn reads its input this way at every iteration (TF: TensorArray.read).
    The same values as the block loop (a row copied element by element), in a new array
    as that loop makes, without its two Numba calls (~5 us -> ~0.5 us a read)."""
    if not 0 <= index < limit:
        raise invalid_argument(ctx, "indices = %d is not in [0, %d)" % (index, limit))
    # A slice, not params[index]: for a 1-D params that is a scalar, not a 0-d array.
    return params[index:index + 1].copy().reshape(params.shape[1:])


# -- gather_nd ----------------------------------------------------------------------------------
@njit(cache=True)
def _gather_nd_rows(params, indices, dims):
    """params: (prod(dims), inner); indices: (n, len(dims)). Returns (out, first bad row)."""
    n, depth = indices.shape
    out = np.empty((n, params.shape[1]), dtype=params.dtype)
    for i in range(n):
        flat = 0
        for d in range(depth):
            index = indices[i, d]
            if index < 0 or index >= dims[d]:
                return out, i
            flat = flat * dims[d] + index
        for k in range(params.shape[1]):
            out[i, k] = params[flat, k]
    return out, -1


def gather_nd(ctx, params, indices):
    params, indices = np.asarray(params), np.asarray(indices)
    depth = indices.shape[-1]
    if depth > params.ndim:
        raise invalid_argument(ctx, "index innermost dimension length must be <= params rank; "
                                    "saw: %d vs. %d" % (depth, params.ndim))
    batch_shape = indices.shape[:-1]
    out_shape = batch_shape + params.shape[depth:]
    rows = np.ascontiguousarray(indices.reshape(-1, depth)).astype(np.int64)
    dims = np.array(params.shape[:depth], dtype=np.int64)
    inner = math.prod(params.shape[depth:])
    blocks = np.ascontiguousarray(params).reshape(int(np.prod(dims)), inner)
    if _numba_ok(params):
        out, bad = _gather_nd_rows(blocks, rows, dims)
    else:
        bad = next((i for i, r in enumerate(rows) if np.any((r < 0) | (r >= dims))), -1)
        out = blocks[np.ravel_multi_index(rows.T, dims)] if bad < 0 and rows.size else \
            np.empty((len(rows), inner), dtype=object)
    if bad >= 0:
        raise invalid_argument(ctx, "indices%s = [%s] does not index into param shape %s"
                               % (_position_text(batch_shape, bad),
                                  ", ".join(str(int(i)) for i in rows[bad]),
                                  shape_text(params.shape)))
    return out.reshape(out_shape)


# -- one_hot --------------------------------------------------------------------------------------
@njit(cache=True)
def _one_hot_blocks(indices, depth, on_value, off_value, out):
    """out has shape (prefix, depth, suffix); indices (prefix, suffix). Bad indices stay off."""
    prefix, suffix = indices.shape
    for p in range(prefix):
        for s in range(suffix):
            for d in range(depth):
                out[p, d, s] = off_value
            index = indices[p, s]
            if 0 <= index < depth:
                out[p, index, s] = on_value


def one_hot(ctx, indices, depth, on_value, off_value):
    indices = np.asarray(indices)
    for what, value in (("depth", depth), ("on_value", on_value), ("off_value", off_value)):
        if np.ndim(value) != 0:
            raise invalid_argument(ctx, "%s must be a scalar, but got: %s"
                                   % (what, shape_text(np.shape(value))))
    depth = int(depth)
    axis = ctx.attrs["axis"]
    rank = indices.ndim + 1
    if not (axis == -1 or 0 <= axis < rank):
        raise invalid_argument(ctx, "Expected axis to be -1 or between [0, %d).  But received: "
                                    "%d" % (rank, axis))
    if depth < 0:
        raise invalid_argument(ctx, "depth must be non-negative, got: %d" % depth)
    axis = indices.ndim if axis == -1 else axis
    on_value, off_value = np.asarray(on_value), np.asarray(off_value)
    # (math.prod of the dims, Python ints: np.prod cost ~3 us each, a fifth of the kernel)
    prefix = math.prod(indices.shape[:axis])
    suffix = math.prod(indices.shape[axis:])
    out_shape = indices.shape[:axis] + (depth,) + indices.shape[axis:]
    check_shape(ctx, out_shape, on_value.dtype)
    out = np.empty((prefix, depth, suffix), dtype=on_value.dtype)
    if out.size:
        if _numba_ok(out):
            _one_hot_blocks(np.ascontiguousarray(indices).reshape(prefix, suffix).astype(
                np.int64), depth, on_value[()], off_value[()], out)
        else:
            hot = indices.reshape(prefix, 1, suffix) == np.arange(depth).reshape(1, depth, 1)
            out[...] = np.where(hot, on_value, off_value)
    return out.reshape(out_shape)


# -- unsorted_segment_sum -----------------------------------------------------------------------
@njit(cache=True)
def _segment_sum_rows(data, segment_ids, num_segments):
    """Adds row i of data into output row segment_ids[i]; returns (out, first bad i)."""
    out = np.zeros((num_segments, data.shape[1]), dtype=data.dtype)
    for i in range(segment_ids.size):
        j = segment_ids[i]
        if j < 0:
            continue                 # TF drops rows with a negative segment id
        if j >= num_segments:
            return out, i
        for k in range(data.shape[1]):
            out[j, k] += data[i, k]
    return out, -1


def unsorted_segment_sum(ctx, data, segment_ids, num_segments):
    data, segment_ids = np.asarray(data), np.asarray(segment_ids)
    num_segments = int(num_segments)
    if data.shape[:segment_ids.ndim] != segment_ids.shape:
        raise invalid_argument(ctx, "data.shape = %s does not start with segment_ids.shape = %s"
                               % (shape_text(data.shape), shape_text(segment_ids.shape)))
    if num_segments < 0:
        raise invalid_argument(ctx, "Input num_segments == %d must not be negative."
                               % num_segments)
    if segment_ids.size == 1 and data.dtype != object:
        out = _one_segment_sum(data, segment_ids, num_segments)
        if out is not None:
            return out
    ids = np.ascontiguousarray(segment_ids.reshape(-1))
    rows = np.ascontiguousarray(data).reshape(ids.size, -1) if ids.size else \
        data.reshape(0, int(np.prod(data.shape[segment_ids.ndim:], dtype=np.int64)))
    if _numba_ok(data):
        out, bad = _segment_sum_rows(rows, ids, num_segments)
    else:
        bad = _first_out_of_range(np.where(ids < 0, 0, ids), num_segments)
        out = np.zeros((num_segments, rows.shape[1]), dtype=data.dtype)
        if bad < 0:
            np.add.at(out, ids[ids >= 0], rows[ids >= 0])
    if bad >= 0:
        raise invalid_argument(ctx, "segment_ids%s = %d is out of range [0, %d)"
                               % (_position_text(segment_ids.shape, bad), ids[bad],
                                  num_segments))
    return out.reshape((num_segments,) + data.shape[segment_ids.ndim:])


def _one_segment_sum(data, segment_ids, num_segments):
    """unsorted_segment_sum of one row (the gradient of a gather of one index, as
    dynamic_rnn reads its input once a time step), or None for an id out of range (the
    general path reports it). The same sum as the row loop, 0 + row, in NumPy: no copy
    of a strided `data` and no Numba call (~20 -> ~16 us in an LSTM's gradient loop)."""
    j = int(segment_ids.reshape(-1)[0])
    if j >= num_segments:
        return None
    out = np.zeros((num_segments,) + data.shape[segment_ids.ndim:], dtype=data.dtype)
    if j >= 0:                       # TF drops rows with a negative segment id
        out[j] += data.reshape(out.shape[1:])
    return out


class SegmentRows:
    """An unsorted_segment_sum kept as its rows that are not zero: `rows[i]` is output row
    `ids[i]` (distinct ids: a tuple or an integer array), every other row is +0.0. What
    TensorFlow keeps as IndexedSlices (the gradient of a gather), for a consumer that
    only adds it up (runtime/loop_sums.py): it adds `rows` where they go, not the whole
    zero-filled tensor. Each row is the segment's sum as the dense kernel computes it
    (0 + data[i] + ..., in the order of `segment_ids`), so adding it gives the same bits."""

    __slots__ = ("ids", "rows", "shape", "dtype")
    stands_for_array = True     # a GPU's allocator charges it as the dense tensor

    def __init__(self, ids, rows, shape):
        self.ids, self.rows, self.shape, self.dtype = ids, rows, shape, rows.dtype

    def dense(self):
        """The tensor unsorted_segment_sum returns."""
        out = np.zeros(self.shape, self.dtype)
        out[np.asarray(self.ids, dtype=np.intp)] = self.rows
        return out

    def add_to(self, total):
        """total += self.dense(), in place: `total` (writeable, of self's shape and dtype)
        changes only in the rows named (x + 0.0 is x for a total that started at +0.0)."""
        if len(self.ids) == 1:
            row = total[self.ids[0]]
            np.add(row, self.rows[0], out=row)
        elif len(self.ids):                  # distinct ids: one addition per element
            total[np.asarray(self.ids, dtype=np.intp)] += self.rows


def summed_unsorted_segment_sum(ctx, data, segment_ids, num_segments):
    """`UnsortedSegmentSum` whose output its consumer only adds up (a loop's gradient of a
    captured tensor it gathers from, runtime/fusion.py): the same checks and errors,
    then a SegmentRows instead of the zero-filled tensor. The rows are the dense
    kernel's own sums, of the segments renumbered 0..n-1 (same additions, same order)."""
    data, segment_ids = np.asarray(data), np.asarray(segment_ids)
    limit = int(num_segments)
    ids_rank = segment_ids.ndim
    if data.dtype != object and limit >= 0 and data.shape[:ids_rank] == segment_ids.shape:
        inner = data.shape[ids_rank:]
        if segment_ids.size == 1:           # dynamic_rnn's read of x[t]: one row
            j = int(segment_ids.reshape(()) if ids_rank else segment_ids)
            if j < limit:
                present = (j,) if j >= 0 else ()
                row = np.zeros((len(present),) + inner, data.dtype)
                if present:
                    row[0] += data.reshape(inner)      # 0 + data[0], as the dense kernel
                return SegmentRows(present, row, (limit,) + inner)
        elif segment_ids.size == 0 or segment_ids.max() < limit:
            present, renumbered = np.unique(segment_ids.reshape(-1), return_inverse=True)
            dropped = present < 0            # TF drops rows with a negative id: -1 stays
            if dropped.any():
                renumbered = np.where(segment_ids.reshape(-1) < 0, -1,
                                      renumbered - np.count_nonzero(dropped))
                present = present[~dropped]
            rows = unsorted_segment_sum(ctx, data, renumbered.reshape(segment_ids.shape),
                                        present.size)
            return SegmentRows(present, rows, (limit,) + inner)
    return unsorted_segment_sum(ctx, data, segment_ids, num_segments)   # its error


# -- where (coordinates of true elements) ------------------------------------------------------
def where_coordinates(ctx, condition):
    condition = np.asarray(condition)
    if condition.dtype == object:
        condition = condition.astype(bool)
    return np.argwhere(condition).astype(np.int64)
