"""The one registry that joins the layers (DESIGN.md): per op type, its contract.

For every op type it holds, registered by name as TensorFlow does with REGISTER_OP,
REGISTER_KERNEL_BUILDER and RegisterGradient:
- `shape_fn(op)`: the output dtypes and static shapes, computed when the op is built;
- `kernels[device_type]`: `fn(ctx, *input_values)` returning the output value (or a
  tuple of values for several outputs); `ctx` is the op's KernelContext in a session;
- `gradient(op, *output_grads)`: builds gradient ops in the graph (the training issue);
- `stateful`: the op reads or changes session state (variables, random generators).
- `handles_dead_inputs`: the kernel runs even when an input is dead (an untaken
  `tf.cond` branch); without it the executor skips the op and marks its outputs dead.
- `ref_inputs`: positions of inputs the op takes by reference (TF's `Ref(T)` inputs:
  `Assign`'s variable). Every other input fed by a ref tensor (a variable) receives the
  variable's current value, read when the op runs (see kernels/cpu/state_kernels.py).
"""

__all__ = ["OpDef", "register_op", "get_op_def", "kernel", "gradient", "not_differentiable",
           "registered_op_types"]

_OP_DEFS = {}


class OpDef:
    __slots__ = ("type", "shape_fn", "kernels", "gradient", "stateful", "differentiable",
                 "handles_dead_inputs", "ref_inputs")

    def __init__(self, op_type, shape_fn, stateful):
        self.type = op_type
        self.shape_fn = shape_fn
        self.kernels = {}
        self.gradient = None
        self.stateful = stateful
        self.differentiable = True
        # Control flow (cond's Merge) must see dead inputs; every other op becomes dead.
        self.handles_dead_inputs = False
        self.ref_inputs = ()

    def __repr__(self):
        return "OpDef(%r, kernels=%s)" % (self.type, sorted(self.kernels))


def register_op(op_type, shape_fn, cpu=None, stateful=False, ref_inputs=()):
    """Declares op type `op_type`; `shape_fn(op)` returns [(dtype, TensorShape), ...].

    `cpu` is the op's CPU kernel `fn(ctx, *inputs)`, if it has one; `ref_inputs` the
    input positions it takes by reference.
    """
    if op_type in _OP_DEFS:
        raise KeyError("Op type %r is registered twice" % op_type)
    op_def = _OP_DEFS[op_type] = OpDef(op_type, shape_fn, stateful)
    op_def.ref_inputs = tuple(ref_inputs)
    if cpu is not None:
        op_def.kernels["CPU"] = cpu
    return op_def


def get_op_def(op_type):
    try:
        return _OP_DEFS[op_type]
    except KeyError:
        pass
    # An op of a namespace `import tfteach` has not loaded yet (tfteach/_lazy_names.py):
    # load them all once, then look again.
    if _load_lazy_namespaces():
        return get_op_def(op_type)
    raise KeyError("Op type not registered '%s' in tfteach" % op_type)


def registered_op_types():
    _load_lazy_namespaces()
    return sorted(_OP_DEFS)


_lazy_loaded = []


def _load_lazy_namespaces():
    """Imports tfteach's lazy namespaces the first time it is called (True then)."""
    if _lazy_loaded:
        return False
    _lazy_loaded.append(True)
    from tfteach import _lazy_names
    _lazy_names.load_all()
    return True


def kernel(op_type, device_type="CPU"):
    """Decorator: registers `fn(ctx, *inputs)` as `op_type`'s kernel on `device_type`."""
    def register(fn):
        op_def = get_op_def(op_type)
        if device_type in op_def.kernels:
            raise KeyError("Kernel %s on %s is registered twice" % (op_type, device_type))
        op_def.kernels[device_type] = fn
        return fn
    return register


def gradient(op_type):
    """Decorator: registers `fn(op, *grads) -> [grad per input]` as op_type's gradient."""
    def register(fn):
        get_op_def(op_type).gradient = fn
        return fn
    return register


def not_differentiable(op_type):
    """Marks op_type as having no gradient (integer outputs, comparisons, ...)."""
    get_op_def(op_type).differentiable = False
