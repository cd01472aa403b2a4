"""TF1 variable reads: an op sees the value its variable holds when that op runs.

In TensorFlow 1.x a read of a (ref) variable does not copy it. `v/read` (what `v * 2`
and every expression of `v` use), `tf.identity(v)` and `v.read_value()` output the
variable's own buffer, and so do the ops that pass a tensor on unchanged (Identity,
StopGradient, Reshape, ExpandDims, Squeeze). Once the variable is initialized, Assign,
AssignAdd/AssignSub and the optimizers' Apply* ops write into that buffer. So an op
computing from a read sees the value the variable has *when the op runs*: after an
assignment that a control (or data) dependency orders before it, the new value; and a
fetched read gives the value at the end of the run. An assignment that changes the
variable's size gives it a new buffer: reads made before keep the old one.

tfteach stores variable values copy-on-write (kernels/cpu/state_kernels.py): a slot that
holds a read keeps the value of the moment the read ran, and updates never change an
array a slot still holds. The plan runs its steps one at a time, in a topological
order, so the two differ only where a step writing a variable runs between a read of it
and a step consuming that read that depends on the write. `read_when_run` finds those
steps when the plan is built and runs them as copies that read the variable again; a
fetched read with a write after it is read again at the end of the run (`current`),
as TensorFlow hands the client the buffer itself. A read that goes to another device
(a fetch from a GPU, an op on the CPU) is copied as soon as it is ready, as TensorFlow's
Send is, so the copy keeps the value of the read.
A While op whose loop writes a variable counts as a write of it (`written_variables`);
inside the loop, the captured reads are live too (loop_live_reads.py).
Plans without such a pattern (a usual training step: every read comes before the
updates) run exactly as before.
"""
import copy

from tfteach.framework.dead import DEAD
from tfteach.kernels.cpu.state_kernels import VariableRef
from tfteach.runtime.placement import variable_of

__all__ = ["FORWARDING_OPS", "read_when_run", "current", "written_variables"]

# Ops whose output is their first input's buffer in TensorFlow (no copy).
FORWARDING_OPS = frozenset(["Identity", "StopGradient", "Reshape", "ExpandDims", "Squeeze"])

# Ops that take a variable by reference but do not change it.
_NOT_WRITING = frozenset(["IsVariableInitialized"])


def read_when_run(steps, feed_slots, fetch_slots, store, fed_reads=None):
    """(replaced, fetch_rereads): {step: its copy that reads again} for each of `steps`
    that a write of a variable must precede, and [(fetch index, VariableRef)] for
    fetched reads to take at the end of the run.

    A step consuming a read of variable X reads X again when some step writing X runs
    between the read and it *and* is one of the step's inputs, direct or indirect
    (data or control): that is when TensorFlow's order is certain. A step that nothing
    orders after the write may run before it in TensorFlow (it is ready first); it keeps
    the value of the read. `steps` in the order they run; `store` the Session's
    `variable_values`; `fed_reads` {feed slot: VariableV2 op} for fed values that are
    reads of a variable made before the plan runs (a loop body's captured `v/read`,
    loop_live_reads.py)."""
    writes = _writes(steps)
    if not writes:
        return {}, []
    fed = set(feed_slots)
    order = _Order(steps)
    # slot -> (VariableV2 op, when its value was read)
    fed_reads_slots = set(fed_reads or ())
    aliases = {slot: (variable, -1) for slot, variable in (fed_reads or {}).items()}
    replaced = {}
    for i, step in enumerate(steps):
        stale = []                  # (input position, VariableV2 op)
        # A copy to another device runs when its value is ready (TF's Send): never later.
        for position, slot in enumerate(step.in_slots if step.source is None else ()):
            alias = aliases.get(slot)
            if alias is None:
                continue
            variable, read_at = alias
            for w, writer in writes.get(variable, ()):
                if read_at < w < i and order.runs_after(writer, step.op):
                    stale.append((position, variable))
                    break
        if stale:
            replaced[step] = _reading_when_run(step, stale, store)
        if step.source is not None and step.in_slots[0] in fed_reads_slots:
            # A fed read comes from the client, so a plan on a GPU copies it there
            # first; in TF the loop's Enter is on the GPU with it, and forwards it.
            aliases[step.single_out] = aliases[step.in_slots[0]]
        if step.source is None and step.single_out is not None and step.in_slots:
            read = _read_by(step, fed, aliases)
            if read is not None:
                # Read now: a read of the ref, or a forwarding step that read again.
                read_at = i if stale or read[1] is None else read[1]
                aliases[step.single_out] = (read[0], read_at)
    rereads = []
    for k, slot in enumerate(fetch_slots):
        alias = aliases.get(slot)
        if alias is not None and any(w > alias[1] for w, _ in writes.get(alias[0], ())):
            rereads.append((k, VariableRef(store, alias[0])))
    return replaced, rereads


