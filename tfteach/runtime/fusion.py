"""What the fast loop's plan fuses: work a training step would otherwise do twice.

1. A weight gradient computed inside its gradient-descent update.

In a training step the gradient of a weight matrix is a `MatMul` (x^T @ dy) whose output
goes to exactly one place: `ApplyGradientDescent`, sometimes through the `Identity` ops
that `tf.gradients` inserts to gate a gradient tuple. Run as written, the MatMul makes a
gradient as large as the weights and the update reads it back. When the fast loop's plan
shows that pattern, the MatMul hands on a DeferredProduct instead (after its usual
checks, at its usual place) and the update writes `w - lr * (x^T @ dy)` with one GEMM
(kernels/cpu/gemm_update.py): the MNIST MLP's step loses a quarter of a millisecond,
LeNet's fc1 update 3.5 ms (docs/training.md).

Grappler rewrites graphs the same way (its remapper fuses MatMul + BiasAdd + Relu): the
graph is unchanged, only how the CPU runs it. What a student can observe stays as it
was: values (up to float rounding inside the GEMM), errors (the MatMul still checks its
shapes and names itself; a mismatched update computes the product and raises TF's
error), and the traced run — RunOptions(trace_level=FULL_TRACE), the notebook's views —
which runs the unfused steps one op at a time. Not fused: a product that is fetched, read
by any other op, or on a real GPU. On a virtual GPU the DeferredProduct is charged as the
gradient it stands for, from the MatMul to the update (runtime/allocator.py).

2. Products that are only summed. A sub-plan of a loop's gradient fetches the gradient
of each weight the loop body captured; WhileGrad adds the iterations' values up. When
such a value is a MatMul's output read by nothing else, the MatMul hands on a
DeferredProduct and WhileGrad multiplies all iterations' operands in one GEMM
(runtime/loop_sums.py): for an LSTM, 20 products of K = 32 (the batch) become one of
K = 640, and the 20 additions disappear. When it is an UnsortedSegmentSum's (the
gradient of a gather, TF's IndexedSlices) read by nothing else, that op hands on only
its rows that are not zero (index_kernels.SegmentRows), which WhileGrad adds where
they go instead of a zero-filled tensor of the whole input. On a virtual GPU too: a GPU's
allocator charges the DeferredProduct or SegmentRows as the tensor it stands for, at the
same step and for as long, so the memory figures stay those of TF's GPU graph
(runtime/allocator.py).

3. A convolution layer's work shared between its three ops. `Conv2D` and the
`Conv2DBackpropFilter` of its gradient both build the im2col patch matrix of the same
input (same slot, same step). Paired, the forward records the patches it built and the
filter gradient multiplies those (kernels/cpu/conv_kernels.SharedPatches), when its
geometry is the same: one im2col less per conv layer and step, and no second patch
matrix in memory (31 MB for LeNet's second layer). Where the layer is cheaper in the
Fourier domain (kernels/cpu/conv_fourier.pays: stride 1, enough channels, LeNet's
second layer), the paired ops compute there instead, and share transforms: the
forward's input transform goes to the filter gradient, and the output gradient's
transform from the `Conv2DBackpropInput` (joined to the pair when it reads the same
filter and output gradient) to the filter gradient or the other way round. Its results
differ from im2col's by float rounding only (docs/conv.md), which is why only fused
plans use it.

4. A convolution's bias add and relu written with its output. `relu(conv2d(x, f) + b)`
(LeNet's layers) writes the activation three times; when the Conv2D's output is read
only by the add (`AddV2`/`Add` either way round, or an NHWC `BiasAdd`) and the add's
only by the `Relu`, the plan runs one step at the Relu's place: the Conv2D kernel with
`bias_relu=b` applies both to its output rows while they are in cache (im2col) or as
the Fourier path writes them, with the same formulas and roundings. It takes that way
only for a 1-D float32/64 bias of the output's channel count and NHWC data; else the
three kernels run in turn, each error located at its own op.

All five run on a virtual GPU's plan too (`fuse_on_virtual_gpu`), so the GPU's memory
figures stay TensorFlow's (and the numbers are the CPU's): 3 changes no tensor an op
makes; the stand-ins of 1 and 2 are charged as the tensors they replace; 4 and 5 make
one array where the ops made two or three of one size, so the fused step keeps its ops
as a chain's links and the accounted loop replays their charges in order
(runtime/chain_accounting.py): there only where those ops follow one another in the
plan, and where the replay cannot (4 taking its three kernels' way, no room in the
reservation) the ops run one by one.

5. A relu's gradient applied as its pool's gradient is written. Under a max pool of a
relu (LeNet's layers), `ReluGrad(MaxPoolGrad(r, y, g), r)` reads and writes the whole
activation twice; when the MaxPoolGrad's output is read by that ReluGrad only, with the
same `r` as features, the plan runs the MaxPoolGrad kernel with `relu_of_input=True`
(nn/pooling_ops.py) at the ReluGrad's place, writing the ReluGrad's output: one pass,
same bits (kernels/cpu/pooling_kernels.py). Errors are MaxPoolGrad's: a ReluGrad of two
tensors of one shape and dtype cannot fail.
"""
import copy
import functools
import sys
from collections import Counter

