"""The optimizers' fused update ops: ApplyGradientDescent, ApplyMomentum, ApplyAdam, ...

One op updates a variable and its slots (momentum, moment estimates, ...) in a single
kernel, as TensorFlow's `gen_training_ops`: the variable and the slots are `Ref(T)`
inputs (taken by reference, like Assign's), the hyper-parameters are scalars of the
variable's dtype, and the one output is the variable's ref tensor. Optimizers
(tfteach/train) build them; students see them in the graph as `update_W/ApplyAdam`.
Kernels: kernels/cpu/training_kernels.py.
"""
from tfteach.framework import convert, dtypes
from tfteach.framework.registry import register_op
from tfteach.framework.tensor import Tensor
from tfteach.kernels.cpu import training_kernels as kernels
from tfteach.ops.op_builder import ShapeError, apply_op, graph_of
from tfteach.ops.op_builder import merge_shapes
from tfteach.ops.state_ops import _ref_tensor

__all__ = ["apply_gradient_descent", "apply_momentum", "apply_adagrad", "apply_rms_prop",
           "apply_centered_rms_prop", "apply_adam", "apply_adadelta"]

# op type -> (input names in order, how many lead inputs are refs, the grad input's name)
_SIGNATURES = {
    "ApplyGradientDescent": (["var", "alpha", "delta"], 1),
    "ApplyMomentum": (["var", "accum", "lr", "grad", "momentum"], 2),
    "ApplyAdagrad": (["var", "accum", "lr", "grad"], 2),
    "ApplyRMSProp": (["var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"], 3),
    "ApplyCenteredRMSProp": (["var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon",
                              "grad"], 4),
    "ApplyAdam": (["var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2",
                   "epsilon", "grad"], 3),
    "ApplyAdadelta": (["var", "accum", "accum_update", "lr", "rho", "epsilon", "grad"], 3),
}
_GRADIENT_INPUTS = ("grad", "delta")


def _apply_shape(op):
    """TF's shape function: slots and gradient merge with the variable's shape, the
    hyper-parameters must be scalars; the output is the variable's ref."""
    names, n_refs = _SIGNATURES[op.type]
    shape = op._inputs[0].shape
    for name, t in zip(names[1:], op._inputs[1:]):
        if name in _GRADIENT_INPUTS or names.index(name) < n_refs:
            shape = merge_shapes(shape, t.shape)
        elif t.shape.ndims is not None and t.shape.ndims != 0:
            raise ShapeError("Shape must be rank 0 but is rank %d" % t.shape.ndims)
    return [(op._inputs[0].dtype.base_dtype._as_ref, shape)]


_KERNELS = {
    "ApplyGradientDescent": kernels.apply_gradient_descent_kernel,
    "ApplyMomentum": kernels.apply_momentum_kernel,
    "ApplyAdagrad": kernels.apply_adagrad_kernel,
    "ApplyRMSProp": kernels.apply_rms_prop_kernel,
    "ApplyCenteredRMSProp": kernels.apply_centered_rms_prop_kernel,
    "ApplyAdam": kernels.apply_adam_kernel,
    "ApplyAdadelta": kernels.apply_adadelta_kernel,
}
for _type, (_names, _n_refs) in _SIGNATURES.items():
    register_op(_type, _apply_shape, cpu=_KERNELS[_type], stateful=True,
                ref_inputs=tuple(range(_n_refs)))
del _type, _names, _n_refs


def _apply(op_type, args, attrs, name):
    """Builds one Apply* op: refs checked, every other input converted to the variable's
    dtype, with op_def_library's TypeError when a tensor has another dtype."""
    names, n_refs = _SIGNATURES[op_type]
    refs = [_ref_input(a, arg_name, op_type) for a, arg_name in zip(args, names[:n_refs])]
    dtype = refs[0].dtype.base_dtype
    with graph_of(refs + list(args[n_refs:])).as_default() as graph, \
            graph.name_scope(name or op_type) as scope:
        inputs = list(refs)
        for arg_name, ref in zip(names[1:n_refs], refs[1:]):
            if ref.dtype.base_dtype != dtype:
                raise TypeError(_mismatch(arg_name, op_type, ref.dtype.base_dtype, dtype))
        for arg_name, value in zip(names[n_refs:], args[n_refs:]):
            if isinstance(value, Tensor) and value.dtype.base_dtype != dtype:
                raise TypeError(_mismatch(arg_name, op_type, value.dtype.base_dtype, dtype))
            inputs.append(convert.convert_to_tensor(value, dtype=dtype, name=arg_name))
        return apply_op(op_type, inputs, dict(attrs, T=dtype), scope)


def _ref_input(value, arg_name, op_type):
    try:
        return _ref_tensor(value, op_type)
    except TypeError:
        raise TypeError("'%s' Op requires that input '%s' be a mutable tensor (e.g.: a "
                        "tf.Variable)" % (op_type, arg_name)) from None


def _mismatch(arg_name, op_type, got, want):
    return ("Input '%s' of '%s' Op has type %s that does not match type %s of argument "
            "'var'." % (arg_name, op_type, dtypes.as_dtype(got).name, want.name))


def apply_gradient_descent(var, alpha, delta, use_locking=False, name=None):
    """var -= alpha * delta."""
    return _apply("ApplyGradientDescent", [var, alpha, delta],
                  {"use_locking": bool(use_locking)}, name)


def apply_momentum(var, accum, lr, grad, momentum, use_locking=False, use_nesterov=False,
                   name=None):
    """accum = accum * momentum + grad; var -= lr * accum (Nesterov: see training.md)."""
    return _apply("ApplyMomentum", [var, accum, lr, grad, momentum],
                  {"use_locking": bool(use_locking), "use_nesterov": bool(use_nesterov)},
                  name)


def apply_adagrad(var, accum, lr, grad, use_locking=False, update_slots=True, name=None):
    """accum += grad^2; var -= lr * grad / sqrt(accum)."""
    return _apply("ApplyAdagrad", [var, accum, lr, grad],
                  {"use_locking": bool(use_locking), "update_slots": bool(update_slots)},
                  name)


def apply_rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad, use_locking=False,
                   name=None):
    """ms += (grad^2 - ms)(1 - rho); mom = momentum*mom + lr*grad/sqrt(ms + eps); var -= mom."""
    return _apply("ApplyRMSProp", [var, ms, mom, lr, rho, momentum, epsilon, grad],
                  {"use_locking": bool(use_locking)}, name)


def apply_centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad,
                            use_locking=False, name=None):
    """RMSProp that divides by an estimate of the gradient's variance, ms - mg^2."""
    return _apply("ApplyCenteredRMSProp", [var, mg, ms, mom, lr, rho, momentum, epsilon,
                                           grad], {"use_locking": bool(use_locking)}, name)


def apply_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
               use_locking=False, use_nesterov=False, name=None):
    """m, v: moment estimates; var -= lr*sqrt(1-beta2^t)/(1-beta1^t) * m/(sqrt(v)+eps)."""
    return _apply("ApplyAdam", [var, m, v, beta1_power, beta2_power, lr, beta1, beta2,
                                epsilon, grad],
                  {"use_locking": bool(use_locking), "use_nesterov": bool(use_nesterov)},
                  name)


def apply_adadelta(var, accum, accum_update, lr, rho, epsilon, grad, use_locking=False,
                   name=None):
    """Adadelta: step = sqrt(accum_update + eps)/sqrt(accum + eps) * grad; var -= lr*step."""
    return _apply("ApplyAdadelta", [var, accum, accum_update, lr, rho, epsilon, grad],
                  {"use_locking": bool(use_locking)}, name)
