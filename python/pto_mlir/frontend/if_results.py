"""Values assigned in the branches of a run-time ``if`` and read after it.

A run-time ``if`` traces both branches into one ``scf.if`` (control.py), so
after it a Python name holds whatever the else branch left. Python's meaning
is the value of the branch taken, which the front end gives the way a PyPTO
kernel writes it by hand (a ``pypto.tensor`` written at the end of each
branch and read after the ``if``):

- the rewrite knows from the AST which names each branch assigns; it passes
  their values before the ``if`` and at the end of each branch (``locals()``)
  to ``RuntimeIf``, and rebinds them after the ``if`` to ``results()``;
- the else branch first gets back the values from before the ``if`` of the
  names the then branch assigned (Python's else never sees the then branch);
- a name whose value is the same object at both ends keeps it (a name one
  branch leaves alone keeps its old value there, so it still differs);
- tiles of the same shape and dtype become an if-result tile: on its first
  read (``Tracer.use_tile``) a ``pto.workspace`` is created before the
  ``if``, each branch's value is assembled into it at the end of the branch
  and the read views it. The end of each branch also records a workspace
  move (valid_flow.py), so a partially valid tile keeps its valid extents
  through the ``if`` (``scf.if`` results). A name never read after the ``if``
  creates nothing;
- symbolic scalars, or ints that differ, become results of the ``scf.if``
  (each branch yields its ``index`` value, materialised at its end); so do
  run-time conditions, or bools that differ (an ``i1`` result, a run-time
  condition after the ``if``); those nothing reads are removed after
  tracing with the ops made for them;
- anything else that differs (shapes, dtypes, a name bound in one branch only
  with no value before the ``if``, other Python values, tensors)
  becomes an ``IfResultError`` value: harmless unless read, and a read is a
  TraceError at the reading line naming the variable, the rule and the fix.
"""

from __future__ import annotations

from .errors import TraceError
from .graph import Op, Value, insert_op, walk_ops, watch_inserts
from .symbolic import Comparison, Scalar
from .tracer import Condition, TensorHandle, Tile, tensor_type, tile_type, user_location


class IfResultError:
    """A name that has no single value after a run-time ``if``: any use is a
    TraceError with ``message``, located where it is used."""

    __slots__ = ("_pto_message",)

    def __init__(self, message: str):
        object.__setattr__(self, "_pto_message", message)

    def pto_raise(self):
        raise TraceError(object.__getattribute__(self, "_pto_message"), user_location())

    def __getattr__(self, name):
        self.pto_raise()

    def __repr__(self) -> str:
        return "<no value after a run-time if>"


def _raising(name):
    def method(self, *args, **kwargs):
        self.pto_raise()
    method.__name__ = name
    return method


for _name in ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "floordiv",
              "rfloordiv", "mod", "rmod", "neg", "pos", "abs", "matmul", "rmatmul", "getitem",
              "setitem", "iter", "len", "bool", "int", "index", "float", "lt", "le", "gt", "ge",
              "call", "pow", "rpow", "and", "rand", "or", "ror", "invert"):
    setattr(IfResultError, f"__{_name}__", _raising(f"__{_name}__"))


def check_value(value) -> None:
    """Raises the error an ``IfResultError`` carries; a no-op otherwise."""
    if isinstance(value, IfResultError):
        value.pto_raise()


class _End:
    """A tile's value at the end of one branch, captured there (tiles are
    mutable: a later move rebinds the object, not what the branch left)."""

    __slots__ = ("block", "tile", "value", "pending", "attrs", "loc")

    def __init__(self, tracer, tile: Tile):
        from .op_support import _vec_tile_attr
        self.block = tracer.frame.block
        self.tile = tile
        self.value = tile.value
        self.pending = getattr(tile, "if_result", None)
        self.attrs = _vec_tile_attr(tracer)
        self.loc = tracer.location()


