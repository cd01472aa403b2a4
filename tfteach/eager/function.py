"""`tf.function`: a Python function traced into a graph, run by a Session.

What TF 2 hides, tfteach shows: calling a `tf.function` with a new *input signature*
(the dtypes and shapes of its tensor arguments, and the values of its other Python
arguments) runs the Python function once, with eager execution off, in a new
`FuncGraph`: each tensor argument becomes a `Placeholder`, each op call adds a node.
That graph (`f.get_concrete_function(x).graph`, drawn by `%tfgraph f`) is the
*concrete function* for the signature; later calls with the same signature feed the
placeholders and run the graph through a Session — the executor with its constant
folding and fusions — without running the Python code again. So Python side effects
(`print`, appending to a list) happen at trace time only.

- Eager variables used in the function appear in its graph as `VariableV2` ops with a
  `read` Identity; the Session shares their values with the eager context, so an
  `assign_sub` in the function changes the variable. Stateful ops (`Assign*`, the
  optimizers' `Apply*`, `Print`, `Assert`) run on every call even when nothing is
  returned from them, as TF's automatic control dependencies make them run.
- `tf.Variable(...)` inside the function is allowed on the first trace only (the
  variable is created eagerly, lifted out of the graph); a later trace that creates one
  raises TF's ValueError.
- `if`/`while`/`for` statements on tensors (with `break`/`continue`) are rewritten into
  `tf.cond`/`tf.while_loop` (autograph.py); Python control flow on Python values runs at
  trace time, as in TF.
- Under an outer GradientTape a call runs the Python function eagerly, so the tape
  records its ops (TF records one function-call op; the gradients are the same,
  test_autograph_reference.py), instead of running the traced graph.
"""
import functools
import weakref

import numpy as np

from tfteach.framework import dtypes, tensor_shape
from tfteach.framework.eager_mode import executing_eagerly
from tfteach.eager import context
from tfteach.eager.concrete_function import ConcreteFunction, FuncGraph, is_tensor_like
from tfteach.eager.tensor import EagerTensor
from tfteach.eager.tensor_spec import TensorSpec
from tfteach.ops import nest

__all__ = ["function", "Function", "ConcreteFunction", "FuncGraph"]


