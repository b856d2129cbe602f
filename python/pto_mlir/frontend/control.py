"""Python ``if`` statements on run-time conditions.

Tracing runs the kernel once, so a plain ``if`` only sees trace-time values.
PyPTO also lets a kernel branch on run-time conditions with a plain ``if``
(``if pypto.is_loop_begin(k):``). To trace both branches, the kernel's
source is rewritten once (same file, same lines and columns) so that every
``if`` statement runs through ``branches``::

    if TEST:                      for _pto_branch in _pto_branches(TEST):
        BODY             ->           if _pto_branch:
    else:                                 BODY
        ORELSE                        else:
                                          ORELSE

``branches`` yields ``bool(TEST)`` once for a trace-time value (so ordinary
Python ``if``s behave exactly as before) and, for a run-time ``Condition``,
records an ``scf.if`` and yields True (tracing the then region) and then
False (the else region). An ``if`` whose body uses ``break``/``continue`` of
an enclosing Python loop keeps its original form.

An ``if`` whose branches assign local names also hands their values
before the ``if`` and at the end of each branch to a ``RuntimeIf``
(if_results.py), which gives the else branch back the values from before
the ``if`` and rebinds the names after it to the value of the branch that
ran (``_RewriteIf._with_results`` shows the form).

A test combined with ``and``/``or``/``not`` is first unfolded into nested
``if`` statements with Python's short-circuit order, so each part is a
condition of its own (a run-time one becomes its own ``scf.if``) and a part
is evaluated only where Python would evaluate it (``if i < n and offs[i] >
0:`` reads ``offs[i]`` only when ``i < n``)::

    if A and B: S else: E   ->   if A: (if B: S else: E) else: E
    if A or B: S else: E    ->   if A: S else: (if B: S else: E)
    if not A: S else: E     ->   if A: E else: S

(the duplicated branch is traced once per path that reaches it).

Elsewhere (``c = a and b``, ``keep = not first``, an argument), ``and`` /
``or`` / ``not`` go through ``logic`` and ``negate``: on trace-time values
they are Python's own (same short-circuit, same results); once a part is a
run-time condition the combination is one too, an ``arith.andi`` /
``arith.ori`` / ``arith.xori`` of ``i1`` values. Such a combination has no
branch to hide its later parts in, so they are evaluated on every path;
a later part that would record anything but scalar arithmetic (a
``pto.read`` of a tensor element, a tile op) is an error at its line
naming the ``if`` form, which keeps Python's order.

The same rewrite routes Python's ``min(a, b, ...)`` and ``max(...)`` through
``minmax``: on symbolic scalars (``min(off + tile, rows)``) they become
``arith.minsi``/``maxsi`` like ``a.min(b)``; on anything else, and when the
name is not Python's builtin, they are called unchanged.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import copy
import functools
import inspect
import textwrap
import weakref

from .errors import TraceError
from .if_results import RuntimeIf
from .graph import Op, watch_inserts
from .symbolic import Comparison, Scalar
from .tracer import Condition, current_tracer, user_location

_BRANCHES = "_pto_branches"
_BRANCH = "_pto_branch"
_MINMAX = "_pto_minmax"
_LOGIC = "_pto_logic"
_NEGATE = "_pto_negate"
_IF_RESULTS = "_pto_if_results"
# What a part of a run-time and/or may record: scalar arithmetic only.
_PURE_KINDS = ("pto.is_loop_begin", "pto.is_loop_end", "pto.dim", "pto.valid_dim")
_rewritten: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def branches(test, text: str = "", results=None):
    """The branch selector of a rewritten ``if`` (``text``: its test's
    source; ``results``: the ``RuntimeIf`` of an ``if`` that assigns names)."""
    if isinstance(test, Comparison):
        test = current_tracer("a run-time `if`").compare(test, text or test.text())
    if not isinstance(test, Condition):
        yield bool(test)
        return
    if text:
        test.text = text
    tracer = current_tracer("a run-time `if`")
    op = tracer.open_if(test, user_location())
    if results is not None:
        results.opened(tracer, op)
    for then in (True, False):
        frame = tracer.enter_branch(op, then)
        completed = False
        try:
            yield then
            completed = True
        finally:
            tracer.leave_branch(frame)
            if not completed and tracer.aborted_loop is None:
                tracer.aborted_loop = op


def _runtime(value) -> bool:
    return isinstance(value, (Condition, Comparison))


def _as_condition(tracer, value, text: str) -> Condition:
    if isinstance(value, Comparison):
        return tracer.compare(value, text or value.text())
    return value


def _i1(tracer, kind: str, lhs, rhs, text: str) -> Condition:
    op = Op(kind, {"lhs": lhs, "rhs": rhs}, ["i1"], "cond", tracer.location())
    tracer.insert_scalar_op(op)
    return Condition(op.result, text)


def logic(kind: str, text: str, *parts):
    """``A and B and ...`` (``kind`` "and") or ``A or B ...`` outside an
    ``if`` test, each part a thunk. Trace-time parts keep Python's
    semantics; from the first run-time part on, the result is a run-time
    condition combining the rest with ``arith.andi`` / ``arith.ori``."""
    value = parts[0]()
    for part in parts[1:]:
        if not _runtime(value):
            if (kind == "and") != bool(value):
                return value                 # Python's short circuit
            value = part()
            continue
        tracer = current_tracer(f"`{text}` on a run-time condition")
        first = _as_condition(tracer, value, text)
        with watch_inserts() as recorded:
            other = part()
            if _runtime(other):
                other = _as_condition(tracer, other, text)
        impure = [op for op in recorded
                  if not (op.kind.startswith("arith.") or op.kind in _PURE_KINDS)]
        if impure:
            raise TraceError(
                f"`{text}`: {first.text} is a run-time condition, so the rest of this "
                f"`{kind}` would be evaluated on every path, and it records "
                f"'{impure[0].kind}' (reads memory or computes tiles), which Python would "
                f"skip when the condition decides; write it as an `if` test "
                f"(`if A {kind} B:`), which keeps Python's order", user_location())
        if not isinstance(other, Condition):
            # a trace-time right part decides or drops out: A and True is A,
            # A and False is False, A or True is True, A or False is A
            if kind == "and":
                value = first if other else other
            else:
                value = other if other else first
            continue
        value = _i1(tracer, "arith.andi" if kind == "and" else "arith.ori",
                    first.value, other.value, text)
    return value


def negate(value, text: str = ""):
    """``not A`` outside an ``if`` test: Python's for a trace-time value,
    ``arith.xori`` with true for a run-time condition."""
    if not _runtime(value):
        return not value
    tracer = current_tracer(f"`{text}` on a run-time condition")
    cond = _as_condition(tracer, value, text)
    return _i1(tracer, "arith.xori", cond.value, tracer.constant(1, "i1"), text)


def minmax(fn, *args, **kwargs):
    """``fn(*args)`` for a call written ``min(...)`` / ``max(...)`` in a
    kernel: the symbolic minimum or maximum when ``fn`` is the builtin and an
    argument is a symbolic scalar (the rest ints)."""
    if (fn is builtins.min or fn is builtins.max) and not kwargs and len(args) >= 2 \
            and any(isinstance(a, Scalar) for a in args) \
            and all(isinstance(a, Scalar) or (isinstance(a, int) and not isinstance(a, bool))
                    for a in args):
        kind = "min" if fn is builtins.min else "max"
        result = args[0]
        for other in args[1:]:
            result = Scalar.make(kind, result, other)
        return result
    return fn(*args, **kwargs)


def _is_minmax_call(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
        and node.func.id in ("min", "max")


class _LoopControl(ast.NodeVisitor):
    """Finds break/continue that would bind to the rewrite's ``for``."""

    def __init__(self):
        self.found = False

    def visit_Break(self, node):
        self.found = True

    visit_Continue = visit_Break

    def visit_For(self, node):        # their own loop: fine, but its else is ours
        for child in node.orelse:
            self.visit(child)

    visit_AsyncFor = visit_While = visit_For

    def visit_FunctionDef(self, node):
        return

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef


