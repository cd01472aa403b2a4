"""NumPy data for fit/evaluate/predict: checking shapes as Keras does, batching."""
import numpy as np

__all__ = ["as_list", "check_arrays", "check_targets", "make_batches", "slice_arrays"]


def as_list(data):
    if data is None:
        return []
    if isinstance(data, dict):
        raise TypeError("tfteach's Keras takes arrays or lists of arrays, not dicts")
    return [np.asarray(d) for d in data] if isinstance(data, (list, tuple)) else \
        [np.asarray(data)]


def check_arrays(arrays, tensors, names, what):
    """Keras' "Error when checking input/target" messages for arrays that do not fit."""
    if len(arrays) != len(tensors):
        raise ValueError("Error when checking model %s: the list of Numpy arrays that you "
                         "are passing to your model is not the size the model expected. "
                         "Expected to see %d array(s), but instead got %d arrays."
                         % (what, len(tensors), len(arrays)))
    checked = []
    for array, tensor, name in zip(arrays, tensors, names):
        shape = _expected_shape(tensor)
        if shape is not None and array.ndim == len(shape) - 1 and shape[-1] == 1:
            array = array[..., None]          # labels (N,) for an output (None, 1)
        if shape is not None:
            if array.ndim != len(shape):
                raise ValueError("Error when checking %s: expected %s to have %d "
                                 "dimensions, but got array with shape %s"
                                 % (what, name, len(shape), array.shape))
            for want, got in zip(shape[1:], array.shape[1:]):
                if want is not None and want != got:
                    raise ValueError("Error when checking %s: expected %s to have shape "
                                     "%s but got array with shape %s"
                                     % (what, name, tuple(shape[1:]), array.shape[1:]))
        checked.append(array)
    return checked


# The losses whose targets TF 1.15 checks against the output's shape
# (training_utils.check_loss_and_target_compatibility); other losses get any target.
_SHAPE_CHECKED_LOSSES = ("mean_squared_error", "binary_crossentropy",
                         "categorical_crossentropy")


def check_targets(arrays, outputs, names, loss_fns, sparse, graph_network):
    """Targets as TF 1.15 takes them: as many arrays as outputs; a 1-D array is one
    column (N, 1); only for the losses above (and a model of layers, not a subclassed
    one) a target shaped unlike the output is refused, with TF 1.15's messages. Sparse
    labels are fed as they are."""
    if len(arrays) != len(outputs):
        check_arrays(arrays, outputs, names, "target")      # its count message
    checked = []
    for array, output, fn, is_sparse in zip(arrays, outputs, loss_fns, sparse):
        shape = _expected_shape(output)
        if is_sparse or shape is None:
            checked.append(array)
            continue
        if array.ndim == 1 and len(shape) > 1:
            array = array[:, None]
        name = getattr(fn, "__name__", "")
        if graph_network and name == "categorical_crossentropy" and array.shape[-1] == 1:
            raise ValueError(
                "You are passing a target array of shape %s while using as loss "
                "`categorical_crossentropy`. `categorical_crossentropy` expects targets "
                "to be binary matrices (1s and 0s) of shape (samples, classes). If your "
                "targets are integer classes, you can convert them to the expected "
                "format via:\n```\nfrom keras.utils import to_categorical\n"
                "y_binary = to_categorical(y_int)\n```\n\nAlternatively, you can use "
                "the loss function `sparse_categorical_crossentropy` instead, which does "
                "expect integer targets." % (array.shape,))
        if graph_network and name in _SHAPE_CHECKED_LOSSES and any(
                want is not None and want != got
                for want, got in zip(shape[1:], array.shape[1:])):
            raise ValueError("A target array with shape %s was passed for an output of "
                             "shape %s while using as loss `%s`. This loss expects "
                             "targets to have the same shape as the output."
                             % (array.shape, tuple(shape), name))
        checked.append(array)
    return checked


def _expected_shape(tensor):
    """A placeholder's static shape (graph mode) or a shape given as a list (eagerly)."""
    if isinstance(tensor, (list, tuple)):
        return list(tensor)
    shape = tensor.get_shape()
    return shape.as_list() if shape.ndims is not None else None


def check_sample_counts(inputs, targets):
    counts_in = {len(a) for a in inputs}
    counts_out = {len(a) for a in targets}
    if len(counts_in) > 1:
        raise ValueError("All input arrays (x) should have the same number of samples. "
                         "Got array shapes: %s" % [a.shape for a in inputs])
    if targets and counts_in != counts_out:
        raise ValueError("Input arrays should have the same number of samples as target "
                         "arrays. Found %d input samples and %d target samples."
                         % (list(counts_in)[0], list(counts_out)[0]))


def make_batches(size, batch_size):
    """[(start, end), ...] covering `size` samples."""
    count = int(np.ceil(size / float(batch_size)))
    return [(i * batch_size, min(size, (i + 1) * batch_size)) for i in range(count)]


def slice_arrays(arrays, indices):
    return [a[indices] for a in arrays]
