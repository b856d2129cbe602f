"""What the PyPTO operation modules share: checks of static arguments and
the recording of one tile-producing op. Each operation checks what it can
before the MLIR verifier sees the IR and raises a ``TraceError`` at the
user's line naming the argument and the fix."""

from __future__ import annotations

from .graph import Op
from .symbolic import Scalar
from .trace_context import _error
from .tracer import Tile, tile_type


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _static_list(values, what: str, positive: bool = True) -> tuple:
    if isinstance(values, (int, Scalar)) and not isinstance(values, bool):
        values = [values]
    try:
        items = list(values)
    except TypeError:
        raise _error(f"{what} must be a list of ints, got {type(values).__name__} {values!r}")
    for i, v in enumerate(items):
        if isinstance(v, Scalar):
            raise _error(f"{what}[{i}] is a symbolic (run-time) value: tile shapes are "
                         f"compile-time constants; compute them from Python ints (tile "
                         f"configs, static dims)")
        if not _is_int(v):
            raise _error(f"{what}[{i}] must be an int, got {type(v).__name__} {v!r}")
        if positive and v <= 0:
            raise _error(f"{what}[{i}] must be positive, got {v}")
    return tuple(items)


def _vec_tile_attr(tracer) -> list:
    tile = tracer.frame.vec_tile
    return [f"vec_tile = #pto.vec_tile<[{', '.join(map(str, tile))}]>"] if tile else []


def _record(tracer, kind, fields, shape, dtype, hint) -> Tile:
    op = Op(kind, fields, [tile_type(shape, dtype)], hint, tracer.location())
    tracer.insert_op(op)
    return Tile(op.result, shape, dtype)