class IfResult:
    """The storage of a tile assigned in both branches, made on first read."""

    def __init__(self, tracer, if_op: Op, name: str, shape, dtype, ends):
        self.tracer, self.if_op, self.name = tracer, if_op, name
        self.shape, self.dtype, self.ends = tuple(shape), dtype, ends
        self.handle: TensorHandle | None = None

    def storage(self, reader) -> TensorHandle:
        """The workspace, placed where the block ``reader`` sees it: before
        the ``if``, or before the outermost ``pypto.loop`` holding the
        ``if`` that the reader is after (the value the last iteration left,
        as Python's ``for`` leaves it)."""
        if self.handle is not None:
            self._hoist(self.handle.value.op, reader)
            return self.handle
        from .valid_flow import MOVE_MARK, MovedValid
        outer = self.if_op.block
        ws = Op("pto.workspace", {}, [tensor_type(self.shape, self.dtype)], f"{self.name}_if",
                self.if_op.loc)
        insert_op(outer, ws, outer.ops.index(self.if_op))
        self._hoist(ws, reader)
        zeros = [0] * len(self.shape)
        for end in self.ends:
            value = end.value
            if end.pending is not None:
                # A branch's value is itself the result of an inner if: read
                # its storage at the end of the branch.
                inner = end.pending.storage(end.block)
                view = Op("pto.view", {"source": inner.value, "offsets": zeros,
                                       "valid": MovedValid(inner.value)},
                          [tile_type(self.shape, self.dtype)], self.name, end.loc)
                insert_op(end.block, view)
                value = view.result
            insert_op(end.block, Op("pto.assemble", {"src": value, "dst": ws.result,
                                                     "offsets": zeros, "attrs": end.attrs},
                                    (), "", end.loc))
            insert_op(end.block, Op(MOVE_MARK, {"workspace": ws.result, "tile": value,
                                                "shape": self.shape}, (), "", end.loc))
        self.handle = TensorHandle(self.tracer, ws.result, self.shape, self.dtype,
                                   f"{self.name}_if")
        return self.handle

    def _hoist(self, ws: Op, reader) -> None:
        """Moves ``ws`` out of the loops (and scopes) that end before
        ``reader``: it has no operands, and every path to a read after
        the loop wrote it at the end of the branch taken. A run-time ``if``
        between is not crossed: its own results carry the value."""
        anchor = None
        block = ws.block
        while not block.is_ancestor_of(reader):
            anchor = block.parent_op
            if anchor.kind == "scf.if":
                raise TraceError(
                    f"'{self.name}' is the value of the run-time `if {self.if_op.fields['text']}` "
                    f"({self.if_op.loc}) inside the run-time `if {anchor.fields['text']}` "
                    f"({anchor.loc}) and is used after that `if` ends; assign it to a variable "
                    f"in both branches of that `if` (or before it)", user_location())
            if anchor.kind == "pto.loop" and anchor.fields.get("unrolled_path"):
                raise TraceError(
                    f"'{self.name}' is the value of the run-time `if {self.if_op.fields['text']}` "
                    f"({self.if_op.loc}) in one path of pypto.loop_unroll "
                    f"'{anchor.fields['name']}' ({anchor.loc}) and is used after the loop; the "
                    f"last iteration may run in another unroll path, which has its own `if`: "
                    f"write the value to a tensor in the loop body (assemble)", user_location())
            block = anchor.block
        if anchor is None:
            return
        ws.block.ops.remove(ws)
        ws.result.scope = None
        insert_op(block, ws, block.ops.index(anchor))


_MISSING = object()


