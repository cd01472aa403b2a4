"""Kernels of the variable ops: a variable's value lives in the Session, not the graph.

A `VariableV2` op does not output its value: like TensorFlow's, it outputs a *reference*
to the slot where this Session keeps it (`ctx.session.variable_values[op name]`).
Ops that take a value (e.g. `Variable/read`) get the reference dereferenced by the
executor at the moment they run, so an op that runs after `Variable/Assign` in the same
`Session.run` sees the new value; an uninitialized variable fails there, with
TensorFlow's FailedPreconditionError. Ops that take the reference itself (`Assign`,
`AssignAdd`, `IsVariableInitialized`, optimizers' `Apply*`) receive the `VariableRef`.
Stored values are read-only arrays owned by the Session. Kernels replace them, except
that an optimizer's update may write into the stored array itself when nothing but the
Session holds it (`VariableRef.array_for_update`): a value a student fetched, or that
another op of the same run still reads, is never changed under them. (TensorFlow's reads
alias the variable's buffer instead; where that is visible — an op ordered after an
update consuming a read made before it — the plan makes that op read the variable
again: runtime/ref_reads.py.)
"""
import sys

import numpy as np

from tfteach.framework.errors import FailedPreconditionError, InvalidArgumentError
from tfteach.framework.hints import with_hint

__all__ = ["VariableRef", "variable_ref_of", "sole_stored_array", "variable_kernel",
           "assign_kernel", "assign_taking_value",
           "check_assign_shape", "check_update_shape",
           "assign_add_kernel", "assign_sub_kernel", "is_variable_initialized_kernel"]


def _is_local_variable(op):
    """True for the VariableV2 op of a variable in LOCAL_VARIABLES (only asked when an
    error is raised, to choose its hint)."""
    return any(getattr(v, "op", None) is op
               for v in op.graph.get_collection("local_variables"))


class VariableRef:
    """The value of a ref tensor: where one variable's value lives in one Session."""

    __slots__ = ("store", "op")

    def __init__(self, store, op):
        self.store = store        # the Session's `variable_values` dict
        self.op = op              # the VariableV2 op; its name is the key

    @property
    def name(self):
        return self.op.name

    def is_initialized(self):
        return self.op.name in self.store

    def deref(self):
        """The current value; TensorFlow's error if the initializer has not run."""
        try:
            return self.store[self.op.name]
        except KeyError:
            # op=None: the executor names the op that tried to read it (TF does too).
            error = FailedPreconditionError(
                None, None, "Attempting to use uninitialized value %s" % self.op.name)
            raise with_hint(error, "uninitialized_local" if _is_local_variable(self.op)
                            else "uninitialized") from None

    def store_value(self, value, owned=False):
        """Makes `value` the variable's value: read-only and shared with nobody.

        `owned` says nobody else holds `value` (the kernel just computed it, or the plan
        hands over a tensor whose last reader this is), so it can be frozen without a
        copy. Otherwise it may be a fed array the student still holds: copy it, unless it
        is already an immutable array of its own.
        """
        value = np.asarray(value)
        if not owned and (value.flags.writeable or value.base is not None):
            value = value.copy()
        value.setflags(write=False)     # (what flags.writeable = calls)
        take = getattr(self.store, "take", None) if owned else None
        if take is not None:
            take(self.op.name, value)      # a GPU's store: no copy of a run's tensor
        else:
            self.store[self.op.name] = value

    def array_for_update(self):
        """The stored array itself, made writeable, if the Session's store is its only
        holder; otherwise None (the caller writes a new array).

        Writing in place saves a fresh allocation per step (for a 784x500 layer, the
        page faults of 1.5 MB cost as much as the update). It is safe only when nobody
        can see the change: no fetched result, no slot of a running plan, no NumPy view
        (a view holds its base) refers to the array. Call it before taking the value
        with `deref`, which adds a holder.
        """
        accounting = getattr(self.store, "accounting_holders", None)   # GPU memory
        expected = _SOLE_HOLDER + (accounting(self.op.name) if accounting else 0)
        if _holders(self.store, self.op.name) != expected:
            return None
        value = self.store[self.op.name]
        if value.base is not None or not value.flags.c_contiguous:
            return None
        value.setflags(write=True)
        return value

    def __repr__(self):
        return "<ref to variable %s>" % self.op.name


