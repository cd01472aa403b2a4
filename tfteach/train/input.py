"""Input producers and batching (TF 1.15's training/input.py): queues plus the
QueueRunners that fill them.

- `input_producer(t)` (and `string_input_producer`, `range_input_producer`,
  `slice_input_producer`): a FIFOQueue that a runner thread fills with the rows of `t`,
  epoch after epoch (`num_epochs`: a local `epochs` counter that ends the epochs with
  OutOfRangeError; `shuffle`: the rows reshuffled each epoch);
- `batch`, `shuffle_batch`, `batch_join`, `shuffle_batch_join`: a queue (FIFOQueue,
  PaddingFIFOQueue with `dynamic_pad`, RandomShuffleQueue for the shuffles) that
  `num_threads` runner threads (or one per input list, for the joins) fill with single
  examples, and a `dequeue_many(batch_size)` (`dequeue_up_to` with
  `allow_smaller_final_batch`) that takes them a batch at a time;
- `match_filenames_once(pattern)`: a local variable holding the matching file names.
Each adds its QueueRunner to QUEUE_RUNNERS and a `fraction_of_..._full` summary, as TF.
SparseTensors are not batched by tfteach (TF stores them in a side map first).
"""
from tfteach.framework import convert, dtypes, tensor_shape
from tfteach.framework.graph import GraphKeys
from tfteach.framework.graph_functions import control_dependencies, name_scope
from tfteach.ops import data_flow_ops
from tfteach.ops.count_up_to_op import count_up_to
from tfteach.train import queue_runner

__all__ = ["match_filenames_once", "limit_epochs", "input_producer",
           "string_input_producer", "range_input_producer", "slice_input_producer",
           "batch", "shuffle_batch", "batch_join", "shuffle_batch_join", "maybe_batch",
           "maybe_shuffle_batch"]


def match_filenames_once(pattern, name=None):
    """A local variable (initialize it with local_variables_initializer) holding the
    sorted names of the files that match `pattern` when it is initialized."""
    from tfteach.ops import reader_ops, variables
    with name_scope(name, "matching_filenames", [pattern]) as name:
        return variables.Variable(reader_ops.matching_files(pattern), trainable=False,
                                  validate_shape=False, name=name,
                                  collections=[GraphKeys.LOCAL_VARIABLES])


def limit_epochs(tensor, num_epochs=None, name=None):
    """`tensor`, which fails with OutOfRangeError after `num_epochs` evaluations."""
    from tfteach.ops import constant_op, variables
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError("num_epochs must be > 0 not %d." % num_epochs)
    with name_scope(name, "limit_epochs", [tensor]) as name:
        zero64 = constant_op.constant(0, dtype=dtypes.int64)
        epochs = variables.Variable(zero64, name="epochs", trainable=False,
                                    collections=[GraphKeys.LOCAL_VARIABLES])
        counter = count_up_to(epochs, num_epochs)
        with control_dependencies([counter]):
            return constant_op.identity(tensor, name=name)


def _fraction_summary(name, fraction):
    from tfteach.summary import summary_ops
    summary_ops.scalar(name, fraction)


def input_producer(input_tensor, element_shape=None, num_epochs=None, shuffle=True,
                   seed=None, capacity=32, shared_name=None, summary_name=None, name=None,
                   cancel_op=None):
    """A queue filled, epoch after epoch, with the rows of `input_tensor`."""
    from tfteach.ops import cast_ops, random_ops
    with name_scope(name, "input_producer", [input_tensor]):
        input_tensor = convert.convert_to_tensor(input_tensor, name="input_tensor")
        element_shape = input_tensor.shape[1:].merge_with(
            tensor_shape.as_shape(element_shape) if element_shape is not None
            else tensor_shape.unknown_shape())
        if not element_shape.is_fully_defined():
            raise ValueError("Either `input_tensor` must have a fully defined shape or "
                             "`element_shape` must be specified")
        if shuffle:
            input_tensor = random_ops.random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        q = data_flow_ops.FIFOQueue(capacity=capacity,
                                    dtypes=[input_tensor.dtype.base_dtype],
                                    shapes=[element_shape], shared_name=shared_name,
                                    name=name)
        enq = q.enqueue_many([input_tensor])
        queue_runner.add_queue_runner(queue_runner.QueueRunner(q, [enq], cancel_op=cancel_op))
        if summary_name is not None:
            _fraction_summary(summary_name,
                              cast_ops.cast(q.size(), dtypes.float32) * (1.0 / capacity))
        return q


