"""PyPTO's ``rms_norm``, recorded as a composition of ``pto`` ops.

PyPTO defines ``pypto.rms_norm(input, gamma=None, epsilon=1e-6)`` in Python
over its own elementwise and reduction ops
(https://github.com/hicann/pypto/blob/master/docs/api/operation/pypto-rms_norm.md;
its definition in the ``pypto`` package), and pto-isa has no RMSNorm instruction, so the front end records
the same composition at the call's line:

    x = cast(input, DT_FP32)
    r = sqrt(sum(x * x * (1 / C), -1, keepdim=True) + epsilon)
    y = x / r                               # div, PyPTO's default precision
    y = y * cast(reshape(gamma, [1, .., 1, C]), DT_FP32)   # when gamma is given
    cast(y, input.dtype)

over the last dim ``C`` of the input (any rank PyPTO's elementwise ops take).
PyPTO's definition also multiplies ``x`` by ``full(r.shape, 1.0)`` before the
division; ``x * 1`` is ``x`` exactly in IEEE arithmetic, so it is left out.
"""

from __future__ import annotations

from . import dtypes as dt
from .errors import TraceError
from .tracer import TensorHandle, Tile, current_tracer, user_location

_FLOAT_TYPES = (dt.DT_FP16, dt.DT_BF16, dt.DT_FP32)


def _error(message: str) -> TraceError:
    return TraceError(message, user_location())


def rms_norm(input, gamma=None, epsilon: float = 1e-6) -> Tile:
    """``pypto.rms_norm(x, gamma, eps)``: RMSNorm along the last dim, computed
    in FP32 and cast back to the input's dtype (see the module docstring)."""
    from . import ops
    tracer = current_tracer("pypto.rms_norm")
    if not isinstance(input, (Tile, TensorHandle)):
        raise _error(f"rms_norm(input) must be a tensor or a tile, got {input!r}")
    a = tracer.use_tile(input, "rms_norm(input)")
    if a.dtype not in _FLOAT_TYPES:
        raise _error(f"rms_norm(input) is {a.dtype!r}; it takes DT_FP16, DT_BF16 or DT_FP32")
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)):
        raise _error(f"rms_norm(epsilon={epsilon!r}) must be a Python number (a compile-time "
                     f"value such as 1e-6)")
    channels = a.shape[-1]
    if gamma is not None:
        if not isinstance(gamma, (Tile, TensorHandle)):
            raise _error(f"rms_norm(gamma) must be a tensor or a tile of shape [{channels}], "
                         f"got {gamma!r}")
        if gamma.dtype not in _FLOAT_TYPES:
            raise _error(f"rms_norm(gamma) is {gamma.dtype!r}; it takes DT_FP16, DT_BF16 or "
                         f"DT_FP32")
        gamma_shape = tuple(gamma.shape)
        if gamma_shape != (channels,):
            raise _error(f"rms_norm(gamma) has shape {list(gamma_shape)}, but PyPTO's rms_norm "
                         f"takes a gamma of shape [C] = [{channels}] (the input's last dim)")
    x = ops.cast(a, dt.DT_FP32)
    mean_square = ops.sum(ops.mul(ops.mul(x, x), 1.0 / channels), -1, keepdim=True)
    rms = ops.sqrt(ops.add(mean_square, float(epsilon)))
    y = ops.div(x, rms)
    if gamma is not None:
        scale = ops.reshape(gamma, [1] * (a.ndim - 1) + [channels])
        y = ops.mul(y, ops.cast(scale, dt.DT_FP32))
    return ops.cast(y, a.dtype)