def sole_stored_array(ref):
    """The stored array of `ref`'s variable (read-only, as stored) when the Session's
    store is its only holder and it is a contiguous array of its own, else None:
    `array_for_update`'s test, for the updates' fast path (training_kernels.
    descend_small_in_place). The store is a plain dict, or a virtual GPU's
    (session_memory.DeviceVariableStore), whose Buffer holds the array too: an update in
    place keeps that Buffer, as TF's in-place update keeps its tensor. A real GPU's
    values are device arrays, not NumPy's: None. An uninitialized variable gives None
    (the general path raises TF's error)."""
    store = ref.store
    name = ref.op.name
    if type(store) is dict:
        expected = _SOLE_HOLDER
    else:
        accounting = getattr(store, "accounting_holders", None)
        if accounting is None:
            return None
        expected = _SOLE_HOLDER + accounting(name)
    value = store.get(name)
    # The same frame shape as `_holders`: the dict, this local and the call's argument.
    if (sys.getrefcount(value) != expected or type(value) is not np.ndarray
            or value.base is not None or not value.flags.c_contiguous):
        return None
    return value


def _holders(store, key):
    """The reference count of `store[key]` as seen from here (with this frame's own)."""
    value = store.get(key)
    return sys.getrefcount(value)


# What `_holders` reports for an array held by nothing but its dict, measured rather than
# assumed: the count a frame sees differs between Python versions.
_SOLE_HOLDER = _holders({"probe": np.empty(1)}, "probe")


def variable_ref_of(ctx, value, index=0):
    """The VariableRef of input `index`: given by the VariableV2 kernel, or, when the
    student fed the variable, found by following the graph back to its VariableV2."""
    if isinstance(value, VariableRef):
        return value
    op = ctx.op._inputs[index].op
    while op.type != "VariableV2" and op._inputs:
        op = op._inputs[0].op
    return VariableRef(ctx.session.variable_values, op)


def variable_kernel(ctx):
    ref = ctx.state.get("ref")
    if ref is None:
        ref = ctx.state.setdefault("ref", VariableRef(ctx.session.variable_values, ctx.op))
    return ref


def _shape_text(shape):
    return "[%s]" % ",".join(str(d) for d in shape)


def check_assign_shape(ctx, ref, value):
    """TF's Assign check (with validate_shape, once the variable has a value); the CUDA
    Assign makes it too (kernels/cuda/variables.py)."""
    if ctx.attrs["validate_shape"] and ref.is_initialized():
        old = ref.store[ref.name]
        if tuple(old.shape) != tuple(value.shape):
            raise InvalidArgumentError(
                None, ctx.op, "Assign requires shapes of both tensors to match. lhs shape= "
                "%s rhs shape= %s" % (_shape_text(old.shape), _shape_text(value.shape)))


def check_update_shape(ctx, old, delta):
    """TF's AssignAdd/AssignSub check, on the CPU and the GPU alike."""
    if tuple(old.shape) != tuple(delta.shape):
        raise InvalidArgumentError(None, ctx.op, "Parameters and update must be the same size")


def assign_kernel(ctx, ref, value):
    ref = variable_ref_of(ctx, ref)
    value = np.asarray(value)
    check_assign_shape(ctx, ref, value)
    ref.store_value(value)
    return ref


def assign_taking_value(ctx, ref, value):
    """Assign, where the plan knows it is the last reader of `value`: a tensor the run
    made (writeable, not a view) becomes the variable's buffer without a copy, as
    TensorFlow's Assign forwards its input's buffer. So `tf.Variable(tf.ones([16, 1024,
    1024]))` takes 64 MiB on a GPU when initialized, not twice that. A constant's or
    another variable's value (read-only) is copied as by `assign_kernel`."""
    ref = variable_ref_of(ctx, ref)
    value = np.asarray(value)
    check_assign_shape(ctx, ref, value)
    ref.store_value(value, owned=value.flags.writeable and value.base is None)
    return ref


def _update_kernel(ufunc):
    def kernel(ctx, ref, delta):
        ref = variable_ref_of(ctx, ref)
        old = ref.deref()
        delta = np.asarray(delta)
        check_update_shape(ctx, old, delta)
        ref.store_value(ufunc(old, delta, dtype=old.dtype), owned=True)
        return ref
    return kernel


assign_add_kernel = _update_kernel(np.add)
assign_sub_kernel = _update_kernel(np.subtract)


def is_variable_initialized_kernel(ctx, ref):
    if not isinstance(ref, VariableRef):       # the student fed the variable
        return np.array(True)
    return np.array(ref.is_initialized())
