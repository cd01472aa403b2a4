"""`njit` for the kernel modules `import tfteach` loads: Numba is imported, and the
function compiled (or loaded from Numba's cache), on the function's first call.

Importing Numba takes ~0.13 s, a third of `import tfteach`; a tiny graph (a fed scalar,
a few adds) never calls a compiled loop, so the modules a graph always needs
(elementwise, channel_loops, index_kernels, reduction_kernels) decorate with this
`njit` and cost nothing until a large enough array reaches one of their loops. The
kernel modules that load with their namespace (tf.nn's, tf.train's) use Numba's own.
(docs/engine.md, "Lazy imports")
"""
import threading

__all__ = ["njit"]

_COMPILING = threading.RLock()


def njit(**options):
    """Decorator: as `numba.njit(**options)`, compiled on first call."""
    def wrap(fn):
        return LazyJit(fn, options)
    return wrap


class LazyJit:
    """Calls `numba.njit(**options)(fn)`, made on the first call. The module global of the
    same name is then replaced by Numba's dispatcher, so the module's own calls skip this
    wrapper; an `njit` function calling another one of these finds Numba's dispatcher
    in its globals when it is compiled (Numba cannot call this wrapper)."""

    def __init__(self, fn, options):
        self.py_func = fn
        self._options = options
        self._compiled = None
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__module__ = fn.__module__
        self.__doc__ = fn.__doc__

    def __call__(self, *args, **kwargs):
        compiled = self._compiled
        if compiled is None:
            compiled = self.compile()
        return compiled(*args, **kwargs)

    def compile(self):
        """Numba's dispatcher for the function (made once; a callee that is one of
        these is compiled first, under the same re-entrant lock)."""
        with _COMPILING:
            if self._compiled is None:
                import numba
                fn = self.py_func
                names = fn.__globals__
                for name in fn.__code__.co_names:
                    value = names.get(name)
                    if isinstance(value, LazyJit) and value is not self:
                        names[name] = value.compile()
                self._compiled = numba.njit(**self._options)(fn)
                if names.get(fn.__name__) is self:
                    names[fn.__name__] = self._compiled
        return self._compiled
