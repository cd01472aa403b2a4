"""Running one op eagerly: the registered shape function, then the registered kernel.

This is the eager counterpart of `Graph._create_op` + `Session.run` for a single op, and
it uses exactly what they use (framework/registry.py): the op type's shape function
gives the output dtypes (and checks the inputs, as TF's kernels do), the op's CPU kernel
computes the values. No graph is built: the `EagerOperation` lives only as long as its
outputs are being recorded by a GradientTape (its gradient function reads it, as the
graph gradient functions read a graph Operation).

Errors are TensorFlow's eager errors: the kernel's OpError class and text, followed by
` [Op:Add]` (and ` name: x` when the call named the op), as TF 1.15 eager writes them.
"""
import weakref

import numpy as np

from tfteach.framework import errors, graph as graph_lib, registry, tensor_shape
from tfteach.framework.operation import Operation
from tfteach.eager import context, producers
from tfteach.eager.tensor import CPU_DEVICE, EagerTensor
from tfteach.runtime.session import KernelContext

__all__ = ["execute", "EagerOperation"]

_GRAPH_TENSOR_MESSAGE = (
    "An op outside of the function building code is being passed\n"
    "a \"Graph\" tensor. It is possible to have Graph tensors\n"
    "leak out of the function building context by including a\n"
    "tf.init_scope in your function building code.\n"
    "The graph tensor has name: %s")


class EagerOperation(Operation):
    """What a gradient function needs of an op (type, inputs, outputs, attrs), without a
    graph: made for every eager op call, kept only by a recording tape."""

    def __init__(self, op_def, inputs, attrs, name, device):   # noqa: D107 - no graph id
        self._graph = context.scratch_graph()
        self._op_def = op_def
        self._name = name or op_def.type
        self._inputs = inputs
        self._attrs = attrs
        self._control_inputs = []
        self._device = device
        self._location = None
        self._id = 0
        self._outputs = []
        self._control_outputs = []
        self._control_flow_context = None

    def __repr__(self):
        return "<tf.Operation '%s' type=%s (eager)>" % (self._name, self.type)


def _eager_error(exc, op, named):
    """TF's eager error text: the kernel's words, then ` [Op:TYPE]` (and the name)."""
    suffix = " [Op:%s]" % op.type + (" name: %s" % op.name if named else "")
    if isinstance(exc, errors.OpError):
        cls, message = type(exc), exc.message
    elif isinstance(exc, (ValueError, IndexError, TypeError, ZeroDivisionError,
                          OverflowError, FloatingPointError)):
        cls, message = errors.InvalidArgumentError, str(exc)
    elif isinstance(exc, MemoryError):
        cls, message = errors.ResourceExhaustedError, "OOM when allocating tensor"
    else:
        cls, message = errors.InternalError, "%s: %s" % (type(exc).__name__, exc)
    err = cls(None, None, message + suffix)
    err.hint = getattr(exc, "hint", None)
    return err


def _input_values(op_def, inputs):
    values = []
    ref_inputs = op_def.ref_inputs
    for i, t in enumerate(inputs):
        value = getattr(t, "_value", _MISSING)
        if value is _MISSING:
            if hasattr(t, "_eager_tensor"):          # an eager Variable given as input
                t = t._eager_tensor(as_ref=i in ref_inputs)
                inputs[i] = t
                value = t._value
            else:
                raise TypeError(_GRAPH_TENSOR_MESSAGE % getattr(t, "name", t))
        if t._dtype._is_ref and i not in ref_inputs:
            value = value.deref()
        values.append(value)
    return values


_MISSING = object()
# Stateful kernels that check their inputs before they change any state: the random ops
# read their `shape` ("Dimension -3 must be >= 0") before their Philox stream moves on.
_CHECKS_BEFORE_STATE = frozenset(("RandomUniform", "RandomUniformInt", "RandomStandardNormal",
                                  "TruncatedNormal"))
_SESSION = context.eager_session()


def execute(op_type, inputs, attrs=None, name=None, control_inputs=()):
    """Runs op `op_type` now; returns its EagerTensor (list of them, or the op if none)."""
    device_stack = graph_lib.get_default_graph()._device_stack
    if device_stack:
        return _on_device(op_type, inputs, attrs, name, device_stack)
    if op_type == "Const":
        # A constant is its value: no kernel to run, nothing for a tape to record.
        return EagerTensor(attrs["value"], attrs["dtype"])
    return _execute(op_type, inputs, attrs, name, CPU_DEVICE)


def _on_device(op_type, inputs, attrs, name, device_stack):
    """An op under `tf.device`: on a virtual GPU its outputs are accounted on the GPU's
    allocator for as long as they live (context.placement)."""
    device, allocator = context.placement(device_stack)
    if op_type == "Const":
        result = EagerTensor(attrs["value"], attrs["dtype"], None, 0, device)
    else:
        result = _execute(op_type, inputs, attrs, name, device)
    if allocator is not None:
        for tensor in result if isinstance(result, list) else [result]:
            if isinstance(tensor, EagerTensor):
                buffer = allocator.charge(tensor._value, name or op_type)
                if buffer is not None:
                    weakref.finalize(tensor, allocator.unref, buffer)
    return result


def _execute(op_type, inputs, attrs, name, device):
    if op_type == "Placeholder":
        raise RuntimeError("tf.placeholder() is not compatible with eager execution.")
    op_def = registry.get_op_def(op_type)
    inputs = list(inputs)
    values = _input_values(op_def, inputs)
    op = EagerOperation(op_def, inputs, dict(attrs) if attrs else {}, name, device)
    kernel = op_def.kernels.get("CPU")
    if kernel is None:
        raise errors.NotFoundError(None, None, "No registered '%s' OpKernel for CPU devices "
                                   "compatible with node {{node %s}} [Op:%s]"
                                   % (op_type, op_type, op_type))
    ctx = KernelContext(op, _SESSION, device, kernel)
    if op_def.stateful:
        ctx.state = context.kernel_state(op)
    try:
        specs = op_def.shape_fn(op)
    except (tensor_shape.ShapeError, tensor_shape.ShapeTensorError) as e:
        # TF's eager ops run no shape inference: the kernel finds the problem, in its
        # own words. Ask it (unless it changes state before it checks); if it has no
        # objection, report the shape function's.
        if not op_def.stateful or op_type in _CHECKS_BEFORE_STATE:
            _run_kernel(kernel, ctx, values, op, name)
        raise errors.InvalidArgumentError(None, None, "%s [Op:%s]" % (e, op_type)) from None
    result = _run_kernel(kernel, ctx, values, op, name)
    if len(specs) == 1:
        out = EagerTensor(result, specs[0][0], None, 0, device)
        outputs = [out]
    elif not specs:
        return op
    else:
        outputs = [EagerTensor(v, dtype, None, i, device)
                   for i, (v, (dtype, _)) in enumerate(zip(result, specs))]
    op._outputs = outputs
    if producers.STATE.active:            # a Keras step runs: its losses ask (producers.py)
        producers.note(op_type, outputs[0], inputs)
    if context.TAPES:
        from tfteach.eager import tape
        tape.record_operation(op)
    return outputs[0] if len(outputs) == 1 else list(outputs)


def _run_kernel(kernel, ctx, values, op, name):
    try:
        with np.errstate(all="ignore"):       # TF's float math is silent (1/0 is inf)
            return kernel(ctx, *values)
    except Exception as e:  # noqa: BLE001 - every kernel failure becomes TF's eager error
        raise _eager_error(e, op, False) from (
            None if isinstance(e, errors.OpError) else e)
