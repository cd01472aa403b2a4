"""Input values shape inference computes while the graph is built, as TF's C++ does.

Some shape functions read an input's *value*: a reshape's `shape`, a fill's `dims`, a
slice's `begin` and `size`. When that input is not a constant, TensorFlow's shape
refiner (EvaluateConstantTensor) extracts the small graph that computes it and runs it
on the CPU: every op back to constants, as long as none is stateful, a placeholder, or
a Merge, Enter or Exit of control flow; `Shape`, `Size` and `Rank` of a tensor whose
static shape answers them end the walk. So in TensorFlow `tf.zeros(tf.shape(x)[1:])`,
`tf.zeros(tf.size(x))` and `tf.eye(tf.constant(2))` have static shapes when x's is
known, though no Python code of theirs knows these ops.

`inferred_value` is that evaluation: the op's own CPU kernel, run once on its inputs'
inferred values (remembered per graph, as TF remembers them; a failure is forgotten, so
a shape refined later by `set_shape` is used when next asked). It is the one place where
building a graph computes (docs/engine.md, "Build-time values"): only values a shape
function asks for, never a value a Session or a variable holds.

Python code that chooses *what* to build (`tf.nn.dropout` skipping a keep_prob of 1,
the gradient functions) reads `op_builder.constant_value` instead: TF's Python
`tensor_util.constant_value`, which knows only a few ops, so such a choice is TF's.
"""
import numpy as np

from tfteach.ops.op_builder import constant_value

__all__ = ["inferred_value", "MAX_ELEMENTS"]

# Ops whose outputs are never build-time values, whatever their inputs: control flow
# (TensorFlow's walk stops at Merge, Enter and Exit; the others carry dead tensors here)
# and the placeholder that may be fed.
_NEVER = frozenset(("Merge", "RefMerge", "Enter", "RefEnter", "Exit", "RefExit", "Switch",
                    "RefSwitch", "NextIteration", "RefNextIteration", "LoopCond",
                    "PlaceholderWithDefault", "Placeholder", "PlaceholderV2"))
# A shape function reads small values (shapes, axes, sizes). One computed from more
# than this many values would be a large computation at build time, which no program's
# shape needs: not evaluated (TensorFlow has no such bound).
MAX_ELEMENTS = 1 << 20


def inferred_value(tensor):
    """The value of `tensor` as TensorFlow's shape inference knows it while the graph is
    built (a NumPy array), or None."""
    value = constant_value(tensor)
    if value is not None or not hasattr(tensor, "op"):
        return value
    op = tensor.op
    graph = op._graph
    cache = getattr(graph, "_build_time_values", None)
    if cache is None:
        cache = graph._build_time_values = {}
    key = (op, tensor.value_index)
    found = cache.get(key)
    if found is not None:
        return found
    outputs = _evaluate(op)
    if outputs is None:
        return None
    for i, v in enumerate(outputs):
        cache[(op, i)] = v
    return outputs[tensor.value_index]


def _evaluable(op):
    op_def = op._op_def
    if op_def.stateful or op.type in _NEVER or op_def.handles_dead_inputs or \
            op_def.ref_inputs or not op._inputs or "CPU" not in op_def.kernels:
        return False
    for t in op._outputs:
        size = t.shape.num_elements() if t.shape.is_fully_defined() else None
        if t.dtype.is_ref_dtype or (size is not None and size > MAX_ELEMENTS):
            return False
    return True


def _evaluate(op):
    """All of `op`'s outputs computed by its CPU kernel from its inputs' inferred values,
    or None (an input is not known, or the kernel fails: TensorFlow's evaluation is
    best-effort too, and the op's own error comes when a Session runs it)."""
    if not _evaluable(op):
        return None
    values = []
    for t in op._inputs:
        v = inferred_value(t)
        if v is None or np.size(v) > MAX_ELEMENTS:
            return None
        values.append(v)
    from tfteach.runtime.session import KernelContext
    kernel = op._op_def.kernels["CPU"]
    try:
        with np.errstate(all="ignore"):
            result = kernel(KernelContext(op, None, None, kernel), *values)
    except Exception:  # noqa: BLE001 - not known at build time; the run reports it
        return None
    outputs = [result] if len(op._outputs) == 1 else list(result)
    if len(outputs) != len(op._outputs):
        return None
    arrays = []
    for t, v in zip(op._outputs, outputs):
        if not isinstance(v, (np.ndarray, np.generic)):
            return None                     # a handle, a list: not a tensor value
        v = np.asarray(v)
        if v.size > MAX_ELEMENTS or v.dtype != t.dtype.np:
            return None
        v.flags.writeable = False           # shared by every shape function that asks
        arrays.append(v)
    return arrays
