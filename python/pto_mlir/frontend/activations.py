"""Operations PyPTO defines as formulas, recorded as the pto ops of the
formula at the user's line: ``pypto.sigmoid``, ``relu``, ``softmax`` and
``pypto.experimental.online_softmax`` / ``online_softmax_update``."""

from __future__ import annotations

from . import dtypes as dt
from .ambient import experimental
from .elementwise_ops import add, cast, div, exp, maximum, mul, neg, reciprocal, sub
from .op_support import _error, _is_int
from .reduce_ops import amax, sum  # noqa: A004 - pypto.sum, not the builtin
from .tracer import Tile, current_tracer


def sigmoid(input) -> Tile:
    """``pypto.sigmoid(x)``: ``1 / (1 + exp(-x))``
    (``hicann/pypto/docs/api/operation/pypto-sigmoid.md``), recorded at this
    line as ``pto.neg``, ``pto.exp``, ``pto.add``, ``pto.reciprocal``: pto-isa
    has no sigmoid instruction. Computed in FP32: an FP16/BF16 input is cast
    to FP32 and the result back, as PyPTO's own definition of sigmoid does."""
    tracer = current_tracer("pypto.sigmoid")
    a = tracer.use_tile(input, "sigmoid(input)")
    if a.dtype not in _HALF_OR_FP32:
        raise _error(f"sigmoid(input) is {a.dtype!r}; PyPTO's sigmoid takes floating-point "
                     f"tiles (computed in DT_FP32)")
    x = cast(a, dt.DT_FP32)
    return cast(reciprocal(add(exp(neg(x)), 1.0)), a.dtype)


def relu(input) -> Tile:
    """``pypto.relu(x)``: ``max(0, x)`` (``hicann/pypto/docs/api/operation/
    pypto-relu.md``: DT_FP16, DT_FP32, DT_BF16; NaN and inf inputs are not
    supported there), recorded at this line as ``pto.max`` with the scalar 0."""
    tracer = current_tracer("pypto.relu")
    a = tracer.use_tile(input, "relu(input)")
    if a.dtype not in (dt.DT_FP16, dt.DT_FP32, dt.DT_BF16):
        raise _error(f"relu(input) is {a.dtype!r}; PyPTO's relu takes DT_FP16, DT_FP32 or "
                     f"DT_BF16")
    return maximum(a, 0.0)


def softmax(input, dim) -> Tile:
    """``pypto.softmax(x, dim)``: ``exp(x - max) / sum(exp(x - max))`` along
    ``dim`` (``hicann/pypto/docs/api/operation/pypto-softmax.md``), recorded
    at this line as ``pto.amax``, ``pto.sub``, ``pto.exp``, ``pto.sum``,
    ``pto.div`` (keepdim reductions broadcast back); in FP32, an FP16/BF16
    input cast to FP32 and the result back, as PyPTO's definition does."""
    tracer = current_tracer("pypto.softmax")
    a = tracer.use_tile(input, "softmax(input)")
    if a.dtype not in _HALF_OR_FP32:
        raise _error(f"softmax(input) is {a.dtype!r}; PyPTO's softmax takes floating-point "
                     f"tiles (computed in DT_FP32)")
    if not _is_int(dim) or not -a.ndim <= dim < a.ndim:
        raise _error(f"softmax(dim={dim!r}) must be an int in [{-a.ndim}, {a.ndim - 1}] for a "
                     f"rank-{a.ndim} tile")
    x = cast(a, dt.DT_FP32)
    shifted = exp(sub(x, amax(x, dim, keepdim=True)))
    return cast(div(shifted, sum(shifted, dim, keepdim=True)), a.dtype)


_HALF_OR_FP32 = (dt.DT_FP16, dt.DT_BF16, dt.DT_FP32)


def _online_softmax(scores, scale):
    """``p, m, l = pypto.experimental.online_softmax(scores, scale)``: the
    local statistics of an online softmax over axis 0 (PyPTO: "axis-0 online
    softmax local statistics", hicann/pypto python/pypto/experimental/
    operation.py), decomposed into pto ops at this line: ``m = amax(scores,
    0) * scale``, ``p = exp(scores * scale - m)``, ``l = sum(p, 0)``; ``p`` is
    returned in BF16 for the following matmul."""
    tracer = current_tracer("pypto.experimental.online_softmax")
    s = tracer.use_tile(scores, "online_softmax(scores)")
    if s.ndim != 2 or s.dtype != dt.DT_FP32:
        raise _error(f"online_softmax(scores) takes a 2-D FP32 tile, got {list(s.shape)} "
                     f"{s.dtype!r}")
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or scale <= 0:
        raise _error(f"online_softmax(scale) must be a positive Python number, got {scale!r}")
    m = mul(amax(s, 0, keepdim=True), scale)
    p = exp(sub(mul(s, scale), m))
    l_sum = sum(p, 0, keepdim=True)
    return cast(p, dt.DT_BF16), m, l_sum


def _online_softmax_update(previous_max, previous_sum, previous_output, current_max,
                           current_sum, current_output):
    """``m, l, o = pypto.experimental.online_softmax_update(m0, l0, o0, m1, l1,
    o1)``: merges a block's statistics into the running ones (the statistics
    are per column, axis 0 reduced, as online_softmax gives them):
    ``m = max(m0, m1)``, ``l = exp(m0 - m) * l0 + exp(m1 - m) * l1``,
    ``o = o0 * exp(m0 - m) + o1 * exp(m1 - m)``."""
    tracer = current_tracer("pypto.experimental.online_softmax_update")
    names = ("previous_max", "previous_sum", "previous_output", "current_max", "current_sum",
             "current_output")
    tiles = [tracer.use_tile(t, f"online_softmax_update({n})")
             for n, t in zip(names, (previous_max, previous_sum, previous_output, current_max,
                                     current_sum, current_output))]
    m0, l0, o0, m1, l1, o1 = tiles
    for n, t in zip(names, tiles):
        if t.dtype != dt.DT_FP32:
            raise _error(f"online_softmax_update({n}) must be FP32, got {t.dtype!r}")
    m = maximum(m0, m1)
    a0 = exp(sub(m0, m))
    a1 = exp(sub(m1, m))
    l_new = add(mul(a0, l0), mul(a1, l1))
    o_new = add(mul(o0, a0), mul(o1, a1))
    return m, l_new, o_new


experimental.online_softmax = staticmethod(_online_softmax)
experimental.online_softmax_update = staticmethod(_online_softmax_update)
