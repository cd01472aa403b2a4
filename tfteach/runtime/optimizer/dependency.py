"""Identity and NoOp steps removed from the fast loop (TF's dependency optimizer).

`tf.identity(x)` and the Identity ops `tf.gradients` puts around a gradient tuple give
their input back; their readers read the input's slot instead. A NoOp (a `tf.group`)
computes nothing: in the fast loop every step runs in order, so what it waited for has
run anyway. Left alone: an Identity that is fetched (the client asks for it), that reads
a variable (`v/read`: a TF1 read aliases the variable, runtime/ref_reads.py), that has
a control input that changes state (it may have to see an Assign's result), or whose
output a stateful op reads (an Assign may keep the array). The Identity ops of
`tf.tuple` (every gradient tuple) wait for a NoOp grouping pure ops only: what they
wait for cannot change their input, and they are read through.
"""
from tfteach.runtime.optimizer.rewrite import Rewrite
from tfteach.runtime.optimizer.slots import plain, read_by_stateful_ops, read_through

__all__ = ["run", "NAME"]

NAME = "dependency"


def run(steps, plan, rewrites):
    fetched = set(plan.fetch_slots)
    stateful_reads = read_by_stateful_ops(steps)
    aliases, kept = {}, []
    for step in steps:
        if step.type == "NoOp" and plain(step):
            rewrites.append(Rewrite(NAME, (step.name,), "removed"))
            continue
        if (step.type == "Identity" and plain(step) and _waits_for_pure_ops(step.op)
                and step.single_out not in fetched and step.single_out not in stateful_reads
                and not step.op._inputs[0].dtype.is_ref_dtype):
            aliases[step.single_out] = step.in_slots[0]
            rewrites.append(Rewrite(NAME, (step.name,), "reads %s" % step.op._inputs[0].name))
            continue
        kept.append(step)
    return read_through(kept, aliases) if aliases else kept


def _waits_for_pure_ops(op):
    """Whether every op `op` waits for by control edges (through NoOps, as `tf.group`
    makes them) is stateless: then running them first cannot change `op`'s input."""
    stack, seen = list(op._control_inputs), set()
    while stack:
        waited = stack.pop()
        if waited in seen:
            continue
        seen.add(waited)
        if waited._op_def.stateful or waited._op_def.ref_inputs:
            return False
        if waited.type == "NoOp":
            stack.extend(waited._control_inputs)
            stack.extend(t.op for t in waited._inputs)
    return True
