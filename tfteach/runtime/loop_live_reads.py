"""A variable read that a while_loop captured is live while the loop writes the variable.

In TF 1.15 a loop body that uses a variable `v` as a value (`v * 2`, `tf.identity(v)`,
`v + 0`) reads `v/read`, built outside the loop, through a constant `Enter`. `v/read`
is an Identity of the variable's ref: it forwards the variable's *buffer*, and the
`Enter` forwards it too. Assign, AssignAdd and the optimizers write into that buffer. So
an op of the body computes from the value the variable has when the op runs: in each
iteration, the value the previous iterations left, and within one iteration, after an
assignment that the op waits for, the new value. With `parallel_iterations=1`:

    v = tf.Variable(0.0)
    def body(i, acc):
        with tf.control_dependencies([tf.assign_add(v, 1.0)]):
            r = tf.identity(v)                  # reads v/read through an Enter
        return i + 1, acc + r
    tf.while_loop(lambda i, a: i < 3, body, [0, 0.0], parallel_iterations=1)
    # acc = 1 + 2 + 3 = 6.0

(`v.read_value()` and the assignments themselves take the ref, entered with `RefEnter`:
those read the variable when they run anyway, runtime/ref_reads.py.)

tfteach's While op is fed the captured tensors once, when the loop starts
(loop_runner.py). For each captured read of a variable that the loop may write — an op
of its condition or body, of a `tf.cond` or a loop nested in it — `live_reads` finds it,
and the runner feeds the variable's current value (`ref_reads.current`: the variable's
buffer while its size and dtype stay) to every run of the condition and the body. The
sub-plans are told which feeds are such reads (`fed_reads`), so that an op waiting for a
write in the same iteration reads again (ref_reads.read_when_run).

A captured value that is not the variable's buffer in a run (fed by the client, or
copied from another device) is that value in every iteration, as TF's Enter forwards
it (`forwarded`). The loop's gradient reads a saved read of the variable (a body's
`tf.identity(v)`) as the variable is when the gradient runs: TF pushes the buffer on
its stack, not a copy (`live_saved`).

A loop that only reads its variables (an RNN's weights, every iteration) has no live
read: its captured reads stay loop invariants, fed once and hoisted as before
(loop_hoisting.py).
"""
import numpy as np

from tfteach.kernels.cpu.state_kernels import VariableRef
from tfteach.runtime import executor, ref_reads
from tfteach.runtime.placement import variable_of

__all__ = ["variables_written", "variable_read_by", "live_reads", "forwarded", "live_saved",
           "refresh"]


def variables_written(loop):
    """The VariableV2 ops that the ops of `loop` (a while_ops._Loop) may change, nested
    conds and loops included. Computed once per loop (the graph's loops do not change)."""
    written = getattr(loop, "_variables_written", None)
    if written is None:
        feeds = tuple(loop.loop_vars) + tuple(loop.captured)
        ops = executor.prune((loop.cond,) + tuple(loop.next_values), feeds, ())
        written = []
        for op in ops:
            for variable in ref_reads.written_variables(op):
                if variable not in written:
                    written.append(variable)
        written = loop._variables_written = tuple(written)
    return written


def variable_read_by(tensor):
    """The VariableV2 op whose buffer `tensor` is, or None: a read of the variable's ref
    (`v/read`) or an op forwarding one unchanged (ref_reads.FORWARDING_OPS)."""
    while tensor.op.type in ref_reads.FORWARDING_OPS and tensor.op._inputs:
        tensor = tensor.op._inputs[0]
        if tensor.dtype.is_ref_dtype:
            return variable_of(tensor)
    return None


def live_reads(loop, store):
    """[(position in loop.captured, VariableRef)] for the captured reads of variables the
    loop may write; empty for a loop that writes none (the usual case). `store`: the
    Session's `variable_values`."""
    written = variables_written(loop)
    if not written:
        return []
    live = []
    for position, tensor in enumerate(loop.captured):
        variable = variable_read_by(tensor)
        if variable is not None and variable in written:
            live.append((position, VariableRef(store, variable)))
    return live


def forwarded(live, captured):
    """The reads of `live` whose captured value in this run is the variable's buffer
    (its stored array, or a view of it). One that is not was fed by the client
    (`sess.run(loop, {v.value(): 10.0})`) or copied from another device (TF's Send
    copies too): TF's Enter then forwards that value, the same in every iteration."""
    kept = []
    for position, ref in live:
        value, stored = captured[position], ref.store.get(ref.name)
        if value is stored or (isinstance(value, np.ndarray) and
                               isinstance(stored, np.ndarray) and
                               np.may_share_memory(value, stored)):
            kept.append((position, ref))
    return kept


def live_saved(saved, loop, store):
    """[(position in `saved`, VariableRef)] for the body tensors a loop's gradient reads
    back from its history (`saved`) that are reads of a variable the loop writes. TF
    pushes such a read on its stack without a copy, so the gradient loop finds the
    variable's buffer as it is then, after the forward loop's writes (not the value of
    the iteration that pushed it)."""
    written = variables_written(loop)
    if not written:
        return []
    found = []
    for position, tensor in enumerate(saved):
        variable = variable_read_by(tensor)
        if variable is not None and variable in written:
            found.append((position, VariableRef(store, variable)))
    return found


def refresh(captured, live):
    """`captured` (the values the loop was given), each live read replaced by what the
    variable holds now."""
    captured = list(captured)
    for position, ref in live:
        captured[position] = ref_reads.current(captured[position], ref)
    return captured
