"""`slim.arg_scope` / `add_arg_scope` (TF 1.15's contrib/framework arg_scope.py).

`with slim.arg_scope([slim.conv2d, slim.fully_connected], weights_regularizer=r):`
changes the *defaults* of the listed functions inside the block; arguments written in
a call still win. Only functions decorated with `@add_arg_scope` can be listed.
Scopes nest (an inner scope adds to / overrides the outer one) and a scope dict can
be re-entered: `with slim.arg_scope(sc):` where `sc` came from an earlier `as sc`.
"""
import contextlib
import functools

__all__ = ["arg_scope", "add_arg_scope", "current_arg_scope", "has_arg_scope",
           "arg_scoped_arguments"]

# A stack of {function key: {argument: default}}; the top is the scope in force.
_ARGSTACK = [{}]
_DECORATED_OPS = {}


def _key_op(op):
    return getattr(op, "_key_op", str(op))


def current_arg_scope():
    return _ARGSTACK[-1]


def has_arg_scope(func):
    return _key_op(func) in _DECORATED_OPS


def arg_scoped_arguments(func):
    """The argument names `func` accepts from an arg_scope."""
    return _DECORATED_OPS[_key_op(func)]


@contextlib.contextmanager
def arg_scope(list_ops_or_scope, **kwargs):
    """Set default arguments of the listed @add_arg_scope functions for the block."""
    if isinstance(list_ops_or_scope, dict):
        if kwargs:
            raise ValueError("When attempting to re-use a scope by suppling a dictionary, "
                             "kwargs must be empty.")
        current_scope = list_ops_or_scope.copy()
    else:
        if not isinstance(list_ops_or_scope, (list, tuple)):
            raise TypeError("list_ops_or_scope must either be a list/tuple or reused scope "
                            "(i.e. dict)")
        current_scope = current_arg_scope().copy()
        for op in list_ops_or_scope:
            if not has_arg_scope(op):
                raise ValueError("%s is not decorated with @add_arg_scope"
                                 % getattr(op, "__name__", op))
            key = _key_op(op)
            merged = dict(current_scope.get(key, {}))
            merged.update(kwargs)
            current_scope[key] = merged
    _ARGSTACK.append(current_scope)
    try:
        yield current_scope
    finally:
        _ARGSTACK.pop()


def add_arg_scope(func):
    """Decorate `func` so that arg_scope can supply its keyword arguments."""
    key = _key_op(func)

    @functools.wraps(func)
    def func_with_args(*args, **kwargs):
        scoped = current_arg_scope().get(key)
        if scoped:
            merged = dict(scoped)
            merged.update(kwargs)        # what the call says beats the scope's default
            kwargs = merged
        return func(*args, **kwargs)

    code = func.__code__
    _DECORATED_OPS[key] = code.co_varnames[:code.co_argcount]
    func_with_args._key_op = key
    return func_with_args