def current(old, ref):
    """What a read holding `old` shows now: the variable's value, in `old`'s shape, when
    the variable still has `old`'s size and dtype (the same buffer in TensorFlow);
    else `old` (the variable got a new buffer, the read kept the old one)."""
    if old is None or old is DEAD:
        return old
    value = ref.store.get(ref.name)
    if (value is None or getattr(value, "size", None) != getattr(old, "size", None)
            or getattr(value, "dtype", None) != getattr(old, "dtype", None)):
        return old
    if tuple(value.shape) != tuple(old.shape):
        value = value.reshape(old.shape)
    return value


def written_variables(op):
    """The VariableV2 ops `op` may change: those it takes by reference (Assign, an
    optimizer's Apply*), or, for a While op, those its loop changes
    (loop_live_reads.py)."""
    if op.type == "While":
        from tfteach.runtime.loop_live_reads import variables_written
        return variables_written(op._attrs["_loop"])
    op_def = op._op_def
    if not op_def.ref_inputs or not op_def.stateful or op.type in _NOT_WRITING:
        return ()
    found = []
    for k in op_def.ref_inputs:
        if k < len(op._inputs):
            variable = variable_of(op._inputs[k])
            if variable is not None and variable not in found:
                found.append(variable)
    return found


def _writes(steps):
    """{VariableV2 op: [(position, op) of each step that may change it]}."""
    writes = {}
    for i, step in enumerate(steps):
        if step.source is not None:
            continue
        for variable in written_variables(step.op):
            writes.setdefault(variable, []).append((i, step.op))
    return writes


class _Order:
    """Which ops of a plan wait, directly or not, for a given op (data and control
    inputs); computed for the few writers asked about."""

    def __init__(self, steps):
        self._ops = {step.op for step in steps if step.source is None}
        self._consumers = None
        self._after = {}

    def runs_after(self, writer, op):
        after = self._after.get(writer)
        if after is None:
            after = self._after[writer] = self._waiting_for(writer)
        return op in after

    def _waiting_for(self, writer):
        if self._consumers is None:
            self._consumers = {}
            for op in self._ops:
                for t in op._inputs:
                    self._consumers.setdefault(t.op, []).append(op)
                for c in op._control_inputs:
                    self._consumers.setdefault(c, []).append(op)
        seen, stack = set(), [writer]
        while stack:
            for op in self._consumers.get(stack.pop(), ()):
                if op not in seen:
                    seen.add(op)
                    stack.append(op)
        return seen


def _read_by(step, fed, aliases):
    """(VariableV2 op, read position) when `step`'s output is a read of a variable: a
    forwarding op of another read, or of a variable's ref (`v/read`: position None, it
    reads when it runs); else None."""
    op = step.op
    if op.type not in FORWARDING_OPS:
        return None
    source = op._inputs[0]
    slot = step.in_slots[0]
    if source.dtype.is_ref_dtype:
        if slot in fed:             # the student fed the variable: a value, not a buffer
            return None
        variable = variable_of(source)
        return None if variable is None else (variable, None)
    return aliases.get(slot)


def _reading_when_run(step, stale, store):
    """A copy of `step` whose kernel first replaces the stale inputs with the value
    their variables hold now."""
    kernel = step.kernel
    refs = tuple((position, VariableRef(store, variable)) for position, variable in stale)

    def read_variables_then_run(ctx, *args):
        args = list(args)
        for position, ref in refs:
            args[position] = current(args[position], ref)
        return kernel(ctx, *args)

    again = copy.copy(step)
    again.kernel = read_variables_then_run
    return again