def _unfold(node: ast.If) -> ast.If | None:
    """``node`` with its ``and``/``or``/``not`` test unfolded one level into
    nested ``if`` statements (short-circuit order kept); None for a test
    that is not a boolean combination."""
    test = node.test

    def make_if(cond, body, orelse):
        new = ast.If(test=cond, body=body or [ast.Pass()], orelse=orelse)
        ast.copy_location(new, cond)
        for child in new.body:
            if not hasattr(child, "lineno"):
                ast.copy_location(child, cond)
        return new

    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return make_if(test.operand, node.orelse, node.body)
    if not isinstance(test, ast.BoolOp):
        return None
    first = test.values[0]
    rest = test.values[1] if len(test.values) == 2 else \
        ast.copy_location(ast.BoolOp(op=test.op, values=test.values[1:]), test.values[1])
    if isinstance(test.op, ast.And):     # E runs on both paths where A or B is false
        inner = make_if(rest, node.body, copy.deepcopy(node.orelse))
        return make_if(first, [inner], node.orelse)
    inner = make_if(rest, copy.deepcopy(node.body), node.orelse)   # or: S on both paths
    return make_if(first, node.body, [inner])


def _assigned(body: list, outer_names: set) -> list:
    """The local names ``body`` binds (``x = ...``, ``for x in``, ``with ...
    as x``, ``x :=``), in order, not counting nested functions, classes and
    comprehensions (their own scopes), ``global``/``nonlocal`` names and the
    rewrite's own names."""
    found: list = []

    def visit(node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append(node.name)
            return
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                             ast.GeneratorExp)):
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.append(node.id)
        for child in ast.iter_child_nodes(node):
            visit(child)

    for stmt in body:
        visit(stmt)
    return [n for n in dict.fromkeys(found)
            if n not in outer_names and not n.startswith("_pto_")]


