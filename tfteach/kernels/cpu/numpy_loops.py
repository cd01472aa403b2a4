"""NumPy's own inner loops, called from Numba-compiled code: the same bits as the ufuncs.

A NumPy ufunc call on a small array costs ~1-2 µs of dispatch around a loop that runs
for less (a 32x128 `np.tanh`: ~1.2 µs of arithmetic). A Numba kernel that does several
elementwise ops in one call (runtime/optimizer/elementwise_regions.py) saves that
dispatch, but Numba's own `tanh`/`exp` round differently from NumPy's float32 SIMD
loops (docs/rnn.md, "Speed"), and the optimizer's rule is the same bits. So such a
kernel calls NumPy's loops themselves:

- `loop_of(ufunc, dtype)` asks NumPy for the strided inner loop it would run for that
  dtype (`ufunc._resolve_dtypes_and_context` and `ufunc._get_strided_loop`, NumPy's
  experimental API of NEP 43, NumPy >= 1.24) and returns its address, context and
  auxiliary data as three integers;
- `call_loop(address, context, data, dimensions, strides, auxdata)` (a Numba intrinsic)
  calls it from compiled code, as NumPy's iterator would: `data` the address of the
  operands' pointers (inputs, then the output), `dimensions` of the element count,
  `strides` of the byte strides. The address is an argument, not a constant compiled
  in, so the kernels cache on disk (a process has the loops at other addresses).

Only loops that need no Python (no GIL, no Python error check) are given out, and only
after `chunk_safe` has checked, in this process, that calling the loop on pieces of an
array gives the bits of the ufunc on the whole array (special values included): NumPy's
float32 `exp` and `tanh` finish an array's tail with the same SIMD code as its body on
the CPUs measured, and a CPU where they would not gets no such loops (the ops then run
unfused). Importing this module imports Numba: only the kernels that use it import it.
"""
import ctypes
import threading

import numba
import numpy as np

__all__ = ["loop_of", "call_loop", "chunk_safe", "safe_loops"]

_CAPSULE_NAME = b"numpy_1.24_ufunc_call_info"


class _CallInfo(ctypes.Structure):
    # NumPy's ufunc_call_info (numpy/_core/src/umath/ufunc_object.c): what
    # _get_strided_loop fills in the capsule _resolve_dtypes_and_context returns.
    _fields_ = [("strided_loop", ctypes.c_void_p), ("context", ctypes.c_void_p),
                ("auxdata", ctypes.c_void_p), ("requires_pyapi", ctypes.c_ubyte),
                ("no_floatingpoint_errors", ctypes.c_int)]


_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

_LOOPS = {}             # (ufunc, dtype) -> np.int64 [address, context, auxdata] or None
_SAFE = {}              # (ufunc, dtype) -> whether chunk_safe found the pieces' bits equal
_LOCK = threading.Lock()


def loop_of(ufunc, dtype):
    """`np.int64([address, context, auxdata])` of the inner loop `ufunc` runs when every
    operand has `dtype`, or None where NumPy cannot say or the loop needs Python. The
    capsule holding the context is kept for the life of the process."""
    dtype = np.dtype(dtype)
    key = (ufunc, dtype)
    with _LOCK:
        if key not in _LOOPS:
            _LOOPS[key] = _ask_numpy(ufunc, dtype)
        return _LOOPS[key]


def _ask_numpy(ufunc, dtype):
    try:
        dtypes, call_info = ufunc._resolve_dtypes_and_context(
            (dtype,) * ufunc.nin + (None,) * ufunc.nout)
        if any(d != dtype for d in dtypes):
            return None              # NumPy would cast: not the loop of this dtype
        ufunc._get_strided_loop(call_info)
        info = _CallInfo.from_address(_get_pointer(call_info, _CAPSULE_NAME))
    except (AttributeError, TypeError, ValueError):   # NumPy < 1.24, or no such loop
        return None
    if info.requires_pyapi or not info.strided_loop:
        return None
    _KEPT.append(call_info)          # the context and auxdata live in the capsule
    return np.array([info.strided_loop, info.context or 0, info.auxdata or 0], np.int64)


_KEPT = []


