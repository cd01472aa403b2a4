"""`tf.estimator.inputs.numpy_input_fn`: batches of NumPy arrays for an Estimator.

TF 1.15 feeds the arrays into a FIFO queue (or a RandomShuffleQueue when shuffling) from
a Python function. tfteach does the same feeding in Python, as a `Dataset.from_generator`
(so the arrays never become graph constants), with the same batches:
  - the examples are read in order, epoch after epoch, `num_epochs` times (None: forever);
    batches run across an epoch's end, so only the very last batch may be smaller
    (TF's dequeue_up_to); with num_epochs=None every batch is full and has a static
    batch dimension (TF's dequeue_many);
  - shuffle=True reads each epoch in a new random order (TF mixes examples in a queue of
    `queue_capacity`; the batches' contents differ, not their number or sizes);
  - dtypes stay the arrays' (float64 stays float64, as in TF).
The input_fn returns (features, labels) tensors: features a dict (or a tensor when x is
an array), labels a tensor (or a dict when y is a dict, None without y).
"""
import collections

import numpy as np

__all__ = ["numpy_input_fn"]


def _shapes(arrays):
    return {key: value.shape for key, value in arrays.items()}


def _check_and_merge(x, y):
    """One OrderedDict of all arrays, with TF's errors for empty, clashing or uneven input."""
    if isinstance(x, dict):
        if not x:
            raise ValueError("x cannot be empty")
        x_arrays = collections.OrderedDict(sorted((k, np.asarray(v)) for k, v in x.items()))
    else:
        x_arrays = collections.OrderedDict([("__direct_np_input_key__", np.asarray(x))])
    y_arrays = collections.OrderedDict()
    if isinstance(y, dict):
        if not y:
            raise ValueError("y cannot be empty dict, use None instead.")
        y_arrays = collections.OrderedDict(sorted((k, np.asarray(v)) for k, v in y.items()))
        common = set(x_arrays) & set(y_arrays)
        if common:
            raise ValueError("{} duplicate keys are found in both x and y: {}".format(
                len(common), common))
    elif y is not None:
        key = "__target_key__"
        while key in x_arrays:
            key += "_n"
        y_arrays[key] = np.asarray(y)
    lengths = {len(v) for v in list(x_arrays.values()) + list(y_arrays.values())}
    if len(lengths) != 1:
        raise ValueError("Length of tensors in x and y is mismatched. All elements in x and y "
                         "must have the same length.\nShapes in x: {}\nShapes in y: {}\n"
                         .format(_shapes(x_arrays), _shapes(y_arrays)))
    return x_arrays, y_arrays, lengths.pop()


def batch_indices(num_examples, batch_size, num_epochs, shuffle, seed=None):
    """The index arrays of successive batches: epochs read one after another (each in a
    new order when shuffling), cut into batches across epoch ends; the last may be short."""
    rng = np.random.RandomState(seed)
    pending = np.zeros(0, dtype=np.int64)
    epoch = 0
    while num_epochs is None or epoch < num_epochs:
        order = rng.permutation(num_examples) if shuffle else np.arange(num_examples)
        pending = np.concatenate([pending, order])
        epoch += 1
        while len(pending) >= batch_size:
            yield pending[:batch_size]
            pending = pending[batch_size:]
    if len(pending):
        yield pending


def numpy_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None,
                   queue_capacity=1000, num_threads=1):
    """An input_fn giving dicts of batched arrays (TF 1.15's signature and checks)."""
    if not isinstance(shuffle, bool):
        raise ValueError("shuffle must be provided and explicitly set as boolean "
                         "(it is recommended to set it as True for training); "
                         "got {}".format(shuffle))
    x_arrays, y_arrays, num_examples = _check_and_merge(x, y)

    def input_fn():
        from tfteach.data.dataset_ops import Dataset
        from tfteach.framework import dtypes, tensor_shape
        from tfteach.ops.random_ops import get_seed
        arrays = collections.OrderedDict(list(x_arrays.items()) + list(y_arrays.items()))
        batch_dim = batch_size if num_epochs is None else None
        types = {k: dtypes.as_dtype(v.dtype) for k, v in arrays.items()}
        shapes = {k: tensor_shape.TensorShape([batch_dim] + list(v.shape[1:]))
                  for k, v in arrays.items()}
        seed, _ = get_seed(None)

        def batches():
            for index in batch_indices(num_examples, batch_size, num_epochs, shuffle,
                                       seed):
                yield {k: v[index] for k, v in arrays.items()}

        batch = Dataset.from_generator(batches, types, shapes) \
            .make_one_shot_iterator().get_next()
        features = {k: batch[k] for k in x_arrays}
        if not isinstance(x, dict):
            features = features["__direct_np_input_key__"]
        if not y_arrays:
            return features
        labels = {k: batch[k] for k in y_arrays}
        if not isinstance(y, dict):
            labels = labels[next(iter(y_arrays))]
        return features, labels

    return input_fn