def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None,
                          capacity=32, shared_name=None, name=None, cancel_op=None):
    """A queue of the strings (file names) of `string_tensor`, for a reader."""
    from tfteach.ops import comparison_ops, constant_op, logging_ops, shape_ops
    not_null_err = "string_input_producer requires a non-null input tensor"
    if not hasattr(string_tensor, "op") and not len(string_tensor):
        raise ValueError(not_null_err)
    with name_scope(name, "input_producer", [string_tensor]) as name:
        string_tensor = convert.convert_to_tensor(string_tensor, dtype=dtypes.string)
        with control_dependencies([logging_ops.Assert(
                comparison_ops.greater(shape_ops.size(string_tensor), 0),
                [constant_op.constant(not_null_err)])]):
            string_tensor = constant_op.identity(string_tensor)
        return input_producer(input_tensor=string_tensor, element_shape=[],
                              num_epochs=num_epochs, shuffle=shuffle, seed=seed,
                              capacity=capacity, shared_name=shared_name, name=name,
                              summary_name="fraction_of_%d_full" % capacity,
                              cancel_op=cancel_op)


def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None):
    """A queue of the integers 0 .. limit-1."""
    from tfteach.ops import fill_ops
    with name_scope(name, "input_producer", [limit]) as name:
        range_tensor = fill_ops.range(limit)
        return input_producer(range_tensor, [], num_epochs, shuffle, seed, capacity,
                              shared_name, "fraction_of_%d_full" % capacity, name)


def slice_input_producer(tensor_list, num_epochs=None, shuffle=True, seed=None,
                         capacity=32, shared_name=None, name=None):
    """One row of every tensor of `tensor_list` at a time (the same row of each)."""
    from tfteach.ops import gather_ops, shape_ops
    with name_scope(name, "input_producer", tensor_list):
        tensor_list = [convert.convert_to_tensor(t) for t in tensor_list]
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        range_size = shape_ops.shape(tensor_list[0])[0]
        queue = range_input_producer(range_size, num_epochs=num_epochs, shuffle=shuffle,
                                     seed=seed, capacity=capacity, shared_name=shared_name)
        index = queue.dequeue()
        return [gather_ops.gather(t, index) for t in tensor_list]


# -- batching --------------------------------------------------------------------------------
def _as_tensor_list(tensors):
    if isinstance(tensors, dict):
        return [tensors[k] for k in sorted(tensors)]
    return tensors


def _as_tensor_list_list(tensors_list):
    if not tensors_list:
        raise ValueError("Expected at least one set of tensors")
    if isinstance(tensors_list[0], dict):
        expected_keys = set(tensors_list[0].keys())
        for tensors in tensors_list[1:]:
            if set(tensors.keys()) != expected_keys:
                raise ValueError("All dictionaries in tensors_list must have the same keys")
        return [_as_tensor_list(tensors) for tensors in tensors_list]
    return tensors_list


def _as_original_type(original_tensors, tensor_list):
    if isinstance(original_tensors, dict):
        if len(original_tensors) == 1:
            # One component dequeues as one tensor, not a list (TF's b/28117485).
            tensor_list = [tensor_list]
        return {k: tensor_list[i] for i, k in enumerate(sorted(original_tensors))}
    return tensor_list


def _refuse_sparse(tensors):
    for t in tensors:
        if type(t).__name__ in ("SparseTensor", "SparseTensorValue"):
            raise NotImplementedError(
                "tfteach's batching functions do not batch SparseTensors (TF 1.15 does, "
                "through a side map of the sparse values); convert it with "
                "tf.sparse.to_dense first, or use tf.data (lesson 28)")


def _validate(tensor_list):
    _refuse_sparse(tensor_list)
    tensor_list = [convert.convert_to_tensor(t) for t in tensor_list]
    if not tensor_list:
        raise ValueError("Expected at least one tensor in batch().")
    return tensor_list


def _validate_join(tensor_list_list):
    for tl in tensor_list_list:
        _refuse_sparse(tl)
    tensor_list_list = [[convert.convert_to_tensor(t) for t in tl] for tl in tensor_list_list]
    if not tensor_list_list:
        raise ValueError("Expected at least one input in batch_join().")
    return tensor_list_list


