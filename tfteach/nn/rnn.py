"""Running a cell over a sequence: tf.nn.dynamic_rnn, static_rnn and the bidirectional ones.

- `static_rnn(cell, [x_0, ..., x_T-1])` UNROLLS: a Python loop calls the cell T times,
  so the graph holds T copies of the cell's ops (all sharing one set of variables).
- `dynamic_rnn(cell, x)` builds the cell's ops ONCE, as the body of a `tf.while_loop`
  (scope `rnn/while/`): the loop runs the body once per time step, so the number of
  steps may be unknown when the graph is built (x: [batch, time, depth], time None).
  Its loop variables are (time, outputs so far, state), after the iteration counter of
  `maximum_iterations=` the time steps (as TF 1.15); TF1 collects the outputs in a
  TensorArray, tfteach (which has none) in a tensor that grows by one step per
  iteration. The gradient flows back through the loop (ops/while_grad.py).
- `sequence_length=[len_0, ...]`: past its length a sequence's output is zeros and its
  state is copied through unchanged (a Select per step), so the final state is the state
  at the sequence's last real step.
"""
from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.graph_functions import control_dependencies
from tfteach.ops import array_ops, control_flow_ops, math_ops, nest, reduction_ops
from tfteach.ops import variable_scope as vs
from tfteach.ops.constant_op import constant, identity
from tfteach.ops.reverse_sequence_ops import reverse_sequence
from tfteach.nn.rnn_cell_base import _concat, assert_like_rnncell

__all__ = ["dynamic_rnn", "static_rnn", "bidirectional_dynamic_rnn",
           "static_bidirectional_rnn"]


# -- helpers ----------------------------------------------------------------------------------
def _transpose_batch_time(x):
    """[batch, time, ...] <-> [time, batch, ...]."""
    static = x.shape
    if static.ndims is not None and static.ndims < 2:
        return x
    if static.ndims is not None:
        perm = [1, 0] + list(range(2, static.ndims))
    else:
        perm = array_ops.concat(([1, 0], array_ops.range(2, array_ops.rank(x))), axis=0)
    x_t = array_ops.transpose(x, perm)
    if static.ndims is not None:
        x_t.set_shape(tensor_shape.TensorShape([static[1].value, static[0].value])
                      .concatenate(static[2:]))
    return x_t


def _best_effort_input_batch_size(flat_input):
    """The batch size (dimension 1 of time-major inputs): static if known, else a tensor."""
    for input_ in flat_input:
        shape = input_.shape
        if shape.ndims is None:
            continue
        if shape.ndims < 2:
            raise ValueError("Expected input tensor %s to have rank at least 2" % input_)
        if shape[1].value is not None:
            return shape[1].value
    return array_ops.shape(flat_input[0])[1]


def _infer_state_dtype(explicit_dtype, state):
    if explicit_dtype is not None:
        return explicit_dtype
    if nest.is_nested(state):
        inferred = [e.dtype for e in nest.flatten(state)]
        if not inferred:
            raise ValueError("Unable to infer dtype from empty state.")
        if not all(x == inferred[0] for x in inferred):
            raise ValueError("State has tensors of different inferred_dtypes. Unable to "
                             "infer a single representative dtype.")
        return inferred[0]
    return state.dtype


def _initial_state(cell, initial_state, dtype, batch_size, message):
    if initial_state is not None:
        return initial_state
    if not dtype:
        raise ValueError(message)
    if getattr(cell, "get_initial_state", None) is not None:
        return cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
    return cell.zero_state(batch_size, dtype)


def _zero_outputs(cell, batch_size, static_batch, dtype):
    """Zeros [batch, s] per output of the cell: the output past a sequence's end."""
    def zeros(size):
        z = array_ops.zeros(_concat(batch_size, size), dtype)
        z.set_shape([static_batch] + tensor_shape.as_shape(size).as_list())
        return z
    return nest.map_structure(zeros, cell.output_size)


def _copy_some_through(time, sequence_length, zero_output, state, new_output, new_state):
    """Where time >= length: zeros instead of the output, the old state instead of the
    new (TF's _rnn_step with skip_conditionals: a Select per tensor, every step)."""
    copy_cond = time >= sequence_length

    def one(old, new):
        return new if new.shape.ndims == 0 else array_ops.where(copy_cond, old, new)

    nest.assert_same_structure(zero_output, new_output)
    nest.assert_same_structure(state, new_state)
    return (nest.map_structure(one, zero_output, new_output),
            nest.map_structure(one, state, new_state))