class _RewriteIf(ast.NodeTransformer):
    def __init__(self, outer_names: set = frozenset()):
        self.outer_names = outer_names   # global / nonlocal names of the function
        self.count = 0
        self.located: set = set()        # nodes with the kernel's own positions

    def visit_If(self, node: ast.If):
        check = _LoopControl()
        for child in node.body + node.orelse:
            check.visit(child)
        if check.found:
            self.generic_visit(node)
            return node
        unfolded = _unfold(node)
        if unfolded is not None:
            return self.visit(unfolded)
        then_names = _assigned(node.body, self.outer_names)
        names = tuple(dict.fromkeys(then_names + _assigned(node.orelse, self.outer_names)))
        self.generic_visit(node)
        inner = ast.If(test=ast.Name(_BRANCH, ast.Load()), body=node.body,
                       orelse=node.orelse)
        call = ast.Call(func=ast.Name(_BRANCHES, ast.Load()),
                        args=[node.test, ast.Constant(ast.unparse(node.test))], keywords=[])
        loop = ast.For(target=ast.Name(_BRANCH, ast.Store()), iter=call, body=[inner],
                       orelse=[])
        self.located.update(ast.walk(node.test))
        for stmt in node.body + node.orelse:
            self.located.update(ast.walk(stmt))
        if not names:
            statements = [loop]
        else:
            statements = self._with_results(node, inner, call, loop, names, then_names)
        for stmt in statements:
            for new in ast.walk(stmt):
                if new in self.located:
                    continue
                ast.copy_location(new, node)
                new.end_lineno, new.end_col_offset = (node.test.end_lineno,
                                                      node.test.end_col_offset)
        return statements if len(statements) > 1 else loop

    def _with_results(self, node, inner, call, loop, names, then_names) -> list:
        """The ``if`` assigns ``names``: the branches run through a
        ``RuntimeIf`` (if_results.py) that rebinds them after the ``if``::

            _pto_if_N = _pto_if_results(TEST, "TEST", ("u",), locals())
            for _pto_branch in _pto_if_N:
                if _pto_branch:
                    BODY
                else:
                    if _pto_if_N.runtime: u = _pto_if_N.restore(("u",))
                    ORELSE
                _pto_if_N.leave(locals())
            if _pto_if_N.runtime: u = _pto_if_N.results()
        """
        self.count += 1
        handle = f"_pto_if_{self.count}"

        def load(name):
            return ast.Name(name, ast.Load())

        def targets(group):
            if len(group) == 1:
                return ast.Name(group[0], ast.Store())
            return ast.Tuple([ast.Name(n, ast.Store()) for n in group], ast.Store())

        def method(name, *args):
            return ast.Call(func=ast.Attribute(load(handle), name, ast.Load()), args=list(args),
                            keywords=[])

        def when_runtime(stmt):
            return ast.If(test=ast.Attribute(load(handle), "runtime", ast.Load()), body=[stmt],
                          orelse=[])

        def locals_call():
            return ast.Call(func=load("locals"), args=[], keywords=[])

        names_const = ast.Tuple([ast.Constant(n) for n in names], ast.Load())
        make = ast.Assign(targets=[ast.Name(handle, ast.Store())], value=ast.Call(
            func=load(_IF_RESULTS), args=[call.args[0], call.args[1], names_const,
                                          locals_call()], keywords=[]))
        loop.iter = load(handle)
        if then_names:
            restore = ast.Assign(targets=[targets(then_names)], value=method(
                "restore", ast.Tuple([ast.Constant(n) for n in then_names], ast.Load())))
            inner.orelse = [when_runtime(restore)] + (inner.orelse or [])
        loop.body.append(ast.Expr(method("leave", locals_call())))
        after = ast.Assign(targets=[targets(names)], value=method("results"))
        return [make, loop, when_runtime(after)]

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        if not _is_minmax_call(node):
            return node
        call = ast.Call(func=ast.Name(_MINMAX, ast.Load()), args=[node.func, *node.args],
                        keywords=node.keywords)
        ast.copy_location(call, node)
        ast.copy_location(call.func, node)
        return call

    def visit_BoolOp(self, node: ast.BoolOp):
        """``A and B`` outside an ``if`` test (the tests are unfolded first):
        ``logic("and", text, lambda: A, lambda: B)``, each part a thunk so
        Python's short circuit holds for trace-time values."""
        self.generic_visit(node)
        if any(isinstance(n, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await))
               for n in ast.walk(node)):
            return node                  # would not survive being put in a lambda
        kind = "and" if isinstance(node.op, ast.And) else "or"
        thunks = [ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[],
                                                kw_defaults=[], defaults=[]), body=v)
                  for v in node.values]
        call = ast.Call(func=ast.Name(_LOGIC, ast.Load()),
                        args=[ast.Constant(kind), ast.Constant(ast.unparse(node)), *thunks],
                        keywords=[])
        for new in (call, call.func, *call.args, *(t.args for t in thunks)):
            ast.copy_location(new, node)
        return call

    def visit_UnaryOp(self, node: ast.UnaryOp):
        self.generic_visit(node)
        if not isinstance(node.op, ast.Not):
            return node
        call = ast.Call(func=ast.Name(_NEGATE, ast.Load()),
                        args=[node.operand, ast.Constant(ast.unparse(node))], keywords=[])
        for new in (call, call.func, call.args[1]):
            ast.copy_location(new, node)
        return call

    def visit_FunctionDef(self, node):   # nested functions are not traced as kernels
        return node

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef


