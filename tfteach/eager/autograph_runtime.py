"""What AutoGraph's rewritten code calls at trace time (autograph.py writes the calls).

`if_stmt`, `while_stmt` and `for_stmt` receive the statement's parts as functions plus a
`get_state` / `set_state` pair over the names the statement assigns; they build
`tf.cond` / `tf.while_loop` with those names as the branches' outputs / loop variables.

Stateful ops (a variable update, a Print) inside a branch or a loop body must run on
every call although nothing returned depends on them (TF's automatic control
dependencies). Each branch / body therefore ends in a marker that depends on the
stateful ops it built in its own control-flow context; a nested statement's marker is
handed up through `_FRAMES` to the enclosing branch or body, and the outermost
statement gives its marker to the FuncGraph (`after_branches`), which runs it.
"""
from tfteach.framework.tensor import Tensor

__all__ = ["if_stmt", "while_stmt", "for_stmt", "UNDEFINED", "read", "false", "true",
           "not_any", "and_not"]


def _is_graph_tensor(value):
    return isinstance(value, Tensor) and not hasattr(value, "_value")


class _Undefined:
    def __repr__(self):
        return "<undefined>"


UNDEFINED = _Undefined()

# One list per branch / loop body being built: the markers of the statements nested in it.
_FRAMES = []


def read(name_thunk):
    """The value of a variable, or UNDEFINED if it is not bound yet."""
    try:
        return name_thunk()
    except NameError:
        return UNDEFINED


# -- the flags of a rewritten `break` / `continue` --------------------------------------
def false():
    from tfteach.ops.constant_op import constant
    return constant(False)


def true():
    from tfteach.ops.constant_op import constant
    return constant(True)


def not_any(*flags):
    """True while no flag is set: guards the statements after a `break`/`continue`."""
    from tfteach.ops.comparison_ops import logical_not, logical_or
    result = flags[0]
    for flag in flags[1:]:
        result = logical_or(result, flag)
    return logical_not(result)


def and_not(test, flag):
    """A loop's test once a `break` may have set `flag`."""
    from tfteach.ops.comparison_ops import logical_and, logical_not
    return logical_and(test, logical_not(flag))


def range_(*args):
    """`range(...)` in a `for` statement: `tf.range` when an argument is a graph tensor
    (the loop then becomes a tf.while_loop), Python's range otherwise."""
    if any(_is_graph_tensor(a) for a in args):
        from tfteach.ops.fill_ops import range as tf_range
        return tf_range(*args)
    return range(*args)


# -- markers -------------------------------------------------------------------------------
def _effects_since(graph, start):
    """Stateful ops built since `start` in the current control-flow context, and the
    markers nested statements handed up."""
    context = graph._get_control_flow_context()
    return [op for op in graph._nodes_in_order[start:]
            if op._control_flow_context is context
            and (op._op_def.ref_inputs or op.type in ("Print", "Assert", "PyWriteSummary"))]


def _run_marked(graph, fn):
    """Calls fn() and returns (its result, the effects it built, nested markers kept)."""
    start = len(graph._nodes_in_order)
    _FRAMES.append([])
    try:
        result = fn()
    finally:
        nested = _FRAMES.pop()
    return result, _effects_since(graph, start) + nested


def _hand_up(graph, marker_op):
    """An enclosing branch/body waits for `marker_op`; at the top, the function does."""
    if _FRAMES:
        _FRAMES[-1].append(marker_op)
        return
    after = getattr(graph, "after_branches", None)
    if after is not None:
        after(marker_op)


