"""A small AutoGraph: `if`, `while` and `for` statements on tensors, inside a tf.function.

While a tf.function traces, `if x > 0:` on a tensor cannot be decided in Python (the
tensor has no value yet). TensorFlow's AutoGraph rewrites such statements into
`tf.cond` / `tf.while_loop`; this module does the same for the simple forms:

    if <test>:            ->   def true_():  nonlocal a, b; <body>;   return a, b
        <body>                 def false_(): nonlocal a, b; <orelse>; return a, b
    else:                      a, b = if_stmt(<test>, true_, false_, get, set)
        <orelse>

    while <test>:         ->   def cond(): return <test>
        <body>                 def body(): nonlocal a, b; <body>
                               while_stmt(cond, body, get, set, ...)

    for x in <iter>:      ->   def body(element): nonlocal a, b; x = element; <body>
        <body>                 for_stmt(<iter>, extra_test, body, get, set, ...)

where `a, b` are the names the statement assigns. `break` / `continue` in a loop become
flags first (`_rewrite_jumps`, AutoGraph's own rewrite), and the `if`s that rewrite
makes are converted like any other. At run time the rewritten code looks at the test
(the iterated value): a graph tensor goes to autograph_runtime.py, which builds the
cond / while_loop; anything else runs the original Python statement (so Python control
flow on Python values is unchanged: unrolled at trace time, as in TF).

Not converted (left as Python; docs/eager.md): statements containing `return`,
`yield`, `global`, `nonlocal` or a nested def; loops with `else:`; a jump inside a
`with`/`try`. A function whose source cannot be read (a lambda defined inline with
others, a builtin, code given to exec) is traced unconverted.
"""
import ast
import copy
import functools
import inspect
import textwrap

from tfteach.eager import autograph_runtime
from tfteach.eager.autograph_runtime import (UNDEFINED, _is_graph_tensor, for_stmt,  # noqa: F401
                                             if_stmt, read, while_stmt)

__all__ = ["convert", "if_stmt", "while_stmt", "for_stmt"]

_HELPERS = "__tfteach_autograph__"


class _Assigned(ast.NodeVisitor):
    """The names a list of statements assigns, and the `break`/`continue` that belong
    to the loop around them (those inside a nested loop belong to it). `unsupported`:
    something no conversion handles (a nested def, `return`, `yield`, `global`, a jump
    inside a `with`/`try`)."""

    def __init__(self):
        self.names = []
        self.jumps = set()
        self.unsupported = False
        self._loops = 0
        self._other_blocks = 0

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Store) and node.id not in self.names:
            self.names.append(node.id)

    def visit_FunctionDef(self, node):
        self.unsupported = True

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef

    def _loop(self, node):
        self._loops += 1
        self.generic_visit(node)
        self._loops -= 1

    visit_For = visit_While = visit_AsyncFor = _loop

    def _block(self, node):
        self._other_blocks += 1
        self.generic_visit(node)
        self._other_blocks -= 1

    visit_With = visit_AsyncWith = visit_Try = _block

    def _jump(self, node):
        if self._loops:
            return
        if self._other_blocks:
            self.unsupported = True
        self.jumps.add(type(node).__name__.lower())

    visit_Break = visit_Continue = _jump

    def generic_visit(self, node):
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal,
                             ast.Await)):
            self.unsupported = True
        super().generic_visit(node)


def _assigned(statements):
    """(names, jumps) of `statements`, or None if they cannot be converted."""
    finder = _Assigned()
    for s in statements:
        finder.visit(s)
    return None if finder.unsupported else (finder.names, finder.jumps)


def _has_jump(statement):
    found = _assigned([statement])
    return found is not None and bool(found[1])