class RuntimeIf:
    """The branch selector of a rewritten ``if`` that assigns ``names``
    (control.py): iterating it traces the branches; ``restore`` gives the
    else branch the values from before the ``if``; ``leave`` records a
    branch's values at its end; ``results`` are the values after it."""

    def __init__(self, test, text: str, names: tuple, scope: dict):
        self.test, self.text, self.names = test, text, names
        self.before = {n: scope.get(n, _MISSING) for n in names}
        self.ends: list = []
        self.runtime = False
        self.op: Op | None = None
        self.tracer = None

    def __iter__(self):
        from .control import branches
        for then in branches(self.test, self.text, self):
            yield then

    def opened(self, tracer, op: Op) -> None:
        self.runtime, self.tracer, self.op = True, tracer, op

    def restore(self, names: tuple):
        values = []
        for n in names:
            old = self.before[n]
            values.append(IfResultError(self._unbound(n, "then", before_else=True))
                          if old is _MISSING else old)
        return values[0] if len(values) == 1 else tuple(values)

    def leave(self, scope: dict) -> None:
        if not self.runtime:
            return
        ends = {}
        for n in self.names:
            value = scope.get(n, _MISSING)
            if isinstance(value, IfResultError):
                value = _MISSING      # (the restore's stand-in for) no value
            if isinstance(value, Tile):
                value = _End(self.tracer, value)
            elif isinstance(value, Scalar):
                value = self._scalar_end(n, value)
            elif isinstance(value, (Condition, Comparison)):
                value = self._condition_end(n, value)
            ends[n] = value
        self.ends.append(ends)

    def _scalar_end(self, name: str, scalar: Scalar):
        """A symbolic scalar's value at the end of the branch, materialised
        there (before the ``if`` for one computed outside it); the ops made
        are dropped after tracing if nothing reads them."""
        with watch_inserts() as made:
            try:
                value = self.tracer.index_value(scalar, f"'{name}'")
            except TraceError:
                return scalar
        _scalar_state(self.tracer)["ops"].extend(made)
        return _ScalarEnd(scalar, value)

    def _condition_end(self, name: str, condition):
        """A run-time condition's ``i1`` value at the end of the branch (a
        comparison of symbolic scalars is evaluated there)."""
        if isinstance(condition, Condition):
            return _ConditionEnd(condition, condition.value)
        with watch_inserts() as made:
            value = self.tracer.compare(condition, condition.text()).value
        _scalar_state(self.tracer)["ops"].extend(made)
        return _ConditionEnd(condition, value)

    def _where(self) -> str:
        return f"the run-time `if {self.text}` ({self.op.loc})"

    def _unbound(self, name: str, branch: str, before_else: bool = False) -> str:
        if before_else:
            return (f"'{name}' is assigned in the then branch of the run-time `if {self.text}` "
                    f"and has no value before it, so the else branch cannot read it (Python "
                    f"would raise UnboundLocalError); assign '{name}' before the `if`")
        return (f"'{name}' is assigned only in the {branch} branch of {self._where()} and has "
                f"no value before it, so it has no value after the `if` when the other branch "
                f"runs; assign '{name}' before the `if` or in both branches")

    def results(self):
        values = [self._result(n) for n in self.names]
        return values[0] if len(values) == 1 else tuple(values)

    def _scalar_result(self, name: str, then, other) -> Scalar:
        """``name`` is a symbolic scalar (or ints that differ) after the
        ``if``: a result of the ``scf.if``, each branch yielding its value."""
        yields = [end.value if isinstance(end, _ScalarEnd) else self.tracer.constant(end)
                  for end in (then, other)]
        result = self._yielded_result("index", name, yields)
        return Scalar("value", (result,), self.op.block, name)

    def _condition_result(self, name: str, then, other) -> Condition:
        """``name`` is a run-time condition (or bools that differ) after the
        ``if``: an ``i1`` result of the ``scf.if``."""
        yields = [end.value if isinstance(end, _ConditionEnd)
                  else self.tracer.constant(int(end), "i1") for end in (then, other)]
        return Condition(self._yielded_result("i1", name, yields), name)

    def _yielded_result(self, type_: str, name: str, yields) -> Value:
        """A new result of the ``scf.if`` of type ``type_``, the then and else
        branches yielding ``yields``."""
        op = self.op
        result = Value(type_, name, op=op, block=op.block)
        op.results.append(result)
        op.fields.setdefault("then_yield", []).append(yields[0])
        op.fields.setdefault("else_yield", []).append(yields[1])
        _scalar_state(self.tracer)["results"].append(result)
        return result

    def _result(self, name: str):
        then, other = (ends.get(name, _MISSING) for ends in self.ends)
        a, b = (_object(end) for end in (then, other))
        if a is b:
            return a if a is not _MISSING else IfResultError(
                f"'{name}' has no value after {self._where()}: neither branch assigned it")
        if a is _MISSING or b is _MISSING:
            return IfResultError(self._unbound(name, "else" if a is _MISSING else "then"))
        if _index_like(then) and _index_like(other) and \
                (isinstance(then, _ScalarEnd) or isinstance(other, _ScalarEnd) or a != b):
            if isinstance(then, _ScalarEnd) and isinstance(other, _ScalarEnd) and \
                    then.value is other.value:
                return a
            return self._scalar_result(name, then, other)
        if _condition_like(then) and _condition_like(other) and \
                (isinstance(then, _ConditionEnd) or isinstance(other, _ConditionEnd) or a != b):
            if isinstance(then, _ConditionEnd) and isinstance(other, _ConditionEnd) and \
                    then.value is other.value:
                return a
            return self._condition_result(name, then, other)
        if isinstance(then, _End) and isinstance(other, _End):
            if then.tile.shape != other.tile.shape or then.tile.dtype != other.tile.dtype:
                return IfResultError(
                    f"'{name}' is a {list(then.tile.shape)} {then.tile.dtype!r} tile after the "
                    f"then branch of {self._where()} and a {list(other.tile.shape)} "
                    f"{other.tile.dtype!r} tile after the else branch; a value read after a "
                    f"run-time `if` has one shape and dtype: cast, reshape or pad the branches' "
                    f"values to the same shape and dtype")
            tile = Tile(other.value, then.tile.shape, then.tile.dtype)
            tile.if_result = IfResult(self.tracer, self.op, name, then.tile.shape,
                                      then.tile.dtype, [then, other])
            return tile
        if _same_python_value(a, b):
            return a
        return IfResultError(
            f"'{name}' is {_describe(a)} after the then branch of {self._where()} and "
            f"{_describe(b)} after the else branch; only tiles (of one shape and dtype), ints, "
            f"symbolic scalars, bools and run-time conditions carry a branch's value past a "
            f"run-time `if`: compute "
            f"'{name}' before the `if`, or make it a tile")


