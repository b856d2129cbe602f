"""PyPTO reductions recorded as exact compositions of other ``pto`` ops.

``pypto.amin(x, dim, keepdim)`` (DT_FP16, DT_BF16, DT_FP32, any single dim;
https://github.com/hicann/pypto/blob/master/docs/api/operation/pypto-amin.md)
is ``-amax(-x, dim, keepdim)``: negation is exact in IEEE arithmetic and
reverses the order, so the minimum is the negated maximum of the negated
values, bit for bit (NaNs propagate as in ``amax``). The dialect keeps one
max-reduction op instead of a second one with the same lowering.
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
