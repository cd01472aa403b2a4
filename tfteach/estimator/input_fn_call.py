"""Calling an Estimator's input_fn and taking its result apart (TF 1.15's rules).

An input_fn returns either a `tf.data.Dataset` of `(features, labels)` or `features`
elements, or the tensors themselves. A Dataset is read through an initializable iterator
whose initializer a hook runs when the session starts (TF's _DatasetInitializerHook), so
every train/evaluate/predict call reads the data from its start.
"""
import inspect

from tfteach.train.session_run_hook import SessionRunHook

__all__ = ["fn_args", "call_input_fn"]


def fn_args(fn):
    """The argument names of a function, a bound method (without self) or a partial."""
    if hasattr(fn, "func") and hasattr(fn, "keywords"):  # functools.partial
        return tuple(a for a in fn_args(fn.func) if a not in (fn.keywords or {}))
    try:
        return tuple(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return ()


class DatasetInitializerHook(SessionRunHook):
    """Runs the input iterator's initializer once the session exists."""

    def __init__(self, iterator):
        self._iterator = iterator

    def begin(self):
        self._initializer = self._iterator.initializer

    def after_create_session(self, session, coord):
        session.run(self._initializer)


def call_input_fn(input_fn, mode, params, config):
    """Calls `input_fn` with the arguments it asks for (mode, params, config), builds
    the input on the CPU as TF does, and returns (features, labels, input_hooks)."""
    from tfteach.framework.graph_functions import device
    args = fn_args(input_fn)
    kwargs = {}
    if "mode" in args:
        kwargs["mode"] = mode
    if "params" in args:
        kwargs["params"] = params
    if "config" in args:
        kwargs["config"] = config
    with device("/cpu:0"):
        result = input_fn(**kwargs)
    return parse_input_fn_result(result)


def parse_input_fn_result(result):
    """(features, labels, hooks) from a Dataset, a (features, labels) pair or features."""
    from tfteach.data.dataset_ops import Dataset
    hooks = []
    if isinstance(result, Dataset):
        iterator = result.make_initializable_iterator()
        hooks.append(DatasetInitializerHook(iterator))
        result = iterator.get_next()
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise ValueError("input_fn should return (features, labels) as a len 2 tuple.")
        return result[0], result[1], hooks
    return result, None, hooks