def _rewrite_jumps(statements, flags):
    """`break`/`continue` (alone or in `if`s) become flag assignments, and the
    statements after one run under `if not (break_flag or continue_flag)` — TF
    AutoGraph's rewrite, which the `if` conversion then turns into tf.cond."""
    out = []
    for k, s in enumerate(statements):
        if isinstance(s, (ast.Break, ast.Continue)):
            name = flags["break" if isinstance(s, ast.Break) else "continue"]
            out.append(ast.parse("%s = %s.true()" % (name, _HELPERS)).body[0])
            return out                         # what follows a jump never runs
        if isinstance(s, ast.If) and _has_jump(s):
            s.body = _rewrite_jumps(s.body, flags)
            s.orelse = _rewrite_jumps(s.orelse, flags)
            out.append(s)
            rest = statements[k + 1:]
            if rest:
                guard = ast.parse("if %s.not_any(%s):\n    pass" % (
                    _HELPERS, ", ".join(flags.values()))).body[0]
                guard.body = _rewrite_jumps(rest, flags)
                out.append(guard)
            return out
        out.append(s)
    return out


class _Transformer(ast.NodeTransformer):
    def __init__(self, function):
        self.count = 0
        self.changed = False
        # (name, line) of every read in the function, before any rewrite: which names a
        # loop assigns are read after it (they must then be defined before it).
        self.reads = [(n.id, n.lineno) for n in ast.walk(function)
                      if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]

    def _names_args(self, node, names):
        after = {name for name, line in self.reads if line > node.end_lineno}
        return "names=%r, live=%r" % (tuple(names), tuple(n for n in names if n in after))

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

    def _visit_list(self, statements):
        out = []
        for s in statements:
            s = self.visit(s)
            out.extend(s if isinstance(s, list) else [s])
        return out

    def _dispatch(self, tag, graph_body, python_body):
        check = ast.parse("%s._is_graph_tensor(test_%s)" % (_HELPERS, tag),
                          mode="eval").body
        return ast.If(test=check, body=graph_body, orelse=python_body)

    def _function(self, name, args, names, body):
        fn = ast.parse("def %s(%s):\n    pass" % (name, ", ".join(args))).body[0]
        fn.body = ([ast.Nonlocal(names=list(names))] if names else []) + list(body)
        if not fn.body:
            fn.body = [ast.Pass()]
        return fn

    def visit_If(self, node):
        found = _assigned(node.body + node.orelse)
        if found is None or found[1]:       # a jump belongs to the loop's rewrite
            return node
        names = found[0]
        node.body = self._visit_list(node.body)
        node.orelse = self._visit_list(node.orelse)
        self.count += 1
        self.changed = True
        tag = "if_%d" % self.count
        ret = "(%s,)" % ", ".join(names) if names else "()"
        returned = [ast.parse("return %s" % ret).body[0]]
        true_fn = self._function("true_" + tag, [], names, node.body + returned)
        false_fn = self._function("false_" + tag, [], names, node.orelse + returned)
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

    def _loop_parts(self, node, tag):
        """The loop body for the graph (jumps rewritten into flags, then converted),
        the flags' initialisation, and the names the loop carries."""
        found = _assigned(node.body)
        if found is None or node.orelse:
            return None
        names, jumps = found
        flags = {jump: "%s_%s" % (jump, tag) for jump in sorted(jumps)}
        body = copy.deepcopy(node.body)
        if flags:
            body = _rewrite_jumps(body, flags)
            if "continue" in flags:     # cleared at the start of each iteration
                body = ast.parse("%s = %s.false()" % (flags["continue"], _HELPERS)).body \
                    + body
            names = names + [f for f in flags.values() if f not in names]
        init = [ast.parse("%s = %s.false()" % (f, _HELPERS)).body[0] for f in flags.values()]
        return self._visit_list(body), init, names, flags

    def visit_While(self, node):
        self.count += 1
        tag = "while_%d" % self.count
        parts = self._loop_parts(node, tag)
        self.generic_visit(node)              # the Python loop's body, converted inside
        if parts is None:
            return node
        body, init, names, flags = parts
        self.changed = True
        test_fn = ast.parse("def cond_%s():\n    return None" % tag).body[0]
        test_fn.body[0].value = copy.deepcopy(node.test)
        if "break" in flags:
            test_fn.body[0].value = ast.parse("%s.and_not(None, %s)" % (
                _HELPERS, flags["break"]), mode="eval").body
            test_fn.body[0].value.args[0] = copy.deepcopy(node.test)
        body_fn = self._function("body_" + tag, [], names, body)
        call = ast.parse("%s.while_stmt(cond_%s, body_%s, get_%s, set_%s, %s)"
                         % (_HELPERS, tag, tag, tag, tag,
                            self._names_args(node, names))).body[0]
        test = ast.Assign(targets=[ast.Name(id="test_" + tag, ctx=ast.Store())],
                          value=node.test)
        # Python's loop, the test evaluated once per iteration as before.
        again = ast.Assign(targets=[ast.Name(id="test_" + tag, ctx=ast.Store())],
                           value=copy.deepcopy(node.test))
        python = ast.While(test=ast.Name(id="test_" + tag, ctx=ast.Load()),
                           body=list(node.body) + [again], orelse=[])
        if _assigned(node.body)[1]:
            # `continue` would skip `again`: keep Python's own loop, testing in place.
            python = ast.While(test=copy.deepcopy(node.test), body=list(node.body),
                               orelse=[])
            python = ast.If(test=ast.Name(id="test_" + tag, ctx=ast.Load()),
                            body=[python], orelse=[])
        graph = (init + self._state_functions(names, tag)
                 + [test_fn, body_fn, call])
        return [test, self._dispatch(tag, graph, [python])]

    def visit_For(self, node):
        self.count += 1
        tag = "for_%d" % self.count
        parts = self._loop_parts(node, tag)
        self.generic_visit(node)
        if parts is None:
            return node
        body, init, names, flags = parts
        targets = _assigned([ast.Assign(targets=[node.target], value=ast.Constant(0))])[0]
        names = [n for n in names if n not in targets]   # the iterate is the body's own
        self.changed = True
        element = "element_" + tag
        assign_target = ast.Assign(targets=[copy.deepcopy(node.target)],
                                   value=ast.Name(id=element, ctx=ast.Load()))
        body_fn = self._function("body_" + tag, [element], names, [assign_target] + body)
        extra = "None"
        graph = init + self._state_functions(names, tag)
        if "break" in flags:
            extra = "extra_" + tag
            graph.append(ast.parse("def %s():\n    return %s.not_any(%s)" % (
                extra, _HELPERS, flags["break"])).body[0])
        call = ast.parse("%s.for_stmt(test_%s, %s, body_%s, get_%s, set_%s, %s)"
                         % (_HELPERS, tag, extra, tag, tag, tag,
                            self._names_args(node, names))).body[0]
        iterated = node.iter
        if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and \
                iterated.func.id == "range" and not iterated.keywords:
            # `range(n)` of a tensor is tf.range(n), as in TF's AutoGraph
            iterated = ast.Call(func=ast.Attribute(value=ast.Name(id=_HELPERS, ctx=ast.Load()),
                                                   attr="range_", ctx=ast.Load()),
                                args=iterated.args, keywords=[])
        test = ast.Assign(targets=[ast.Name(id="test_" + tag, ctx=ast.Store())],
                          value=iterated)
        python = ast.For(target=node.target, iter=ast.Name(id="test_" + tag, ctx=ast.Load()),
                         body=node.body, orelse=node.orelse, type_comment=None)
        graph += [body_fn, call]
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
    transformer = _Transformer(func)
    func.body = transformer._visit_list(func.body)
    if not transformer.changed:
        return fn
    tree = ast.fix_missing_locations(ast.Module(body=[func], type_ignores=[]))
    ast.increment_lineno(tree, target.__code__.co_firstlineno - 1)   # the file's lines
    namespace = dict(target.__globals__)
    if target.__closure__:
        namespace.update(zip(target.__code__.co_freevars,
                             (c.cell_contents for c in target.__closure__)))
    namespace[_HELPERS] = autograph_runtime
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
