"""A small AutoGraph: `if` and `while` statements on tensors, inside a tf.function.

While a tf.function traces, `if x > 0:` on a tensor cannot be decided in Python (the
tensor has no value yet). TensorFlow's AutoGraph rewrites such statements into
`tf.cond` / `tf.while_loop`; this module does the same for the simple forms:

    if <test>:            ->   def if_true():  nonlocal a, b; <body>;   return a, b
        <body>                 def if_false(): nonlocal a, b; <orelse>; return a, b
    else:                      a, b = if_stmt(<test>, if_true, if_false, get, set)
        <orelse>

    while <test>:         ->   def cond(): return <test>
        <body>                 def body(): nonlocal a, b; <body>
                               while_stmt(cond, body, get, set)

where `a, b` are the names the statement assigns. At run time `if_stmt` and
`while_stmt` look at the test: a Python value (or an eager tensor) runs the plain
Python statement; a graph tensor builds `tf.cond` / `tf.while_loop` with those names as
the branches' outputs / the loop variables. So Python control flow on Python values is
unchanged (unrolled at trace time, as in TF).

Not converted (left as Python; docs/eager.md): statements containing `return`,
`break`, `continue`, `yield`, `global` or `nonlocal`; `for` loops; a name first assigned
inside a converted statement must exist before it. A function whose source cannot be
read (a lambda defined inline with others, a builtin) is traced unconverted.
"""
import ast
import functools
import inspect
import textwrap

__all__ = ["convert", "if_stmt", "while_stmt"]

_HELPERS = "__tfteach_autograph__"


def _is_graph_tensor(value):
    from tfteach.framework.tensor import Tensor
    return isinstance(value, Tensor) and not hasattr(value, "_value")


class _Undefined:
    def __repr__(self):
        return "<undefined>"


UNDEFINED = _Undefined()


def read(name_thunk):
    """The value of a variable, or UNDEFINED if it is not bound yet."""
    try:
        return name_thunk()
    except NameError:
        return UNDEFINED


def if_stmt(test, if_true, if_false, get_state, set_state):
    """`tf.cond` for a converted `if`. Each branch also returns a marker that depends
    on the branch's stateful ops (a variable update, a Print), so that the function
    runs them on every call, as TF's automatic control dependencies do."""
    from tfteach.framework import graph as graph_lib
    from tfteach.ops.cond_ops import cond
    from tfteach.ops.constant_op import constant, identity
    graph = graph_lib.get_default_graph()
    before = get_state()

    def branch(fn, which):
        def run():
            set_state(before)
            start = len(graph._nodes_in_order)
            values = fn()
            for value in values:
                if value is UNDEFINED:
                    raise ValueError(
                        "a variable the `if` statement assigns in one branch must also be "
                        "assigned in the %s branch (or before the `if`), for tf.cond"
                        % which)
            effects = [op for op in graph._nodes_in_order[start:]
                       if op._op_def.ref_inputs or op.type in ("Print", "Assert")]
            with graph.control_dependencies(effects):
                marker = identity(constant(True))
            return tuple(values) + (marker,)
        return run
    result = cond(test, branch(if_true, "true"), branch(if_false, "else"))
    result = tuple(result) if isinstance(result, (list, tuple)) else (result,)
    after = getattr(graph, "after_branches", None)
    if after is not None:
        after(result[-1].op)
    return result[:-1]


def while_stmt(test_fn, body_fn, get_state, set_state):
    from tfteach.ops.while_ops import while_loop

    def cond(*state):
        set_state(state)
        return test_fn()

    def body(*state):
        set_state(state)
        body_fn()
        return tuple(get_state())
    state = tuple(get_state())
    if any(value is UNDEFINED for value in state):
        raise ValueError("a variable the `while` loop assigns must be assigned before the "
                         "loop, for tf.while_loop")
    set_state(tuple(while_loop(cond, body, state, return_same_structure=True)))


class _Assigned(ast.NodeVisitor):
    def __init__(self):
        self.names = []
        self.unsupported = False

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Store) and node.id not in self.names:
            self.names.append(node.id)

    def visit_FunctionDef(self, node):
        self.unsupported = True

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef

    def generic_visit(self, node):
        if isinstance(node, (ast.Return, ast.Break, ast.Continue, ast.Yield, ast.YieldFrom,
                             ast.Global, ast.Nonlocal)):
            self.unsupported = True
        super().generic_visit(node)


def _assigned(statements):
    finder = _Assigned()
    for s in statements:
        finder.visit(s)
    return None if finder.unsupported else finder.names