import numpy as np

from tfteach.kernels.cpu.linalg import (deferred_matmul_kernel, matmul_kernel,
                                        summed_matmul_kernel)
from tfteach.runtime import chain_accounting, errors_text

__all__ = ["fuse", "fuse_on_virtual_gpu", "defer_products_into_updates",
           "defer_summed_products", "share_conv_patches", "conv_bias_relus",
           "relu_grads_into_max_pool_grads"]


def fuse(steps, fetch_slots, plan_steps=None):
    """The fast loop's steps with the fusions applied (copies of the fused steps).
    `plan_steps`: all of the plan's steps, the folded constants too (their control
    inputs count: a fusion does not move an op that one of them waits for)."""
    awaited = _control_inputs(plan_steps if plan_steps is not None else steps)
    steps = share_conv_patches(defer_products_into_updates(steps, fetch_slots))
    steps = conv_bias_relus(steps, fetch_slots, awaited)
    return relu_grads_into_max_pool_grads(steps, fetch_slots, awaited)


def fuse_on_virtual_gpu(steps, fetch_slots, plan_steps):
    """`fuse` for a plan on a virtual GPU: each fusion with the GPU's memory figures
    kept (see the module's docstring)."""
    awaited = _control_inputs(plan_steps)
    steps = share_conv_patches(defer_products_into_updates(steps, fetch_slots, on_gpu=True))
    steps = conv_bias_relus(steps, fetch_slots, awaited, on_gpu=True)
    return relu_grads_into_max_pool_grads(steps, fetch_slots, awaited, on_gpu=True)


def _accounted_group(group, position):
    """Whether `group`, the steps one fused step replaces, can have its charges
    replayed on a GPU (`position`: step -> its index in the plan's steps)."""
    return len(chain_accounting.consecutive_parts(group, position)) == 1


def defer_products_into_updates(steps, fetch_slots, on_gpu=False):
    """`steps` (the fast loop's) with each MatMul that only feeds a gradient-descent
    update replaced by a copy that defers its product; the other steps are unchanged.
    `on_gpu`: a virtual GPU's plan (the deferred product is charged as the gradient)."""
    training_kernels = _loaded_kernels("training_kernels")
    if training_kernels is None:                 # no ApplyGradientDescent op was built
        return steps
    readers, producer = _readers_and_producers(steps, fetch_slots)
    deferred = {}
    for step in steps:
        if (step.kernel is not training_kernels.apply_gradient_descent_kernel
                or step.alloc is not None):
            continue
        source = _product_feeding(step.in_slots[2], readers, producer, on_gpu=on_gpu)
        if source is not None:
            deferred[source] = _with_kernel(source, deferred_matmul_kernel)
    return [deferred.get(step, step) for step in steps]


