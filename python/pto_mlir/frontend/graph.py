"""The traced program: a small op tree printed as ``pto`` dialect text.

The tracer builds ``Op``/``Block``/``Value`` objects (one op per PyPTO call,
each with the Python location it came from) and prints them in the dialect's
custom syntax with ``loc("file.py":line:col)`` on every op, so MLIR's
verifier, the checkers and the interpreter report the user's Python line.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def mlir(self) -> str:
        escaped = self.file.replace("\\", "\\\\").replace('"', '\\"')
        return f'loc("{escaped}":{self.line}:{self.column})'


class Value:
    """An SSA value: an op result or a block argument."""

    __slots__ = ("type", "hint", "op", "block", "scope", "user_named")

    def __init__(self, type: str, hint: str, op: "Op | None" = None,
                 block: "Block | None" = None):
        self.type = type
        self.hint = hint
        self.op = op          # defining op (None for block arguments)
        self.block = block    # block holding the definition
        self.scope = None     # the pto.scope op whose body defines it
        self.user_named = False  # hint taken from the Python variable holding it

    def __repr__(self) -> str:
        return f"<Value {self.hint}: {self.type}>"


class Block:
    """A region's single block. ``memo`` caches materialised scalar
    expressions (key -> Value) defined in this block."""

    __slots__ = ("ops", "args", "parent_op", "memo")

    def __init__(self, parent_op: "Op | None" = None):
        self.ops: list = []
        self.args: list = []
        self.parent_op = parent_op
        self.memo: dict = {}

    @property
    def parent_block(self) -> "Block | None":
        return self.parent_op.block if self.parent_op is not None else None

    def is_ancestor_of(self, other: "Block") -> bool:
        """True if ``other`` is this block or nested in it."""
        block = other
        while block is not None:
            if block is self:
                return True
            block = block.parent_block
        return False


class Op:
    """One operation. ``fields`` holds operands and attributes by name; the
    printer of ``kind`` knows the syntax. Mixed static/dynamic lists hold ints
    and ``Value``s."""

    __slots__ = ("kind", "fields", "results", "body", "else_body", "loc", "block",
                 "scope_results")

    def __init__(self, kind: str, fields: dict, result_types=(), result_hint: str = "",
                 loc: Location | None = None, has_body: bool = False):
        self.kind = kind
        self.fields = fields
        self.results = [Value(t, result_hint, op=self) for t in result_types]
        self.body = Block(self) if has_body else None
        self.else_body = None           # scf.if: the else region
        self.loc = loc
        self.block = None
        self.scope_results: list = []   # pto.scope: the inner values used after it

    @property
    def result(self) -> Value:
        return self.results[0]

    def operand_values(self):
        def walk(x):
            if isinstance(x, Value):
                yield x
            elif isinstance(x, (list, tuple)):
                for y in x:
                    yield from walk(y)
        for value in self.fields.values():
            yield from walk(value)


_insert_watchers: list = []


@contextlib.contextmanager
def watch_inserts():
    """The ops inserted anywhere while the block runs (a list filled in
    insertion order)."""
    seen: list = []
    _insert_watchers.append(seen)
    try:
        yield seen
    finally:
        _insert_watchers.remove(seen)


def insert_op(block: Block, op: Op, index: int | None = None) -> Op:
    for seen in _insert_watchers:
        seen.append(op)
    op.block = block
    if index is None:
        block.ops.append(op)
    else:
        block.ops.insert(index, op)
    for r in op.results:
        r.block = block
        if block.parent_op is not None and block.parent_op.kind == "pto.scope":
            r.scope = block.parent_op
    return op


def walk_ops(block: Block):
    for op in block.ops:
        yield op
        if op.body is not None:
            yield from walk_ops(op.body)
        if op.else_body is not None:
            yield from walk_ops(op.else_body)


def resolve_scope_results(kernel_body: Block) -> None:
    """Makes every value computed in a pto.scope and used after it a result of
    the scope (in order of first use), as ``sg_set_scope`` regions require."""
    for op in walk_ops(kernel_body):
        for value in op.operand_values():
            scope = value.scope
            if scope is None or op.block is scope.body:
                continue
            if value not in scope.scope_results:
                scope.scope_results.append(value)


# ----------------------------------------------------------------------------
# Printing
# ----------------------------------------------------------------------------

def _discardable(op: Op) -> list:
    """Attributes the ambient state adds to any tile op (``pto.ooo_scope``)."""
    return op.fields.get("discardable", [])


_NAME_RE = re.compile(r"[^A-Za-z0-9_$.]")


class Printer:
    def __init__(self, arg_names=(), idx_names=()):
        """Kernel argument names and loop index names are reserved: other
        values never print under them."""
        self.arg_names = set(arg_names)
        self.names: dict = {}          # Value -> "%name"
        self.scope_names: dict = {}    # (scope op, Value) -> "%name"
        self.used: set = set(arg_names) | set(idx_names)
        self.lines: list = []

    def fresh(self, hint: str) -> str:
        base = _NAME_RE.sub("_", hint or "v") or "v"
        if base[0].isdigit():
            base = "v" + base
        name, n = base, 0
        while name in self.used:
            n += 1
            name = f"{base}_{n}"
        self.used.add(name)
        return "%" + name

    def define(self, value: Value, hint: str | None = None) -> str:
        name = self.fresh(hint if hint is not None else value.hint)
        self.names[value] = name
        return name

    def use(self, value: Value, user_block: Block) -> str:
        scope = value.scope
        if scope is not None and user_block is not scope.body:
            return self.scope_names[(scope, value)]
        return self.names[value]

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("  " * depth + text)

    # -- pieces -----------------------------------------------------------------

    def mixed(self, items, block: Block) -> str:
        return "[" + ", ".join(str(x) if isinstance(x, int) else self.use(x, block)
                               for x in items) + "]"

    @staticmethod
    def attr_dict(attrs: list) -> str:
        return (" {" + ", ".join(attrs) + "}") if attrs else ""

    # -- ops ----------------------------------------------------------------------

    def print_block(self, block: Block, depth: int) -> None:
        for op in block.ops:
            self.print_op(op, depth)

    def print_op(self, op: Op, depth: int) -> None:
        loc = " " + op.loc.mlir() if op.loc else ""
        printer = _OP_PRINTERS.get(op.kind)
        if printer is None and op.kind.startswith("arith."):
            printer = Printer._print_arith_index
        if printer is None:  # pragma: no cover - every kind the tracer creates has one
            raise AssertionError(f"no printer for {op.kind}")
        printer(self, op, depth, loc)

    # One printer per op kind (or per family printed alike); _OP_PRINTERS,
    # after the class, maps each kind the tracer creates to its printer.

    def _print_constant(self, op: Op, depth: int, loc: str) -> None:
        f = op.fields
        res = self.define(op.result)
        self.emit(depth, f"{res} = arith.constant {f['value']} : {op.result.type}{loc}")

    def _print_cmpi(self, op: Op, depth: int, loc: str) -> None:
        f, b = op.fields, op.block
        res = self.define(op.result)
        lhs, rhs = self.use(f["lhs"], b), self.use(f["rhs"], b)
        self.emit(depth, f"{res} = arith.cmpi {f['predicate']}, {lhs}, {rhs} : index{loc}")

    def _print_arith_index(self, op: Op, depth: int, loc: str) -> None:
        f, b, kind = op.fields, op.block, op.kind
        res = self.define(op.result)
        lhs, rhs = self.use(f["lhs"], b), self.use(f["rhs"], b)
        self.emit(depth, f"{res} = {kind} {lhs}, {rhs} : {op.result.type}{loc}")

    def _print_dim(self, op: Op, depth: int, loc: str) -> None:
        f, b = op.fields, op.block
        res = self.define(op.result)
        self.emit(depth, f"{res} = pto.dim {self.use(f['source'], b)}, {f['dim']} : "
                         f"{f['source'].type}{loc}")

    def _print_valid_dim(self, op: Op, depth: int, loc: str) -> None:
        f, b = op.fields, op.block
        res = self.define(op.result)
        self.emit(depth, f"{res} = pto.valid_dim {self.use(f['source'], b)}, {f['dim']} : "
                         f"{f['source'].type}{loc}")

    def _print_read(self, op: Op, depth: int, loc: str) -> None:
        f, b = op.fields, op.block
        res = self.define(op.result)
        idx = ", ".join(self.use(i, b) for i in f["indices"])
        self.emit(depth, f"{res} = pto.read {self.use(f['tensor'], b)}[{idx}] : "
                         f"{f['tensor'].type}{loc}")

    def _print_reshape(self, op: Op, depth: int, loc: str) -> None:
        f, b = op.fields, op.block
        res = self.define(op.result)
        inplace = " inplace" if f["inplace"] else ""
        self.emit(depth, f"{res} = pto.reshape {self.use(f['source'], b)} "
                         f"{self.mixed(f['shape'], b)}{inplace}"
                         f"{self.attr_dict(_discardable(op))} : {f['source'].type} -> "
                         f"{op.result.type}{loc}")

    def _print_view(self, op: Op, depth: int, loc: str) -> None:
        f, b = op.fields, op.block
        res = self.define(op.result)
        valid = (f" valid {self.mixed(f['valid'], b)}" if f["valid"] is not None else "")
        self.emit(depth, f"{res} = pto.view {self.use(f['source'], b)}"
                         f"{self.mixed(f['offsets'], b)}{valid}"
                         f"{self.attr_dict(_discardable(op))} : {f['source'].type} -> "
                         f"{op.result.type}{loc}")

    def _print_matmul(self, op: Op, depth: int, loc: str) -> None:
        f, b = op.fields, op.block
        res = self.define(op.result)
        attrs = [a for a in ("a_trans", "b_trans") if f[a]] + [f"cube_tile = {f['cube_tile']}"]
        attrs += _discardable(op)
        self.emit(depth, f"{res} = pto.matmul {self.use(f['lhs'], b)}, {self.use(f['rhs'], b)}"
                         f"{self.attr_dict(attrs)} : {f['lhs'].type}, {f['rhs'].type} -> "
                         f"{op.result.type}{loc}")

    def _print_binary(self, op: Op, depth: int, loc: str) -> None:
        """`%r = kind %lhs, %rhs {attrs} : T, U -> V` (rhs a tile or a scalar)."""
        f, b, kind = op.fields, op.block, op.kind
        res = self.define(op.result)
        self.emit(depth, f"{res} = {kind} {self.use(f['lhs'], b)}, {self.use(f['rhs'], b)}"
                         f"{self.attr_dict(f['attrs'] + _discardable(op))} : "
                         f"{f['lhs'].type}, {f['rhs'].type} -> "
                         f"{op.result.type}{loc}")

    def _print_one_input(self, op: Op, depth: int, loc: str) -> None:
        """Unary arithmetic and cast: `%r = kind %input {attrs} : T -> U`."""
        f, b, kind = op.fields, op.block, op.kind
        res = self.define(op.result)
        self.emit(depth, f"{res} = {kind} {self.use(f['input'], b)}"
                         f"{self.attr_dict(f['attrs'] + _discardable(op))} : "
                         f"{f['input'].type} -> "
                         f"{op.result.type}{loc}")

    def _print_compare(self, op: Op, depth: int, loc: str) -> None:
        f, b = op.fields, op.block
        res = self.define(op.result)
        self.emit(depth, f"{res} = pto.compare {f['mode']}, {self.use(f['lhs'], b)}, "
                         f"{self.use(f['rhs'], b)}"
                         f"{self.attr_dict(f['attrs'] + _discardable(op))} : "
                         f"{f['lhs'].type}, {f['rhs'].type} -> {op.result.type}{loc}")

    def _print_where(self, op: Op, depth: int, loc: str) -> None:
        f, b = op.fields, op.block
        res = self.define(op.result)
        self.emit(depth, f"{res} = pto.where {self.use(f['condition'], b)}, "
                         f"{self.use(f['on_true'], b)}, {self.use(f['on_false'], b)}"
                         f"{self.attr_dict(f['attrs'] + _discardable(op))} : "
                         f"{f['condition'].type}, {f['on_true'].type}, "
                         f"{f['on_false'].type} -> {op.result.type}{loc}")

    def _print_transpose(self, op: Op, depth: int, loc: str) -> None:
        f, b = op.fields, op.block
        res = self.define(op.result)
        self.emit(depth, f"{res} = pto.transpose {self.use(f['input'], b)}, {f['dim0']}, "
                         f"{f['dim1']}{self.attr_dict(f['attrs'] + _discardable(op))} : "
                         f"{f['input'].type} -> {op.result.type}{loc}")

    def _print_gathermask(self, op: Op, depth: int, loc: str) -> None:
        f, b = op.fields, op.block
        res = self.define(op.result)
        self.emit(depth, f"{res} = pto.gathermask {self.use(f['input'], b)}, pattern = "
                         f"{f['pattern_mode']}{self.attr_dict(f['attrs'] + _discardable(op))}"
                         f" : {f['input'].type} -> {op.result.type}{loc}")

    def _print_topk(self, op: Op, depth: int, loc: str) -> None:
        f, b = op.fields, op.block
        values, indices = self.define(op.results[0]), self.define(op.results[1])
        self.emit(depth, f"{values}, {indices} = pto.topk {self.use(f['input'], b)}, "
                         f"k = {f['k']}{self.attr_dict(f['attrs'] + _discardable(op))} : "
                         f"{f['input'].type} -> {op.results[0].type}, "
                         f"{op.results[1].type}{loc}")

    def _print_reduction(self, op: Op, depth: int, loc: str) -> None:
        f, b, kind = op.fields, op.block, op.kind
        res = self.define(op.result)
        keep = " keepdim" if f["keepdim"] else ""
        self.emit(depth, f"{res} = {kind} {self.use(f['input'], b)} dim = {f['dim']}{keep}"
                         f"{self.attr_dict(f['attrs'] + _discardable(op))} : "
                         f"{f['input'].type} -> "
                         f"{op.result.type}{loc}")

    def _print_full(self, op: Op, depth: int, loc: str) -> None:
        f = op.fields
        res = self.define(op.result)
        attrs = self.attr_dict(f["attrs"] + _discardable(op))
        self.emit(depth, f"{res} = pto.full {f['value']}{attrs} : "
                         f"{op.result.type}{loc}")

    def _print_arange(self, op: Op, depth: int, loc: str) -> None:
        f = op.fields
        res = self.define(op.result)
        attrs = self.attr_dict(f["attrs"] + _discardable(op))
        self.emit(depth, f"{res} = pto.arange {f['start']}, {f['step']}{attrs} : "
                         f"{op.result.type}{loc}")

    def _print_store(self, op: Op, depth: int, loc: str) -> None:
        f, b, kind = op.fields, op.block, op.kind
        self.emit(depth, f"{kind} {self.use(f['src'], b)}, {self.use(f['dst'], b)}"
                         f"{self.mixed(f['offsets'], b)}"
                         f"{self.attr_dict(f['attrs'] + _discardable(op))} : "
                         f"{f['src'].type}, {f['dst'].type}{loc}")

    def _print_index_put(self, op: Op, depth: int, loc: str) -> None:
        f, b = op.fields, op.block
        acc = " accumulate" if f["accumulate"] else ""
        self.emit(depth, f"pto.index_put {self.use(f['src'], b)}, {self.use(f['dst'], b)}"
                         f"[{self.use(f['indices'], b)}] {self.mixed(f['offsets'], b)}{acc}"
                         f"{self.attr_dict(f['attrs'] + _discardable(op))} : "
                         f"{f['src'].type}, {f['indices'].type}, {f['dst'].type}{loc}")

    def _print_workspace(self, op: Op, depth: int, loc: str) -> None:
        f = op.fields
        res = self.define(op.result)
        self.emit(depth, f"{res} = pto.workspace : {op.result.type}{loc}")

    def _print_loop_predicate(self, op: Op, depth: int, loc: str) -> None:
        f, b, kind = op.fields, op.block, op.kind
        res = self.define(op.result)
        self.emit(depth, f"{res} = {kind} {self.use(f['index'], b)}{loc}")

    def _results_prefix(self, op: Op) -> str:
        """``%a, %b = `` for an op with results (valid extents carried out of
        an ``scf.if`` or ``pto.loop``, valid_flow.py), else nothing."""
        if not op.results:
            return ""
        return ", ".join(self.define(r) for r in op.results) + " = "

    def _print_yield(self, kind: str, values, block: Block, depth: int) -> None:
        if values:
            self.emit(depth, f"{kind} " + ", ".join(self.use(v, block) for v in values)
                      + " : " + ", ".join(v.type for v in values))

    def _print_scf_if(self, op: Op, depth: int, loc: str) -> None:
        f, b = op.fields, op.block
        types = (" -> (" + ", ".join(r.type for r in op.results) + ")") if op.results else ""
        # Results are named after the branches are printed (they are defined
        # after them), but printed before: reserve the names first.
        prefix = self._results_prefix(op)
        self.emit(depth, f"{prefix}scf.if {self.use(f['cond'], b)}{types} {{")
        self.print_block(op.body, depth + 1)
        self._print_yield("scf.yield", f.get("then_yield"), op.body, depth + 1)
        if op.else_body.ops or op.results:
            self.emit(depth, "} else {")
            self.print_block(op.else_body, depth + 1)
            self._print_yield("scf.yield", f.get("else_yield"), op.else_body, depth + 1)
        self.emit(depth, "}" + loc)

    def print_loop(self, op: Op, depth: int, loc: str) -> None:
        f, b = op.fields, op.block
        iv = op.body.args[0]
        attrs = []
        idx_name = f["idx_name"]
        # The index prints under its idx_name (the parser takes it from
        # there) unless a kernel argument has that name.
        if idx_name in self.arg_names:
            self.define(iv, idx_name)
            attrs.append(f'idx_name = "{idx_name}"')
        else:
            self.names[iv] = "%" + idx_name
        if f["unroll_list"]:
            attrs.append("unroll_list = array<i64: " + ", ".join(map(str, f["unroll_list"])) + ">")
        if f["submit_before_loop"]:
            attrs.append("submit_before_loop")
        if f["parallel"]:
            attrs.append("parallel")
        attr_text = (" attributes {" + ", ".join(attrs) + "}") if attrs else ""
        name_text = f["name"].replace("\\", "\\\\").replace('"', '\\"')
        carried = ""
        if op.results:
            pairs = ", ".join(f"{self.define(arg)} = {self.use(init, b)}"
                              for arg, init in zip(op.body.args[1:], f["inits"]))
            carried = (f" iter_args({pairs}) -> ("
                       + ", ".join(r.type for r in op.results) + ")")
        prefix = self._results_prefix(op)
        self.emit(depth, f'{prefix}pto.loop "{name_text}" {self.names[iv]} = '
                         f'{self.use(f["lb"], b)} to {self.use(f["ub"], b)} step '
                         f'{self.use(f["step"], b)}{carried}{attr_text} {{')
        self.print_block(op.body, depth + 1)
        self._print_yield("pto.yield", f.get("yields"), op.body, depth + 1)
        self.emit(depth, "}" + loc)

    def print_scope(self, op: Op, depth: int, loc: str) -> None:
        f = op.fields
        results = op.scope_results
        attr = f["attr"]
        if results:
            names = []
            for v in results:
                name = self.fresh(v.hint)
                self.scope_names[(op, v)] = name
                names.append(name)
            types = ", ".join(v.type for v in results)
            self.emit(depth, f"{', '.join(names)} = pto.scope {attr} -> ({types}) {{")
        else:
            self.emit(depth, f"pto.scope {attr} {{")
        self.print_block(op.body, depth + 1)
        if results:
            self.emit(depth + 1, "pto.yield " + ", ".join(self.names[v] for v in results)
                      + " : " + ", ".join(v.type for v in results))
        self.emit(depth, "}" + loc)


# Op kind -> its printer (a method of Printer). A new op kind adds a row here
# (and a printer, unless it prints like a family already listed).
_OP_PRINTERS = {
    "arith.constant": Printer._print_constant,
    "arith.cmpi": Printer._print_cmpi,
    "pto.dim": Printer._print_dim,
    "pto.valid_dim": Printer._print_valid_dim,
    "pto.read": Printer._print_read,
    "pto.reshape": Printer._print_reshape,
    "pto.view": Printer._print_view,
    "pto.matmul": Printer._print_matmul,
    "pto.add": Printer._print_binary,
    "pto.sub": Printer._print_binary,
    "pto.mul": Printer._print_binary,
    "pto.div": Printer._print_binary,
    "pto.max": Printer._print_binary,
    "pto.min": Printer._print_binary,
    "pto.exp": Printer._print_one_input,
    "pto.neg": Printer._print_one_input,
    "pto.abs": Printer._print_one_input,
    "pto.sqrt": Printer._print_one_input,
    "pto.rsqrt": Printer._print_one_input,
    "pto.reciprocal": Printer._print_one_input,
    "pto.log": Printer._print_one_input,
    "pto.tanh": Printer._print_one_input,
    "pto.cast": Printer._print_one_input,
    "pto.bitcast": Printer._print_one_input,
    "pto.compare": Printer._print_compare,
    "pto.where": Printer._print_where,
    "pto.transpose": Printer._print_transpose,
    "pto.gathermask": Printer._print_gathermask,
    "pto.topk": Printer._print_topk,
    "pto.sum": Printer._print_reduction,
    "pto.amax": Printer._print_reduction,
    "pto.full": Printer._print_full,
    "pto.arange": Printer._print_arange,
    "pto.atomic_add": Printer._print_store,
    "pto.assemble": Printer._print_store,
    "pto.index_put": Printer._print_index_put,
    "pto.workspace": Printer._print_workspace,
    "pto.is_loop_begin": Printer._print_loop_predicate,
    "pto.is_loop_end": Printer._print_loop_predicate,
    "scf.if": Printer._print_scf_if,
    "pto.loop": Printer.print_loop,
    "pto.scope": Printer.print_scope,
}
