"""`tf.data.experimental`: the transformations TF 1.15 keeps there.

`map_and_batch(map_func, batch_size, ...)` is `map` followed by `batch` in one
`MapAndBatchDataset` op (as TF fuses them); `unbatch()` is `Dataset.unbatch`;
`shuffle_and_repeat(buffer_size, count, seed)` is `shuffle(...).repeat(count)`, as TF
1.15 documents it; `parallel_interleave(map_func, cycle_length, block_length=1, ...)`
is `interleave` in its deterministic order (tfteach reads on the calling thread, so
`sloppy` and the buffering arguments change nothing); `enumerate_dataset(start=0)` zips
`Dataset.range(start, <int64 max>)` with the dataset, as TF builds it. All are used
through `dataset.apply(...)`.
"""
from tfteach.data import streams, structure
from tfteach.data.dataset_ops import (_bool_scalar, _static_int, _unknown_batch, dataset_op,
                                      function_runner, int64_scalar)
from tfteach.ops.op_builder import constant_value

__all__ = ["map_and_batch", "unbatch", "shuffle_and_repeat", "parallel_interleave",
           "enumerate_dataset", "AUTOTUNE"]

AUTOTUNE = -1


class _MapThenBatch(streams.Stream):
    def __init__(self, stream, run, captured, batch_size, drop_remainder):
        self.batched = streams.Batch(streams.Map(stream, run, captured), batch_size,
                                     drop_remainder)

    def elements(self):
        return self.batched.elements()


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False,
                  num_parallel_calls=None):
    """A transformation (for `Dataset.apply`): map then batch, in one dataset op."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("The `num_parallel_batches` and `num_parallel_calls` arguments "
                         "are mutually exclusive.")

    def apply(dataset):
        traced = dataset._traced(map_func, "Dataset_map")
        size = int64_scalar(batch_size, "batch_size")
        calls = int64_scalar(num_parallel_calls or num_parallel_batches or 1,
                             "num_parallel_calls")
        drop = _bool_scalar(drop_remainder, "drop_remainder")
        static_drop = constant_value(drop)
        known = _static_int(size) if static_drop is not None and bool(static_drop) else None
        element = structure.map_structure(lambda s: _unknown_batch(s, known),
                                          traced.output_structure)

        def make(ctx, stream, n, _calls, d, *captured):
            return _MapThenBatch(stream, function_runner(ctx, traced), captured, n, bool(d))

        return dataset_op("MapAndBatchDataset",
                          [dataset._variant, size, calls, drop] + traced.captured,
                          element, make, {"f": traced})

    return apply


def unbatch():
    """A transformation (for `Dataset.apply`): each element split along its first
    dimension."""
    return lambda dataset: dataset.unbatch()


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """A transformation: `shuffle(buffer_size, seed)` then `repeat(count)`, a new order
    each epoch."""
    return lambda dataset: dataset.shuffle(buffer_size, seed=seed).repeat(count)


def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False,
                        buffer_output_elements=None, prefetch_input_elements=None):
    """A transformation: `interleave(map_func, cycle_length, block_length)` (the order
    TF gives with `sloppy=False`)."""
    return lambda dataset: dataset.interleave(map_func, cycle_length=cycle_length,
                                              block_length=block_length)


def enumerate_dataset(start=0):
    """A transformation: (index, element) pairs, the index counting from `start` (an
    int64 `Dataset.range` zipped with the dataset)."""
    from tfteach.data.dataset_ops import Dataset
    largest = 2 ** 63 - 1
    return lambda dataset: Dataset.zip((Dataset.range(start, largest), dataset))