def defer_summed_products(steps, fetch_slots, summed_slots):
    """`steps` with each MatMul whose output reaches one of `summed_slots` (fetch slots
    the caller only adds up) and nothing else replaced by a copy that defers its product
    (linalg.summed_matmul_kernel); an UnsortedSegmentSum (a gather's gradient) by one
    that hands on only its rows that are not zero (index_kernels.SegmentRows)."""
    readers, producer = _readers_and_producers(steps, fetch_slots)
    summed_forms = {matmul_kernel: summed_matmul_kernel}
    index_kernels = _loaded_kernels("index_kernels")
    if index_kernels is not None:
        summed_forms[index_kernels.unsorted_segment_sum] = \
            index_kernels.summed_unsorted_segment_sum
    deferred = {}
    for slot in summed_slots:
        source = _product_feeding(slot, readers, producer, summed_forms, on_gpu=True)
        if source is not None:
            deferred[source] = _with_kernel(source, summed_forms[source.kernel])
    return [deferred.get(step, step) for step in steps]


def _readers_and_producers(steps, fetch_slots):
    """How many times each slot is read (a fetch counts: the client reads it), and the
    plain step that computes each single-output slot."""
    readers = Counter(s for step in steps for s in step.in_slots)
    readers.update(fetch_slots)
    producer = {step.single_out: step for step in steps
                if step.single_out is not None and step.source is None}
    return readers, producer


def _product_feeding(slot, readers, producer, kernels=(matmul_kernel,), on_gpu=False):
    """The CPU MatMul step (or one of `kernels`) whose output reaches `slot` through
    Identity ops only, each value on the way read once (by the next); None when there
    is no such step. `on_gpu`: a step on a virtual GPU (its output accounted) counts."""
    while readers[slot] == 1:
        source = producer.get(slot)
        if source is None or (source.alloc is not None and not on_gpu):
            return None
        if source.kernel in kernels:
            return source
        if source.type != "Identity":
            return None
        slot = source.in_slots[0]
    return None


def share_conv_patches(steps):
    """`steps` with each CPU Conv2D paired with the first CPU Conv2DBackpropFilter that
    reads the same input slot after it: copies of both, sharing one SharedPatches and
    one conv_fourier.Spectra. A Conv2DBackpropInput after the forward that reads the
    forward's filter slot and the filter gradient's output-gradient slot joins them
    (it shares the output gradient's transform)."""
    conv_kernels = _loaded_kernels("conv_kernels")
    if conv_kernels is None:                     # no convolution op was built
        return steps
    from tfteach.kernels.cpu import conv_fourier
    forwards = {}                                # input slot -> a Conv2D step
    layers = []                                  # [forward, filter gradient]
    for step in steps:
        # On a virtual GPU too: sharing a layer's patches and transforms changes no
        # tensor a step makes, so its memory figures stay (the other fusions make fewer
        # tensors, and keep to the CPU).
        if not step.on_host_arrays:
            continue
        if step.kernel is conv_kernels.conv2d:
            forwards.setdefault(step.in_slots[0], step)
        elif step.kernel is conv_kernels.conv2d_backprop_filter:
            forward = forwards.pop(step.in_slots[0], None)
            if forward is not None:
                layers.append((forward, step))
    paired = {}
    for forward, backprop_filter in layers:
        backprop_input = _input_gradient_of(steps, forward, backprop_filter)
        patches = conv_kernels.SharedPatches()
        spectra = conv_fourier.Spectra(with_input_gradient=backprop_input is not None)
        paired[forward] = _with_kernel(forward, functools.partial(
            conv_kernels.conv2d, shared=patches, spectra=spectra))
        paired[backprop_filter] = _with_kernel(backprop_filter, functools.partial(
            conv_kernels.conv2d_backprop_filter, shared=patches, spectra=spectra))
        if backprop_input is not None:
            paired[backprop_input] = _with_kernel(backprop_input, functools.partial(
                conv_kernels.conv2d_backprop_input, spectra=spectra))
    return [paired.get(step, step) for step in steps]


