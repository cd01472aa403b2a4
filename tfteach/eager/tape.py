"""`tf.GradientTape`: reverse-mode gradients of eager code, from the graph gradients.

While a tape records, every eager op that reads a tensor the tape follows (a watched
tensor, a trainable variable read, or an output of an op already recorded) is kept on
the tape with its inputs and outputs (execute.py calls `record_operation`). `gradient`
walks the recorded ops backwards and calls each op type's *registered gradient
function* — the very functions `tf.gradients` uses to build gradient ops in a graph.
Called eagerly, those functions simply compute: so the tape needs no gradient code of
its own, and every op with a graph gradient has a tape gradient.

- Ops made while computing gradients run eagerly too, so an outer tape records them:
  nested tapes give second derivatives.
- Inside a tf.function's trace the tape is a graph tape: `gradient` is `tf.gradients`
  on the traced graph.
- As TF: `None` for a source the target does not depend on (or `unconnected_gradients=
  'zero'`), `None` for an integer source, and a `RuntimeError` for a second `gradient`
  of a non-persistent tape.
"""
import contextlib

import numpy as np

from tfteach.framework.eager_mode import executing_eagerly
from tfteach.eager import context
from tfteach.eager.tensor import EagerTensor
from tfteach.ops import nest
from tfteach.ops.gradients_impl import UnconnectedGradients

__all__ = ["GradientTape", "record_operation", "variable_accessed"]

_NON_PERSISTENT = ("A non-persistent GradientTape can only be used to compute one set of "
                   "gradients (or jacobians)")


def record_operation(op):
    """Called by execute.py for every eager op while some tape records."""
    for tape in context.TAPES:
        tracked = tape._tracked
        for t in op._inputs:
            if id(t) in tracked:
                tape._ops.append(op)
                tracked.update(id(o) for o in op._outputs)
                break


def variable_accessed(variable, tensor):
    """A variable was read into `tensor`: tapes watching it follow the read."""
    for tape in context.TAPES:
        if tape._watch_accessed and variable.trainable or id(variable) in tape._watched_vars:
            tape._watch_variable(variable)
            tape._var_reads[id(variable)][1].append(tensor)
            tape._tracked.add(id(tensor))


def _is_variable(x):
    return hasattr(x, "_ref_value") and hasattr(x, "_eager_tensor")


def _differentiable(dtype):
    return dtype.is_floating or dtype.is_complex