def _dtypes(tensor_list_list):
    all_types = [[t.dtype.base_dtype for t in tl] for tl in tensor_list_list]
    types = all_types[0]
    for other_types in all_types[1:]:
        if other_types != types:
            raise TypeError("Expected types to be consistent: %s vs. %s."
                            % (", ".join(x.name for x in types),
                               ", ".join(x.name for x in other_types)))
    return types


def _merge_shapes(shape_list, enqueue_many):
    shape_list = [tensor_shape.as_shape(s) for s in shape_list]
    if enqueue_many:
        shape_list = [s.with_rank_at_least(1)[1:] for s in shape_list]
    merged = shape_list[0]
    for s in shape_list[1:]:
        merged = merged.merge_with(s)
    return merged.as_list()


def _shapes(tensor_list_list, shapes, enqueue_many):
    if shapes is None:
        len0 = len(tensor_list_list[0])
        for tl in tensor_list_list:
            for i in range(len0):
                if tl[i].shape.ndims is None:
                    raise ValueError("Cannot infer Tensor's rank: %s" % tl[i])
        shapes = [_merge_shapes([tl[i].shape.as_list() for tl in tensor_list_list],
                                enqueue_many) for i in range(len0)]
    return shapes


def _which_queue(dynamic_pad):
    return data_flow_ops.PaddingFIFOQueue if dynamic_pad else data_flow_ops.FIFOQueue


def _add_runner(queue, enqueue_ops):
    queue_runner.add_queue_runner(queue_runner.QueueRunner(queue, enqueue_ops))


def _enqueue(queue, tensor_list, threads, enqueue_many):
    enqueue_fn = queue.enqueue_many if enqueue_many else queue.enqueue
    _add_runner(queue, [enqueue_fn(tensor_list)] * threads)


def _enqueue_join(queue, tensor_list_list, enqueue_many):
    enqueue_fn = queue.enqueue_many if enqueue_many else queue.enqueue
    _add_runner(queue, [enqueue_fn(tl) for tl in tensor_list_list])


def _dequeue(queue, batch_size, allow_smaller_final_batch, name):
    if allow_smaller_final_batch:
        return queue.dequeue_up_to(batch_size, name=name)
    return queue.dequeue_many(batch_size, name=name)


def _check_keep_input(keep_input):
    if keep_input is not True:
        raise NotImplementedError("maybe_batch with a keep_input other than True is not "
                                  "supported by tfteach")


def _batch(tensors, batch_size, keep_input, num_threads=1, capacity=32, enqueue_many=False,
           shapes=None, dynamic_pad=False, allow_smaller_final_batch=False,
           shared_name=None, name=None):
    from tfteach.ops import cast_ops
    _check_keep_input(keep_input)
    tensor_list = _as_tensor_list(tensors)
    with name_scope(name, "batch", list(tensor_list)) as name:
        tensor_list = _validate(tensor_list)
        types = _dtypes([tensor_list])
        shapes = _shapes([tensor_list], shapes, enqueue_many)
        queue = _which_queue(dynamic_pad)(capacity=capacity, dtypes=types, shapes=shapes,
                                          shared_name=shared_name)
        _enqueue(queue, tensor_list, num_threads, enqueue_many)
        _fraction_summary("fraction_of_%d_full" % capacity,
                          cast_ops.cast(queue.size(), dtypes.float32) * (1.0 / capacity))
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        return _as_original_type(tensors, dequeued)


def _batch_join(tensors_list, batch_size, keep_input, capacity=32, enqueue_many=False,
                shapes=None, dynamic_pad=False, allow_smaller_final_batch=False,
                shared_name=None, name=None):
    from tfteach.ops import cast_ops
    _check_keep_input(keep_input)
    tensor_list_list = _as_tensor_list_list(tensors_list)
    with name_scope(name, "batch_join", [t for tl in tensor_list_list for t in tl]) as name:
        tensor_list_list = _validate_join(tensor_list_list)
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many)
        queue = _which_queue(dynamic_pad)(capacity=capacity, dtypes=types, shapes=shapes,
                                          shared_name=shared_name)
        _enqueue_join(queue, tensor_list_list, enqueue_many)
        _fraction_summary("fraction_of_%d_full" % capacity,
                          cast_ops.cast(queue.size(), dtypes.float32) * (1.0 / capacity))
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        return _as_original_type(tensors_list[0], dequeued)