def _input_gradient_of(steps, forward, backprop_filter):
    """The CPU Conv2DBackpropInput after `forward` that reads its filter (slot 1) and
    the output gradient `backprop_filter` reads (slot 2), or None."""
    conv_kernels = _loaded_kernels("conv_kernels")
    after_forward = steps[steps.index(forward) + 1:]
    for step in after_forward:
        if (step.kernel is conv_kernels.conv2d_backprop_input and step.on_host_arrays
                and step.in_slots[1] == forward.in_slots[1]
                and step.in_slots[2] == backprop_filter.in_slots[2]):
            return step
    return None


def conv_bias_relus(steps, fetch_slots, awaited=frozenset(), on_gpu=False):
    """`steps` with each CPU Relu(Conv2D(x, f) + b) whose intermediate values nothing
    else reads replaced by one step at the Relu's place (see 4. above); not where the
    Conv2D or the add is one of the `awaited` ops (control inputs). `on_gpu`: a virtual
    GPU's plan, whose layers are fused too where their charges can be replayed."""
    readers, producer = _readers_and_producers(steps, fetch_slots)
    position = {step: i for i, step in enumerate(steps)} if on_gpu else None
    fused, dropped = {}, set()
    for relu in steps:
        if (relu.type != "Relu" or relu.source is not None
                or (relu.alloc is not None and not on_gpu)):
            continue
        add = producer.get(relu.in_slots[0])
        if (add is None or add.alloc is not relu.alloc or readers[relu.in_slots[0]] != 1
                or add.type not in ("Add", "AddV2", "BiasAdd")
                or (add.type == "BiasAdd" and _data_format(add) != "NHWC")):
            continue
        for conv_at in ((0,) if add.type == "BiasAdd" else (0, 1)):
            conv = producer.get(add.in_slots[conv_at])
            if (conv is not None and _runs_conv2d(conv) and conv.alloc is relu.alloc
                    and readers[add.in_slots[conv_at]] == 1
                    and _data_format(conv) == "NHWC"):
                break
        else:
            continue
        if conv.op in awaited or add.op in awaited:     # moving them later could break it
            continue
        if add.kernel is not add.ctx.kernel:    # it reads a variable again (ref_reads.py)
            continue
        accounted = relu.alloc is not None
        if accounted and not _accounted_group((conv, add, relu), position):
            continue
        one = _with_kernel(conv, functools.partial(
            _conv_bias_relu, conv_kernel=conv.kernel, add=add, relu=relu,
            bias_first=conv_at == 1, report=accounted))
        one.in_slots = conv.in_slots + (add.in_slots[1 - conv_at],)
        if accounted:
            one.links = chain_accounting.ChainLinks(
                (conv, add, relu), len(conv.in_slots), ((conv_at, True), (0, False)))
        one.out_slots, one.single_out = relu.out_slots, relu.single_out
        # Run later than the Conv2D did: its inputs now live until here.
        inner = (add.in_slots[conv_at], relu.in_slots[0])
        one.frees = tuple(s for s in dict.fromkeys(conv.frees + add.frees + relu.frees)
                          if s not in inner)
        fused[relu] = one
        dropped.update((conv, add))
    return [fused.get(step, step) for step in steps if step not in dropped]


def _control_inputs(steps):
    """The ops some step waits for (tf.control_dependencies): a fusion that runs one of
    them later than its place in the plan leaves it alone."""
    return {op for step in steps for op in step.ctrl_ops}


def _loaded_kernels(name):
    """Kernel module tfteach.kernels.cpu.`name` if an op module has imported it, else
    None. A plan can hold its kernels only once it is imported, so a fusion that looks
    for them need not import it: `import tfteach` stays quick (docs/engine.md, "Lazy
    imports")."""
    return sys.modules.get("tfteach.kernels.cpu." + name)


def _runs_conv2d(step):
    conv_kernels = _loaded_kernels("conv_kernels")
    if conv_kernels is None:
        return False
    kernel = step.kernel
    return kernel is conv_kernels.conv2d or (isinstance(kernel, functools.partial)
                                             and kernel.func is conv_kernels.conv2d)


