"""GPU kernels of the variable ops: a variable on a real GPU is a device array.

The Session's store (`ctx.session.variable_values`, see kernels/cpu/state_kernels.py)
holds, for a variable placed on a real GPU, a Numba device array; the store accounts it
on that GPU's allocator (session_memory.DeviceVariableStore) and drops it when the
session closes. `VariableV2` outputs the same `VariableRef` as on the CPU; `v/read`
(Identity, kernels/cuda/shape.py) passes the stored device array on; fetching a variable
goes through a copy step to the host (device_run), so a fetch is always a new NumPy array.

- Assign copies its value into a new device array (device to device): the variable must
  not share memory with the tensor it was assigned from (TF's Assign copies too).
- AssignAdd / AssignSub compute `old ± delta` into a new device array.
- Ops that take a variable by reference but have no CUDA kernel here
  (IsVariableInitialized, ApplyAdagrad, ApplyRMSProp, ...) still run on the GPU's
  device, as TensorFlow places them with their variable: `ref_op_on_host` runs the CPU
  kernel on host copies of the variables and sends back the values it changed.
"""
import numpy as np
from numba import cuda

from tfteach.kernels.cpu import state_kernels
from tfteach.kernels.cpu.state_kernels import VariableRef, variable_ref_of
from tfteach.kernels.cuda import launch

__all__ = ["variable", "assign", "assign_add", "assign_sub", "ref_op_on_host",
           "update_kernel", "stored_for_update"]

variable = state_kernels.variable_kernel       # the same VariableRef, on any device


@cuda.jit(cache=True)
def update_kernel(out, old, delta, sign):
    # AssignAdd (sign 1) / AssignSub (sign -1); `sign` has the variable's dtype.
    i = cuda.grid(1)
    if i < out.size:
        out[i] = old[i] + sign * delta[i]


def _flat(x):
    return x.reshape(x.size)


def assign(ctx, ref, value):
    ref = variable_ref_of(ctx, ref)
    value = launch.on_device(value)
    state_kernels.check_assign_shape(ctx, ref, value)
    new = cuda.device_array(tuple(value.shape), value.dtype)
    new.copy_to_device(value)                  # MEMCPYDtoD: the variable's own buffer
    ref.store[ref.name] = new
    return ref


def _assign_update(sign):
    def kernel(ctx, ref, delta):
        ref = variable_ref_of(ctx, ref)
        old = launch.on_device(ref.deref())
        delta = launch.on_device(delta)
        state_kernels.check_update_shape(ctx, old, delta)
        if old.dtype != delta.dtype:
            raise launch.error(ctx, "inputs must have the same dtype, got %s and %s"
                               % (np.dtype(old.dtype).name, np.dtype(delta.dtype).name))
        new = cuda.device_array(tuple(old.shape), old.dtype)
        if new.size:
            update_kernel[launch.blocks_for(new.size), launch.THREADS](
                _flat(new), _flat(old), _flat(delta), np.dtype(old.dtype).type(sign))
        ref.store[ref.name] = new
        return ref
    return kernel


assign_add = _assign_update(1)
assign_sub = _assign_update(-1)


def stored_for_update(ref):
    """The stored device array if the update may overwrite it, else None.

    On a GPU the allocator already counts the holders of each buffer: the store's own
    charge is 1, and every slot of a running plan that holds the array (a `v/read` still
    to be consumed, a fetched value waiting for its copy to the host) or a view of it
    (Reshape) adds one. Only the store holding it means nobody can see the change."""
    entry = getattr(ref.store, "_buffers", {}).get(ref.name)
    if entry is None or entry[1].refs != 1:
        return None
    value = ref.store.get(ref.name)
    return value if launch.is_device_array(value) else None


def ref_op_on_host(cpu_kernel):
    """`cpu_kernel` (an op taking variables by reference) run on host copies of the
    variables; the values it stores go back to the device. Correct, not fast: for the
    ops without a CUDA kernel of their own."""
    def kernel(ctx, *inputs):
        args = list(inputs)
        swaps = []
        for i in ctx.op._op_def.ref_inputs:
            if i >= len(args):
                continue
            ref = variable_ref_of(ctx, args[i], i)
            host = {}
            before = None
            if ref.is_initialized():
                before = launch.on_host(ref.store[ref.name])
                before.flags.writeable = False   # held here too: never updated in place
                host[ref.name] = before
            args[i] = VariableRef(host, ref.op)
            swaps.append((ref, args[i], before))
        args = [a.copy_to_host() if launch.is_device_array(a) else a for a in args]
        out = cpu_kernel(ctx, *args)
        from tfteach.kernels.cuda import copies
        for ref, host_ref, before in swaps:
            after = host_ref.store.get(ref.name)
            if after is not None and after is not before:
                ref.store[ref.name] = copies.to_device(after)
            if out is host_ref:
                out = ref
        return out
    kernel.__name__ = "gpu_host_" + getattr(cpu_kernel, "__name__", "kernel")
    return kernel
