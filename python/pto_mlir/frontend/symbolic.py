"""Symbolic scalars (PyPTO's SymbolicScalar / SymInt).

A ``Scalar`` is a run-time integer expression built from dynamic dims, loop
indices, values read from integer tensors and Python ints. Expressions are
simplified as they are built (constant folding, ``x + 0``, ``x * 1``, and
``(x + t - 1) // t`` becomes a ceiling division) and materialised as
``arith`` ops on ``index`` only when an op needs them, in the block where they
were written (so loop-invariant values stay outside inner loops).
"""

from __future__ import annotations

from .errors import TraceError

_INT_OPS = {
    "add": "arith.addi", "sub": "arith.subi", "mul": "arith.muli",
    "floordiv": "arith.floordivsi", "ceildiv": "arith.ceildivsi",
    "min": "arith.minsi", "max": "arith.maxsi",
}
COMMUTATIVE = {"add", "mul", "min", "max"}


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


class Scalar:
    """A symbolic integer. Leaves: ``value`` (an existing index SSA value: a
    loop index, a ``pto.read`` result), ``dim`` (a dynamic dim of a tensor,
    materialised lazily). Interior nodes: add, sub, mul, floordiv, ceildiv,
    min, max. ``block`` is where the expression was written."""

    __slots__ = ("kind", "args", "block", "key", "hint", "hint_loc", "user_named", "__weakref__")

    def __init__(self, kind: str, args: tuple, block, hint: str = ""):
        self.kind = kind
        self.args = args
        self.block = block
        self.hint = hint
        self.hint_loc = None   # where the expression was written
        self.user_named = False
        if kind == "value":
            self.key = ("value", id(args[0]))
        elif kind == "dim":
            self.key = ("dim", id(args[0]), args[1])
        else:
            keys = [a.key if isinstance(a, Scalar) else ("const", a) for a in args]
            if kind in COMMUTATIVE:
                keys.sort(key=repr)
            self.key = (kind, *keys)

    # -- construction ------------------------------------------------------------

    @staticmethod
    def _coerce(x, what: str):
        if isinstance(x, Scalar) or _is_int(x):
            return x
        if isinstance(x, bool):
            raise TraceError(f"{what}: a bool is not an integer; use 0 or 1")
        raise TraceError(f"{what}: symbolic scalars combine with ints and other symbolic "
                         f"scalars only, got {type(x).__name__} {x!r}")

    @staticmethod
    def make(kind: str, lhs, rhs):
        """Builds ``lhs <kind> rhs`` (ints and Scalars), simplified."""
        from .tracer import current_tracer

        lhs = Scalar._coerce(lhs, f"symbolic '{kind}'")
        rhs = Scalar._coerce(rhs, f"symbolic '{kind}'")
        if _is_int(lhs) and _is_int(rhs):
            return _fold(kind, lhs, rhs)
        if kind in ("add", "sub") and rhs == 0:
            return lhs
        if kind == "add" and lhs == 0:
            return rhs
        if kind == "mul":
            if rhs == 1:
                return lhs
            if lhs == 1:
                return rhs
            if rhs == 0 or lhs == 0:
                return 0
        if kind in ("floordiv", "ceildiv"):
            if _is_int(rhs) and rhs == 0:
                raise TraceError("symbolic division by zero")
            if rhs == 1:
                return lhs
            if kind == "floordiv" and _is_int(rhs) and rhs > 0:
                base, offset = _split_offset(lhs)
                if offset == rhs - 1 and isinstance(base, Scalar):
                    # (x + t - 1) // t is the ceiling division of x by t.
                    kind, lhs = "ceildiv", base
        if kind in ("min", "max") and isinstance(lhs, Scalar) and isinstance(rhs, Scalar) \
                and lhs.key == rhs.key:
            return lhs
        tracer = current_tracer("symbolic arithmetic")
        result = Scalar(kind, (lhs, rhs), tracer.scalar_block())
        result.hint_loc = tracer.location()
        return result

    # -- Python operators ----------------------------------------------------------

    def __add__(self, other):
        return Scalar.make("add", self, other)

    def __radd__(self, other):
        return Scalar.make("add", other, self)

    def __sub__(self, other):
        return Scalar.make("sub", self, other)

    def __rsub__(self, other):
        return Scalar.make("sub", other, self)

    def __mul__(self, other):
        return Scalar.make("mul", self, other)

    def __rmul__(self, other):
        return Scalar.make("mul", other, self)

    def __floordiv__(self, other):
        return Scalar.make("floordiv", self, other)

    def __rfloordiv__(self, other):
        return Scalar.make("floordiv", other, self)

    def __mod__(self, other):
        # Python's modulo (sign of the divisor): x - (x // y) * y.
        return self - (self // other) * other

    def __rmod__(self, other):
        return Scalar._coerce(other, "symbolic '%'") - (other // self) * self

    def __neg__(self):
        return Scalar.make("sub", 0, self)

    def __pos__(self):
        return self

    def min(self, other):
        """``x.min(y)``: the run-time minimum (PyPTO's SymbolicScalar.min)."""
        return Scalar.make("min", self, other)

    def max(self, other):
        return Scalar.make("max", self, other)

    # -- misuse ----------------------------------------------------------------------

    def __truediv__(self, other):
        raise TraceError("symbolic scalars are integers: use // (floor division), not /")

    __rtruediv__ = __truediv__

    def __bool__(self):
        raise TraceError(
            "a symbolic scalar has no Python truth value: Python `if`/`while`/`and`/`or` "
            "run at trace time. Use x.min(y) for clamping, pypto.loop for run-time loops")

    def __index__(self):
        raise TraceError(
            "a symbolic scalar is a run-time value and cannot be used as a Python int "
            "(range(), list indices, shapes): use pypto.loop(n) for a run-time loop, and "
            "static ints for tile shapes")

    __int__ = __index__

    def __float__(self):
        raise TraceError("a symbolic scalar is a run-time integer and cannot become a "
                         "Python float")

    # Comparisons build run-time conditions (``if i < n:`` in a kernel
    # becomes an scf.if); ``==`` / ``!=`` also answer structural equality
    # inside the front end, where expressions are simplified.
    def _compare(self, predicate: str, other):
        other = Scalar._coerce(other, f"symbolic '{_PREDICATES[predicate]}'")
        return Comparison(predicate, self, other, None)

    def __lt__(self, other):
        return self._compare("slt", other)

    def __le__(self, other):
        return self._compare("sle", other)

    def __gt__(self, other):
        return self._compare("sgt", other)

    def __ge__(self, other):
        return self._compare("sge", other)

    def __eq__(self, other):
        if not isinstance(other, Scalar) and not _is_int(other):
            return NotImplemented
        same = isinstance(other, Scalar) and self.key == other.key
        return Comparison("eq", self, other, same)

    def __ne__(self, other):
        if not isinstance(other, Scalar) and not _is_int(other):
            return NotImplemented
        same = isinstance(other, Scalar) and self.key == other.key
        return Comparison("ne", self, other, not same)

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        if self.kind == "value":
            return f"Scalar({self.hint or 'value'})"
        if self.kind == "dim":
            return f"Scalar(dim {self.args[1]} of {self.args[0].name})"
        return f"Scalar({self.kind} {self.args[0]!r}, {self.args[1]!r})"


_PREDICATES = {"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">="}


class Comparison:
    """``a < b`` (``==``, ...) on symbolic scalars: a run-time condition. A
    plain ``if`` in a ``@jit`` kernel branches on it (``scf.if`` on an
    ``arith.cmpi``). Its truth value is only defined inside the front end,
    for ``==``/``!=`` (structural equality of the expressions); user code
    asking for it (``and``, ``not``, a helper's ``if``) gets a TraceError."""

    __slots__ = ("predicate", "lhs", "rhs", "structural")

    def __init__(self, predicate: str, lhs, rhs, structural):
        self.predicate = predicate
        self.lhs = lhs
        self.rhs = rhs
        self.structural = structural

    def text(self) -> str:
        def name(x):
            return str(x) if _is_int(x) else (x.hint or "<symbolic>")
        return f"{name(self.lhs)} {_PREDICATES[self.predicate]} {name(self.rhs)}"

    def __bool__(self):
        import os
        import sys
        caller = sys._getframe(1).f_code.co_filename
        # Both sides absolute: the package may be imported through a path
        # with '..' (the examples put ../python on sys.path).
        if self.structural is not None and \
                os.path.dirname(os.path.abspath(caller)) == \
                os.path.dirname(os.path.abspath(__file__)):
            return self.structural
        raise TraceError(
            f"`{self.text()}` compares symbolic scalars, a run-time condition: branch on it "
            f"with a plain `if` statement directly in the @jit kernel's body, whose test may "
            f"combine conditions with and/or/not (not through `while`, `assert`, an "
            f"assignment such as `c = a and b`, a conditional expression or a helper "
            f"function's `if`); use .min/.max for clamping")

    def __repr__(self) -> str:
        return f"Comparison({self.text()})"


def _fold(kind: str, a: int, b: int) -> int:
    if kind == "add":
        return a + b
    if kind == "sub":
        return a - b
    if kind == "mul":
        return a * b
    if kind in ("floordiv", "ceildiv"):
        if b == 0:
            raise TraceError("symbolic division by zero")
        return a // b if kind == "floordiv" else -((-a) // b)
    if kind == "min":
        return min(a, b)
    if kind == "max":
        return max(a, b)
    raise AssertionError(kind)


def _split_offset(x):
    """``x`` as ``base + offset`` with a constant offset (peeling adds and
    subtractions of ints)."""
    if _is_int(x):
        return 0, x
    if x.kind == "add":
        lhs, rhs = x.args
        if _is_int(rhs):
            base, off = _split_offset(lhs)
            return base, off + rhs
        if _is_int(lhs):
            base, off = _split_offset(rhs)
            return base, off + lhs
    if x.kind == "sub" and _is_int(x.args[1]):
        base, off = _split_offset(x.args[0])
        return base, off - x.args[1]
    return x, 0


def arith_op(kind: str) -> str:
    return _INT_OPS[kind]