class GradientTape:
    """Records eager operations to differentiate them (`tf.GradientTape`)."""

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed = watch_accessed_variables
        self._recording = False
        self._used = False
        self._entered = False           # TF's tape exists (entered, not spent)
        self._graph = None              # set when entered while a graph is built
        self._graph_watched = []
        self._clear()

    def reset(self):
        """Forgets everything recorded so far (`tape.reset()`, inside the `with`)."""
        if not self._recording:
            raise ValueError("Tape is not recording.")      # TF's _pop_tape
        self._clear()

    def _clear(self):
        self._ops = []                  # recorded EagerOperations, in execution order
        self._tracked = set()           # ids of the tensors followed
        self._kept = []                 # watched tensors (keeps their ids valid)
        self._var_reads = {}            # id(variable) -> (variable, [read tensors])
        self._watched_vars = {}         # id(variable) -> variable, watched or accessed

    # -- recording ----------------------------------------------------------------------------
    def __enter__(self):
        if self._recording:                 # TF 1.15's _push_tape (TF 2.2+ words it anew)
            raise ValueError("Tape is already recording.")
        if self._used and not self._persistent:
            # TF drops a non-persistent tape at its gradient: entering it again records
            # on a new, empty tape, which may give one set of gradients again
            self._clear()
            self._used = False
            self._graph_watched = []
        if not executing_eagerly():
            from tfteach.framework import graph as graph_lib
            self._graph = graph_lib.get_default_graph()
        self._entered = True
        self._push()
        return self

    def __exit__(self, *exc):
        if self._recording:
            self._pop()

    def _push(self):
        context.TAPES.append(self)
        self._recording = True

    def _pop(self):
        context.TAPES.remove(self)
        self._recording = False

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops run inside are not recorded (`with tape.stop_recording():`)."""
        # TF's words: no tape yet (never entered, or spent by a non-persistent
        # gradient) is its RuntimeError; a tape whose `with` has ended its ValueError
        if not self._entered or (self._used and not self._persistent):
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        if not self._recording:
            raise ValueError("Tape is not recording.")
        self._pop()
        try:
            yield
        finally:
            self._push()

    def _watch_variable(self, variable):
        if id(variable) not in self._var_reads:
            self._var_reads[id(variable)] = (variable, [])
        self._watched_vars[id(variable)] = variable

    def watch(self, tensor):
        """Follows `tensor` (or each tensor/variable of a nested structure)."""
        for t in nest.flatten(tensor):
            if _is_variable(t):
                self._watch_variable(t)
            elif isinstance(t, EagerTensor):
                self._tracked.add(id(t))
                self._kept.append(t)
            elif self._graph is not None and hasattr(t, "dtype"):
                self._graph_watched.append(t)
            else:
                raise ValueError("Passed in object of type {}, not tf.Tensor".format(type(t)))

    def watched_variables(self):
        """The variables watched, in the order they were made (TF: "in order of
        construction", its variables' unique ids), not the order they were read."""
        variables = [v for v, _ in self._var_reads.values()]
        if all(hasattr(v, "_creation_index") for v in variables):
            variables.sort(key=lambda v: v._creation_index)
        return tuple(variables)

    # -- gradients ----------------------------------------------------------------------------
    def _check_usable(self):
        if self._used and not self._persistent:
            raise RuntimeError(_NON_PERSISTENT)
        self._used = True
        if self._recording and not self._persistent:
            self._pop()          # as TF: a non-persistent tape stops at its gradient

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """d(sum of `target`)/d(each source), shaped like `sources` (nests allowed)."""
        unconnected = getattr(unconnected_gradients, "value", unconnected_gradients)
        if unconnected not in (UnconnectedGradients.NONE, UnconnectedGradients.ZERO):
            raise ValueError("Unknown value for unconnected_gradients: %r"
                             % unconnected_gradients)
        self._check_usable()
        flat_sources = nest.flatten(sources)
        if self._graph is not None:
            grads = self._graph_gradient(target, flat_sources, output_gradients, unconnected)
        else:
            grads = self._backward(self._read_variable_targets(target), flat_sources,
                                   None if output_gradients is None
                                   else nest.flatten(output_gradients), unconnected)
        return nest.pack_sequence_as(sources, grads)

    def _read_variable_targets(self, target):
        """The flat targets, a variable among them read with this tape recording, as TF's
        `gradient` reads it (`with self:`): so `tape.gradient(v, v)` is 1, not None."""
        flat = nest.flatten(target)
        if not any(_is_variable(t) for t in flat):
            return flat
        from tfteach.framework import convert
        resume = not self._recording
        if resume:
            self._push()
        try:
            return [convert.convert_to_tensor(t) if _is_variable(t) else t for t in flat]
        finally:
            if resume:
                self._pop()

    def _graph_gradient(self, target, sources, output_gradients, unconnected):
        from tfteach.ops.gradients_impl import gradients
        return gradients(nest.flatten(target), sources, grad_ys=output_gradients,
                         unconnected_gradients=unconnected)

    def _backward(self, targets, sources, output_gradients, unconnected):
        from tfteach.framework import convert
        from tfteach.ops import fill_ops
        from tfteach.ops.gradients_impl import _aggregate, _zeros_like_output
        grads = {}
        # A persistent tape inside its `with` records its own gradient ops, as TF's
        # does (so it can differentiate them again); a non-persistent one has stopped.
        paused = False
        try:
            for i, t in enumerate(targets):
                t = convert.convert_to_tensor(t)
                if output_gradients is not None and output_gradients[i] is not None:
                    seed = convert.convert_to_tensor(output_gradients[i], dtype=t.dtype)
                else:
                    seed = fill_ops.ones_like(t)
                grads.setdefault(id(t), []).append(seed)
            for op in reversed(self._ops):
                out_grads = [grads.get(id(o)) for o in op._outputs]
                if not any(out_grads):
                    continue
                op_def = op._op_def
                if not op_def.differentiable:
                    continue
                if op_def.gradient is None:
                    raise LookupError("No gradient defined for operation '%s' (op type: %s)"
                                      % (op.name, op.type))
                out_grads = [_aggregate(g, op, None) if g else None for g in out_grads]
                for i, g in enumerate(out_grads):
                    if g is None and _differentiable(op._outputs[i].dtype):
                        out_grads[i] = _zeros_like_output(op, i)
                in_grads = op_def.gradient(op, *out_grads)
                if not isinstance(in_grads, (list, tuple)):
                    in_grads = [in_grads]
                for t_in, g in zip(op._inputs, in_grads):
                    if g is not None and _differentiable(t_in.dtype.base_dtype):
                        grads.setdefault(id(t_in), []).append(g)
            return [self._result(s, grads, unconnected) for s in sources]
        finally:
            if paused:
                self._push()

    def _result(self, source, grads, unconnected):
        from tfteach.ops import fill_ops
        from tfteach.ops.gradients_impl import _aggregate
        if _is_variable(source):
            reads = self._var_reads.get(id(source), (None, []))[1]
            parts = [g for t in reads for g in grads.get(id(t), ())]
            dtype = source.dtype
        elif isinstance(source, EagerTensor):
            # A tensor the tape does not follow (not watched, not computed from a
            # watched one) gets None, even where a recorded op read it.
            parts = grads.get(id(source), []) if id(source) in self._tracked else []
            dtype = source.dtype
        else:
            raise ValueError("Passed in object of type {}, not tf.Tensor".format(
                type(source)))
        if not _differentiable(dtype.base_dtype):
            return None              # TF: integer sources get None (with a warning)
        grad = _aggregate(parts, None, None) if parts else None
        if grad is None and unconnected == UnconnectedGradients.ZERO:
            return fill_ops.zeros_like(source.value() if _is_variable(source) else source)
        return grad

    # -- Jacobians ----------------------------------------------------------------------------
    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """d target[i...] / d source[j...], shape target.shape + source.shape (a loop of
        one backward pass per element of target: for small cases)."""
        from tfteach.framework import convert
        from tfteach.ops import array_ops
        self._check_usable()
        target = convert.convert_to_tensor(target)
        flat_sources = nest.flatten(sources)
        size = int(np.prod(target.shape.as_list(), dtype=np.int64))
        rows = []
        for i in range(size):
            onehot = np.zeros(size, dtype=target.dtype.np)
            onehot[i] = 1
            seed = onehot.reshape(target.shape.as_list())
            rows.append(self._backward([target], flat_sources, [seed], unconnected_gradients))
        results = []
        for k, source in enumerate(flat_sources):
            column = [row[k] for row in rows]
            if any(g is None for g in column):
                results.append(None)
                continue
            stacked = array_ops.stack(column) if column else None
            shape = target.shape.as_list() + source.shape.as_list()
            results.append(array_ops.reshape(stacked, shape))
        return nest.pack_sequence_as(sources, results)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """d target[b, i...] / d source[b, j...] for each example b of the batch."""
        from tfteach.framework import convert
        from tfteach.ops import array_ops
        self._check_usable()
        target = convert.convert_to_tensor(target)
        shape = target.shape.as_list()
        if not shape or source.shape.as_list()[:1] != shape[:1]:
            raise ValueError("Need first dimension of target shape (%s) and source shape "
                             "(%s) to match." % (target.shape, source.shape))
        batch = shape[0]
        inner = int(np.prod(shape[1:], dtype=np.int64))
        columns = []
        for j in range(inner):
            seed = np.zeros((batch, inner), dtype=target.dtype.np)
            seed[:, j] = 1
            g = self._backward([target], [source], [seed.reshape(shape)],
                               unconnected_gradients)[0]
            if g is None:
                return None
            columns.append(g)
        stacked = array_ops.stack(columns, axis=1)
        return array_ops.reshape(stacked, shape + source.shape.as_list()[1:])
