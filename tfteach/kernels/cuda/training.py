"""CUDA kernels of the optimizers' updates: ApplyGradientDescent, ApplyMomentum, ApplyAdam.

CPU twins: kernels/cpu/training_kernels.py, whose formulas (TensorFlow's
training_ops.cc, same order of operations) these repeat element by element: one thread
updates element i of the variable and of its slots. The variable and slots are device
arrays in the Session's store (kernels/cuda/variables.py). Each kernel writes into
`*_out` arrays: the stored arrays themselves when nothing but the store holds them
(`variables.stored_for_update`, as TF's GPU kernels update in place), else new arrays
that replace them, so a value another op of the same run still reads never changes.

The scalar hyperparameters (lr, beta1_power, ...) are read on the host (one small
copy each when they live on the GPU) and passed to the kernel in the variable's dtype,
so float32 arithmetic stays float32 as on the CPU.
"""
import math

import numpy as np
from numba import cuda

from tfteach.kernels.cpu.state_kernels import variable_ref_of
from tfteach.kernels.cpu.training_kernels import _scalars, shape_mismatch
from tfteach.kernels.cuda import launch, variables

__all__ = ["apply_gradient_descent", "apply_momentum", "apply_adam",
           "gradient_descent_kernel", "momentum_kernel", "adam_kernel"]


@cuda.jit(cache=True)
def gradient_descent_kernel(var_out, var, delta, alpha):
    i = cuda.grid(1)
    if i < var.size:
        var_out[i] = var[i] - alpha * delta[i]


@cuda.jit(cache=True)
def momentum_kernel(var_out, accum_out, var, accum, grad, lr, momentum, use_nesterov):
    i = cuda.grid(1)
    if i < var.size:
        a = accum[i] * momentum + grad[i]
        if use_nesterov:
            var_out[i] = var[i] - (grad[i] * lr + a * momentum * lr)
        else:
            var_out[i] = var[i] - a * lr
        accum_out[i] = a


@cuda.jit(cache=True)
def adam_kernel(var_out, m_out, v_out, var, m, v, grad, alpha, beta1, one_minus_beta1,
                one_minus_beta2, epsilon, use_nesterov):
    i = cuda.grid(1)
    if i < var.size:
        g = grad[i]
        mi = m[i] + (g - m[i]) * one_minus_beta1
        vi = v[i] + (g * g - v[i]) * one_minus_beta2
        if use_nesterov:
            var_out[i] = var[i] - ((g * one_minus_beta1 + beta1 * mi) * alpha) / (
                math.sqrt(vi) + epsilon)
        else:
            var_out[i] = var[i] - (mi * alpha) / (math.sqrt(vi) + epsilon)
        m_out[i] = mi
        v_out[i] = vi


def _refs(ctx, values, names):
    """(refs, current device arrays, output arrays): TF's checks, as the CPU kernels."""
    refs, arrays, outs = [], [], []
    for index, name in enumerate(names):
        ref = variable_ref_of(ctx, values[index], index)
        own = variables.stored_for_update(ref)     # before anything else holds it
        value = launch.on_device(ref.deref())      # uninitialized: FailedPrecondition
        if arrays and tuple(value.shape) != tuple(arrays[0].shape):
            raise shape_mismatch(ctx, name, arrays[0].shape, value.shape)
        refs.append(ref)
        arrays.append(value)
        outs.append(own if own is not None else
                    cuda.device_array(tuple(value.shape), value.dtype))
    launch.check_float(ctx, arrays[0])
    return refs, arrays, outs


def _grad(ctx, var, grad, name="grad"):
    grad = launch.on_device(grad)
    if tuple(grad.shape) != tuple(var.shape):
        raise shape_mismatch(ctx, name, var.shape, grad.shape)
    launch.check_float(ctx, var, grad)
    return grad


def _host_scalars(ctx, dtype, pairs):
    return _scalars(ctx, np.dtype(dtype), [(n, launch.on_host(v)) for n, v in pairs])


def _launch(kernel, refs, arrays, outs, *args):
    n = arrays[0].size
    if n:
        flat = [a.reshape(n) for a in outs + arrays]
        kernel[launch.blocks_for(n), launch.THREADS](*flat, *args)
    for ref, out in zip(refs, outs):
        ref.store[ref.name] = out          # the same array when updated in place
    return refs[0]


def apply_gradient_descent(ctx, var, alpha, delta):
    refs, arrays, outs = _refs(ctx, [var], ["var"])
    (alpha,) = _host_scalars(ctx, arrays[0].dtype, [("alpha", alpha)])
    delta = _grad(ctx, arrays[0], delta, "delta")
    return _launch(gradient_descent_kernel, refs, arrays, outs, delta.reshape(delta.size),
                   alpha)


def apply_momentum(ctx, var, accum, lr, grad, momentum):
    refs, arrays, outs = _refs(ctx, [var, accum], ["var", "accum"])
    lr, momentum = _host_scalars(ctx, arrays[0].dtype, [("lr", lr), ("momentum", momentum)])
    grad = _grad(ctx, arrays[0], grad)
    return _launch(momentum_kernel, refs, arrays, outs, grad.reshape(grad.size), lr, momentum,
                   bool(ctx.attrs["use_nesterov"]))


def apply_adam(ctx, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
    refs, arrays, outs = _refs(ctx, [var, m, v], ["var", "m", "v"])
    dtype = np.dtype(arrays[0].dtype)
    beta1_power, beta2_power, lr, beta1, beta2, epsilon = _host_scalars(ctx, dtype, [
        ("beta1_power", beta1_power), ("beta2_power", beta2_power), ("lr", lr),
        ("beta1", beta1), ("beta2", beta2), ("epsilon", epsilon)])
    grad = _grad(ctx, arrays[0], grad)
    one = dtype.type(1)
    # The bias corrections folded into one step size, computed on the host as the CPU does.
    alpha = lr * np.sqrt(one - beta2_power) / (one - beta1_power)
    return _launch(adam_kernel, refs, arrays, outs, grad.reshape(grad.size), alpha, beta1,
                   one - beta1, one - beta2, epsilon, bool(ctx.attrs["use_nesterov"]))