def _data_format(step):
    fmt = step.op._attrs.get("data_format", "NHWC")
    return fmt.decode() if isinstance(fmt, bytes) else fmt


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _conv_bias_relu(ctx, x, f, b, conv_kernel, add, relu, bias_first, report=False):
    """relu(conv(x, f) + b) in one pass where the conv kernel can add the bias itself;
    else the three kernels, each error located at its own op. `report` (on a GPU): it
    returns (value, whether the one pass made it), for the replay of the ops' charges."""
    if (type(b) is np.ndarray and b.ndim == 1 and np.ndim(f) == 4 and np.ndim(x) == 4
            and b.dtype == np.asarray(x).dtype and b.dtype in _FLOATS
            and b.shape[0] == np.shape(f)[3]):
        value = conv_kernel(ctx, x, f, bias_relu=np.ascontiguousarray(b))
        return (value, True) if report else value
    if report:
        return _conv_bias_relu(ctx, x, f, b, conv_kernel, add, relu, bias_first), False
    conv_out = conv_kernel(ctx, x, f)
    try:
        summed = add.kernel(add.ctx, *((b, conv_out) if bias_first else (conv_out, b)))
    except Exception as e:  # noqa: BLE001 - located at the add, as unfused
        raise errors_text.op_error_from(e, add.op) from e
    try:
        return relu.kernel(relu.ctx, summed)
    except Exception as e:  # noqa: BLE001
        raise errors_text.op_error_from(e, relu.op) from e


def relu_grads_into_max_pool_grads(steps, fetch_slots, awaited=frozenset(), on_gpu=False):
    """`steps` with each CPU ReluGrad(MaxPoolGrad(r, y, g), r) whose MaxPoolGrad output
    nothing else reads replaced by one step: the MaxPoolGrad kernel with
    relu_of_input=True, run where the ReluGrad ran, writing its output; not where the
    MaxPoolGrad is one of the `awaited` ops (control inputs). `on_gpu`: a virtual GPU's
    plan, whose pairs are fused too where their charges can be replayed."""
    readers, producer = _readers_and_producers(steps, fetch_slots)
    position = {step: i for i, step in enumerate(steps)} if on_gpu else None
    fused, dropped = {}, set()
    for step in steps:
        if (step.type != "ReluGrad" or step.source is not None
                or (step.alloc is not None and not on_gpu)):
            continue
        gradient_slot, features_slot = step.in_slots
        pool_grad = producer.get(gradient_slot)
        if (pool_grad is None or pool_grad.type != "MaxPoolGrad"
                or pool_grad.alloc is not step.alloc
                or readers[gradient_slot] != 1 or pool_grad.in_slots[0] != features_slot
                or pool_grad.kernel is not pool_grad.ctx.kernel   # not a ref-reading wrapper
                or pool_grad.op in awaited):
            continue
        kernel = functools.partial(pool_grad.kernel, relu_of_input=True)
        accounted = step.alloc is not None
        if accounted and not _accounted_group((pool_grad, step), position):
            continue
        one = _with_kernel(pool_grad, _reporting_pool_grad(kernel) if accounted else kernel)
        if accounted:
            # the ReluGrad's features again, as its link reads them (chain_accounting)
            one.in_slots = pool_grad.in_slots + (features_slot,)
            one.links = chain_accounting.ChainLinks((pool_grad, step), 3, ((0, True),))
        one.out_slots, one.single_out = step.out_slots, step.single_out
        # Run later than the MaxPoolGrad did: its inputs now live until here.
        one.frees = tuple(s for s in dict.fromkeys(pool_grad.frees + step.frees)
                          if s != gradient_slot)
        fused[step] = one
        dropped.add(pool_grad)
    return [fused.get(step, step) for step in steps if step not in dropped]


def _reporting_pool_grad(kernel):
    """The fused MaxPoolGrad kernel on a GPU: (its value, which is both ops' own), read
    with the ReluGrad's features (the same tensor as its first input) once more."""
    def max_pool_grad_of_relu(ctx, r, y, g, _features):
        return kernel(ctx, r, y, g), True
    return max_pool_grad_of_relu


def _with_kernel(step, kernel):
    """A copy of `step` that runs `kernel` (the traced loop keeps the original)."""
    fused = copy.copy(step)
    fused.kernel = kernel
    return fused
