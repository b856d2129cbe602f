"""Lower-rank operands of elementwise ops (PyPTO's broadcasting of a
``[N]`` bias against a ``[M, N]`` tile).

PyPTO aligns a lower-rank operand with the trailing dims of the other and
broadcasts it along the missing leading ones, as NumPy does: ``pypto.where``
broadcasts a ``[2]`` input against a ``[2, 2]`` condition and ``rms_norm``'s
gamma ``[C]`` against ``[..., C]`` (``hicann/pypto/docs/api/operation/
pypto-where.md``, ``pypto-rms_norm.md``); kernels add a ``[hidden]`` bias to
a ``[tile, hidden]`` matmul result. In the dialect both operands of a binary
op have one rank (size-1 dims broadcast), so the lower-rank operand gets
size-1 leading dims here: a GM tensor by ``pto.reshape ... inplace`` (no
data moves), a tile by ``unsqueeze`` (regrouped through GM, valid extents
kept).
"""

from __future__ import annotations

from .errors import TraceError
from .tracer import TensorHandle, Tile


def _rank(value) -> int | None:
    if isinstance(value, Tile):
        return value.ndim
    if isinstance(value, TensorHandle):
        return value.ndim
    return None  # a scalar: broadcasts anywhere


def _lift(value, rank: int):
    """``value`` with size-1 dims prepended up to ``rank``."""
    from . import shape_ops
    while _rank(value) < rank:
        value = shape_ops.unsqueeze(value, 0)
    return value


def align_ranks(operands: list, what: str) -> list:
    """``operands`` (tiles, tensors, scalars) with the tile-like ones lifted
    to the largest rank among them; the trailing dims must then broadcast as
    usual (the op's own check)."""
    ranks = [r for r in map(_rank, operands) if r is not None]
    if not ranks or min(ranks) == max(ranks):
        return operands
    top = max(ranks)
    if top > 4:
        raise TraceError(f"{what}: operands of rank {sorted(set(ranks))}; tiles have at most "
                         f"4 dims")
    return [v if _rank(v) in (None, top) else _lift(v, top) for v in operands]