class _ScalarEnd:
    """A symbolic scalar at the end of a branch and its ``index`` value."""

    __slots__ = ("scalar", "value")

    def __init__(self, scalar: Scalar, value):
        self.scalar, self.value = scalar, value


class _ConditionEnd:
    """A run-time condition at the end of a branch and its ``i1`` value."""

    __slots__ = ("condition", "value")

    def __init__(self, condition, value):
        self.condition, self.value = condition, value


def _object(end):
    if isinstance(end, _End):
        return end.tile
    if isinstance(end, _ScalarEnd):
        return end.scalar
    if isinstance(end, _ConditionEnd):
        return end.condition
    return end


def _condition_like(end) -> bool:
    return isinstance(end, (_ConditionEnd, bool))


def _index_like(end) -> bool:
    return isinstance(end, _ScalarEnd) or (isinstance(end, int) and not isinstance(end, bool))


def _scalar_state(tracer) -> dict:
    state = tracer.__dict__.get("_if_scalars")
    if state is None:
        state = tracer.__dict__["_if_scalars"] = {"ops": [], "results": []}
    return state


def drop_unused_scalar_results(tracer) -> None:
    """After tracing: the ``scf.if`` results of scalars nothing reads, and
    the ops made for them at the branch ends, are removed (a name not read
    after its ``if`` costs nothing)."""
    state = tracer.__dict__.get("_if_scalars")
    if not state:
        return
    used = {id(v) for op in walk_ops(tracer.kernel_body) for v in op.operand_values()}
    for result in state["results"]:
        op = result.op
        if id(result) in used or result not in op.results:
            continue
        at = op.results.index(result)
        op.results.pop(at)
        op.fields["then_yield"].pop(at)
        op.fields["else_yield"].pop(at)
    changed = True
    while changed:
        changed = False
        used = {id(v) for op in walk_ops(tracer.kernel_body) for v in op.operand_values()}
        for made in state["ops"]:
            if made in made.block.ops and not any(id(r) in used for r in made.results):
                made.block.ops.remove(made)
                changed = True


def _same_python_value(a, b) -> bool:
    from .symbolic import Scalar
    if isinstance(a, (Tile, TensorHandle, Scalar)) or isinstance(b, (Tile, TensorHandle, Scalar)):
        return False
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # noqa: BLE001 - objects without a plain equality differ
        return False


def _describe(value) -> str:
    from .symbolic import Scalar
    if isinstance(value, Tile):
        return f"a {list(value.shape)} {value.dtype!r} tile"
    if isinstance(value, TensorHandle):
        return f"the tensor '{value.name}'"
    if isinstance(value, Scalar):
        return "a symbolic scalar"
    return f"{type(value).__name__} {value!r}"