def safe_loops(ufuncs, dtype):
    """int64 [[address, context, auxdata], ...] of the loops of `ufuncs` for `dtype`, in
    their order (a kernel's `loops` argument), or None where one of them is not
    `chunk_safe` (the ops then run one by one)."""
    rows = []
    for ufunc in ufuncs:
        if not chunk_safe(ufunc, dtype):
            return None
        rows.append(loop_of(ufunc, dtype))
    return np.array(rows, np.int64).reshape(len(rows), 3)


def chunk_safe(ufunc, dtype):
    """Whether `ufunc`'s loop, called by `call_loop` on pieces of an array of `dtype`
    (lengths 1 to 67, at every offset), gives exactly the bits of `ufunc` on the whole
    array, on random values and on zeros, infinities, NaN and the ends of exp's range.
    Checked once a process per (ufunc, dtype); False where there is no loop."""
    dtype = np.dtype(dtype)
    key = (ufunc, dtype)
    safe = _SAFE.get(key)
    if safe is None:
        loop = loop_of(ufunc, dtype) if ufunc.nin in (1, 2) and ufunc.nout == 1 else None
        safe = loop is not None and _pieces_match(ufunc, dtype, loop)
        _SAFE[key] = safe
    return safe


def _probe(dtype, nin):
    rng = np.random.default_rng(20)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 88.7, 88.8, -88.7,
                         -103.9, -104.0, 7.9, 8.0, 9.0, -9.0, 20.0, 1e-8, -1e-8, 1e-40,
                         3e38], dtype)
    operands = []
    for _ in range(nin):
        values = np.concatenate([(rng.standard_normal(400) * 6).astype(dtype), specials])
        rng.shuffle(values)
        operands.append(values)
    return operands


def _pieces_match(ufunc, dtype, loop):
    operands = _probe(dtype, ufunc.nin)
    with np.errstate(all="ignore"):
        whole = ufunc(*operands)
    pieces = np.empty_like(whole)
    _run_in_pieces(loop, tuple(operands), pieces)
    return bool(np.array_equal(whole.view(np.uint8), pieces.view(np.uint8)))


def _run_in_pieces(loop, operands, out):
    """`out = ufunc(*operands)`, the loop called on pieces of 1, 2, ..., 67 elements."""
    _pieces(loop, np.stack(operands), out)


def _make_call_loop():
    from llvmlite import ir
    from numba import types
    from numba.extending import intrinsic

    @intrinsic
    def call_loop(typingctx, address, context, data, dimensions, strides, auxdata):
        """NumPy's PyArrayMethod_StridedLoop at `address`: int (*)(context, char **data,
        npy_intp *dimensions, npy_intp *strides, NpyAuxData *auxdata)."""
        signature = types.int32(types.int64, types.int64, types.int64, types.int64,
                                types.int64, types.int64)

        def codegen(context_, builder, signature_, args):
            word = ir.IntType(64)
            function_type = ir.FunctionType(ir.IntType(32), [word] * 5)
            function = builder.inttoptr(args[0], function_type.as_pointer())
            return builder.call(function, list(args[1:]))
        return signature, codegen
    return call_loop


call_loop = _make_call_loop()


# The kernel chunk_safe runs (compiled at import, cached on disk beside this file): the
# loop on pieces of the operands (the rows of `stack`, contiguous) into `out`.
@numba.njit(nogil=True, cache=True)
def _pieces(loop, stack, out):
    nin = stack.shape[0]
    # the operands' pointers and out's, the count, then their strides
    meta = np.empty(2 * nin + 3, np.int64)
    start, length, n = 0, 1, out.shape[0]
    while start < n:
        m = min(length, n - start)
        for k in range(nin):
            meta[k] = stack[k, start:].ctypes.data
            meta[nin + 2 + k] = stack.strides[1]
        meta[nin] = out[start:].ctypes.data
        meta[nin + 1] = m
        meta[2 * nin + 2] = out.strides[0]
        call_loop(loop[0], loop[1], meta.ctypes.data, meta[nin + 1:].ctypes.data,
                  meta[nin + 2:].ctypes.data, loop[2])
        start += m
        length = length % 67 + 1