def _shuffle_summary(queue, capacity, min_after_dequeue):
    from tfteach.ops import binary_ops, cast_ops
    full = cast_ops.cast(binary_ops.maximum(0, queue.size() - min_after_dequeue),
                         dtypes.float32) * (1.0 / (capacity - min_after_dequeue))
    _fraction_summary("fraction_over_%d_of_%d_full" % (min_after_dequeue,
                                                       capacity - min_after_dequeue), full)


def _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input,
                   num_threads=1, seed=None, enqueue_many=False, shapes=None,
                   allow_smaller_final_batch=False, shared_name=None, name=None):
    _check_keep_input(keep_input)
    tensor_list = _as_tensor_list(tensors)
    with name_scope(name, "shuffle_batch", list(tensor_list)) as name:
        if capacity <= min_after_dequeue:
            raise ValueError("capacity %d must be bigger than min_after_dequeue %d."
                             % (capacity, min_after_dequeue))
        tensor_list = _validate(tensor_list)
        types = _dtypes([tensor_list])
        shapes = _shapes([tensor_list], shapes, enqueue_many)
        queue = data_flow_ops.RandomShuffleQueue(
            capacity=capacity, min_after_dequeue=min_after_dequeue, seed=seed,
            dtypes=types, shapes=shapes, shared_name=shared_name)
        _enqueue(queue, tensor_list, num_threads, enqueue_many)
        _shuffle_summary(queue, capacity, min_after_dequeue)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        return _as_original_type(tensors, dequeued)


def _shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, keep_input,
                        seed=None, enqueue_many=False, shapes=None,
                        allow_smaller_final_batch=False, shared_name=None, name=None):
    _check_keep_input(keep_input)
    tensor_list_list = _as_tensor_list_list(tensors_list)
    with name_scope(name, "shuffle_batch_join",
                    [t for tl in tensor_list_list for t in tl]) as name:
        if capacity <= min_after_dequeue:
            raise ValueError("capacity %d must be bigger than min_after_dequeue %d."
                             % (capacity, min_after_dequeue))
        tensor_list_list = _validate_join(tensor_list_list)
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many)
        queue = data_flow_ops.RandomShuffleQueue(
            capacity=capacity, min_after_dequeue=min_after_dequeue, seed=seed,
            dtypes=types, shapes=shapes, shared_name=shared_name)
        _enqueue_join(queue, tensor_list_list, enqueue_many)
        _shuffle_summary(queue, capacity, min_after_dequeue)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        return _as_original_type(tensors_list[0], dequeued)


def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None,
          dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches of `batch_size` examples, in the order the threads enqueue them."""
    return _batch(tensors, batch_size, True, num_threads, capacity, enqueue_many, shapes,
                  dynamic_pad, allow_smaller_final_batch, shared_name, name)


def maybe_batch(tensors, keep_input, batch_size, num_threads=1, capacity=32,
                enqueue_many=False, shapes=None, dynamic_pad=False,
                allow_smaller_final_batch=False, shared_name=None, name=None):
    return _batch(tensors, batch_size, keep_input, num_threads, capacity, enqueue_many,
                  shapes, dynamic_pad, allow_smaller_final_batch, shared_name, name)


def batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False, shapes=None,
               dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None,
               name=None):
    """Batches from several lists of tensors, one runner thread for each list."""
    return _batch_join(tensors_list, batch_size, True, capacity, enqueue_many, shapes,
                       dynamic_pad, allow_smaller_final_batch, shared_name, name)


def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None,
                  enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                  shared_name=None, name=None):
    """Batches of examples drawn at random from a RandomShuffleQueue that keeps at least
    `min_after_dequeue` examples (until closed)."""
    return _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, True,
                          num_threads, seed, enqueue_many, shapes,
                          allow_smaller_final_batch, shared_name, name)


def maybe_shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input,
                        num_threads=1, seed=None, enqueue_many=False, shapes=None,
                        allow_smaller_final_batch=False, shared_name=None, name=None):
    return _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input,
                          num_threads, seed, enqueue_many, shapes,
                          allow_smaller_final_batch, shared_name, name)


def shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, seed=None,
                       enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                       shared_name=None, name=None):
    """shuffle_batch from several lists of tensors, one runner thread for each list."""
    return _shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, True,
                               seed, enqueue_many, shapes, allow_smaller_final_batch,
                               shared_name, name)