class Function:
    """What `@tf.function` returns: a callable that traces per input signature."""

    def __init__(self, python_function, name=None, input_signature=None, autograph=True,
                 experimental_relax_shapes=False, reduce_retracing=False, jit_compile=None,
                 experimental_compile=None, experimental_autograph_options=None,
                 experimental_implements=None):
        if not callable(python_function):
            raise TypeError("The function to trace must be callable, got %r"
                            % (python_function,))
        self._python_function = python_function
        self._name = name or getattr(python_function, "__name__", None) or \
            type(python_function).__name__
        if input_signature is not None and not isinstance(input_signature, (tuple, list)):
            raise TypeError("input_signature must be either a tuple or a list, received "
                            + str(type(input_signature)))
        self._signature_length = None if input_signature is None else len(input_signature)
        self._input_signature = (None if input_signature is None
                                 else tuple(nest.flatten(input_signature)))
        if self._input_signature is not None:
            for spec in self._input_signature:
                if not isinstance(spec, TensorSpec):
                    raise TypeError("input_signature must be a possibly nested sequence of "
                                    "TensorSpec objects, got invalid args %r" % (spec,))
        self._relax = bool(experimental_relax_shapes or reduce_retracing)
        self._autograph = autograph
        self._traced_function = None      # python_function, AutoGraph-converted
        self._concrete = {}            # signature key -> ConcreteFunction
        self._instances = {}           # id(object) -> (weak ref, bound Function)
        self._created_variables = False
        functools.update_wrapper(self, python_function, updated=())

    @property
    def python_function(self):
        return self._python_function

    @property
    def input_signature(self):
        return self._input_signature

    def __get__(self, instance, owner):
        """`@tf.function` on a method: one Function per object, bound to it."""
        if instance is None:
            return self
        bound = self._instances.get(id(instance))
        if bound is None or bound[0]() is not instance:
            fn = Function(functools.partial(self._python_function, instance), self._name,
                          self._input_signature, autograph=self._autograph,
                          experimental_relax_shapes=self._relax)
            try:
                ref = weakref.ref(instance)
            except TypeError:
                ref = (lambda obj: (lambda: obj))(instance)
            bound = self._instances[id(instance)] = (ref, fn)
        return bound[1]

    # -- signatures --------------------------------------------------------------------------
    def _leaf_key(self, x):
        if isinstance(x, TensorSpec):
            return ("T", x.dtype.name, _shape_key(x.shape, self._relax))
        if isinstance(x, (EagerTensor, np.ndarray)):
            dtype = dtypes.as_dtype(x.dtype).name
            return ("T", dtype, _shape_key(tensor_shape.TensorShape(np.shape(x)), self._relax))
        if _is_variable(x):
            return ("V", id(x))
        try:
            hash(x)
            # by value, as TF's cache key holds the object: 1, 1.0 and True are one key
            # (the second call runs the first one's trace)
            return ("P", x)
        except TypeError:
            return ("O", id(x))

    def _signature_key(self, args, kwargs):
        if self._input_signature is not None:
            return ("signature",) + tuple(
                self._leaf_key(x) for x in nest.flatten((args, kwargs))
                if not is_tensor_like(x))
        flat = nest.flatten((args, sorted(kwargs.items())))
        return (len(args),) + tuple(self._leaf_key(x) for x in flat)

    def _convert_to_signature(self, args, kwargs):
        """TF 1.15's canonicalize_function_inputs and _convert_inputs_to_signature: no
        more positional arguments than the signature has, and Python values (`f([1.0,
        2.0])`) converted to tensors with the spec's dtype as a hint."""
        if len(args) > self._signature_length:
            raise TypeError("When input_signature is provided, only pass arguments "
                            "covered by it. Received %d argument(s)." % len(args))
        # (a flat signature, all arguments positional: each argument is one spec's)
        if kwargs or len(args) != len(self._input_signature) or \
                all(is_tensor_like(x) for x in args):
            return args
        from tfteach.framework import convert
        converted = []
        for x, spec in zip(args, self._input_signature):
            if not is_tensor_like(x):
                try:
                    x = convert.convert_to_tensor(x, dtype_hint=spec.dtype)
                except (TypeError, ValueError):
                    raise ValueError(
                        "When input_signature is provided, all inputs to the Python "
                        "function must be convertible to tensors:\n"
                        + _signature_mismatch_text(args, self._input_signature)) from None
            converted.append(x)
        return tuple(converted)

    def _check_signature(self, args, kwargs, given):
        flat = [x for x in nest.flatten((args, kwargs)) if is_tensor_like(x)]
        specs = self._input_signature
        if len(flat) != len(specs):
            raise TypeError("Python inputs incompatible with input_signature:\n"
                            + _signature_mismatch_text(given, specs))
        for x, spec in zip(flat, specs):
            dtype = dtypes.as_dtype(x.dtype)
            if dtype != spec.dtype or not spec.shape.is_compatible_with(np.shape(x)):
                raise ValueError("Python inputs incompatible with input_signature:\n"
                                 + _signature_mismatch_text(given, specs))

    # -- calling -----------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if not executing_eagerly():
            return self._python_function(*args, **kwargs)     # inlined in the outer graph
        if context.TAPES:
            # An outer tape must see the ops: run them eagerly (docs/eager.md).
            return self._python_function(*args, **kwargs)
        given = args                    # the words of an error show them, as TF's
        if self._input_signature is not None:
            args = self._convert_to_signature(args, kwargs)
        concrete = self._concrete_for(args, kwargs, given)
        flat = [x for x in nest.flatten((args, kwargs)) if is_tensor_like(x)]
        return concrete._call_flat(flat)

    def _concrete_for(self, args, kwargs, given=None):
        if self._input_signature is not None:
            self._check_signature(args, kwargs, args if given is None else given)
        key = self._signature_key(args, kwargs)
        concrete = self._concrete.get(key)
        if concrete is None:
            concrete = self._concrete[key] = self._first_trace(args, kwargs)
        return concrete

    def _first_trace(self, args, kwargs):
        """The concrete function of a new signature. As TF 1.15's def_function, a trace
        that created variables is followed at once by a second trace with variable
        creation forbidden, which is the one kept: a function whose variables are made
        only once (`if self.w is None:`) runs as traced, one that makes a new variable
        every time fails on its first call, and a Python side effect of the first call
        happens twice."""
        had_variables = self._created_variables
        concrete = self._trace(args, kwargs)
        if self._created_variables and not had_variables:
            concrete = self._trace(args, kwargs)
        return concrete

    def get_concrete_function(self, *args, **kwargs):
        """The ConcreteFunction for these arguments (TensorSpecs allowed), traced if new."""
        if not args and not kwargs and self._input_signature is not None:
            args = self._input_signature
        key = self._signature_key(args, kwargs)
        concrete = self._concrete.get(key)
        if concrete is None:
            concrete = self._concrete[key] = self._first_trace(args, kwargs)
        return concrete

    def _list_all_concrete_functions(self):
        return list(self._concrete.values())

    @property
    def concrete_functions(self):
        """Every graph traced so far, oldest first (what `%tfgraph f` draws)."""
        return list(self._concrete.values())

    def experimental_get_tracing_count(self):
        return len(self._concrete)

    def _leaf_names(self, args, kwargs):
        """A placeholder name per flattened argument: the parameter's name, as TF names
        a function's inputs (`a`, `b`; `x_1` for a nest's second tensor)."""
        import inspect
        try:
            params = [p for p in inspect.signature(self._python_function).parameters]
        except (TypeError, ValueError):
            params = []
        names = []
        for k, arg in enumerate(args):
            base = params[k] if k < len(params) else "args_%d" % k
            leaves = nest.flatten(arg)
            names.extend(base if j == 0 else "%s_%d" % (base, j) for j in range(len(leaves)))
        for key, value in sorted(kwargs.items()):
            leaves = nest.flatten(value)
            names.extend(key if j == 0 else "%s_%d" % (key, j) for j in range(len(leaves)))
        return names

    def _trace(self, args, kwargs):
        graph = FuncGraph(self._name)
        flat = nest.flatten((args, kwargs))
        specs = list(self._input_signature) if self._input_signature is not None else None
        placeholders = []
        from tfteach.ops.constant_op import placeholder
        arg_names = self._leaf_names(args, kwargs)
        before = _variable_count()
        with graph.as_default():
            graph_flat = []
            signature_flat = []         # a TensorSpec per tensor argument, other values
            for x in flat:
                if isinstance(x, TensorSpec) or is_tensor_like(x):
                    spec = specs[len(placeholders)] if specs else (
                        x if isinstance(x, TensorSpec) else None)
                    dtype = spec.dtype if spec else dtypes.as_dtype(x.dtype)
                    shape = spec.shape if spec else tensor_shape.TensorShape(np.shape(x))
                    if self._relax and not specs and shape.ndims is not None:
                        shape = tensor_shape.TensorShape([None] * shape.ndims)
                    name = (spec.name if spec and spec.name else None) or \
                        arg_names[len(graph_flat)]
                    p = placeholder(dtype, shape, name=name)
                    placeholders.append(p)
                    graph_flat.append(p)
                    signature_flat.append(TensorSpec(shape, dtype, name=p.op.name))
                else:
                    graph_flat.append(x)
                    signature_flat.append(x)
            g_args, g_kwargs = nest.pack_sequence_as((args, kwargs), graph_flat)
            if self._traced_function is None:
                from tfteach.eager import autograph
                self._traced_function = (autograph.convert(self._python_function)
                                         if self._autograph else self._python_function)
            outputs = self._traced_function(*g_args, **g_kwargs)
            outputs = nest.map_structure(
                lambda x: _graph_output(x, self._python_function), outputs) \
                if outputs is not None else None
        created = _variable_count() - before
        if created and self._created_variables:
            raise ValueError("tf.function-decorated function tried to create variables on "
                             "non-first call.")
        if created:
            self._created_variables = True
        graph.structured_outputs = outputs
        graph.inputs = placeholders
        concrete = ConcreteFunction(graph, placeholders, outputs, self._name)
        # TF's (args, kwargs) of the trace: TensorSpecs named after the parameters
        concrete.structured_input_signature = self._canonical_inputs(
            *nest.pack_sequence_as((args, kwargs), signature_flat))
        return concrete

    def _canonical_inputs(self, args, kwargs):
        """(args, kwargs) as TF 1.15's canonicalize_function_inputs gives them: keyword
        arguments of named parameters made positional, defaults filled in."""
        import inspect
        try:
            bound = inspect.signature(self._python_function).bind(*args, **kwargs)
        except (TypeError, ValueError):
            return tuple(args), dict(kwargs)
        bound.apply_defaults()
        return tuple(bound.args), dict(bound.kwargs)

    def __repr__(self):
        return "<tfteach.function %s at %#x>" % (self._name, id(self))


