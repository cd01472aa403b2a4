"""TF 1.x's first eager gradient APIs, `tf.contrib.eager`'s four gradient functions.

Before `tf.GradientTape` was public, TensorFlow 1.x taught eager gradients with
functions that turn a Python function into its gradient function (note 001's "Eager"
section lists them; TF 1.15's `tfe.*` are `tensorflow/python/eager/backprop.py`'s):

- `gradients_function(f, params=None)(*args)`: d f / d each argument (or the ones
  `params` names, by position or name), a list;
- `value_and_gradients_function(f, params=None)(*args)`: `(f(*args), that list)`;
- `implicit_gradients(f)(*args)`: d f / d every trainable variable `f` read, a list of
  `(gradient, variable)` pairs ready for `optimizer.apply_gradients`;
- `implicit_value_and_gradients(f)(*args)`: `(f(*args), those pairs)`;
- `make_vjp(f, params=None)(*args)`: `(f(*args), vjp)`, `vjp(dy=None)` the
  vector-Jacobian product.

Each is a `GradientTape` used the way TF's functions use theirs: the arguments are
converted to tensors and watched (a persistent tape for the explicit ones), `f` runs
once, and a result made of several tensors is differentiated as their sum (or weighted
by `dy=`). As the tape, they work executing eagerly and while a graph is built
(there the gradient is `tf.gradients`), which is what the note means by "they also
work in graph mode". The error texts are TensorFlow's.
"""
import inspect

from tfteach.eager.tape import GradientTape
from tfteach.framework.eager_mode import executing_eagerly
from tfteach.ops import nest

__all__ = ["gradients_function", "value_and_gradients_function", "implicit_gradients",
           "implicit_value_and_gradients", "make_vjp"]


def _returned(f, result):
    if result is None:
        raise ValueError("Cannot differentiate a function that returns None; did you "
                         "forget to return a value from {}?".format(
                             getattr(f, "__name__", f)))


def implicit_value_and_gradients(f):
    """A function returning `(f(*args), [(gradient, variable), ...])` for every
    trainable variable `f` read, in the order the variables were made."""
    def grad_fn(*args, **kwds):
        tape = GradientTape()
        with tape:
            end_node = f(*args, **kwds)
            _returned(f, end_node)
        if executing_eagerly():
            variables = sorted(tape.watched_variables(), key=_creation_order)
        else:
            variables = _trainable_variables_read(nest.flatten(end_node))
        if not variables:
            raise ValueError("No trainable variables were accessed while the function "
                             "was being computed.")
        grads = tape.gradient(nest.flatten(end_node), variables)
        return end_node, list(zip(grads, variables))
    return grad_fn


def implicit_gradients(f):
    """A function returning `[(gradient, variable), ...]` (implicit_value_and_gradients
    without the value)."""
    def grad_fn(*args, **kwds):
        return implicit_value_and_gradients(f)(*args, **kwds)[1]
    return grad_fn


def _creation_order(variable):
    # TF sorts the tape's variables by their unique ids: the order they were made in.
    return variable._creation_index


def _trainable_variables_read(results):
    """Building a graph, the trainable variables `results` were computed from (TF's graph
    tape records their reads; here the graph says which), in the order they were made."""
    from tfteach.framework import convert
    tensors = [convert.convert_to_tensor(r) for r in results]
    if not tensors:
        return []
    seen, stack = set(), [t.op for t in tensors]
    while stack:
        op = stack.pop()
        if op not in seen:
            seen.add(op)
            stack.extend(t.op for t in op.inputs)
    graph = tensors[0].graph
    return [v for v in graph.get_collection("trainable_variables") if v.op in seen]


def _parameter_positions(f, params, args):
    """The positions in `args` of the parameters to differentiate (TF's _get_arg_spec)."""
    try:
        names = inspect.getfullargspec(f).args
    except TypeError as e:
        if params is None:
            return range(len(args))
        if all(isinstance(x, int) for x in params):
            return params
        raise ValueError("Either callable provided is not a function or could not inspect "
                         "its arguments by name: %s. Original error: %s" % (f, e)) from None
    if params is None:
        if not names:
            return range(len(args))
        if names[0] == "self":
            return range(len(names) - 1)
        return range(len(names))
    if all(isinstance(x, str) for x in params):
        return [names.index(n) for n in params]
    if all(isinstance(x, int) for x in params):
        return params
    raise ValueError("params must be all strings or all integers; got %s." % params)


def make_vjp(f, params=None, persistent=True):
    """A function returning `(f(*args), vjp)`: `vjp(dy=None)` is the product of `dy`
    (ones when None) with the Jacobian of `f` at `args`, one gradient per parameter."""
    from tfteach.framework import convert
    from tfteach.ops import constant_op as array_ops

    def decorated(*args, **kwds):
        positions = list(_parameter_positions(f, params, args))
        assert not kwds, "The gradient function can't take keyword arguments."
        tape = GradientTape(persistent=persistent)
        with tape:
            args = [convert.convert_to_tensor(a) if i in positions else a
                    for i, a in enumerate(args)]
            # The same tensor passed twice is two parameters (f(one, one) -> [1., 1.]).
            seen = set()
            for i in positions:
                if id(args[i]) in seen:
                    args[i] = array_ops.identity(args[i])
                seen.add(id(args[i]))
            sources = [args[i] for i in positions]
            for source in sources:
                tape.watch(source)
            result = f(*args)
            _returned(f, result)
            flat = [array_ops.identity(x) for x in nest.flatten(result)]
            result = nest.pack_sequence_as(result, flat)

        def vjp(dy=None):
            if dy is not None:
                dy = [convert.convert_to_tensor(x) for x in nest.flatten(dy)]
            return list(tape.gradient(nest.flatten(result), sources, output_gradients=dy))
        return result, vjp
    return decorated


def value_and_gradients_function(f, params=None):
    """A function returning `(f(*args), [d f / d each parameter])`; `dy=` weights the
    results (a vector-Jacobian product)."""
    def decorated(*args, **kwds):
        dy = kwds.pop("dy", None)
        if kwds:
            raise ValueError("Functions to be differentiated cannot receive keyword "
                             "arguments.")
        value, vjp = make_vjp(f, params)(*args)
        return value, vjp(dy=dy)
    return decorated


def gradients_function(f, params=None):
    """A function returning `[d f / d each parameter]` at its arguments (`dy=` as in
    value_and_gradients_function)."""
    def decorated(*args, **kwds):
        return value_and_gradients_function(f, params=params)(*args, **kwds)[1]
    return decorated
