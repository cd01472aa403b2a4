"""TensorFlow's histogram for `tf.summary.histogram` (core/lib/histogram): fixed bucket
limits growing by 10% from 1e-12 to 1e20 on both sides of 0, so histograms from
different steps line up; runs of empty buckets are folded into one when written."""
import sys

import numpy as np

from tfteach.io.tf_protos import HistogramProto

__all__ = ["histogram_proto", "DEFAULT_BUCKET_LIMITS"]

_DBL_MAX = sys.float_info.max


def _default_limits():
    positive = []
    v = 1.0e-12
    while v < 1.0e20:
        positive.append(v)
        v *= 1.1
    positive.append(_DBL_MAX)
    negative = [-x for x in reversed(positive)]
    return np.array(negative + [0.0] + positive)


DEFAULT_BUCKET_LIMITS = _default_limits()


def histogram_proto(values):
    """The HistogramProto of `values` (float64 statistics, as TF's Histogram)."""
    values = np.asarray(values, dtype=np.float64).ravel()
    proto = HistogramProto()
    proto.num = float(values.size)
    # TF's Histogram::Add adds each value in turn: a running sum in element order (NumPy's
    # cumsum), not a pairwise sum or a dot product, which round differently in the last
    # place.
    proto.sum = float(np.cumsum(values)[-1]) if values.size else 0.0
    proto.sum_squares = float(np.cumsum(values * values)[-1]) if values.size else 0.0
    proto.min = float(values.min()) if values.size else _DBL_MAX
    proto.max = float(values.max()) if values.size else -_DBL_MAX
    # A value v falls in the first bucket whose limit is > v.
    index = np.searchsorted(DEFAULT_BUCKET_LIMITS, values, side="right")
    counts = np.bincount(index, minlength=DEFAULT_BUCKET_LIMITS.size)
    i, n = 0, DEFAULT_BUCKET_LIMITS.size
    while i < n:
        end, count = DEFAULT_BUCKET_LIMITS[i], counts[i]
        i += 1
        if count <= 0:                   # fold a run of empty buckets into its last one
            while i < n and counts[i] <= 0:
                end, count = DEFAULT_BUCKET_LIMITS[i], counts[i]
                i += 1
        proto.bucket_limit.append(float(end))
        proto.bucket.append(float(count))
    if not proto.bucket:
        proto.bucket_limit.append(_DBL_MAX)
        proto.bucket.append(0.0)
    return proto
