"""Kernels of the variable ops: a variable's value lives in the Session, not the graph.

A `VariableV2` op does not output its value: like TensorFlow's, it outputs a *reference*
to the slot where this Session keeps it (`ctx.session.variable_values[op name]`).
Ops that take a value (e.g. `Variable/read`) get the reference dereferenced by the
executor at the moment they run, so an op that runs after `Variable/Assign` in the same
`Session.run` sees the new value; an uninitialized variable fails there, with
TensorFlow's FailedPreconditionError. Ops that take the reference itself (`Assign`,
`AssignAdd`, `IsVariableInitialized`, optimizers' `Apply*`) receive the `VariableRef`.
Stored values are read-only arrays owned by the Session: kernels never change them in
place, they replace them.
"""
import numpy as np

from tfteach.framework.errors import FailedPreconditionError, InvalidArgumentError
from tfteach.framework.hints import with_hint

__all__ = ["VariableRef", "variable_ref_of", "variable_kernel", "assign_kernel",
           "assign_add_kernel", "assign_sub_kernel", "is_variable_initialized_kernel"]


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
            raise with_hint(error, "uninitialized") from None

    def store_value(self, value, owned=False):
        """Makes `value` the variable's value: read-only and shared with nobody.

        `owned` says the kernel just computed `value` (nobody else holds it), so it can
        be frozen without a copy. Otherwise it may be a fed array the student still
        holds: copy it, unless it is already an immutable array of its own.
        """
        value = np.asarray(value)
        if not owned and (value.flags.writeable or value.base is not None):
            value = value.copy()
        value.flags.writeable = False
        self.store[self.op.name] = value

    def __repr__(self):
        return "<ref to variable %s>" % self.op.name


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
        ref = ctx.state["ref"] = VariableRef(ctx.session.variable_values, ctx.op)
    return ref


def _shape_text(shape):
    return "[%s]" % ",".join(str(d) for d in shape)


def assign_kernel(ctx, ref, value):
    ref = variable_ref_of(ctx, ref)
    value = np.asarray(value)
    if ctx.attrs["validate_shape"] and ref.is_initialized():
        old = ref.store[ref.name]
        if old.shape != value.shape:
            raise InvalidArgumentError(
                None, ctx.op, "Assign requires shapes of both tensors to match. lhs shape= "
                "%s rhs shape= %s" % (_shape_text(old.shape), _shape_text(value.shape)))
    ref.store_value(value)
    return ref


def _update_kernel(ufunc):
    def kernel(ctx, ref, delta):
        ref = variable_ref_of(ctx, ref)
        old = ref.deref()
        delta = np.asarray(delta)
        if old.shape != delta.shape:
            raise InvalidArgumentError(None, ctx.op,
                                       "Parameters and update must be the same size")
        ref.store_value(ufunc(old, delta, dtype=old.dtype), owned=True)
        return ref
    return kernel


assign_add_kernel = _update_kernel(np.add)
assign_sub_kernel = _update_kernel(np.subtract)


def is_variable_initialized_kernel(ctx, ref):
    if not isinstance(ref, VariableRef):       # the student fed the variable
        return np.array(True)
    return np.array(ref.is_initialized())
