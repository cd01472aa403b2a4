"""NumPy's own OpenBLAS, reached through ctypes: its thread count and its GEMM.

NumPy's Linux and Windows wheels ship OpenBLAS in `numpy.libs`, built as scipy-openblas:
every exported name has a `scipy_` prefix and, in the 64-bit-integer build NumPy uses,
a `64_` suffix (`scipy_cblas_sgemm64_`). Loading that file again returns the library
already in the process, so a thread count set here is the one NumPy's products use and
a GEMM called here runs on the same threads. Where NumPy's BLAS is something else (MKL,
Accelerate, a source build against the system's BLAS) nothing is found and every caller
keeps its plain NumPy path.
"""
import ctypes
import glob
import os
import threading

import numpy as np

__all__ = ["function", "blas_int", "typed_function"]

_LIBRARY = None
_SEARCHED = False
_SEARCH_LOCK = threading.Lock()


def _library():
    """The loaded OpenBLAS of NumPy's wheel, or None."""
    global _LIBRARY, _SEARCHED
    if not _SEARCHED:
        with _SEARCH_LOCK:      # two threads' first calls: both get the library
            if not _SEARCHED:
                libs = os.path.join(os.path.dirname(os.path.dirname(np.__file__)),
                                    "numpy.libs")
                for path in sorted(glob.glob(os.path.join(libs, "*openblas*.so*"))):
                    try:
                        _LIBRARY = ctypes.CDLL(path)   # CDLL: calls release the GIL
                        break
                    except OSError:
                        continue
                _SEARCHED = True
    return _LIBRARY


def function(name):
    """OpenBLAS's function `name` under any of its exported spellings, or None."""
    lib = _library()
    if lib is None:
        return None
    for spelling in ("scipy_%s64_" % name, "scipy_%s" % name, name):
        found = getattr(lib, spelling, None)
        if found is not None:
            return found
    return None


def blas_int():
    """The C type of BLAS's integer arguments (dimensions, leading dimensions), or None.

    The build says it in its configuration string ("USE64BITINT"); guessing wrong would
    hand OpenBLAS garbage dimensions, so without that string there is no answer.
    """
    get_config = function("openblas_get_config")
    if get_config is None:
        return None
    get_config.argtypes, get_config.restype = [], ctypes.c_char_p
    config = get_config() or b""
    return ctypes.c_int64 if b"USE64BITINT" in config else ctypes.c_int


def typed_function(name, argument_types):
    """OpenBLAS's `name` with its ctypes argument types set and no result, or None.
    `argument_types(integer)` lists them given BLAS's integer type, which only the
    build says (blas_int): without it nothing is called."""
    integer = blas_int()
    found = function(name) if integer is not None else None
    if found is not None:
        found.argtypes = argument_types(integer)
        found.restype = None
    return found
