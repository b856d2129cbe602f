"""``pypto.topk``: the k largest (or smallest) elements of each last-dim row
and their positions.

PyPTO (https://github.com/hicann/pypto/blob/master/docs/api/operation/pypto-topk.md):
``values, indices = topk(input, k, dim=None, largest=True)`` on DT_FP32
tiles of rank 2 to 4, sorting the last dim only, ``1 <= k <=
input.shape[-1]``; the indices are DT_INT32 positions in the row. Recorded as
one ``pto.topk`` (both results); equal values keep their order, the lower
index first (docs/Frontend.md, "topk").
"""

from __future__ import annotations

from . import dtypes as dt
from .errors import TraceError
from .graph import Op
from .tracer import Tile, current_tracer, tile_type, user_location


def _error(message: str) -> TraceError:
    return TraceError(message, user_location())


def topk(input, k, dim=None, largest=True) -> tuple:
    """``values, indices = pypto.topk(x, k, dim=-1, largest=True)``:
    ``pto.topk`` over the last dim."""
    tracer = current_tracer("pypto.topk")
    a = tracer.use_tile(input, "topk(input)")
    if a.dtype != dt.DT_FP32:
        raise _error(f"topk(input) is {a.dtype!r}; PyPTO's topk sorts DT_FP32 only: cast the "
                     f"input with pypto.cast(x, pypto.DT_FP32) first")
    if not 2 <= a.ndim <= 4:
        raise _error(f"topk(input) has rank {a.ndim} ({list(a.shape)}); PyPTO's topk takes "
                     f"rank 2 to 4: reshape it")
    if dim is not None and (isinstance(dim, bool) or not isinstance(dim, int)
                            or dim not in (-1, a.ndim - 1)):
        raise _error(f"topk(dim={dim!r}): PyPTO's topk sorts the last dim only (dim=-1 or "
                     f"{a.ndim - 1} for a rank-{a.ndim} tile); transpose the dim to sort last")
    row = a.shape[-1]
    if isinstance(k, bool) or not isinstance(k, int):
        raise _error(f"topk(k={k!r}) must be a Python int (a compile-time count)")
    if not 1 <= k <= row:
        raise _error(f"topk(k={k}) is out of range: PyPTO requires 1 <= k <= input.shape[-1] "
                     f"= {row}")
    if not isinstance(largest, (bool, int)):
        raise _error(f"topk(largest={largest!r}) must be a bool")
    shape = (*a.shape[:-1], k)
    attrs = [] if largest else ["largest = false"]
    tile = tracer.frame.vec_tile
    if tile:
        attrs.append(f"vec_tile = #pto.vec_tile<[{', '.join(map(str, tile))}]>")
    op = Op("pto.topk", {"input": a.value, "k": k, "attrs": attrs},
            [tile_type(shape, dt.DT_FP32), tile_type(shape, dt.DT_INT32)], "topk",
            tracer.location())
    op.results[1].hint = "topk_idx"
    tracer.insert_op(op)
    return Tile(op.results[0], shape, dt.DT_FP32), Tile(op.results[1], shape, dt.DT_INT32)
