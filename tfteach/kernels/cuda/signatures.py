"""Every CUDA kernel with the argument types its wrapper launches it with.

The wrappers launch kernels on C-contiguous arrays (`float32[::1]`), Python ints
(int64), bools, floats (float64) and np.uint64 counters, so these are the signatures
Numba compiles on a GPU. tests/test_cuda_ptx.py compiles each one to PTX for sm_80
without a GPU: typing errors that Numba's CUDA simulator (which runs the kernels as
Python) cannot see are caught in CI. A kernel added to the package belongs here too
(the test checks that none is missing).
"""
from numba import types

from tfteach.kernels.cuda import (conv, elementwise, matmul, pooling, random, reduce, softmax,
                                  training, variables)

__all__ = ["FLOATS", "kernel_signatures"]

FLOATS = (types.float32, types.float64)
_I = types.int64


def _vec(dtype):
    return types.Array(dtype, 1, "C")


def _mat(dtype, ndim=2):
    return types.Array(dtype, ndim, "C")


def kernel_signatures():
    """[(name, kernel dispatcher, signature tuple)] for every kernel and dtype."""
    out = []
    for f in FLOATS:
        v, m, t4, iv = _vec(f), _mat(f), _mat(f, 4), _vec(_I)
        out += [
            ("unary_kernel", elementwise.unary_kernel, (v, v, _I)),
            ("binary_kernel", elementwise.binary_kernel, (v, v, v, _I, iv, iv, iv)),
            ("reduce_kernel", reduce.reduce_kernel,
             (v, v, _I, types.float64, iv, iv, iv, iv, _I)),
            ("matmul_kernel", matmul.matmul_kernel, (m, m, m, types.boolean, types.boolean)),
            ("softmax_kernel", softmax.softmax_kernel, (m, m)),
            ("xent_kernel", softmax.xent_kernel, (v, m, m, v, _I, _I)),
            ("sparse_xent_kernel", softmax.sparse_xent_kernel, (v, m, m, iv)),
            ("conv2d_kernel", conv.conv2d_kernel, (t4, t4, t4) + (_I,) * 6),
            ("conv2d_input_grad_kernel", conv.conv2d_input_grad_kernel,
             (t4, t4, t4) + (_I,) * 6),
            ("conv2d_filter_grad_kernel", conv.conv2d_filter_grad_kernel,
             (t4, t4, t4) + (_I,) * 6),
            # the last argument: the dtype's lowest value, where a window's max starts
            ("max_pool_kernel", pooling.max_pool_kernel, (t4, t4) + (_I,) * 6 + (f,)),
            ("avg_pool_kernel", pooling.avg_pool_kernel, (t4, t4) + (_I,) * 6),
            ("max_pool_grad_kernel", pooling.max_pool_grad_kernel, (t4, t4, t4) + (_I,) * 6),
            ("avg_pool_grad_kernel", pooling.avg_pool_grad_kernel, (t4, t4) + (_I,) * 6),
            # out, mode, the key's 2 words and the counter's 4 (uint64), float64 or not
            ("random_kernel", random.random_kernel,
             (v, _I) + (types.uint64,) * 6 + (types.boolean,)),
            ("gradient_descent_kernel", training.gradient_descent_kernel, (v, v, v, f)),
            ("momentum_kernel", training.momentum_kernel,
             (v, v, v, v, v, f, f, types.boolean)),
            ("adam_kernel", training.adam_kernel, (v,) * 7 + (f,) * 5 + (types.boolean,)),
        ]
    # AssignAdd / AssignSub: the float variables and int64 counters (global_step).
    for dtype in FLOATS + (types.int64,):
        vec = _vec(dtype)
        out.append(("update_kernel", variables.update_kernel, (vec, vec, vec, dtype)))
    cast_types = FLOATS + (types.int32, types.int64, types.boolean)
    for src in cast_types:
        for dst in cast_types:
            out.append(("cast_kernel", elementwise.cast_kernel, (_vec(dst), _vec(src))))
    return out