def _signature_mismatch_text(args, specs):
    return "  inputs: (\n    %s)\n  input_signature: (\n    %s)." % (
        ",\n    ".join(str(a) for a in args), ",\n    ".join(repr(s) for s in specs))


def _is_variable(x):
    return hasattr(x, "_ref_value")


def _graph_output(x, python_function):
    """A traced function's output (one leaf of it) as TF's func_graph converts it: eager
    values, variables and Python values (`return 3`, a string, an array, a TensorShape)
    become tensors of the graph, so every call returns tensors; None stays None, an
    Operation stays (its call returns None), and anything else is TF 1.15's TypeError."""
    from tfteach.framework import convert
    from tfteach.framework.operation import Operation
    from tfteach.framework.tensor import Tensor
    from tfteach.ops.constant_op import identity
    if x is None or isinstance(x, Operation):
        return x
    if not (isinstance(x, Tensor) and not isinstance(x, EagerTensor)):
        try:
            x = convert.convert_to_tensor(x)
        except (TypeError, ValueError):
            raise TypeError("To be compatible with tf.contrib.eager.defun, Python functions "
                            "must return zero or more Tensors; in compilation of %s, found "
                            "return value of type %s, which is not a Tensor."
                            % (python_function, type(x))) from None
    # TF's automatic control dependencies mark each returned tensor with an Identity
    # (`mark_as_return`): the concrete function's graph ends in Identity ops
    return identity(x)


def _variable_count():
    from tfteach.eager import variables
    return variables.created_count()


def _shape_key(shape, relax):
    if shape.ndims is None:
        return None
    if relax:
        return shape.ndims
    return tuple(shape.as_list())


def function(func=None, input_signature=None, autograph=True,
             experimental_relax_shapes=False, reduce_retracing=False, jit_compile=None,
             experimental_compile=None, experimental_autograph_options=None,
             experimental_implements=None, name=None):
    """`tf.function`: as a decorator (with or without arguments) or a call."""
    def decorate(f):
        return Function(f, name=name, input_signature=input_signature, autograph=autograph,
                        experimental_relax_shapes=experimental_relax_shapes,
                        reduce_retracing=reduce_retracing, jit_compile=jit_compile,
                        experimental_compile=experimental_compile)
    if func is None:
        return decorate
    return decorate(func)
