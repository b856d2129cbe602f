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
- anything else that differs (shapes, dtypes, a name bound in one branch only
  with no value before the ``if``, Python values, tensors, symbolic scalars)
  becomes an ``IfResultError`` value: harmless unless read, and a read is a
  TraceError at the reading line naming the variable, the rule and the fix.
"""

from __future__ import annotations

from .errors import TraceError
from .graph import Op, insert_op
from .tracer import TensorHandle, Tile, tensor_type, tile_type, user_location


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

    def storage(self) -> TensorHandle:
        if self.handle is not None:
            return self.handle
        from .valid_flow import MOVE_MARK, MovedValid
        outer = self.if_op.block
        ws = Op("pto.workspace", {}, [tensor_type(self.shape, self.dtype)], f"{self.name}_if",
                self.if_op.loc)
        insert_op(outer, ws, outer.ops.index(self.if_op))
        zeros = [0] * len(self.shape)
        for end in self.ends:
            value = end.value
            if end.pending is not None:
                # A branch's value is itself the result of an inner if: read
                # its storage at the end of the branch.
                inner = end.pending.storage()
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
            ends[n] = _End(self.tracer, value) if isinstance(value, Tile) else value
        self.ends.append(ends)

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

    def _result(self, name: str):
        then, other = (ends.get(name, _MISSING) for ends in self.ends)
        a = then.tile if isinstance(then, _End) else then
        b = other.tile if isinstance(other, _End) else other
        if a is b:
            return a if a is not _MISSING else IfResultError(
                f"'{name}' has no value after {self._where()}: neither branch assigned it")
        if a is _MISSING or b is _MISSING:
            return IfResultError(self._unbound(name, "else" if a is _MISSING else "then"))
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
            f"{_describe(b)} after the else branch; only tiles (of one shape and dtype) "
            f"carry a branch's value past a run-time `if`: compute '{name}' before the `if`, "
            f"or make it a tile")


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
