"""PyPTO's comparisons and ``where``: DT_BOOL masks.

``pypto.ge(x, 0.0)`` (and ``eq ne lt gt le``, and the Tile operators
``< <= > >=``) trace to ``pto.compare``, an ``i1`` (DT_BOOL) tile;
``pypto.where(cond, input, other)`` to ``pto.where``
(``hicann/pypto/docs/api/operation/pypto-ge.md``, ``pypto-where.md``). The
operands follow the binary ops: a tile or tensor first, a Python number or a
tile of its dtype second; lower-rank operands are lifted (broadcast.py) and
size-1 dims broadcast.
"""

from __future__ import annotations

from . import dtypes as dt
from .broadcast import align_ranks
from .elementwise_ops import _broadcast, _right_operand, _scalar_operand
from .graph import Op
from .op_support import _error, _vec_tile_attr
from .tracer import TensorHandle, Tile, current_tracer, tile_type

_FLOAT_OR_I32 = (dt.DT_FP16, dt.DT_BF16, dt.DT_FP32, dt.DT_INT32)


def _compare(name: str, input, other) -> Tile:
    tracer = current_tracer(f"pypto.{name}")
    what = f"{name}(input, other)"
    if not isinstance(input, (Tile, TensorHandle)):
        raise _error(f"{what}: the first operand must be a tile or tensor, got "
                     f"{type(input).__name__} {input!r}")
    input, other = align_ranks([input, other], what)
    a = tracer.use_tile(input, f"{name}(input)")
    if a.dtype not in _FLOAT_OR_I32:
        raise _error(f"{what}: compares {a.dtype!r}; comparisons take DT_FP16, DT_BF16, "
                     f"DT_FP32 or DT_INT32 (cast first)")
    shape, rhs = _right_operand(tracer, a, other, name, what,
                                "PyPTO requires one dtype (cast one operand)")
    fields = {"mode": name, "lhs": a.value, "rhs": rhs, "attrs": _vec_tile_attr(tracer)}
    op = Op("pto.compare", fields, [tile_type(shape, dt.DT_BOOL)], name, tracer.location())
    tracer.insert_op(op)
    return Tile(op.result, shape, dt.DT_BOOL)


def eq(input, other) -> Tile:
    return _compare("eq", input, other)


def ne(input, other) -> Tile:
    return _compare("ne", input, other)


def lt(input, other) -> Tile:
    return _compare("lt", input, other)


def le(input, other) -> Tile:
    return _compare("le", input, other)


def gt(input, other) -> Tile:
    return _compare("gt", input, other)


def ge(input, other) -> Tile:
    return _compare("ge", input, other)


def where(condition, input, other) -> Tile:
    """``result[i] = input[i] if condition[i] else other[i]``; ``input`` and
    ``other`` tiles or Python numbers (a number takes the other operand's
    dtype, DT_FP32 when both are numbers, as PyPTO's float)."""
    tracer = current_tracer("pypto.where")
    what = "where(condition, input, other)"
    if not isinstance(condition, (Tile, TensorHandle)):
        raise _error(f"{what}: condition must be a DT_BOOL tile (e.g. pypto.ge(x, 0.0)), got "
                     f"{type(condition).__name__} {condition!r}")
    condition, input, other = align_ranks([condition, input, other], what)
    cond = tracer.use_tile(condition, "where(condition)")
    if cond.dtype != dt.DT_BOOL:
        raise _error(f"{what}: condition has dtype {cond.dtype!r}; it must be DT_BOOL (the "
                     f"result of pypto.ge, pypto.lt, ...)")
    tiles = {}
    for role, value in (("input", input), ("other", other)):
        if isinstance(value, (Tile, TensorHandle)):
            tiles[role] = tracer.use_tile(value, f"where({role})")
    dtypes = {t.dtype for t in tiles.values()}
    if len(dtypes) > 1:
        raise _error(f"{what}: input and other have dtypes "
                     f"{tiles['input'].dtype!r} and {tiles['other'].dtype!r}; cast one so "
                     f"both match")
    # Scalars only: an Element's dtype, else PyPTO's float (DT_FP32).
    elements = {v.dtype for v in (input, other) if isinstance(v, dt.Element)}
    if not dtypes and len(elements) > 1:
        raise _error(f"{what}: input {input!r} and other {other!r} have different dtypes; "
                     f"give both Elements one dtype")
    dtype = dtypes.pop() if dtypes else (elements.pop() if elements else dt.DT_FP32)
    if dtype not in (dt.DT_FP16, dt.DT_BF16, dt.DT_FP32, dt.DT_INT16, dt.DT_INT32):
        raise _error(f"{what}: selects {dtype!r} values; where takes DT_FP16, DT_BF16, "
                     f"DT_FP32, DT_INT16 or DT_INT32")
    shape = cond.shape
    operands = {}
    for role, value in (("input", input), ("other", other)):
        if role in tiles:
            t = tiles[role]
            shape = _broadcast(Tile(cond.value, shape, cond.dtype), t, what)
            operands[role] = t.value
        else:
            operands[role] = _scalar_operand(
                tracer, Tile(cond.value, shape, dtype), value, f"where({role})")
    fields = {"condition": cond.value, "on_true": operands["input"],
              "on_false": operands["other"], "attrs": _vec_tile_attr(tracer)}
    op = Op("pto.where", fields, [tile_type(shape, dtype)], "where", tracer.location())
    tracer.insert_op(op)
    return Tile(op.result, shape, dtype)
