"""`tf.Module`: a named container whose variables and submodules are found by walking it.

`variables`, `trainable_variables` and `submodules` walk the module's attributes (and
lists, tuples and dicts of them, nested), as TF 2's `tf.Module` does: each variable and
module once, attributes in name order. `name_scope` is a name scope named after the
module; `with_name_scope` wraps a method in it.
"""
import functools
import re

from tfteach.framework.graph_functions import name_scope as _name_scope

__all__ = ["Module"]

_VALID_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-/]*$")


def _camel_to_snake(name):
    name = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def _is_variable(x):
    from tfteach.ops.variables import Variable
    return isinstance(x, Variable)


class Module:
    """Base class of models and layers (`tf.Module(name=None)`)."""

    # Attributes never walked (TF's _TF_MODULE_IGNORED_PROPERTIES).
    _TF_MODULE_IGNORED_PROPERTIES = frozenset(("_self_unconditional_checkpoint_dependencies",
                                               "_self_unconditional_dependency_names"))

    def __init__(self, name=None):
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not _VALID_NAME.match(name):
            raise ValueError(
                "%r is not a valid module name. Module names must be valid Python "
                "identifiers (e.g. a valid class name)." % name)
        self._name = name
        self._scope_name = name

    @property
    def name(self):
        return self._name

    @property
    def name_scope(self):
        """A name scope named after the module (`with self.name_scope:`)."""
        return _name_scope(self._scope_name + "/")

    @property
    def variables(self):
        """Every variable of this module and its submodules, each once (a tuple)."""
        return tuple(self._flatten(_is_variable))

    @property
    def trainable_variables(self):
        return tuple(self._flatten(lambda x: _is_variable(x) and x.trainable))

    @property
    def non_trainable_variables(self):
        return tuple(self._flatten(lambda x: _is_variable(x) and not x.trainable))

    @property
    def submodules(self):
        """Every module reachable from this one (not itself), breadth first."""
        return tuple(self._flatten(lambda x: isinstance(x, Module)))

    def _flatten(self, predicate, recursive=True):
        """TF's `_flatten_module`: this module's attributes in name order (each leaf of
        a nested list/tuple/dict), then each submodule found, depth first; each object
        once."""
        found, seen = [], set()
        _walk(self, predicate, recursive, found, seen, {id(self)})
        return found

    @classmethod
    def with_name_scope(cls, method):
        """Decorator: `method` runs inside the module's name scope."""
        @functools.wraps(method)
        def wrapped(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        return wrapped

    def __repr__(self):
        return "<%s.%s object at %#x>" % (type(self).__module__, type(self).__name__,
                                          id(self))


def _leaves(value, depth=0):
    """The objects inside lists, tuples and dicts (nested) of an attribute's value."""
    if depth > 100:
        return
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _leaves(v, depth + 1)
    elif isinstance(value, dict):
        for k in sorted(value, key=str):
            yield from _leaves(value[k], depth + 1)
    else:
        yield value


def _walk(module, predicate, recursive, found, seen, visiting):
    submodules = []
    attributes = vars(module)
    for key in sorted(attributes):
        if key in module._TF_MODULE_IGNORED_PROPERTIES:
            continue
        for leaf in _leaves(attributes[key]):
            if predicate(leaf) and id(leaf) not in seen:
                seen.add(id(leaf))
                found.append(leaf)
            if recursive and isinstance(leaf, Module) and id(leaf) not in visiting:
                submodules.append(leaf)
    for sub in submodules:
        if id(sub) in visiting:
            continue
        visiting.add(id(sub))
        _walk(sub, predicate, recursive, found, seen, visiting)
