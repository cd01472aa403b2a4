"""Keras' `get(identifier)` rule shared by activations, initializers, losses, optimizers...

An identifier is a callable/object (used as is), a name ('relu', 'glorot_uniform'), or a
`{"class_name": ..., "config": {...}}` dict as stored in a saved model. An unknown name
raises Keras' ValueError: "Unknown <what>:<name>" (TF 1.15's wording, no space).
"""

__all__ = ["deserialize", "serialize_object", "accepted_kwargs"]

import inspect


def deserialize(identifier, objects, what):
    if isinstance(identifier, dict):
        name = identifier.get("class_name")
        config = dict(identifier.get("config") or {})
        if name not in objects:
            raise ValueError("Unknown %s:%s" % (what, name))
        target = objects[name]
        if inspect.isclass(target):
            return target(**accepted_kwargs(target, config))
        return target
    if isinstance(identifier, str):
        if identifier not in objects:
            raise ValueError("Unknown %s:%s" % (what, identifier))
        target = objects[identifier]
        return target() if inspect.isclass(target) else target
    raise ValueError("Could not interpret %s identifier: %s" % (what, identifier))


def serialize_object(obj):
    """{"class_name": ..., "config": ...} for objects with get_config, else the name."""
    if obj is None:
        return None
    if hasattr(obj, "get_config"):
        return {"class_name": type(obj).__name__, "config": obj.get_config()}
    return getattr(obj, "__name__", str(obj))


def accepted_kwargs(target, config):
    """The entries of `config` that `target`'s constructor takes (a file written by a
    newer Keras carries extra keys such as 'module' or 'registered_name')."""
    params = inspect.signature(target.__init__ if inspect.isclass(target) else target)
    names = params.parameters
    if any(p.kind == p.VAR_KEYWORD for p in names.values()):
        return config
    return {k: v for k, v in config.items() if k in names}
