"""Bit-exact FP32 <-> BF16 conversions on uint16 bit patterns.

NumPy has no bfloat16 dtype, so BF16 values live as uint16 bit patterns. The
conversion algorithms are the ones required of the emulation header
(docs/AscendTarget.md#bf16-conversions), so the golden and the C++ emulator round
identically. Gradual underflow is kept (no subnormal flushing).
"""

from __future__ import annotations

import numpy as np

MODES = ("rint", "round", "trunc", "floor", "ceil", "odd")

_SIGN = np.uint32(0x80000000)
_ABS = np.uint32(0x7FFFFFFF)
_INF = np.uint32(0x7F800000)
_LOW = np.uint32(0xFFFF)
_QUIET = np.uint32(0x0040)
_SIXTEEN = np.uint32(16)
_ONE = np.uint32(1)


def f32_bits_to_bf16_bits(u, mode: str = "rint") -> np.ndarray:
    """Convert FP32 bit patterns (uint32) to BF16 bit patterns (uint16).

    NaN is handled first for every mode, returning ``(u >> 16) | 0x0040`` (a quiet
    NaN with the sign kept); otherwise truncation would turn a NaN whose payload
    sits in the low 16 bits into +-inf.
    """
    if mode not in MODES:
        raise ValueError(f"unknown BF16 rounding mode {mode!r}; expected one of {MODES}")
    u = np.asarray(u)
    if u.dtype != np.uint32:
        if np.any((u < 0) | (u > 0xFFFFFFFF)):
            raise ValueError("FP32 bit patterns must lie in [0, 2**32)")
        u = u.astype(np.uint32)
    shape = u.shape
    u = u.reshape(-1)  # 1-D keeps the arithmetic on arrays (silent mod-2**32 wrap)
    trunc = u >> _SIXTEEN
    inexact = (u & _LOW) != 0
    negative = (u & _SIGN) != 0
    if mode == "rint":
        r = (u + np.uint32(0x7FFF) + (trunc & _ONE)) >> _SIXTEEN
    elif mode == "round":
        r = (u + np.uint32(0x8000)) >> _SIXTEEN
    elif mode == "trunc":
        r = trunc
    elif mode == "floor":  # toward -inf: negative values grow in magnitude
        r = trunc + (inexact & negative).astype(np.uint32)
    elif mode == "ceil":  # toward +inf: positive values grow in magnitude
        r = trunc + (inexact & ~negative).astype(np.uint32)
    else:  # "odd": sticky bit into the lowest kept bit
        r = trunc | inexact.astype(np.uint32)
    is_nan = (u & _ABS) > _INF
    r = np.where(is_nan, trunc | _QUIET, r)
    return r.astype(np.uint16).reshape(shape)


def f32_to_bf16_bits(x, mode: str = "rint") -> np.ndarray:
    """Round FP32 values to BF16 bit patterns (uint16), default RNE (CAST_RINT).

    Non-float32 input is first converted to float32 by NumPy (itself RNE), so pass
    float32 data to avoid double rounding.
    """
    a = np.asarray(x, dtype=np.float32)
    return f32_bits_to_bf16_bits(a.view(np.uint32), mode)


def bf16_bits_to_f32(bits) -> np.ndarray:
    """Widen BF16 bit patterns to float32 exactly (``u = bits << 16``)."""
    b = np.asarray(bits)
    if b.dtype != np.uint16:
        if np.any((b < 0) | (b > 0xFFFF)):
            raise ValueError("BF16 bit patterns must lie in [0, 65535]")
        b = b.astype(np.uint16)
    return (b.astype(np.uint32) << _SIXTEEN).view(np.float32)


def round_bf16(x, mode: str = "rint") -> np.ndarray:
    """FP32 -> BF16 -> FP32: the value a BF16 cube operand actually carries."""
    return bf16_bits_to_f32(f32_to_bf16_bits(x, mode))