def _prepare_sequence_length(sequence_length):
    sequence_length = math_ops.cast(sequence_length, dtypes.int32)
    if sequence_length.shape.ndims not in (None, 1):
        raise ValueError("sequence_length must be a vector of length batch_size, but saw "
                         "shape: %s" % sequence_length.shape)
    return identity(sequence_length, name="sequence_length")   # to find it in the graph


def _check_sequence_length(sequence_length, batch_size):
    """TF's runtime check that there is one length per batch entry."""
    x_shape = array_ops.shape(sequence_length)
    packed = array_ops.stack([batch_size])
    check = control_flow_ops.Assert(
        reduction_ops.reduce_all(math_ops.equal(x_shape, packed)),
        ["Expected shape for Tensor %s is " % sequence_length.name, packed,
         " but saw shape: ", x_shape])
    with control_dependencies([check]):
        return identity(sequence_length, name="CheckSeqLen")


# -- dynamic_rnn ----------------------------------------------------------------------------------
def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None,
                parallel_iterations=None, swap_memory=False, time_major=False, scope=None):
    """(outputs, final_state): the cell run over every time step in a tf.while_loop.

    inputs: [batch, time, depth] ([time, batch, depth] if time_major), or a nested
    structure of such tensors. outputs: [batch, time, cell.output_size] (time_major:
    [time, batch, ...]). final_state: the cell's state after each sequence's last step.
    """
    assert_like_rnncell("cell", cell)
    with vs.variable_scope(scope or "rnn"):
        flat_input = [convert_to_tensor(x) for x in nest.flatten(inputs)]
        if not time_major:
            flat_input = [_transpose_batch_time(x) for x in flat_input]   # (B,T,D) -> (T,B,D)
        parallel_iterations = parallel_iterations or 32
        if sequence_length is not None:
            sequence_length = _prepare_sequence_length(sequence_length)
        batch_size = _best_effort_input_batch_size(flat_input)
        state = _initial_state(cell, initial_state, dtype, batch_size,
                               "If there is no initial_state, you must give a dtype.")
        if sequence_length is not None:
            sequence_length = _check_sequence_length(sequence_length, batch_size)
        inputs = nest.pack_sequence_as(inputs, flat_input)
        outputs, final_state = _dynamic_rnn_loop(cell, inputs, state, parallel_iterations,
                                                 swap_memory, sequence_length, dtype)
        if not time_major:
            outputs = nest.map_structure(_transpose_batch_time, outputs)   # back to (B,T,D)
        return outputs, final_state


def _check_loop_inputs(flat_input):
    shapes = [x.shape.with_rank_at_least(3) for x in flat_input]
    const_time_steps, const_batch_size = shapes[0].as_list()[:2]
    for shape in shapes:
        if not shape[2:].is_fully_defined():
            raise ValueError("Input size (depth of inputs) must be accessible via shape "
                             "inference, but saw value None.")
        if const_time_steps != shape[0].value:
            raise ValueError("Time steps is not the same for all the elements in the input "
                             "in a batch.")
        if const_batch_size != shape[1].value:
            raise ValueError("Batch_size is not the same for all the elements in the "
                             "input.")
    return shapes, const_time_steps, const_batch_size