def traceable(fn):
    """``fn`` with its ``if`` statements able to branch on run-time
    conditions; ``fn`` itself when its source is unavailable or has no
    ``if``."""
    cached = _rewritten.get(fn)
    if cached is not None:
        return cached
    result = _rewrite(fn) or fn
    _rewritten[fn] = result
    return result


def _rewrite(fn):
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return None
    indent = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
    try:
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError:
        return None
    func = tree.body[0] if tree.body else None
    if not isinstance(func, ast.FunctionDef) or func.name != fn.__name__:
        return None
    if not any(isinstance(n, (ast.If, ast.BoolOp)) or _is_minmax_call(n)
               or (isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not))
               for stmt in func.body for n in ast.walk(stmt)):
        return None
    func.decorator_list = []
    outer_names = {name for n in ast.walk(func) if isinstance(n, (ast.Global, ast.Nonlocal))
                   for name in n.names}
    rewrite = _RewriteIf(outer_names)
    body = []
    for stmt in func.body:
        new = rewrite.visit(stmt)
        body.extend(new if isinstance(new, list) else [new])
    func.body = body
    # Back to the file's lines and columns, so locations and tracebacks
    # name the kernel's own source positions.
    for node in ast.walk(func):
        if hasattr(node, "lineno"):
            node.lineno += first - 1
            node.end_lineno = (node.end_lineno or node.lineno - first + 1) + first - 1
            node.col_offset += indent
            if node.end_col_offset is not None:
                node.end_col_offset += indent
    freevars = fn.__code__.co_freevars
    maker = ast.FunctionDef(
        name="_pto_make", args=ast.arguments(
            posonlyargs=[], args=[ast.arg(_BRANCHES), ast.arg(_MINMAX), ast.arg(_LOGIC),
                                  ast.arg(_NEGATE), ast.arg(_IF_RESULTS)]
            + [ast.arg(v) for v in freevars],
            kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[func, ast.Return(ast.Name(fn.__name__, ast.Load()))], decorator_list=[],
        returns=None)
    for node in (maker, maker.body[1], maker.body[1].value, *maker.args.args):
        ast.copy_location(node, func)
    module = ast.Module(body=[maker], type_ignores=[])
    ast.fix_missing_locations(module)
    try:
        code = compile(module, fn.__code__.co_filename, "exec")
    except SyntaxError:
        return None
    namespace: dict = {}
    exec(code, fn.__globals__, namespace)  # noqa: S102 - the kernel's own source
    cells = [c.cell_contents for c in (fn.__closure__ or ())]
    rewritten = namespace["_pto_make"](branches, minmax, logic, negate, RuntimeIf,
                                         *cells)
    rewritten.__defaults__ = fn.__defaults__
    rewritten.__kwdefaults__ = fn.__kwdefaults__
    return rewritten


def _is_plain_helper(obj, filename: str) -> bool:
    """A plain Python function of the kernel's own file (not a kernel, not
    already a ``@pypto.frontend.function``), whose ``if``s may branch on
    run-time conditions once rewritten; ``nonlocal`` would not survive the
    rewrite, so such functions are left alone."""
    code = getattr(obj, "__code__", None)
    return (inspect.isfunction(obj) and code is not None and code.co_filename == filename
            and not hasattr(obj, "__pto_function__") and "nonlocal" not in
            (inspect.getsource(obj) if _has_source(obj) else "nonlocal"))


def _has_source(fn) -> bool:
    try:
        inspect.getsourcelines(fn)
        return True
    except (OSError, TypeError):
        return False


@contextlib.contextmanager
def helpers_traceable(kernel_fn):
    """While a kernel is traced, the plain helper functions of its own file
    that it calls by their global names (``compute_loop_s2(ctx, ...)``) get
    the kernel's ``if`` rewrite, so ``if pypto.cond(pypto.is_loop_begin(i)):``
    in a helper branches at run time as in the kernel body (PyPTO kernels
    split their bodies into such helpers). Trace-time ``if``s behave exactly
    as before; the module's globals are restored afterwards."""
    namespace = kernel_fn.__globals__
    filename = kernel_fn.__code__.co_filename
    saved = {name: obj for name, obj in list(namespace.items())
             if obj is not kernel_fn and _is_plain_helper(obj, filename)}
    try:
        for name, obj in saved.items():
            namespace[name] = traceable(obj)
        yield
    finally:
        for name, obj in saved.items():
            namespace[name] = obj


def function(fn=None):
    """``@pypto.frontend.function``: a helper the kernel calls, traced inline
    where it is called (its ops located at the helper's own lines). Like the
    kernel body, its ``if`` statements may branch on run-time conditions and
    its ``min``/``max`` take symbolic scalars (the same rewrite, see
    ``traceable``). ``@function`` and ``@function()`` are both accepted."""
    if fn is None:
        return function
    if not callable(fn):
        raise TraceError(f"pypto.frontend.function decorates a Python function, got "
                         f"{type(fn).__name__} {fn!r}", user_location())

    @functools.wraps(fn)
    def helper(*args, **kwargs):
        return traceable(fn)(*args, **kwargs)

    helper.__pto_function__ = fn
    return helper
