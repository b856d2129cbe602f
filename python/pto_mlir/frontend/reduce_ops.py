"""Reductions along one dim: ``pypto.sum`` and ``pypto.amax``."""

from __future__ import annotations

from .op_support import _error, _is_int, _record, _vec_tile_attr
from .tracer import Tile, current_tracer


def _reduce(name: str, input, dim, keepdim: bool) -> Tile:
    tracer = current_tracer(f"pypto.{name}")
    a = tracer.use_tile(input, f"{name}(input)")
    if not _is_int(dim):
        raise _error(f"{name}(dim) must be an int, got {dim!r}")
    if not -a.ndim <= dim < a.ndim:
        raise _error(f"{name}(dim={dim}) is out of range for a rank-{a.ndim} tile")
    dim = dim % a.ndim
    shape = list(a.shape)
    if keepdim:
        shape[dim] = 1
    else:
        del shape[dim]
    if not shape:
        raise _error(f"{name} of a rank-1 tile without keepdim gives a scalar; use "
                     f"keepdim=True")
    fields = {"input": a.value, "dim": dim, "keepdim": bool(keepdim),
              "attrs": _vec_tile_attr(tracer)}
    return _record(tracer, f"pto.{name}", fields, tuple(shape), a.dtype, name)


def sum(input, dim, keepdim: bool = False) -> Tile:  # noqa: A001 - the PyPTO name
    return _reduce("sum", input, dim, keepdim)


def amax(input, dim, keepdim: bool = False) -> Tile:
    return _reduce("amax", input, dim, keepdim)