def _dynamic_rnn_loop(cell, inputs, initial_state, parallel_iterations, swap_memory,
                      sequence_length, dtype):
    """The while loop over time-major inputs; returns time-major outputs."""
    state = initial_state
    flat_input = nest.flatten(inputs)
    flat_output_size = nest.flatten(cell.output_size)
    time_steps = array_ops.shape(flat_input[0])[0]
    batch_size = _best_effort_input_batch_size(flat_input)
    shapes, const_time_steps, const_batch_size = _check_loop_inputs(flat_input)
    state_dtype = _infer_state_dtype(dtype, state)
    zero_output = _zero_outputs(cell, batch_size, const_batch_size, state_dtype)

    if sequence_length is not None:
        max_sequence_length = reduction_ops.reduce_max(sequence_length)
        # At least one step, so that the outputs get their shape; at most time_steps.
        loop_bound = math_ops.minimum(time_steps, math_ops.maximum(1, max_sequence_length))
    else:
        loop_bound = time_steps
    time = constant(0, dtype=dtypes.int32, name="time")

    # The outputs so far: [steps done, batch, size], one more row per iteration.
    output_shapes = [tensor_shape.TensorShape([const_batch_size]).concatenate(
        tensor_shape.as_shape(size)) for size in flat_output_size]
    rows_prefix = ([0, batch_size] if isinstance(batch_size, int)
                   else array_ops.stack([0, batch_size]))
    outputs_so_far = tuple(array_ops.zeros(_concat(rows_prefix, size), state_dtype)
                           for size in flat_output_size)

    def time_step(time, outputs_so_far, state):
        input_t = []
        for x, shape in zip(flat_input, shapes):
            x_t = array_ops.gather(x, time)     # TF: TensorArray.read(time)
            x_t.set_shape(shape[1:])
            input_t.append(x_t)
        input_t = nest.pack_sequence_as(inputs, input_t)
        output, new_state = cell(input_t, state)
        if sequence_length is not None:
            output, new_state = _copy_some_through(time, sequence_length, zero_output,
                                                   state, output, new_state)
        outputs_so_far = tuple(
            array_ops.concat([so_far, array_ops.expand_dims(out, 0)], 0)
            for so_far, out in zip(outputs_so_far, nest.flatten(output)))
        return time + 1, outputs_so_far, new_state

    invariants = (tensor_shape.TensorShape([]),
                  tuple(tensor_shape.TensorShape([None]).concatenate(s)
                        for s in output_shapes),
                  nest.map_structure(lambda t: t.shape, state))
    # maximum_iterations as TF 1.15 passes it: its counter is loop variable 0, so the
    # loop's ops and results have TF's names (the final state is `rnn/while/Exit_3`...).
    _, outputs, final_state = control_flow_ops.while_loop(
        lambda time, *_: time < loop_bound, time_step, (time, outputs_so_far, state),
        shape_invariants=invariants, parallel_iterations=parallel_iterations,
        maximum_iterations=time_steps, swap_memory=swap_memory)

    final_outputs = []
    for output, shape in zip(outputs, output_shapes):
        if sequence_length is not None:
            # The loop stopped after the longest sequence: zeros for the steps not run.
            missing = time_steps - array_ops.shape(output)[0]
            paddings = array_ops.concat([array_ops.stack([[0, missing]]),
                                         array_ops.zeros([output.shape.ndims - 1, 2],
                                                         dtypes.int32)], 0)
            output = array_ops.pad(output, paddings)
        output.set_shape(tensor_shape.TensorShape([const_time_steps]).concatenate(shape))
        final_outputs.append(output)
    return nest.pack_sequence_as(cell.output_size, final_outputs), final_state


# -- static_rnn -------------------------------------------------------------------------------------
def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None,
               scope=None):
    """(outputs, state): the cell unrolled over the list `inputs` (one [batch, depth]
    tensor per step); outputs is the list of the T outputs."""
    assert_like_rnncell("cell", cell)
    if not nest.is_nested(inputs):
        raise TypeError("inputs must be a sequence")
    if not inputs:
        raise ValueError("inputs must not be empty")
    outputs = []
    with vs.variable_scope(scope or "rnn") as varscope:
        first_input = inputs
        while nest.is_nested(first_input):
            first_input = first_input[0]
        first_input = convert_to_tensor(first_input)
        if first_input.shape.ndims != 1:
            fixed_batch_size = first_input.shape.with_rank_at_least(2)[0]
            for flat_input in nest.flatten(inputs):
                input_shape = convert_to_tensor(flat_input).shape.with_rank_at_least(2)
                fixed_batch_size = fixed_batch_size.merge_with(input_shape[0])
                for i, size in enumerate(input_shape[1:].dims):
                    if size.value is None:
                        raise ValueError("Input size (dimension %d of inputs) must be "
                                         "accessible via shape inference, but saw value "
                                         "None." % i)
        else:
            fixed_batch_size = first_input.shape.with_rank_at_least(1)[0]
        batch_size = (fixed_batch_size.value if fixed_batch_size.value
                      else array_ops.shape(first_input)[0])
        state = _initial_state(cell, initial_state, dtype, batch_size,
                               "If no initial_state is provided, dtype must be specified")
        if sequence_length is not None:
            sequence_length = convert_to_tensor(sequence_length, name="sequence_length")
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError("sequence_length must be a vector of length batch_size")
            zero_output = _zero_outputs(cell, batch_size, fixed_batch_size.value,
                                        _infer_state_dtype(dtype, state))
            sequence_length = math_ops.cast(sequence_length, dtypes.int32)
        for time, input_ in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()
            output, new_state = cell(input_, state)
            if sequence_length is not None:
                # TF wraps this in tf.cond on min/max length; the Select gives the same.
                output, new_state = _copy_some_through(time, sequence_length, zero_output,
                                                       state, output, new_state)
            state = new_state
            outputs.append(output)
        return outputs, state


