"""PyPTO reductions recorded as exact compositions of other ``pto`` ops.

``pypto.amin(x, dim, keepdim)`` (DT_FP16, DT_BF16, DT_FP32, any single dim;
https://github.com/hicann/pypto/blob/master/docs/api/operation/pypto-amin.md)
is ``-amax(-x, dim, keepdim)``: negation is exact in IEEE arithmetic and
reverses the order, so the minimum is the negated maximum of the negated
values, bit for bit (NaNs propagate as in ``amax``). The dialect keeps one
max-reduction op instead of a second one with the same lowering.

``pypto.clip(x, min, max)`` (DT_FP32, DT_FP16, DT_BF16, DT_INT32, DT_INT16;
bounds a number, an Element or a tile, either left out;
https://github.com/hicann/pypto/blob/master/docs/api/operation/pypto-clip.md)
is ``minimum(maximum(x, min), max)``: exact, no rounding. A bound of
``-inf`` (below) or ``inf`` (above) clips nothing and emits no op.
"""

from __future__ import annotations

from . import dtypes as dt
from .errors import TraceError
from .tracer import TensorHandle, Tile, current_tracer, user_location

_AMIN_TYPES = (dt.DT_FP16, dt.DT_BF16, dt.DT_FP32)


def amin(input, dim, keepdim: bool = False) -> Tile:
    """``pypto.amin(x, dim, keepdim)``: ``neg(amax(neg(x), dim, keepdim))``."""
    from . import ops
    tracer = current_tracer("pypto.amin")
    if not isinstance(input, (Tile, TensorHandle)):
        raise TraceError(f"amin(input) must be a tensor or a tile, got {input!r}",
                         user_location())
    a = tracer.use_tile(input, "amin(input)")
    if a.dtype not in _AMIN_TYPES:
        raise TraceError(f"amin(input) is {a.dtype!r}; PyPTO's amin takes DT_FP16, DT_BF16 or "
                         f"DT_FP32", user_location())
    return ops.neg(ops.amax(ops.neg(a), dim, keepdim))


_CLIP_TYPES = (dt.DT_FP32, dt.DT_FP16, dt.DT_BF16, dt.DT_INT32, dt.DT_INT16)


def _no_bound(bound, sign: float) -> bool:
    value = bound.value if isinstance(bound, dt.Element) else bound
    return bound is None or (isinstance(value, float) and value == sign * float("inf"))


def clip(input, min=None, max=None) -> Tile:  # noqa: A002 - PyPTO's names
    """``pypto.clip(x, min, max)``: ``minimum(maximum(x, min), max)``."""
    from . import ops
    tracer = current_tracer("pypto.clip")
    if not isinstance(input, (Tile, TensorHandle)):
        raise TraceError(f"clip(input) must be a tensor or a tile, got {input!r}",
                         user_location())
    a = tracer.use_tile(input, "clip(input)")
    if a.dtype not in _CLIP_TYPES:
        raise TraceError(f"clip(input) is {a.dtype!r}; PyPTO's clip takes DT_FP32, DT_FP16, "
                         f"DT_BF16, DT_INT32 or DT_INT16", user_location())
    if not _no_bound(min, -1.0):
        a = ops.maximum(a, min)
    if not _no_bound(max, 1.0):
        a = ops.minimum(a, max)
    return a