class _Transformer(ast.NodeTransformer):
    def __init__(self):
        self.count = 0
        self.changed = False

    def _state_functions(self, names, tag):
        # A name not bound yet reads as UNDEFINED (it may be bound by both branches).
        tuple_load = "(%s,)" % ", ".join("%s.read(lambda: %s)" % (_HELPERS, n)
                                         for n in names) if names else "()"
        nonlocal_line = "nonlocal %s\n    " % ", ".join(names) if names else ""
        code = ("def get_%s():\n    return %s\n"
                "def set_%s(values):\n    %s%s = values\n" % (
                    tag, tuple_load, tag, nonlocal_line,
                    "(%s,)" % ", ".join(names) if names else "_"))
        return ast.parse(code).body

    def visit_If(self, node):
        self.generic_visit(node)
        names = _assigned(node.body + node.orelse)
        if names is None:
            return node
        self.count += 1
        self.changed = True
        tag = "if_%d" % self.count
        ret = "(%s,)" % ", ".join(names) if names else "()"
        nl = [ast.Nonlocal(names=list(names))] if names else []
        true_fn = ast.parse("def true_%s():\n    pass" % tag).body[0]
        true_fn.body = nl + list(node.body) + [ast.parse("return %s" % ret).body[0]]
        false_fn = ast.parse("def false_%s():\n    pass" % tag).body[0]
        false_fn.body = nl + list(node.orelse) + [ast.parse("return %s" % ret).body[0]]
        call = ast.parse("%s = %s.if_stmt(test_%s, true_%s, false_%s, get_%s, set_%s)"
                         % (ret if names else "_", _HELPERS, tag, tag, tag, tag, tag)).body[0]
        # The test is evaluated once; a value that is not a graph tensor runs the
        # original statement, unchanged (so Python control flow keeps Python's rules).
        test = ast.Assign(targets=[ast.Name(id="test_" + tag, ctx=ast.Store())],
                          value=node.test)
        python = ast.If(test=ast.Name(id="test_" + tag, ctx=ast.Load()), body=node.body,
                        orelse=node.orelse)
        graph = self._state_functions(names, tag) + [true_fn, false_fn, call]
        return [test, self._dispatch(tag, graph, [python])]

    def _dispatch(self, tag, graph_body, python_body):
        check = ast.parse("%s._is_graph_tensor(test_%s)" % (_HELPERS, tag),
                          mode="eval").body
        return ast.If(test=check, body=graph_body, orelse=python_body)

    def visit_While(self, node):
        self.generic_visit(node)
        names = _assigned(node.body)
        if names is None or node.orelse:
            return node
        self.count += 1
        self.changed = True
        tag = "while_%d" % self.count
        test_fn = ast.parse("def cond_%s():\n    return None" % tag).body[0]
        test_fn.body[0].value = node.test
        body_fn = ast.parse("def body_%s():\n    pass" % tag).body[0]
        body_fn.body = ([ast.Nonlocal(names=list(names))] if names else []) + list(node.body)
        call = ast.parse("%s.while_stmt(cond_%s, body_%s, get_%s, set_%s)"
                         % (_HELPERS, tag, tag, tag, tag)).body[0]
        test = ast.Assign(targets=[ast.Name(id="test_" + tag, ctx=ast.Store())],
                          value=node.test)
        # Python's loop, the test evaluated once per iteration as before.
        again = ast.Assign(targets=[ast.Name(id="test_" + tag, ctx=ast.Store())],
                           value=node.test)
        python = ast.While(test=ast.Name(id="test_" + tag, ctx=ast.Load()),
                           body=list(node.body) + [again], orelse=[])
        graph = self._state_functions(names, tag) + [test_fn, body_fn, call]
        return [test, self._dispatch(tag, graph, [python])]


def convert(fn):
    """`fn` with its tensor `if`/`while` statements converted; `fn` itself if it has
    none, or if its source cannot be read or converted."""
    target = fn.func if isinstance(fn, functools.partial) else fn
    if not inspect.isfunction(target):
        return fn
    try:
        source = textwrap.dedent(inspect.getsource(target))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError, IndentationError):
        return fn
    func = tree.body[0] if tree.body else None
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or \
            func.name != target.__name__:
        return fn
    func.decorator_list = []
    transformer = _Transformer()
    func.body = [transformer.visit(s) for s in func.body]
    flat = []
    for s in func.body:
        flat.extend(s if isinstance(s, list) else [s])
    func.body = flat
    if not transformer.changed:
        return fn
    tree = ast.fix_missing_locations(ast.Module(body=[func], type_ignores=[]))
    ast.increment_lineno(tree, target.__code__.co_firstlineno - 1)   # the file's lines
    namespace = dict(target.__globals__)
    if target.__closure__:
        namespace.update(zip(target.__code__.co_freevars,
                             (c.cell_contents for c in target.__closure__)))
    import sys
    namespace[_HELPERS] = sys.modules[__name__]
    try:
        exec(compile(tree, inspect.getsourcefile(target) or "<autograph>", "exec"),  # noqa: S102
             namespace)
    except (SyntaxError, ValueError):
        return fn
    converted = namespace[func.name]
    converted.__defaults__ = target.__defaults__
    converted.__kwdefaults__ = target.__kwdefaults__
    if isinstance(fn, functools.partial):
        return functools.partial(converted, *fn.args, **fn.keywords)
    return converted
