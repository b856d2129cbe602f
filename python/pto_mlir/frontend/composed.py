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


def _input_tile(name: str, input, dtypes: tuple, dtypes_text: str) -> Tile:
    """The tile of `name`'s input (a tensor or a tile) of one of `dtypes`; a
    located trace error otherwise."""
    tracer = current_tracer(f"pypto.{name}")
    if not isinstance(input, (Tile, TensorHandle)):
        raise TraceError(f"{name}(input) must be a tensor or a tile, got {input!r}",
                         user_location())
    a = tracer.use_tile(input, f"{name}(input)")
    if a.dtype not in dtypes:
        raise TraceError(f"{name}(input) is {a.dtype!r}; PyPTO's {name} takes {dtypes_text}",
                         user_location())
    return a


def amin(input, dim, keepdim: bool = False) -> Tile:
    """``pypto.amin(x, dim, keepdim)``: ``neg(amax(neg(x), dim, keepdim))``."""
    from . import ops
    a = _input_tile("amin", input, _AMIN_TYPES, "DT_FP16, DT_BF16 or DT_FP32")
    return ops.neg(ops.amax(ops.neg(a), dim, keepdim))


_CLIP_TYPES = (dt.DT_FP32, dt.DT_FP16, dt.DT_BF16, dt.DT_INT32, dt.DT_INT16)


def _no_bound(bound, sign: float) -> bool:
    value = bound.value if isinstance(bound, dt.Element) else bound
    return bound is None or (isinstance(value, float) and value == sign * float("inf"))


def clip(input, min=None, max=None) -> Tile:  # noqa: A002 - PyPTO's names
    """``pypto.clip(x, min, max)``: ``minimum(maximum(x, min), max)``."""
    from . import ops
    a = _input_tile("clip", input, _CLIP_TYPES,
                    "DT_FP32, DT_FP16, DT_BF16, DT_INT32 or DT_INT16")
    if not _no_bound(min, -1.0):
        a = ops.maximum(a, min)
    if not _no_bound(max, 1.0):
        a = ops.minimum(a, max)
    return a