# -- bidirectional ----------------------------------------------------------------------------------
def _reverse_sequence(x, lengths, seq_axis, batch_axis):
    """TF's reverse_sequence: reverses x[b, :lengths[b]] along seq_axis, keeps the rest
    (and checks the lengths: none below 0 or beyond the time steps, one per sequence)."""
    lengths = convert_to_tensor(lengths)
    if lengths.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
        lengths = math_ops.cast(lengths, dtypes.int32)
    return reverse_sequence(x, lengths, seq_axis=seq_axis, batch_axis=batch_axis)


def _reverse(x, lengths, seq_axis, batch_axis):
    if lengths is not None:
        return _reverse_sequence(x, lengths, seq_axis, batch_axis)
    return array_ops.reverse(x, axis=[seq_axis])


def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None,
                              initial_state_fw=None, initial_state_bw=None, dtype=None,
                              parallel_iterations=None, swap_memory=False, time_major=False,
                              scope=None):
    """((output_fw, output_bw), (state_fw, state_bw)): one dynamic_rnn forwards and one
    over the time-reversed sequences (each reversed within its own length), under
    `bidirectional_rnn/fw` and `bidirectional_rnn/bw`. output_bw is reversed back."""
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    time_axis, batch_axis = (0, 1) if time_major else (1, 0)
    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            output_fw, output_state_fw = dynamic_rnn(
                cell_fw, inputs, sequence_length=sequence_length,
                initial_state=initial_state_fw, dtype=dtype,
                parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=fw_scope)
        with vs.variable_scope("bw") as bw_scope:
            inputs_reverse = nest.map_structure(
                lambda x: _reverse(convert_to_tensor(x), sequence_length, time_axis,
                                   batch_axis), inputs)
            tmp, output_state_bw = dynamic_rnn(
                cell_bw, inputs_reverse, sequence_length=sequence_length,
                initial_state=initial_state_bw, dtype=dtype,
                parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=bw_scope)
    output_bw = nest.map_structure(
        lambda x: _reverse(x, sequence_length, time_axis, batch_axis), tmp)
    return (output_fw, output_bw), (output_state_fw, output_state_bw)


def static_bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None,
                             initial_state_bw=None, dtype=None, sequence_length=None,
                             scope=None):
    """(outputs, state_fw, state_bw): static_rnn both ways; each output is
    concat([output_fw, output_bw], 1)."""
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    if not nest.is_nested(inputs):
        raise TypeError("inputs must be a sequence")
    if not inputs:
        raise ValueError("inputs must not be empty")
    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            output_fw, output_state_fw = static_rnn(cell_fw, inputs, initial_state_fw,
                                                    dtype, sequence_length, scope=fw_scope)
        with vs.variable_scope("bw") as bw_scope:
            reversed_inputs = _reverse_seq(inputs, sequence_length)
            tmp, output_state_bw = static_rnn(cell_bw, reversed_inputs, initial_state_bw,
                                              dtype, sequence_length, scope=bw_scope)
    output_bw = _reverse_seq(tmp, sequence_length)
    flat_outputs = [array_ops.concat([fw, bw], 1) for fw, bw in
                    zip(nest.flatten(output_fw), nest.flatten(output_bw))]
    return (nest.pack_sequence_as(output_fw, flat_outputs), output_state_fw,
            output_state_bw)


def _reverse_seq(input_seq, lengths):
    """A list of per-step tensors, reversed (each sequence within its length)."""
    if lengths is None:
        return list(reversed(input_seq))
    flat_per_step = [nest.flatten(step) for step in input_seq]
    columns = []
    for k in range(len(flat_per_step[0])):
        stacked = array_ops.stack([convert_to_tensor(step[k]) for step in flat_per_step])
        columns.append(array_ops.unstack(_reverse_sequence(stacked, lengths, 0, 1)))
    return [nest.pack_sequence_as(input_seq[t], [col[t] for col in columns])
            for t in range(len(input_seq))]
