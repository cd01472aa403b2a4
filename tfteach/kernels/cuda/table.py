"""Which op types have a CUDA kernel, and which function runs them: op type -> fn(ctx, *inputs).

Read with docs/cuda_kernels.md. An op type missing here has no GPU kernel: the placer
keeps it on the CPU when the GPU is real, and copies its inputs and outputs across.
"""
from tfteach.kernels.cuda import (bias, conv, elementwise, launch, matmul, pooling, random,
                                  reduce, shape, softmax, training, variables)

__all__ = ["GPU_KERNELS", "DTYPE_ATTRS", "gpu_kernels", "supports", "with_int32_on_host"]

GPU_KERNELS = {}
GPU_KERNELS.update({op_type: elementwise.unary for op_type in elementwise.UNARY})
GPU_KERNELS.update({op_type: elementwise.binary for op_type in elementwise.BINARY})
GPU_KERNELS.update({
    "Cast": elementwise.cast,
    "Sum": reduce.sum_kernel,
    "Mean": reduce.mean_kernel,
    "Max": reduce.max_kernel,
    "MatMul": matmul.matmul,
    "Softmax": softmax.softmax,
    "SoftmaxCrossEntropyWithLogits": softmax.softmax_xent,
    "SparseSoftmaxCrossEntropyWithLogits": softmax.sparse_softmax_xent,
    "BiasAdd": bias.bias_add,
    "BiasAddGrad": bias.bias_add_grad,
    "Conv2D": conv.conv2d,
    "Conv2DBackpropInput": conv.conv2d_backprop_input,
    "Conv2DBackpropFilter": conv.conv2d_backprop_filter,
    "MaxPool": pooling.max_pool,
    "MaxPoolGrad": pooling.max_pool_grad,
    "AvgPool": pooling.avg_pool,
    "AvgPoolGrad": pooling.avg_pool_grad,
    "RandomUniform": random.uniform,
    "RandomStandardNormal": random.standard_normal,
    "TruncatedNormal": random.truncated_normal,
    "Reshape": shape.reshape,
    "Identity": shape.identity,
    "NoOp": lambda ctx: None,              # a group of updates (`minimize`), on any device
    # A constant under `tf.device('/gpu:0')` lives on the card, as TF's Const kernel
    # keeps its tensor there. (Untraced runs take constants from the plan's template.)
    "Const": lambda ctx: launch.on_device(ctx.attrs["value"]),
    # Variables live on the GPU (kernels/cuda/variables.py), updated there (training.py).
    "VariableV2": variables.variable,
    "Assign": variables.assign,
    "AssignAdd": variables.assign_add,
    "AssignSub": variables.assign_sub,
    "ApplyGradientDescent": training.apply_gradient_descent,
    "ApplyMomentum": training.apply_momentum,
    "ApplyAdam": training.apply_adam,
})

# The dtypes each kernel above is written for, by the op attribute that holds them.
# TensorFlow registers a GPU kernel per dtype (`TypeConstraint`), and its placer puts an
# op on the GPU only where a kernel for the op's dtypes is registered. tfteach's placer
# asks `supports(op)` the same way, so an op of another dtype (a uint8 image cast to
# float, an int64 count summed, a float16 exp) runs on the CPU with copies instead of
# failing on the card. Most kernels are float32/float64 only (`launch.check_float`).
FLOATS = frozenset({"float32", "float64"})
CAST_TYPES = FLOATS | {"int32", "int64", "bool"}      # elementwise.cast's kernel
ANY_DTYPE = {}     # kernels that move or store values whatever their dtype
DTYPE_ATTRS = {op_type: {"T": FLOATS} for op_type in GPU_KERNELS}
DTYPE_ATTRS.update({
    "Cast": {"SrcT": CAST_TYPES, "DstT": CAST_TYPES},
    "RandomUniform": {"dtype": FLOATS},
    "RandomStandardNormal": {"dtype": FLOATS},
    "TruncatedNormal": {"dtype": FLOATS},
})
DTYPE_ATTRS.update(dict.fromkeys(["Reshape", "Identity", "NoOp", "Const", "VariableV2",
                                  "Assign", "AssignAdd", "AssignSub"], ANY_DTYPE))


def supports(op):
    """True when the CUDA kernel of `op`'s type is written for `op`'s dtypes."""
    for attr, allowed in DTYPE_ATTRS.get(op.type, ANY_DTYPE).items():
        dtype = op._attrs.get(attr)
        if dtype is not None and dtype.base_dtype.name not in allowed:
            return False
    return True


def _int32_on_host(op):
    return bool(op._outputs) and all(t.dtype.base_dtype.name == "int32" for t in op._outputs)


# The other ops that take a variable by reference are placed with it (TF colocates
# them), so they need a GPU kernel too: the CPU kernel, on host copies of the variables.
_REF_OPS_ON_HOST = ["IsVariableInitialized", "ApplyAdagrad", "ApplyRMSProp",
                    "ApplyCenteredRMSProp", "ApplyAdadelta"]


def _on_host(cpu_kernel):
    """The CPU kernel, fed host copies of any device inputs."""
    def kernel(ctx, *inputs):
        return cpu_kernel(ctx, *[x.copy_to_host() if launch.is_device_array(x) else x
                                 for x in inputs])
    return kernel


def with_int32_on_host(op_type, gpu_fn):
    """`gpu_fn`, except for ops whose outputs are all int32: as in TensorFlow, int32
    tensors of GPU ops live in host memory (shape arithmetic, counters), so those run
    the CPU kernel on the host. The Session asks `kernel_for_op` once per op, when it
    makes the op's kernel context, so a run pays nothing for the choice."""
    def kernel_for_op(op):
        if _int32_on_host(op):
            cpu = op._op_def.kernels["CPU"]
            cpu_for_op = getattr(cpu, "kernel_for_op", None)
            return _on_host(cpu_for_op(op) if cpu_for_op is not None else cpu)
        return gpu_fn

    def kernel(ctx, *inputs):            # called directly (tests): the same choice
        return kernel_for_op(ctx.op)(ctx, *inputs)
    kernel.kernel_for_op = kernel_for_op
    # the placer's question: int32 results run on the host, any other dtype on the card
    kernel.supports = lambda op: _int32_on_host(op) or supports(op)
    kernel.gpu_fn = gpu_fn
    kernel.__name__ = "gpu_%s" % op_type
    return kernel


def gpu_kernels():
    """What register_gpu_kernels() registers: op type -> the GPU kernel of that op type."""
    from tfteach.framework.registry import get_op_def
    out = {op_type: with_int32_on_host(op_type, fn) for op_type, fn in GPU_KERNELS.items()}
    for op_type in _REF_OPS_ON_HOST:
        cpu = get_op_def(op_type).kernels["CPU"]
        out[op_type] = variables.ref_op_on_host(cpu)
    return out