# -- if ------------------------------------------------------------------------------------
def if_stmt(test, if_true, if_false, get_state, set_state):
    """`tf.cond` for a converted `if`; each branch also returns its marker."""
    from tfteach.framework import graph as graph_lib
    from tfteach.ops.cond_ops import cond
    from tfteach.ops.constant_op import constant, identity
    graph = graph_lib.get_default_graph()
    before = get_state()

    def branch(fn, which):
        def run():
            set_state(before)
            values, effects = _run_marked(graph, fn)
            for value in values:
                if value is UNDEFINED:
                    raise ValueError(
                        "a variable the `if` statement assigns in one branch must also be "
                        "assigned in the %s branch (or before the `if`), for tf.cond"
                        % which)
            with graph.control_dependencies(effects):
                marker = identity(constant(True))
            return tuple(values) + (marker,)
        return run
    result = cond(test, branch(if_true, "true"), branch(if_false, "else"))
    result = tuple(result) if isinstance(result, (list, tuple)) else (result,)
    _hand_up(graph, result[-1].op)
    return result[:-1]


# -- loops ---------------------------------------------------------------------------------
def _loop(graph, more, body_fn, get_state, set_state, what, names, live):
    """A while_loop over a counter and the statement's names. A name not bound before
    the loop is local to the body (assigned there before it is read) and no loop
    variable; one read after the loop (`live`) must be bound before it. (TF 2.21's
    AutoGraph instead starts such a variable at zeros shaped like its first value.)"""
    from tfteach.ops.constant_op import constant, identity
    from tfteach.ops.while_ops import while_loop
    state = tuple(get_state())
    carried = [value is not UNDEFINED for value in state]
    for name, value in zip(names, state):
        if value is UNDEFINED and name in live:
            raise ValueError("'%s' is assigned in a `%s` loop converted to tf.while_loop "
                             "and used after it: it must be defined before the loop."
                             % (name, what))

    def full(values):
        values = iter(values)
        return tuple(next(values) if c else UNDEFINED for c in carried)

    def cond(i, *values):
        set_state(full(values))
        return more(i)

    def body(i, *values):
        set_state(full(values))
        _, effects = _run_marked(graph, lambda: body_fn(i))
        new = tuple(get_state())
        with graph.control_dependencies(effects):
            nxt = identity(i + 1)
        return (nxt,) + tuple(v for v, c in zip(new, carried) if c)

    loop_vars = (constant(0),) + tuple(v for v, c in zip(state, carried) if c)
    try:
        out = while_loop(cond, body, loop_vars, return_same_structure=True)
    except (TypeError, ValueError) as e:
        raise type(e)("in a `%s` loop converted to tf.while_loop: %s" % (what, e)) from e
    set_state(full(out[1:]))
    _hand_up(graph, out[0].op)


def while_stmt(test_fn, body_fn, get_state, set_state, names=(), live=()):
    """`tf.while_loop` for a converted `while`."""
    from tfteach.framework import graph as graph_lib
    _loop(graph_lib.get_default_graph(), lambda i: test_fn(), lambda i: body_fn(),
          get_state, set_state, "while", names, live)


def for_stmt(iterated, extra_test, body_fn, get_state, set_state, names=(), live=()):
    """`tf.while_loop` for `for x in <tensor>`: one iteration per slice along the first
    dimension (`tf.range(n)` is a tensor like any other), as TF's AutoGraph;
    `extra_test` (or None) is the `not break` of a loop with a `break`."""
    from tfteach.framework import graph as graph_lib
    from tfteach.framework import tensor_shape
    from tfteach.ops.shape_ops import shape
    from tfteach.ops.comparison_ops import less, logical_and
    graph = graph_lib.get_default_graph()
    if iterated.shape.ndims == 0:
        raise TypeError("Cannot iterate over a scalar tensor.")   # Tensor.__iter__'s words
    static = tensor_shape.dimension_value(iterated.shape[0]) \
        if iterated.shape.ndims is not None else None
    n = static if static is not None else shape(iterated)[0]

    def more(i):
        test = less(i, n)
        return test if extra_test is None else logical_and(test, extra_test())
    _loop(graph, more, lambda i: body_fn(iterated[i]), get_state, set_state, "for", names,
          live)
